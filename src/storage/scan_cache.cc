#include "storage/scan_cache.h"

#include <algorithm>

namespace freshet {

uint64_t TableVersions::Now() const {
  std::lock_guard lock(mu_);
  return seq_;
}

void TableVersions::BeginChange(const std::vector<TableId>& tables, bool all) {
  std::lock_guard lock(mu_);
  ++seq_;
  for (TableId t : tables) in_flight_[t]++;
  if (all) all_in_flight_++;
}

void TableVersions::EndChange(const std::vector<TableId>& tables, bool all) {
  std::lock_guard lock(mu_);
  ++seq_;
  for (TableId t : tables) {
    if (--in_flight_[t] == 0) in_flight_.erase(t);
    last_change_[t] = seq_;
  }
  if (all) {
    all_in_flight_--;
    all_last_change_ = seq_;
  }
}

std::optional<uint64_t> TableVersions::Stable(TableId table) const {
  std::lock_guard lock(mu_);
  if (all_in_flight_ > 0 || in_flight_.count(table)) return std::nullopt;
  auto it = last_change_.find(table);
  return std::max(it == last_change_.end() ? 0 : it->second, all_last_change_);
}

bool CachedTable::Covers(const std::vector<bool>& wanted, const std::vector<std::string>& missing) const {
  // Another shape of the table (columns added since, or by an ALTER that
  // was rolled back).
  if (wanted.size() != decoded.size() || missing != missing_cells) return false;
  for (size_t c = 0; c < wanted.size(); c++)
    if (wanted[c] && !decoded[c]) return false;
  return true;
}

std::shared_ptr<const CachedTable> ScanCache::Lookup(TableId table, uint64_t snapshot_seq) {
  if (capacity_ == 0) return nullptr;
  std::lock_guard lock(mu_);
  auto it = entries_.find(table);
  if (it == entries_.end()) return nullptr;
  std::optional<uint64_t> stable = versions_->Stable(table);
  if (!stable) return nullptr;  // a commit is writing it; the entry may still be right afterwards
  if (*stable != it->second.entry->version) {
    EraseLocked(table);  // the table changed since
    return nullptr;
  }
  if (it->second.entry->version > snapshot_seq) return nullptr;  // an older snapshot
  lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
  return it->second.entry;
}

std::optional<uint64_t> ScanCache::BuildVersion(TableId table, uint64_t snapshot_seq) const {
  if (capacity_ == 0) return std::nullopt;
  std::optional<uint64_t> stable = versions_->Stable(table);
  if (!stable || *stable > snapshot_seq) return std::nullopt;
  return stable;
}

void ScanCache::Insert(TableId table, std::shared_ptr<const CachedTable> entry) {
  if (entry->bytes > capacity_) return;
  std::lock_guard lock(mu_);
  EraseLocked(table);
  while (used_ + entry->bytes > capacity_ && !lru_.empty()) EraseLocked(lru_.back());
  lru_.push_front(table);
  used_ += entry->bytes;
  entries_[table] = Slot{std::move(entry), lru_.begin()};
}

void ScanCache::EraseLocked(TableId table) {
  auto it = entries_.find(table);
  if (it == entries_.end()) return;
  used_ -= it->second.entry->bytes;
  lru_.erase(it->second.lru_pos);
  entries_.erase(it);
}

size_t ScanCache::VectorBytes(const Vector& v) {
  size_t bytes = v.validity().capacity() + v.ints().capacity() * sizeof(int64_t) +
                 v.floats().capacity() * sizeof(double) + v.decimals().capacity() * sizeof(Decimal) +
                 v.intervals().capacity() * sizeof(Interval) + v.strings().capacity() * sizeof(std::string);
  constexpr size_t kInlineChars = 15;  // libstdc++'s short-string buffer
  for (const std::string& s : v.strings())
    if (s.capacity() > kInlineChars) bytes += s.capacity() + 1;
  return bytes;
}

}  // namespace freshet
