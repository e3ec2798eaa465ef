#include "stream/top_n_cache.h"

#include <algorithm>
#include <limits>

#include "common/error.h"
#include "storage/state_table.h"
#include "stream/state_cache.h"

namespace freshet {

namespace {
// Rough heap cost of one map entry (node, string headers) on top of its bytes.
constexpr size_t kEntryOverhead = 96;
size_t EntryBytes(const std::string& key, size_t row_size) { return kEntryOverhead + key.size() + row_size; }
}  // namespace

size_t TopNCacheCapacity(int64_t window) {
  if (window < 0) return std::numeric_limits<size_t>::max();  // no LIMIT: the window is everything
  size_t w = static_cast<size_t>(window);
  if (w > std::numeric_limits<size_t>::max() / 4) return std::numeric_limits<size_t>::max();
  if (StateCacheBytes() == 0) return w + 1;
  return std::max<size_t>(2 * w, 64);
}

void TopNCache::Load(const StateTable& table) {
  rows_.clear();
  writes_.clear();
  bytes_ = 0;
  complete_ = false;
  ReadAfter(capacity_, table);
}

void TopNCache::Remember(const std::string& rank_key, std::optional<std::string> row, Epoch epoch) {
  auto [it, inserted] = writes_.try_emplace(rank_key);
  if (!inserted) bytes_ -= EntryBytes(it->first, it->second.row ? it->second.row->size() : 0);
  it->second.epoch = epoch;
  it->second.row = std::move(row);
  bytes_ += EntryBytes(it->first, it->second.row ? it->second.row->size() : 0);
}

void TopNCache::EvictLast(Epoch epoch) {
  auto last = std::prev(rows_.end());
  bytes_ -= EntryBytes(last->first, last->second.size());
  // Its insert may not be committed: the store may not have it yet.
  Remember(last->first, std::move(last->second), epoch);
  rows_.erase(last);
  complete_ = false;
}

void TopNCache::Insert(std::string rank_key, std::string row, Epoch epoch) {
  bool in_prefix = complete_ || (!rows_.empty() && !rows_.key_comp()(rows_.rbegin()->first, rank_key));
  if (!in_prefix) {
    Remember(rank_key, std::move(row), epoch);
    return;
  }
  // A remembered delete of this key must not hide it in a later read-back.
  if (writes_.count(rank_key)) Remember(rank_key, row, epoch);
  auto [it, inserted] = rows_.try_emplace(std::move(rank_key));
  if (!inserted) bytes_ -= EntryBytes(it->first, it->second.size());
  it->second = std::move(row);
  bytes_ += EntryBytes(it->first, it->second.size());
  if (rows_.size() > capacity_) EvictLast(epoch);
}

void TopNCache::Erase(const std::string& rank_key, Epoch epoch) {
  auto it = rows_.find(rank_key);
  if (it != rows_.end()) {
    bytes_ -= EntryBytes(it->first, it->second.size());
    rows_.erase(it);
  }
  // The prefix may shrink below this key later: the store must not show
  // the row again before its delete commits.
  Remember(rank_key, std::nullopt, epoch);
}

void TopNCache::Ensure(size_t n, const StateTable& table) {
  if (complete_ || rows_.size() >= n) return;
  ReadAfter(capacity_ - rows_.size(), table);
}

void TopNCache::ReadAfter(size_t n, const StateTable& table) {
  // The rows ranked after the last cached one: keys above it (ascending)
  // or below it (descending), read from the store in rank order and merged
  // with the remembered writes, which win. One row past n tells whether
  // there are more.
  const RankOrder order = rows_.key_comp();
  const std::string* last = rows_.empty() ? nullptr : &rows_.rbegin()->first;
  std::string lower = prefix_, upper = PrefixSuccessor(prefix_);
  if (last && !order.descending) lower += *last + std::string(1, '\0');
  if (last && order.descending) upper = prefix_ + *last;
  StateTable::Cursor it = table.ScanCommitted(lower, upper);
  if (order.descending) it.SeekToLast();
  auto w = last ? writes_.upper_bound(*last) : writes_.begin();
  size_t added = 0;
  bool more = false;
  auto add = [&](const std::string& key, std::string row) {
    if (added == n) {
      more = true;
      return;
    }
    bytes_ += EntryBytes(key, row.size());
    rows_.emplace_hint(rows_.end(), key, std::move(row));
    added++;
  };
  auto advance = [&] { order.descending ? it.Prev() : it.Next(); };
  while (!more) {
    bool has_store = it.Valid();
    std::string store_key;
    if (has_store) store_key.assign(it.key().substr(prefix_.size()));
    bool has_write = w != writes_.end();
    if (!has_store && !has_write) break;
    if (has_write && (!has_store || !order(store_key, w->first))) {
      if (has_store && w->first == store_key) advance();  // the remembered write wins
      if (w->second.row) add(w->first, *w->second.row);
      ++w;
    } else {
      add(store_key, std::string(it.value()));
      advance();
    }
  }
  if (Status s = it.status(); !s.ok()) throw SqlError(sqlstate::kIoError, "top-n state: " + s.message());
  complete_ = !more;
}

void TopNCache::StampUnknown(Epoch epoch) {
  for (auto& [key, write] : writes_)
    if (write.epoch == 0) write.epoch = epoch;
}

void TopNCache::Prune(Epoch committed) {
  for (auto it = writes_.begin(); it != writes_.end();) {
    if (it->second.epoch != 0 && it->second.epoch <= committed) {
      bytes_ -= EntryBytes(it->first, it->second.row ? it->second.row->size() : 0);
      it = writes_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace freshet
