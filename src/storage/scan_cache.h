// ScanCache: the decoded columns of recently scanned tables, so that a
// batch scan of a table that has not changed since it was last read costs a
// copy of columns instead of a RocksDB iteration and a row decode per row.
//
// Validity rests on TableVersions. Every commit of the store numbers itself
// twice in one sequence: once before its write (the tables it touches are
// then "in flight") and once after its write is visible (the tables' "last
// change" becomes that number). A Snapshot records the sequence read just
// before it was taken, so a snapshot whose sequence is >= a table's last
// change sees that change.
//
// An entry holds the table as of its last change m. It is built by a full
// scan at a snapshot with sequence s when, as the scan starts, the table is
// not in flight and m <= s: the snapshot then shows exactly the state of m.
// It serves a snapshot with sequence r when the table is still not in flight,
// its last change is still m, and m <= r: that snapshot, too, shows the state
// of m. Nothing else is needed: no lock is held across a commit, and a commit
// costs one pass over its keys to find the tables it touches.
//
// An entry holds only the columns some scan decoded (count(*) decodes none
// and caches just the row counts); a scan that needs more columns rebuilds
// the entry with the union. Entries are evicted least recently used first
// when the cache exceeds its capacity; capacity 0 disables the cache.
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "common/data_chunk.h"
#include "storage/keys.h"

namespace freshet {

class TableVersions {
 public:
  // The current sequence; read it before taking a snapshot.
  uint64_t Now() const;
  // Brackets a commit's write of the given tables (all = every table, for
  // range deletes).
  void BeginChange(const std::vector<TableId>& tables, bool all);
  void EndChange(const std::vector<TableId>& tables, bool all);
  // The table's last change, or nullopt while a change to it is in flight.
  std::optional<uint64_t> Stable(TableId table) const;

 private:
  mutable std::mutex mu_;
  uint64_t seq_ = 0;
  std::unordered_map<TableId, uint64_t> last_change_;
  std::unordered_map<TableId, int> in_flight_;
  uint64_t all_last_change_ = 0;
  int all_in_flight_ = 0;
};

// One cached table: chunks in scan order, each with its row count and the
// decoded columns (an undecoded column is an empty Vector).
struct CachedTable {
  struct Chunk {
    uint32_t rows = 0;
    std::vector<Vector> columns;
  };
  uint64_t version = 0;       // the table's last change it reflects
  std::vector<bool> decoded;  // per column
  // What rows stored before columns were added read for them
  // (StateTableDesc::missing_cells): a shape of the table, as its width.
  std::vector<std::string> missing_cells;
  std::vector<Chunk> chunks;
  size_t bytes = 0;
  // Whether every wanted column is decoded, and the entry is of the
  // table's shape with these columns and missing cells.
  bool Covers(const std::vector<bool>& wanted, const std::vector<std::string>& missing = {}) const;
};

class ScanCache {
 public:
  ScanCache(const TableVersions* versions, size_t capacity_bytes) : versions_(versions), capacity_(capacity_bytes) {}
  size_t capacity() const { return capacity_; }

  // The entry for `table` valid at a snapshot of sequence `snapshot_seq`,
  // or null.
  std::shared_ptr<const CachedTable> Lookup(TableId table, uint64_t snapshot_seq);
  // The version a full scan at `snapshot_seq` starting now may cache the
  // table as, or nullopt when it may not (the table is changing).
  std::optional<uint64_t> BuildVersion(TableId table, uint64_t snapshot_seq) const;
  // Stores an entry (replacing the table's previous one) unless it is
  // larger than the whole cache.
  void Insert(TableId table, std::shared_ptr<const CachedTable> entry);

  // Approximate heap bytes of a vector's contents.
  static size_t VectorBytes(const Vector& v);

 private:
  void EraseLocked(TableId table);

  const TableVersions* versions_;
  const size_t capacity_;
  std::mutex mu_;
  size_t used_ = 0;
  std::list<TableId> lru_;  // most recently used first
  struct Slot {
    std::shared_ptr<const CachedTable> entry;
    std::list<TableId>::iterator lru_pos;
  };
  std::unordered_map<TableId, Slot> entries_;
};

}  // namespace freshet
