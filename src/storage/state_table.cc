#include "storage/state_table.h"

#include <xxhash.h>

namespace freshet {

uint16_t ComputeVnode(const DataChunk& chunk, size_t row, const std::vector<int>& dist_key) {
  if (dist_key.empty()) return 0;
  uint64_t h = 0;
  for (int c : dist_key) h = h * 31 + chunk.column(c).HashAt(row);
  return static_cast<uint16_t>(XXH3_64bits(&h, sizeof(h)) % kVnodeCount);
}

uint16_t StateTable::VnodeOf(const DataChunk& chunk, size_t row) const {
  return ComputeVnode(chunk, row, desc_.dist_key_indices);
}

std::string StateTable::KeyOf(const DataChunk& chunk, size_t row) const {
  std::string key = VnodePrefix(desc_.table_id, VnodeOf(chunk, row));
  for (size_t i = 0; i < desc_.pk_indices.size(); i++) {
    bool desc = i < desc_.pk_descending.size() && desc_.pk_descending[i];
    EncodeKeyFromVector(chunk.column(desc_.pk_indices[i]), row, &key, desc);
  }
  return key;
}

void StateTable::IndexLocked(size_t pos) const { index_[log_[pos].key] = pos; }

void StateTable::Put(std::string key, std::string value) {
  std::lock_guard<std::mutex> lock(mu_);
  log_.push_back(WriteOp{false, std::move(key), std::move(value), false});
  if (indexed_) IndexLocked(log_.size() - 1);
}

void StateTable::Delete(std::string key) {
  std::lock_guard<std::mutex> lock(mu_);
  log_.push_back(WriteOp{true, std::move(key), "", false});
  if (indexed_) IndexLocked(log_.size() - 1);
}

void StateTable::Write(std::vector<WriteOp>&& writes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (log_.empty() && !indexed_) {
    log_.swap(writes);
    return;
  }
  log_.reserve(log_.size() + writes.size());
  for (auto& w : writes) {
    log_.push_back(std::move(w));
    if (indexed_) IndexLocked(log_.size() - 1);
  }
}

std::optional<std::string> StateTable::Get(const std::string& key) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!indexed_) {
      for (size_t i = 0; i < log_.size(); i++) IndexLocked(i);
      indexed_ = true;
    }
    auto it = index_.find(key);
    if (it != index_.end()) {
      const WriteOp& op = log_[it->second];
      if (op.is_delete) return std::nullopt;
      return op.value;
    }
  }
  std::string value;
  Status s = store_->Get(store_->data_cf(), nullptr, key, &value);
  if (s.IsNotFound()) return std::nullopt;
  s.ThrowIfError();
  return value;
}

size_t StateTable::FlushInto(rocksdb::WriteBatch* batch) {
  std::vector<WriteOp> pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending.swap(log_);
    index_.clear();
    indexed_ = false;
  }
  for (auto& e : pending) {
    if (e.is_delete) batch->Delete(store_->data_cf(), e.key);
    else batch->Put(store_->data_cf(), e.key, e.value);
  }
  return pending.size();
}

void StateTable::TakeWrites(std::vector<WriteOp>* out) {
  std::vector<WriteOp> pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending.swap(log_);
    index_.clear();
    indexed_ = false;
  }
  if (out->empty()) {
    out->swap(pending);
    return;
  }
  out->insert(out->end(), std::make_move_iterator(pending.begin()), std::make_move_iterator(pending.end()));
}

size_t StateTable::PendingCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_.size();
}

bool StateTable::HasPendingWrites() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !log_.empty();
}

}  // namespace freshet
