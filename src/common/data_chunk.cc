#include "common/data_chunk.h"

namespace freshet {

DataChunk::DataChunk(const std::vector<DataType>& types) {
  columns_.reserve(types.size());
  for (const auto& t : types) columns_.emplace_back(t);
}

std::vector<DataType> DataChunk::types() const {
  std::vector<DataType> out;
  out.reserve(columns_.size());
  for (const auto& c : columns_) out.push_back(c.type());
  return out;
}

void DataChunk::AppendRow(const Row& row) {
  for (size_t i = 0; i < columns_.size(); i++) columns_[i].Append(row[i]);
  cardinality_++;
}

void DataChunk::AppendRowFrom(const DataChunk& other, size_t r) {
  for (size_t i = 0; i < columns_.size(); i++) columns_[i].AppendFrom(other.columns_[i], r);
  cardinality_++;
}

Row DataChunk::GetRow(size_t r) const {
  Row row;
  row.reserve(columns_.size());
  for (const auto& c : columns_) row.push_back(c.GetValue(r));
  return row;
}

void DataChunk::Filter(const std::vector<uint8_t>& keep) {
  size_t kept = 0;
  for (auto k : keep) kept += k != 0;
  if (kept == keep.size()) return;  // every row stays: nothing to copy
  for (auto& c : columns_) c.Filter(keep);
  cardinality_ = kept;
}

DataChunk DataChunk::Take(const std::vector<uint32_t>& sel) const {
  DataChunk out;
  for (const auto& c : columns_) out.columns_.push_back(c.Take(sel));
  out.cardinality_ = sel.size();
  return out;
}

void DataChunk::Clear() {
  for (auto& c : columns_) c.Clear();
  cardinality_ = 0;
}

}  // namespace freshet
