#include "storage/change_log.h"

#include <algorithm>

#include "common/encoding.h"
#include "storage/state_store.h"

namespace freshet {

namespace {

constexpr size_t kEpochOffset = 6;                 // after [log_id][vnode]
constexpr size_t kEntryKeyMin = kEpochOffset + 8 + 1;  // + epoch + slot

std::string EpochPrefix(TableId log_id, uint16_t vnode, Epoch epoch) {
  std::string k = VnodePrefix(log_id, vnode);
  PutFixed64BE(&k, epoch);
  return k;
}

std::string EntryKey(TableId log_id, uint16_t vnode, Epoch epoch, std::string_view pk, uint8_t slot) {
  std::string k = EpochPrefix(log_id, vnode, epoch);
  k.append(pk);
  k.push_back(static_cast<char>(slot));
  return k;
}

std::string EntryValue(ChangeLogOp op, std::string_view row) {
  std::string v;
  v.reserve(row.size() + 1);
  v.push_back(static_cast<char>(op));
  v.append(row);
  return v;
}

Epoch EpochOfKey(std::string_view key) { return GetFixed64BE(key.data() + kEpochOffset); }

// Where the last epoch written is recorded: a "vnode" past every real one
// (readers' ranges stop at vnode kVnodeCount), shorter than any entry key.
std::string WrittenThroughKey(TableId log_id) { return EpochPrefix(log_id, 0xFFFF, 0); }

}  // namespace

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
  Add(VnodeOfKey(relation_key), relation_key.substr(6), enters, row);
}

size_t ChangeLogEpoch::WriteTo(TableId log_id, Epoch epoch, WriteLog* out) {
  size_t written = 0;
  for (const auto& [key, net] : keys_) {
    const auto& [vnode, pk] = key;
    if (net.before && net.after) {
      out->Put(EntryKey(log_id, vnode, epoch, pk, 0), EntryValue(ChangeLogOp::kUpdateDelete, *net.before));
      out->Put(EntryKey(log_id, vnode, epoch, pk, 1), EntryValue(ChangeLogOp::kUpdateInsert, *net.after));
      written += 2;
    } else if (net.before) {
      out->Put(EntryKey(log_id, vnode, epoch, pk, 0), EntryValue(ChangeLogOp::kDelete, *net.before));
      written++;
    } else if (net.after) {
      out->Put(EntryKey(log_id, vnode, epoch, pk, 1), EntryValue(ChangeLogOp::kInsert, *net.after));
      written++;
    }
    // Neither: the key came and went within the epoch.
  }
  keys_.clear();
  std::string through;
  PutFixed64BE(&through, epoch);
  out->Put(WrittenThroughKey(log_id), through);
  return written;
}

std::optional<Epoch> ChangeLogReader::NextEpoch(const Snapshot* snapshot, uint16_t vnode, Epoch after) const {
  if (after == UINT64_MAX) return std::nullopt;
  // vnode + 1 is at most kVnodeCount, still 16 bits: past every key of the last vnode.
  auto range = store_->NewRange(store_->data_cf(), snapshot, EpochPrefix(log_id_, vnode, after + 1),
                                VnodePrefix(log_id_, static_cast<uint16_t>(vnode + 1)));
  if (!range->it->Valid()) return std::nullopt;
  rocksdb::Slice k = range->it->key();
  if (k.size() < kEntryKeyMin) return std::nullopt;
  return EpochOfKey({k.data(), k.size()});
}

void ChangeLogReader::ReadEpoch(const Snapshot* snapshot, uint16_t vnode, Epoch epoch,
                                const std::optional<Position>& after,
                                const std::function<bool(const ChangeLogEntry&, const Position&)>& fn) const {
  const std::string prefix = EpochPrefix(log_id_, vnode, epoch);
  std::string lower = prefix;
  if (after) {
    lower = EntryKey(log_id_, vnode, epoch, after->pk, after->slot);
    lower.push_back('\0');  // the first key after it
  }
  auto range = store_->NewRange(store_->data_cf(), snapshot, std::move(lower), PrefixSuccessor(prefix),
                                StateStore::ReadPattern::kOnce);
  Position at;
  for (; range->it->Valid(); range->it->Next()) {
    rocksdb::Slice k = range->it->key(), v = range->it->value();
    if (k.size() < kEntryKeyMin || v.size() < 1) continue;
    std::string_view pk(k.data() + prefix.size(), k.size() - prefix.size() - 1);
    at.pk.assign(pk);
    at.slot = static_cast<uint8_t>(k.data()[k.size() - 1]);
    ChangeLogEntry e{static_cast<ChangeLogOp>(v.data()[0]), pk, {v.data() + 1, v.size() - 1}};
    if (!fn(e, at)) return;
  }
}

std::optional<Epoch> ChangeLogReader::OldestEpoch(const Snapshot* snapshot) const {
  std::optional<Epoch> oldest;
  for (int vnode = 0; vnode < kVnodeCount; vnode++)
    if (auto e = NextEpoch(snapshot, static_cast<uint16_t>(vnode), 0); e && (!oldest || *e < *oldest)) oldest = e;
  return oldest;
}

size_t ChangeLogReader::Truncate(const Snapshot* snapshot, Epoch before, WriteLog* out, int vnode_begin,
                                 int vnode_end, Epoch since) const {
  size_t deleted = 0;
  since = std::max<Epoch>(since, 1);  // the record of epoch 0 stays (and is raised below)
  if (since >= before) return 0;
  for (int vnode = vnode_begin; vnode < vnode_end; vnode++) {
    auto range = store_->NewRange(store_->data_cf(), snapshot, EpochPrefix(log_id_, static_cast<uint16_t>(vnode), since),
                                  EpochPrefix(log_id_, static_cast<uint16_t>(vnode), before),
                                  StateStore::ReadPattern::kOnce);
    Epoch last = 0;
    for (; range->it->Valid(); range->it->Next()) {
      rocksdb::Slice k = range->it->key();
      out->Delete({k.data(), k.size()});
      if (k.size() >= kEntryKeyMin) last = std::max(last, EpochOfKey({k.data(), k.size()}));
      deleted++;
    }
    if (!last) continue;
    last = std::max(last, LastTruncated(snapshot, static_cast<uint16_t>(vnode)));
    std::string value;
    PutFixed64BE(&value, last);
    out->Put(EpochPrefix(log_id_, static_cast<uint16_t>(vnode), 0), value);
  }
  return deleted;
}

Epoch ChangeLogReader::WrittenThrough(const Snapshot* snapshot) const {
  std::string value;
  Status s = store_->Get(store_->data_cf(), snapshot, WrittenThroughKey(log_id_), &value);
  if (s.IsNotFound() || value.size() != 8) return 0;
  s.ThrowIfError();
  return GetFixed64BE(value.data());
}

Epoch ChangeLogReader::LastTruncated(const Snapshot* snapshot, uint16_t vnode) const {
  std::string value;
  Status s = store_->Get(store_->data_cf(), snapshot, EpochPrefix(log_id_, vnode, 0), &value);
  if (s.IsNotFound() || value.size() != 8) return 0;
  s.ThrowIfError();
  return GetFixed64BE(value.data());
}

ChangeLogReader::Stats ChangeLogReader::Count(const Snapshot* snapshot) const {
  Stats stats;
  auto range = store_->NewRange(store_->data_cf(), snapshot, TablePrefix(log_id_), PrefixSuccessor(TablePrefix(log_id_)),
                                StateStore::ReadPattern::kOnce);
  for (; range->it->Valid(); range->it->Next()) {
    rocksdb::Slice k = range->it->key();
    if (k.size() < kEntryKeyMin) continue;  // a vnode's truncation record
    stats.entries++;
    Epoch e = EpochOfKey({k.data(), k.size()});
    if (!stats.oldest || e < stats.oldest) stats.oldest = e;
  }
  return stats;
}

uint64_t ChangeLogReader::ApproximateBytes() const {
  return store_->ApproximateDataSize(TablePrefix(log_id_), PrefixSuccessor(TablePrefix(log_id_)));
}

}  // namespace freshet
