#include "storage/change_log.h"

#include <algorithm>

#include "common/encoding.h"
#include "common/error.h"
#include "storage/state_store.h"

namespace freshet {

namespace {

constexpr size_t kEpochOffset = 4;                          // after [log_id]
constexpr size_t kVnodeOffset = kEpochOffset + 8;           // after the epoch
constexpr size_t kPkOffset = kVnodeOffset + 2;              // after the vnode
constexpr size_t kEntryKeyMin = kPkOffset + 1;              // a pk has a byte at least
// A value's tag: the stored form of an entry.
constexpr char kInsertTag = 'I', kDeleteTag = 'D', kUpdateTag = 'U';
constexpr char kTruncatedThrough = 'T', kWrittenThrough = 'W';  // the records' tags (epoch 0)
// A consumer's record: [log][epoch 0]['C'][consumer id: 4 BE] -> a kind and
// a number (kReadThroughTag: an epoch; kRetentionTag: milliseconds).
constexpr char kConsumerTag = 'C', kReadThroughTag = 'E', kRetentionTag = 'R';

std::string EpochPrefix(TableId log_id, Epoch epoch) {
  std::string k = TablePrefix(log_id);
  PutFixed64BE(&k, epoch);
  return k;
}

std::string VnodeStart(TableId log_id, Epoch epoch, uint32_t vnode) {
  // vnode may be kVnodeCount (past the last): still 16 bits.
  std::string k = EpochPrefix(log_id, epoch);
  PutFixed16BE(&k, static_cast<uint16_t>(vnode));
  return k;
}

std::string EntryKey(TableId log_id, Epoch epoch, uint16_t vnode, std::string_view pk) {
  std::string k = VnodeStart(log_id, epoch, vnode);
  k.append(pk);
  return k;
}

std::string RecordKey(TableId log_id, char tag) {
  std::string k = EpochPrefix(log_id, 0);
  k.push_back(tag);
  return k;
}

std::string ConsumerKey(TableId log_id, uint32_t consumer) {
  std::string k = RecordKey(log_id, kConsumerTag);
  PutFixed32BE(&k, consumer);
  return k;
}

std::string ConsumerValue(const ChangeLogConsumer& c) {
  std::string v(1, c.retention_ms > 0 ? kRetentionTag : kReadThroughTag);
  PutFixed64BE(&v, c.retention_ms > 0 ? static_cast<uint64_t>(c.retention_ms) : c.read_through);
  return v;
}

std::string EntryValue(char tag, std::string_view row) {
  std::string v;
  v.reserve(row.size() + 1);
  v.push_back(tag);
  v.append(row);
  return v;
}

std::string UpdateValue(std::string_view before, std::string_view after) {
  std::string v;
  v.reserve(before.size() + after.size() + 5);
  v.push_back(kUpdateTag);
  PutFixed32BE(&v, static_cast<uint32_t>(before.size()));
  v.append(before);
  v.append(after);
  return v;
}

Epoch EpochOfKey(std::string_view key) { return GetFixed64BE(key.data() + kEpochOffset); }

std::string EpochValue(Epoch epoch) {
  std::string v;
  PutFixed64BE(&v, epoch);
  return v;
}

}  // namespace

Epoch ChangeLogConsumer::Needs(int64_t now_ms) const {
  if (retention_ms > 0) return now_ms > retention_ms ? static_cast<Epoch>(now_ms - retention_ms) << 16 : 0;
  return read_through + 1;
}

void PutChangeLogConsumer(TableId log_id, const ChangeLogConsumer& consumer, WriteLog* out) {
  out->PutChangeLog(ConsumerKey(log_id, consumer.id), ConsumerValue(consumer));
}

Status RegisterChangeLogConsumer(StateStore* store, TableId log_id, const ChangeLogConsumer& consumer) {
  rocksdb::WriteBatch batch;
  batch.Put(store->change_log_cf(), ConsumerKey(log_id, consumer.id), ConsumerValue(consumer));
  return store->Commit(&batch);
}

Status RemoveChangeLogConsumer(StateStore* store, TableId log_id, uint32_t id) {
  rocksdb::WriteBatch batch;
  batch.Delete(store->change_log_cf(), ConsumerKey(log_id, id));
  return store->Commit(&batch);
}

Result<bool> RetireOldLayoutChangeLog(StateStore* store, TableId log_id, Epoch through) {
  const std::string prefix = TablePrefix(log_id);
  {
    auto range = store->NewRange(store->data_cf(), nullptr, prefix, PrefixSuccessor(prefix), StateStore::ReadPattern::kOnce);
    if (!range->it->Valid()) return false;
  }
  // A writer of this version may have logged since (a data directory that
  // went through session 42): what it wrote is readable.
  ChangeLogReader reader(store, log_id);
  if (std::optional<Epoch> oldest = reader.OldestEpoch(nullptr)) through = std::min(through, *oldest - 1);
  rocksdb::WriteBatch batch;
  batch.DeleteRange(store->data_cf(), prefix, PrefixSuccessor(prefix));
  if (through > reader.TruncatedThrough(nullptr))
    batch.Put(store->change_log_cf(), RecordKey(log_id, kTruncatedThrough), EpochValue(through));
  Status s = store->Commit(&batch);
  if (!s.ok()) return s;
  return true;
}

const char* ChangeLogOpName(ChangeLogOp op) {
  switch (op) {
    case ChangeLogOp::kInsert: return "Insert";
    case ChangeLogOp::kDelete: return "Delete";
    case ChangeLogOp::kUpdateDelete: return "UpdateDelete";
    case ChangeLogOp::kUpdateInsert: return "UpdateInsert";
  }
  return "?";
}

void ChangeLogEpoch::Add(uint16_t vnode, std::string_view pk, bool enters, std::string_view row) {
  auto [it, first] = keys_.try_emplace({vnode, std::string(pk)});
  Net& net = it->second;
  // The first change of a key tells what it had before the epoch: a row
  // that leaves was there, one that enters was not.
  if (first && !enters) net.before = std::string(row);
  if (enters) net.after = std::string(row);
  else net.after.reset();
}

void ChangeLogEpoch::AddKeyed(std::string_view relation_key, bool enters, std::string_view row) {
  if (relation_key.size() < 6) return;
  Add(VnodeOfKey(relation_key), PkOfKey(relation_key), enters, row);
}

size_t ChangeLogEpoch::WriteTo(TableId log_id, Epoch epoch, WriteLog* out) {
  size_t written = 0;
  for (const auto& [key, net] : keys_) {
    const auto& [vnode, pk] = key;
    if (net.before && net.after) {
      out->PutChangeLog(EntryKey(log_id, epoch, vnode, pk), UpdateValue(*net.before, *net.after));
      written += 2;
    } else if (net.before) {
      out->PutChangeLog(EntryKey(log_id, epoch, vnode, pk), EntryValue(kDeleteTag, *net.before));
      written++;
    } else if (net.after) {
      out->PutChangeLog(EntryKey(log_id, epoch, vnode, pk), EntryValue(kInsertTag, *net.after));
      written++;
    }
    // Neither: the key came and went within the epoch.
  }
  keys_.clear();
  out->PutChangeLog(RecordKey(log_id, kWrittenThrough), EpochValue(epoch));
  return written;
}

std::optional<Epoch> ChangeLogReader::NextEpoch(const Snapshot* snapshot, Epoch after) const {
  if (after == UINT64_MAX) return std::nullopt;
  auto range = store_->NewRange(store_->change_log_cf(), snapshot, EpochPrefix(log_id_, std::max<Epoch>(after + 1, 1)),
                                PrefixSuccessor(TablePrefix(log_id_)));
  if (!range->it->Valid()) return std::nullopt;
  rocksdb::Slice k = range->it->key();
  if (k.size() < kEntryKeyMin) return std::nullopt;
  return EpochOfKey({k.data(), k.size()});
}

void ChangeLogReader::ReadEpoch(const Snapshot* snapshot, Epoch epoch, int vnode_begin, int vnode_end,
                                const std::optional<Position>& after,
                                const std::function<bool(const ChangeLogEntry&, const Position&)>& fn) const {
  if (vnode_begin >= vnode_end) return;
  std::string lower = VnodeStart(log_id_, epoch, static_cast<uint32_t>(vnode_begin));
  std::string resume;  // the key of `after`: read from its second half, if it has one
  if (after) {
    resume = EntryKey(log_id_, epoch, after->vnode, after->pk);
    lower = std::max(lower, resume);
  }
  auto range = store_->NewRange(store_->change_log_cf(), snapshot, std::move(lower),
                                VnodeStart(log_id_, epoch, static_cast<uint32_t>(vnode_end)),
                                StateStore::ReadPattern::kOnce);
  Position at;
  for (; range->it->Valid(); range->it->Next()) {
    rocksdb::Slice k = range->it->key(), v = range->it->value();
    if (k.size() < kEntryKeyMin || v.size() < 1) continue;
    const bool resuming = after && std::string_view(k.data(), k.size()) == resume;
    std::string_view pk(k.data() + kPkOffset, k.size() - kPkOffset);
    at.vnode = GetFixed16BE(k.data() + kVnodeOffset);
    at.pk.assign(pk);
    const std::string_view value(v.data() + 1, v.size() - 1);
    if (v.data()[0] == kUpdateTag) {
      if (value.size() < 4 || GetFixed32BE(value.data()) > value.size() - 4)
        throw SqlError(sqlstate::kDataCorrupted, "corrupt change log entry");
      const uint32_t before = GetFixed32BE(value.data());
      const ChangeLogEntry halves[2] = {{ChangeLogOp::kUpdateDelete, at.vnode, pk, value.substr(4, before)},
                                        {ChangeLogOp::kUpdateInsert, at.vnode, pk, value.substr(4 + before)}};
      for (uint8_t h = resuming ? after->half + 1 : 0; h < 2; h++) {
        at.half = h;
        if (!fn(halves[h], at)) return;
      }
      continue;
    }
    if (resuming) continue;  // read already
    at.half = 0;
    const ChangeLogOp op = v.data()[0] == kInsertTag ? ChangeLogOp::kInsert : ChangeLogOp::kDelete;
    if (!fn(ChangeLogEntry{op, at.vnode, pk, value}, at)) return;
  }
}

void ChangeLogReader::Truncate(const Snapshot* snapshot, Epoch before, WriteLog* out) const {
  if (before <= 1) return;
  out->DeleteChangeLogRange(EpochPrefix(log_id_, 1), EpochPrefix(log_id_, before));
  if (before - 1 > TruncatedThrough(snapshot)) out->PutChangeLog(RecordKey(log_id_, kTruncatedThrough), EpochValue(before - 1));
}

Epoch ChangeLogReader::Record(const Snapshot* snapshot, char tag) const {
  std::string value;
  Status s = store_->Get(store_->change_log_cf(), snapshot, RecordKey(log_id_, tag), &value);
  if (s.IsNotFound() || value.size() != 8) return 0;
  s.ThrowIfError();
  return GetFixed64BE(value.data());
}

Epoch ChangeLogReader::TruncatedThrough(const Snapshot* snapshot) const { return Record(snapshot, kTruncatedThrough); }

Epoch ChangeLogReader::WrittenThrough(const Snapshot* snapshot) const { return Record(snapshot, kWrittenThrough); }

std::vector<ChangeLogConsumer> ChangeLogReader::Consumers(const Snapshot* snapshot) const {
  std::vector<ChangeLogConsumer> out;
  const std::string prefix = RecordKey(log_id_, kConsumerTag);
  auto range = store_->NewRange(store_->change_log_cf(), snapshot, prefix, PrefixSuccessor(prefix),
                                StateStore::ReadPattern::kOnce);
  for (; range->it->Valid(); range->it->Next()) {
    rocksdb::Slice k = range->it->key(), v = range->it->value();
    if (k.size() != prefix.size() + 4 || v.size() != 9) throw SqlError(sqlstate::kDataCorrupted, "corrupt change log consumer");
    ChangeLogConsumer c;
    c.id = GetFixed32BE(k.data() + prefix.size());
    const uint64_t n = GetFixed64BE(v.data() + 1);
    if (v.data()[0] == kRetentionTag) c.retention_ms = static_cast<int64_t>(n);
    else c.read_through = n;
    out.push_back(c);
  }
  return out;
}

std::optional<Epoch> ChangeLogReader::TruncationBound(const Snapshot* snapshot, int64_t now_ms) const {
  std::optional<Epoch> bound;
  for (const auto& c : Consumers(snapshot)) bound = std::min(bound.value_or(UINT64_MAX), c.Needs(now_ms));
  return bound;
}

ChangeLogReader::Stats ChangeLogReader::Count(const Snapshot* snapshot) const {
  Stats stats;
  auto range = store_->NewRange(store_->change_log_cf(), snapshot, EpochPrefix(log_id_, 1),
                                PrefixSuccessor(TablePrefix(log_id_)), StateStore::ReadPattern::kOnce);
  for (; range->it->Valid(); range->it->Next()) {
    rocksdb::Slice k = range->it->key();
    if (k.size() < kEntryKeyMin) continue;
    stats.entries++;
    Epoch e = EpochOfKey({k.data(), k.size()});
    if (!stats.oldest || e < stats.oldest) stats.oldest = e;
  }
  return stats;
}

uint64_t ChangeLogReader::ApproximateBytes() const {
  return store_->ApproximateChangeLogSize(TablePrefix(log_id_), PrefixSuccessor(TablePrefix(log_id_)));
}

}  // namespace freshet
