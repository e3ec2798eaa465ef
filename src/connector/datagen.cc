#include "connector/datagen.h"

#include <xxhash.h>

#include <chrono>

#include "common/datetime.h"
#include "common/error.h"

namespace freshet {

namespace {

struct FieldGen {
  bool sequence = false;
  int64_t start = 0, end = 32767;
  int64_t min = 0, max = 32767;
  uint64_t seed = 0;
  int64_t length = 10;
  int64_t max_past_seconds = 86400;
};

class DatagenConnector;

class DatagenReader : public SplitReader {
 public:
  DatagenReader(const DatagenConnector* c, int split) : c_(c), split_(split) {}
  int64_t offset() const override { return offset_; }
  void Seek(int64_t offset) override { offset_ = offset; }
  bool Next(DataChunk* out, size_t max_rows) override;

 private:
  const DatagenConnector* c_;
  int split_;
  int64_t offset_ = 0;  // rows of this split generated so far
};

class DatagenConnector : public SourceConnector {
 public:
  DatagenConnector(std::vector<SourceColumn> columns, std::vector<FieldGen> fields, int splits, double rate,
                   int64_t base_time)
      : columns_(std::move(columns)), fields_(std::move(fields)), splits_(splits), rate_(rate), base_time_(base_time) {}
  int num_splits() const override { return splits_; }
  std::unique_ptr<SplitReader> OpenSplit(int split) const override { return std::make_unique<DatagenReader>(this, split); }
  double rows_per_second() const override { return rate_ / splits_; }

  // Appends the value of `col` for global row number `row`; false when a
  // sequence column is past its end.
  bool Append(size_t col, int64_t row, Vector* out) const {
    const FieldGen& f = fields_[col];
    const DataType& t = columns_[col].type;
    uint64_t h = XXH3_64bits_withSeed(&row, sizeof(row), f.seed * 0x9e3779b97f4a7c15ULL + col);
    switch (t.id) {
      case TypeId::kBoolean: out->AppendBool(h & 1); return true;
      case TypeId::kVarchar: {
        std::string s(size_t(std::max<int64_t>(f.length, 0)), 'a');
        if (f.sequence) {
          s = std::to_string(f.start + row);
          if (f.start + row > f.end) return false;
        } else {
          for (auto& ch : s) {
            ch = char('a' + h % 26);
            h = h * 6364136223846793005ULL + 1442695040888963407ULL;
          }
        }
        out->AppendString(std::move(s));
        return true;
      }
      case TypeId::kTimestamp:
      case TypeId::kTimestamptz: {
        if (f.sequence) {
          if (f.start + row > f.end) return false;
          out->AppendInt(base_time_ + (f.start + row) * kMicrosPerSecond);
        } else {
          int64_t past = f.max_past_seconds > 0 ? int64_t(h % uint64_t(f.max_past_seconds * kMicrosPerSecond)) : 0;
          out->AppendInt(base_time_ - past);
        }
        return true;
      }
      default: break;
    }
    int64_t v;
    if (f.sequence) {
      v = f.start + row;
      if (v > f.end) return false;
    } else {
      uint64_t span = uint64_t(f.max - f.min) + 1;
      v = f.min + int64_t(span == 0 ? h : h % span);
    }
    switch (t.physical()) {
      case PhysicalType::kInt64: out->AppendInt(v); break;
      case PhysicalType::kDouble:
        out->AppendFloat(f.sequence ? double(v) : f.min + double(h >> 11) / double(1ULL << 53) * double(f.max - f.min));
        break;
      case PhysicalType::kDecimal: out->AppendDecimal(Decimal{v, 0}); break;
      default: out->AppendNull();
    }
    return true;
  }

  size_t num_columns() const { return columns_.size(); }
  bool RowExists(int64_t row) const {
    for (const auto& f : fields_)
      if (f.sequence && f.start + row > f.end) return false;
    return true;
  }

 private:
  std::vector<SourceColumn> columns_;
  std::vector<FieldGen> fields_;
  int splits_;
  double rate_;
  int64_t base_time_;
};

bool DatagenReader::Next(DataChunk* out, size_t max_rows) {
  size_t appended = 0;
  for (; appended < max_rows; appended++) {
    int64_t row = offset_ * c_->num_splits() + split_;
    // A row exists only while every sequence column still has a value.
    if (!c_->RowExists(row)) break;
    for (size_t c = 0; c < c_->num_columns(); c++) c_->Append(c, row, &out->column(c));
    offset_++;
  }
  return appended > 0;
}

}  // namespace

std::unique_ptr<SourceConnector> MakeDatagenConnector(const std::map<std::string, std::string>& options,
                                                      const std::vector<SourceColumn>& columns) {
  std::vector<FieldGen> fields;
  for (const auto& col : columns) {
    FieldGen f;
    std::string p = "fields." + col.name + ".";
    std::string kind = StringOption(options, p + "kind", "random");
    if (kind != "random" && kind != "sequence")
      throw SqlError(sqlstate::kInvalidParameterValue, "fields." + col.name + ".kind must be 'random' or 'sequence'");
    f.sequence = kind == "sequence";
    f.start = IntOption(options, p + "start", 0);
    f.end = IntOption(options, p + "end", 32767);
    f.min = IntOption(options, p + "min", 0);
    f.max = IntOption(options, p + "max", 32767);
    f.seed = uint64_t(IntOption(options, p + "seed", 0));
    f.length = IntOption(options, p + "length", 10);
    f.max_past_seconds = IntOption(options, p + "max_past", 86400);
    if (f.sequence && f.start > f.end)
      throw SqlError(sqlstate::kInvalidParameterValue, "fields." + col.name + ".start must not be greater than end");
    if (!f.sequence && f.min > f.max)
      throw SqlError(sqlstate::kInvalidParameterValue, "fields." + col.name + ".min must not be greater than max");
    switch (col.type.id) {
      case TypeId::kBoolean: case TypeId::kInt16: case TypeId::kInt32: case TypeId::kInt64: case TypeId::kFloat32:
      case TypeId::kFloat64: case TypeId::kNumeric: case TypeId::kVarchar: case TypeId::kTimestamp:
      case TypeId::kTimestamptz:
        break;
      default:
        throw SqlError(sqlstate::kFeatureNotSupported,
                       "datagen cannot generate column " + col.name + " of type " + col.type.ToString());
    }
    fields.push_back(f);
  }
  int64_t splits = IntOption(options, "datagen.split.num", 1);
  int64_t rate = IntOption(options, "datagen.rows.per.second", 10);
  if (splits < 1 || splits > 1024) throw SqlError(sqlstate::kInvalidParameterValue, "datagen.split.num must be in 1..1024");
  if (rate < 0) throw SqlError(sqlstate::kInvalidParameterValue, "datagen.rows.per.second must not be negative");
  // Random timestamps lie before the source's creation time, recorded in
  // the options so that a restart generates the same rows.
  int64_t base = IntOption(options, "_created_at_micros", 0);
  return std::make_unique<DatagenConnector>(columns, std::move(fields), int(splits), double(rate), base);
}

}  // namespace freshet
