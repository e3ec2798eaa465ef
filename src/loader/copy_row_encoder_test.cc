// CopyRowEncoder (copy_row_encoder.h), the fast path of bulk COPY: every
// row it encodes, and the storage key BulkRows::AddEncoded gives it, are
// byte for byte what the general path (CopyRowBuilder, PrepareInsertRows,
// BulkRows::Add) produces; it refuses the tables and records it does not
// cover; bad values throw as they do on the general path.
#include "loader/copy_row_encoder.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "batch/dml.h"
#include "common/encoding.h"
#include "common/error.h"
#include "loader/copy_loader.h"
#include "storage/bulk_rows.h"
#include "storage/state_table.h"

namespace freshet {
namespace {

// t(i2 smallint, i4 integer NOT NULL, i8 bigint, f8 double precision,
//   s text, v varchar, d date, ts timestamp, _row_id)
TableCatalog Table() {
  TableCatalog t;
  t.id = 41;
  t.name = "t";
  t.columns = {{"i2", DataType::Int16()},   {"i4", DataType::Int32(), true},   {"i8", DataType::Int64()},
               {"f8", DataType::Float64()}, {"s", DataType::Text()},           {"v", DataType::Varchar()},
               {"d", DataType::Date()},     {"ts", DataType::Timestamp()},     {"_row_id", DataType::Int64(), true, true}};
  t.row_id_index = 8;
  t.pk = {8};
  t.dist_key = {8};
  return t;
}
const std::vector<int> kAllVisible = {0, 1, 2, 3, 4, 5, 6, 7};

std::map<std::string, std::string> Entries(const BulkRows& rows) {
  std::map<std::string, std::string> out;
  BulkRows::Cursor c(&rows);
  for (c.Seek(""); c.Valid(); c.Next()) out[std::string(c.key())] = std::string(c.value());
  return out;
}

TEST(CopyRowEncoderTest, RowsAndKeysEqualTheGeneralPath) {
  auto table = std::make_shared<const TableCatalog>(Table());
  auto encoder = CopyRowEncoder::For(*table, kAllVisible);
  ASSERT_NE(encoder, nullptr);
  std::mt19937_64 rng(11);
  std::vector<std::vector<std::string>> texts;
  std::vector<std::vector<bool>> nulls;
  for (int r = 0; r < 3000; r++) {
    auto pick = [&](std::vector<std::string> options) { return options[rng() % options.size()]; };
    texts.push_back({std::to_string(static_cast<int16_t>(rng())), std::to_string(static_cast<int32_t>(rng())),
                     std::to_string(static_cast<int64_t>(rng())),
                     pick({"0", "-0", "1.5", "3.141592653589793", "1e300", "-2.5e-300", "12345.678901", "NaN", " 7 "}),
                     std::string(rng() % 300, 'x'), pick({"", "a", "héllo", "tab\there"}),
                     pick({"2024-02-29", "1999-12-31", "0001-01-01", "2024-2-3"}),
                     pick({"2024-08-29 22:24:55", "2024-01-01 00:00:00.123456", "1970-01-01", "2000-06-30T01:02:03"})});
    std::vector<bool> n(8);
    for (int c = 0; c < 8; c++) n[c] = c != 1 && rng() % 9 == 0;  // i4 is NOT NULL
    nulls.push_back(n);
  }
  RowIdRun ids = ReserveRowIds(texts.size());
  BulkRows general(table->id, table->row_id_index, table->StorageDesc().dist_key_indices);
  BulkRows fast(table->id, table->row_id_index, table->StorageDesc().dist_key_indices);
  CopyRowBuilder builder(table, kAllVisible, EvalContext());
  std::vector<CopyField> fields(8);
  for (size_t r = 0; r < texts.size(); r++) {
    for (int c = 0; c < 8; c++) fields[c] = {texts[r][c], static_cast<bool>(nulls[r][c])};
    builder.Add(fields, static_cast<int64_t>(r + 1));
    int64_t row_id;
    ids.Fill(r, 1, &row_id);
    std::string_view row;
    ASSERT_TRUE(encoder->Encode(fields, row_id, &row)) << "record " << r;
    fast.AddEncoded(row_id, row);
  }
  general.Add(PrepareInsertRows(*table, builder.Take(), ids, 0));
  EXPECT_EQ(fast.size(), general.size());
  EXPECT_TRUE(Entries(fast) == Entries(general));
}

TEST(CopyRowEncoderTest, VnodesAndKeysOfBigintsEqualTheVectorForms) {
  std::mt19937_64 rng(3);
  DataChunk chunk({DataType::Int64()});
  for (int i = 0; i < 5000; i++) chunk.AppendRow({Value::Int64(static_cast<int64_t>(rng()))});
  chunk.AppendRow({Value::Int64(INT64_MIN)});
  chunk.AppendRow({Value::Int64(0)});
  for (size_t r = 0; r < chunk.num_rows(); r++) {
    int64_t v = chunk.column(0).GetInt(r);
    EXPECT_EQ(ComputeVnodeOfBigint(v), ComputeVnode(chunk, r, {0})) << v;
    std::string a, b;
    EncodeBigintKey(v, &a);
    EncodeKeyFromVector(chunk.column(0), r, &b);
    EXPECT_EQ(a, b) << v;
    char c[kBigintKeySize];
    EXPECT_EQ(EncodeBigintKeyTo(v, c), c + kBigintKeySize);
    EXPECT_EQ(std::string(c, kBigintKeySize), b) << v;
  }
}

TEST(CopyRowEncoderTest, RefusesWhatItDoesNotCover) {
  TableCatalog t = Table();
  EXPECT_EQ(CopyRowEncoder::For(t, {0, 1, 2, 3, 4, 5, 6}), nullptr);        // a column left out
  EXPECT_EQ(CopyRowEncoder::For(t, {1, 0, 2, 3, 4, 5, 6, 7}), nullptr);     // another order
  for (DataType other : {DataType::Boolean(), DataType::Numeric(), DataType(TypeId::kVarchar, 10, -1),
                         DataType::Timestamptz(), DataType::Float32(), DataType::Interval()}) {
    TableCatalog u = Table();
    u.columns[5].type = other;
    EXPECT_EQ(CopyRowEncoder::For(u, kAllVisible), nullptr) << static_cast<int>(other.id);
  }
  TableCatalog keyed = Table();
  keyed.row_id_index = -1;
  EXPECT_EQ(CopyRowEncoder::For(keyed, kAllVisible), nullptr);  // a declared key: checked the general way

  auto encoder = CopyRowEncoder::For(t, kAllVisible);
  ASSERT_NE(encoder, nullptr);
  std::vector<std::string> good = {"1", "2", "3", "4.5", "s", "v", "2024-01-01", "2024-01-01 00:00:00"};
  std::vector<CopyField> fields;
  for (const auto& g : good) fields.push_back({g, false});
  std::string_view row;
  EXPECT_TRUE(encoder->Encode(fields, 1, &row));
  fields[1].null = true;  // i4 is NOT NULL
  EXPECT_FALSE(encoder->Encode(fields, 1, &row));
  fields[1].null = false;
  fields.pop_back();  // a field missing
  EXPECT_FALSE(encoder->Encode(fields, 1, &row));
  fields.push_back({"2024-01-01 00:00:00", false});
  for (auto [column, bad] : std::vector<std::pair<int, std::string>>{
           {0, "40000"}, {1, "x"}, {2, "99999999999999999999"}, {3, "1.2.3"}, {6, "2024-02-30"}, {7, "noon"}}) {
    std::vector<CopyField> f = fields;
    f[column].text = bad;
    EXPECT_THROW(encoder->Encode(f, 1, &row), SqlError) << bad;
  }
}

}  // namespace
}  // namespace freshet
