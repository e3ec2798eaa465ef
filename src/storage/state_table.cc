#include "storage/state_table.h"

#include "storage/table_engines.h"

// Inlined: a vnode is computed per row written (the library's call
// costs more than hashing eight bytes). Same algorithm, same hashes.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/error.h"

namespace freshet {

uint16_t ComputeVnode(const DataChunk& chunk, size_t row, const std::vector<int>& dist_key) {
  if (dist_key.empty()) return 0;
  uint64_t h = 0;
  for (int c : dist_key) h = h * 31 + chunk.column(c).HashAt(row);
  return static_cast<uint16_t>(XXH3_64bits(&h, sizeof(h)) % kVnodeCount);
}

uint16_t ComputeVnodeOfBigint(int64_t v) {
  uint64_t h = XXH3_64bits(&v, sizeof(v));  // Vector::HashAt of a BIGINT
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

std::string RowKey(TableId table_id, const std::vector<int>& dist_key, const std::vector<int>& pk,
                   const DataChunk& chunk, size_t row) {
  std::string key = VnodePrefix(table_id, ComputeVnode(chunk, row, dist_key));
  for (int c : pk) EncodeKeyFromVector(chunk.column(c), row, &key);
  return key;
}

void StateTable::EpochLog::IndexFrom(size_t pos) {
  if (!indexed) return;
  for (size_t i = pos; i < ops->size(); i++)
    if (!(*ops)[i].change_log) index.Put(*ops, i);  // not the table's rows: see WriteOp
}

bool StateTable::EpochLog::Find(const std::string& key, std::optional<std::string>* value) {
  if (!indexed) {
    indexed = true;
    index.Reserve(ops->size());
    IndexFrom(0);
  }
  const std::optional<size_t> at = index.Find(*ops, key);
  if (!at) {
    for (const auto& rows : bulk)
      if (auto found = rows->Find(key)) {
        *value = std::move(found);
        return true;
      }
    return false;
  }
  const WriteOp& op = (*ops)[*at];
  if (op.is_delete) *value = std::nullopt;
  else *value = std::string(op.value);
  return true;
}

void StateTable::Put(std::string_view key, std::string_view value, int8_t row_delta) {
  std::lock_guard<std::mutex> lock(mu_);
  log_.ops->Put(key, value, row_delta);
  log_.IndexFrom(log_.ops->size() - 1);
}

void StateTable::Delete(std::string_view key, int8_t row_delta) {
  std::lock_guard<std::mutex> lock(mu_);
  log_.ops->Delete(key, row_delta);
  log_.IndexFrom(log_.ops->size() - 1);
}

void StateTable::Write(WriteLog&& writes) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& ops = *log_.ops;
  if (ops.empty() && !log_.indexed) {
    ops.swap(writes);
    return;
  }
  size_t first = ops.size();
  ops.Append(writes);
  log_.IndexFrom(first);
}

void StateTable::WriteBulk(std::shared_ptr<const BulkRows> rows) {
  std::lock_guard<std::mutex> lock(mu_);
  if (rows->size()) log_.bulk.push_back(std::move(rows));
}

bool StateTable::FindBufferedLocked(const std::string& key, std::optional<std::string>* value) const {
  auto* self = const_cast<StateTable*>(this);  // the indexes are caches
  if (self->log_.Find(key, value)) return true;
  for (auto it = self->sealed_.rbegin(); it != self->sealed_.rend(); ++it)
    if (it->Find(key, value)) return true;
  return false;
}

StateTable::StateTable(StateStore* store, StateTableDesc desc) : store_(store), desc_(std::move(desc)) {
  if (store_) {
    const TableEngine& engine = store_->engines().For(desc_.table_id);
    if (&engine != &store_->engines().row_store()) engine_ = &engine;
  }
}

Status StateTable::ReadCommitted(const std::string& key, std::string* value) const {
  if (engine_) return engine_->GetCommitted(key, value);
  return store_->Get(store_->data_cf(), nullptr, key, value);
}

std::optional<std::string> StateTable::Get(const std::string& key) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::optional<std::string> value;
    if (FindBufferedLocked(key, &value)) return value;
  }
  std::string value;
  Status s = ReadCommitted(key, &value);
  if (s.IsNotFound()) return std::nullopt;
  s.ThrowIfError();
  return value;
}

std::vector<std::optional<std::string>> StateTable::MultiGet(const std::vector<std::string_view>& keys) const {
  std::vector<std::optional<std::string>> values(keys.size());
  std::vector<std::string_view> committed;
  std::vector<size_t> at;  // committed[j] is keys[at[j]]
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < keys.size(); i++) {
      if (FindBufferedLocked(std::string(keys[i]), &values[i])) continue;
      committed.push_back(keys[i]);
      at.push_back(i);
    }
  }
  std::vector<std::optional<std::string>> read;
  if (engine_) {
    engine_->GetCommittedMany(committed, &read).ThrowIfError();
  } else {
    store_->MultiGet(store_->data_cf(), nullptr, committed, &read).ThrowIfError();
  }
  for (size_t j = 0; j < at.size(); j++) values[at[j]] = std::move(read[j]);
  return values;
}

std::string StateTable::KeyIn(uint16_t vnode, std::string_view suffix) const {
  std::string key = VnodePrefix(desc_.table_id, vnode);
  key.append(suffix);
  return key;
}

Status StateTable::GetCommitted(const std::string& key, std::string* value) const {
  return ReadCommitted(key, value);
}

bool StateTable::Cursor::Valid() const { return range_->it->Valid(); }
void StateTable::Cursor::Next() { range_->it->Next(); }
void StateTable::Cursor::Prev() { range_->it->Prev(); }
void StateTable::Cursor::SeekToLast() { range_->it->SeekToLast(); }
std::string_view StateTable::Cursor::key() const {
  rocksdb::Slice k = range_->it->key();
  return {k.data(), k.size()};
}
std::string_view StateTable::Cursor::value() const {
  rocksdb::Slice v = range_->it->value();
  return {v.data(), v.size()};
}

Status StateTable::Cursor::status() const {
  rocksdb::Status s = range_->it->status();
  return s.ok() ? Status::OK() : Status::IoError(s.ToString());
}

StateTable::Cursor StateTable::ScanCommitted(std::string lower, std::string upper, const Snapshot* snapshot,
                                             StateStore::ReadPattern pattern) const {
  if (upper.empty()) upper = PrefixSuccessor(TablePrefix(desc_.table_id));
  if (engine_)
    throw SqlError(sqlstate::kFeatureNotSupported,
                   "reading a range of a time-series table's committed rows by storage key");
  Cursor c;
  c.range_ = store_->NewRange(store_->data_cf(), snapshot, std::move(lower), std::move(upper), pattern);
  return c;
}

StateTable::Cursor StateTable::ScanCommittedPrefix(const std::string& prefix) const {
  return ScanCommitted(prefix, PrefixSuccessor(prefix));
}

void StateTable::ForEachUncommittedChange(
    const std::function<void(const std::string* committed, const std::string* latest)>& fn) const {
  // Keys in write order, each once; ops may overwrite bulk rows of the same
  // window, bulk rows are new keys (never committed before).
  std::vector<std::string> op_keys;
  std::vector<std::shared_ptr<const BulkRows>> bulk;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::unordered_map<std::string_view, bool> seen;
    auto collect = [&](const EpochLog& log) {
      for (const auto& rows : log.bulk) bulk.push_back(rows);
      for (const auto& op : *log.ops)
        if (seen.emplace(op.key, true).second) op_keys.emplace_back(op.key);
    };
    for (const auto& log : sealed_) collect(log);
    collect(log_);
  }
  std::unordered_map<std::string_view, bool> written_by_ops;
  for (const auto& k : op_keys) written_by_ops.emplace(k, true);
  for (const auto& key : op_keys) {
    std::optional<std::string> latest = Get(key);
    std::string committed;
    Status s = ReadCommitted(key, &committed);
    if (!s.ok() && !s.IsNotFound()) s.ThrowIfError();
    const std::string* before = s.ok() ? &committed : nullptr;
    if (!before && !latest) continue;
    if (before && latest && *before == *latest) continue;
    fn(before, latest ? &*latest : nullptr);
  }
  for (const auto& rows : bulk) {
    BulkRows::Cursor c(rows.get());
    for (c.Seek(""); c.Valid(); c.Next()) {
      if (written_by_ops.count(c.key())) continue;  // handled with the ops
      std::string row(c.value());
      fn(nullptr, &row);
    }
  }
}

StateTable::SealedWrites StateTable::Seal(Epoch epoch) {
  std::lock_guard<std::mutex> lock(mu_);
  log_.epoch = epoch;
  SealedWrites sealed{log_.ops, log_.bulk};
  size_t ops = log_.ops->size();
  if (!sealed.empty()) sealed_.push_back(std::move(log_));
  log_ = EpochLog();
  // Room for as much as this epoch wrote, from the recycled logs.
  log_.ops = TakeSharedWriteLog(std::min<size_t>(ops, kMaxReservedOps));
  return sealed;
}

void StateTable::ReleaseSealed(Epoch committed) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  while (n < sealed_.size() && sealed_[n].epoch <= committed) n++;
  sealed_.erase(sealed_.begin(), sealed_.begin() + n);
}

void StateTable::TakeWrites(WriteLog* out) {
  WriteLog pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!log_.bulk.empty()) throw SqlError(sqlstate::kInternalError, "bulk rows of a table whose writes are taken");
    pending.swap(*log_.ops);
    log_ = EpochLog();
    // The next epoch likely writes as much: room for it up front (from the
    // recycled logs: write_log.h) saves growing the log as it fills.
    *log_.ops = TakeWriteLog(std::min<size_t>(pending.size(), kMaxReservedOps));
  }
  // The smaller log is appended to the larger one: writes of different
  // tables never share a key, so their relative order does not matter.
  if (out->size() < pending.size()) out->swap(pending);
  out->Append(pending);
  RecycleWriteLog(std::move(pending));
}

size_t StateTable::PendingCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = log_.ops->size();
  for (const auto& rows : log_.bulk) n += rows->size();
  return n;
}

bool StateTable::HasPendingWrites() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !log_.ops->empty() || !log_.bulk.empty();
}

}  // namespace freshet
