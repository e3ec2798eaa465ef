#include "storage/state_table.h"

#include <xxhash.h>

namespace freshet {

uint16_t ComputeVnode(const DataChunk& chunk, size_t row, const std::vector<int>& dist_key) {
  if (dist_key.empty()) return 0;
  uint64_t h = 0;
  for (int c : dist_key) h = h * 31 + chunk.column(c).GetValue(row).Hash();
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

void StateTable::Put(const std::string& key, std::string value) {
  std::lock_guard<std::mutex> lock(mu_);
  buffer_[key] = std::move(value);
}

void StateTable::Delete(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  buffer_[key] = std::nullopt;
}

std::optional<std::string> StateTable::Get(const std::string& key) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = buffer_.find(key);
    if (it != buffer_.end()) return it->second;
  }
  std::string value;
  Status s = store_->Get(store_->data_cf(), nullptr, key, &value);
  if (s.IsNotFound()) return std::nullopt;
  s.ThrowIfError();
  return value;
}

size_t StateTable::FlushInto(rocksdb::WriteBatch* batch) {
  std::map<std::string, std::optional<std::string>> pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending.swap(buffer_);
  }
  for (auto& [k, v] : pending) {
    if (v) batch->Put(store_->data_cf(), k, *v);
    else batch->Delete(store_->data_cf(), k);
  }
  return pending.size();
}

bool StateTable::HasPendingWrites() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !buffer_.empty();
}

}  // namespace freshet
