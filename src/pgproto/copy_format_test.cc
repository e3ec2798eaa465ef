// CopyRecordReader (copy_format.h): PostgreSQL's text and CSV formats, and
// the same records however the data is cut into CopyData messages.
#include "pgproto/copy_format.h"

#include <gtest/gtest.h>

#include <optional>

#include "common/error.h"

namespace freshet {
namespace {

using Record = std::vector<std::optional<std::string>>;  // nullopt = NULL

// Reads all records of `data` handed over in pieces cut at `cuts`.
std::vector<Record> ReadRecords(const CopyFormat& format, const std::string& data, std::vector<size_t> cuts = {}) {
  CopyRecordReader reader(format);
  std::vector<Record> out;
  std::vector<CopyField> fields;
  auto take = [&](bool final) {
    while (reader.Next(final, &fields)) {
      Record r;
      for (const auto& f : fields) r.push_back(f.null ? std::nullopt : std::optional<std::string>(std::string(f.text)));
      out.push_back(r);
    }
  };
  size_t at = 0;
  cuts.push_back(data.size());
  for (size_t cut : cuts) {
    reader.Append(std::string_view(data).substr(at, cut - at));
    at = cut;
    take(false);
  }
  take(true);
  return out;
}

CopyFormat Csv() {
  CopyFormat f;
  f.csv = true;
  f.delimiter = ',';
  f.null_string = "";
  return f;
}

// Every way of cutting the data in two gives the same records.
void ExpectSameAtEveryCut(const CopyFormat& format, const std::string& data, const std::vector<Record>& expected) {
  EXPECT_EQ(ReadRecords(format, data), expected);
  for (size_t cut = 0; cut <= data.size(); cut++)
    EXPECT_EQ(ReadRecords(format, data, {cut}), expected) << "cut at " << cut;
  std::vector<size_t> every_byte;
  for (size_t i = 1; i < data.size(); i++) every_byte.push_back(i);
  EXPECT_EQ(ReadRecords(format, data, every_byte), expected) << "one byte at a time";
}

TEST(CopyRecordReaderTest, Csv) {
  std::string data =
      "1,plain,\n"
      "2,\"quoted, with comma\",\"\"\n"
      "3,\"doubled \"\"quote\"\"\",x\r\n"
      "4,\"line\nbreak\",\"mixed\"tail\n"
      "5,,last";
  ExpectSameAtEveryCut(Csv(), data,
                       {{"1", "plain", std::nullopt},
                        {"2", "quoted, with comma", ""},
                        {"3", "doubled \"quote\"", "x"},
                        {"4", "line\nbreak", "mixedtail"},
                        {"5", std::nullopt, "last"}});
}

// Unquoted runs are found 64 bytes at a time: fields longer than a window,
// and delimiters, quotes and line ends at every offset within one, read as
// a byte-at-a-time reader would.
TEST(CopyRecordReaderTest, CsvLongFieldsAcrossWindows) {
  std::string data;
  std::vector<Record> expected;
  for (size_t len : {0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 200}) {
    std::string a(len, 'a'), b(len % 7, 'b');
    data += a + "," + b + ",\"q" + a + "\"\n";
    expected.push_back({len ? std::optional<std::string>(a) : std::nullopt, len % 7 ? std::optional<std::string>(b) : std::nullopt, "q" + a});
  }
  ExpectSameAtEveryCut(Csv(), data, expected);
  EXPECT_EQ(ReadRecords(Csv(), data), expected);
}

TEST(CopyRecordReaderTest, CsvEscapeAndNullString) {
  CopyFormat f = Csv();
  f.escape = '\\';
  f.null_string = "NULL";
  ExpectSameAtEveryCut(f, "\"a\\\"b\\\\c\",NULL,\"NULL\"\n", {{"a\"b\\c", std::nullopt, "NULL"}});
}

TEST(CopyRecordReaderTest, CsvEndMarkerAndUnterminatedQuote) {
  EXPECT_EQ(ReadRecords(Csv(), "1,a\n\\.\n2,b\n"), (std::vector<Record>{{"1", "a"}}));
  EXPECT_EQ(ReadRecords(Csv(), "\"\\.\"\n"), (std::vector<Record>{{"\\."}}));  // quoted: data, not the marker
  try {
    ReadRecords(Csv(), "1,\"open\n");
    FAIL() << "no error";
  } catch (const SqlError& e) {
    EXPECT_EQ(e.code(), sqlstate::kBadCopyFileFormat);
  }
}

TEST(CopyRecordReaderTest, Text) {
  CopyFormat f;  // text: tab, \N
  std::string data =
      "1\tplain\t\\N\n"
      "2\ttab\\there\\\\back\t\n"
      "3\t\\x41\\101\\q\\x\tesc\\\tdelim\r\n"
      "\n"
      "4\tno newline";
  ExpectSameAtEveryCut(f, data,
                       {{"1", "plain", std::nullopt},
                        {"2", "tab\there\\back", ""},
                        {"3", "AAqx", "esc\tdelim"},
                        {""},
                        {"4", "no newline"}});
  EXPECT_EQ(ReadRecords(f, "1\n\\.\n2\n"), (std::vector<Record>{{"1"}}));
}

// CopyBlockSplitter: whatever the sizes of the messages and blocks, the
// blocks hold exactly the records a single reader finds, in order, each
// block numbered by the records before it, and nothing after the end
// marker.
void ExpectBlocksMatchReader(const CopyFormat& format, const std::string& data) {
  std::vector<Record> expected = ReadRecords(format, data);
  for (size_t message : {size_t(1), size_t(7), size_t(64), data.size()})
    for (size_t min_bytes : {size_t(1), size_t(50), size_t(1000)}) {
      CopyBlockSplitter splitter(format);
      std::vector<Record> got;
      int64_t records = 0;
      std::string block;
      int64_t first = 0;
      auto take = [&](bool final) {
        while (splitter.Next(final, min_bytes, &block, &first)) {
          EXPECT_EQ(first, records) << "message " << message << ", blocks of " << min_bytes;
          std::vector<Record> in_block = ReadRecords(format, block);
          records += static_cast<int64_t>(in_block.size());
          got.insert(got.end(), in_block.begin(), in_block.end());
        }
      };
      for (size_t at = 0; at < data.size() && !splitter.ended(); at += message) {
        splitter.Append(std::string_view(data).substr(at, message));
        take(false);
      }
      take(true);
      EXPECT_EQ(got, expected) << "message " << message << ", blocks of " << min_bytes;
    }
}

TEST(CopyBlockSplitterTest, BlocksHoldWholeRecords) {
  std::string plain, quoted, text;
  for (int i = 0; i < 200; i++) {
    plain += std::to_string(i) + ",name" + std::to_string(i % 13) + ",2024-01-01 00:00:00\n";
    quoted += std::to_string(i) + ",\"a,\"\"b\"\"\nc\"," + (i % 3 ? "x" : "") + "\r\n";
    text += std::to_string(i) + "\tesc\\\\aped\\n\t\\N\n";
  }
  ExpectBlocksMatchReader(Csv(), plain);
  ExpectBlocksMatchReader(Csv(), plain + "last,no,newline");
  ExpectBlocksMatchReader(Csv(), quoted);
  ExpectBlocksMatchReader(CopyFormat(), text);
  ExpectBlocksMatchReader(Csv(), plain + "\\.\n" + plain);            // the end marker
  ExpectBlocksMatchReader(CopyFormat(), text + "\\.\r\nignored\n");  // text, CRLF
  CopyFormat bare_cr = Csv();
  ExpectBlocksMatchReader(bare_cr, "1,a\r2,b\r3,c");  // old Mac line ends

  // Records before an unterminated quote come out first; then the error.
  CopyBlockSplitter splitter(Csv());
  splitter.Append("1,a\n2,b\n3,\"open\n4,d\n");
  std::string block;
  int64_t first = -1;
  ASSERT_TRUE(splitter.Next(false, 1, &block, &first));
  EXPECT_EQ(block, "1,a\n2,b\n");
  EXPECT_EQ(first, 0);
  EXPECT_THROW(splitter.Next(true, 1, &block, &first), SqlError);
}

}  // namespace
}  // namespace freshet
