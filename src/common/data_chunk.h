// DataChunk and StreamChunk: the unit of data flow in both engines.
//
// A DataChunk is a set of equally long Vectors (columns) of up to
// kChunkSize rows. Batch executors pass DataChunks; stream executors pass
// StreamChunks, which add an operation per row (docs/architecture.md,
// Invariants). Rows are always dense: executors that filter compact the
// vectors instead of carrying a selection, which keeps every consumer
// simple.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/vector.h"

namespace freshet {

inline constexpr size_t kChunkSize = 1024;

class DataChunk {
 public:
  DataChunk() = default;
  explicit DataChunk(const std::vector<DataType>& types);
  explicit DataChunk(std::vector<Vector> columns) : columns_(std::move(columns)) {}

  size_t num_columns() const { return columns_.size(); }
  size_t num_rows() const { return columns_.empty() ? cardinality_ : columns_[0].size(); }
  bool empty() const { return num_rows() == 0; }
  std::vector<DataType> types() const;

  Vector& column(size_t i) { return columns_[i]; }
  const Vector& column(size_t i) const { return columns_[i]; }
  std::vector<Vector>& columns() { return columns_; }
  const std::vector<Vector>& columns() const { return columns_; }
  void AddColumn(Vector v) { columns_.push_back(std::move(v)); }

  // For chunks without columns (e.g. SELECT count(*) input): row count only.
  void set_cardinality(size_t n) { cardinality_ = n; }

  void AppendRow(const Row& row);
  void AppendRowFrom(const DataChunk& other, size_t i);
  Row GetRow(size_t i) const;
  void Filter(const std::vector<uint8_t>& keep);
  DataChunk Take(const std::vector<uint32_t>& sel) const;
  void Clear();

 private:
  std::vector<Vector> columns_;
  size_t cardinality_ = 0;
};

enum class Op : uint8_t { kInsert = 0, kDelete = 1, kUpdateDelete = 2, kUpdateInsert = 3 };

inline bool IsInsertOp(Op op) { return op == Op::kInsert || op == Op::kUpdateInsert; }

class StreamChunk {
 public:
  StreamChunk() = default;
  StreamChunk(std::vector<Op> ops, DataChunk data) : ops_(std::move(ops)), data_(std::move(data)) {}

  size_t num_rows() const { return ops_.size(); }
  const std::vector<Op>& ops() const { return ops_; }
  std::vector<Op>& ops() { return ops_; }
  const DataChunk& data() const { return data_; }
  DataChunk& data() { return data_; }

 private:
  std::vector<Op> ops_;
  DataChunk data_;
};

}  // namespace freshet
