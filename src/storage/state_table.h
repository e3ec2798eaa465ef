// StateTable: the rows of one relation (table, MV, index or an operator's
// internal state), keyed by primary key and spread over 256 vnodes.
//
// Writes go to an in-memory buffer for the current epoch. At a barrier the
// owner either seals the buffer (Seal: the writes stay readable through Get
// until ReleaseSealed says their epoch is committed) or moves it out
// (TakeWrites: the owner promises not to read those keys back through Get
// before the commit, e.g. because it caches everything it wrote). The
// barrier manager commits an epoch's writes of every state table of the
// database atomically with the epoch marker. Get sees the committed store
// overlaid with the sealed epochs and the current buffer, so a writer reads
// its own uncommitted writes. Readers that are not the writer (batch
// queries) do not use a StateTable: they scan the committed store through a
// Snapshot (a table engine's Scan: table_engine.h).
//
// Thread safety: all methods are safe to call concurrently (one mutex).
#pragma once

#include <functional>
#include <memory>
#include <unordered_map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/data_chunk.h"
#include "storage/bulk_rows.h"
#include "storage/key_index.h"
#include "storage/keys.h"
#include "storage/state_store.h"
#include "storage/state_table_desc.h"
#include "storage/write_set.h"

namespace freshet {

class TableEngine;

class StateTable {
 public:
  // Committed rows are read through the relation's table engine (its
  // GetCommitted) unless it is the row store, which is read directly.
  StateTable(StateStore* store, StateTableDesc desc);

  const StateTableDesc& desc() const { return desc_; }
  // A table's columns after ALTER TABLE ... ADD COLUMN (its key is as it
  // was): what the row values of desc() now decode as. Not synchronized
  // with desc()'s readers: the caller excludes them (DmlManager: its lock
  // and the epoch's write guard).
  void SetColumns(std::vector<DataType> types, std::vector<std::string> missing_cells) {
    desc_.column_types = std::move(types);
    desc_.missing_cells = std::move(missing_cells);
  }

  // The full storage key of row i of the chunk ([table][vnode][pk]).
  std::string KeyOf(const DataChunk& chunk, size_t row) const;
  uint16_t VnodeOf(const DataChunk& chunk, size_t row) const;

  // Buffered writes for the current epoch, applied in call order.
  // row_delta: see WriteOp (materialized views count their rows).
  void Put(std::string_view key, std::string_view value, int8_t row_delta = 0);
  void Delete(std::string_view key, int8_t row_delta = 0);
  // Appends many writes under one lock (taking the log when the epoch's
  // log is still empty, so a bulk statement copies no rows).
  void Write(WriteLog&& writes);
  // Adds the rows of a bulk insert (see bulk_rows.h: inserts of new keys,
  // so the other writes of the epoch to the same keys come after them).
  void WriteBulk(std::shared_ptr<const BulkRows> rows);
  // Reads the latest value of key: this epoch's buffer, else committed state.
  std::optional<std::string> Get(const std::string& key) const;
  // Get of many keys, the committed ones read together (StateStore::MultiGet).
  std::vector<std::optional<std::string>> MultiGet(const std::vector<std::string_view>& keys) const;

  // Keys by vnode: the storage key of `suffix` in `vnode` of this table
  // ([table][vnode][suffix]); operators build their keys only through it.
  std::string KeyIn(uint16_t vnode, std::string_view suffix = {}) const;
  // The committed state alone, without this table's buffered writes: for
  // operators that cache what they write and read a key or a range back at
  // its first use. NotFound when absent.
  Status GetCommitted(const std::string& key, std::string* value) const;
  // Committed rows in key order, keys in [lower, upper) (upper empty: to
  // the end of the table), at `snapshot` (null: the latest commit).
  class Cursor {
   public:
    bool Valid() const;
    void Next();
    void Prev();
    void SeekToLast();
    std::string_view key() const;  // the whole storage key
    std::string_view value() const;
    Status status() const;  // a read error ends the range early

   private:
    friend class StateTable;
    std::unique_ptr<StateStore::Range> range_;
  };
  Cursor ScanCommitted(std::string lower, std::string upper, const Snapshot* snapshot = nullptr,
                       StateStore::ReadPattern pattern = StateStore::ReadPattern::kShort) const;
  // Every committed row whose key starts with `prefix`.
  Cursor ScanCommittedPrefix(const std::string& prefix) const;

  // The writes of one epoch, handed to the commit.
  struct SealedWrites {
    std::shared_ptr<const WriteLog> ops;
    std::vector<std::shared_ptr<const BulkRows>> bulk;
    bool empty() const { return ops->empty() && bulk.empty(); }
  };
  // Closes the current buffer as the writes of `epoch` and returns them;
  // they stay visible to Get until ReleaseSealed(epoch or later).
  SealedWrites Seal(Epoch epoch);
  void ReleaseSealed(Epoch committed);
  // Moves buffered writes out into *out, in write order among this table's
  // writes; *out may hold other tables' writes, which may end up after them.
  // Not for tables that take bulk writes (those are sealed).
  void TakeWrites(WriteLog* out);
  // The net change of every row written since the last commit: for each key
  // written in a sealed epoch or the current buffer, its committed row and
  // its latest row (null when absent), called only when they differ. What
  // a rebuilt stream graph must be told after a failed epoch (the graph
  // restarts from the committed state; the table's own writes were kept).
  // The caller keeps writers out (the epoch lock) while it runs.
  void ForEachUncommittedChange(
      const std::function<void(const std::string* committed, const std::string* latest)>& fn) const;
  // Buffered writes of the current epoch (ops and bulk rows).
  size_t PendingCount() const;
  bool HasPendingWrites() const;

 private:
  // The writes of one epoch in order (later ones win), so bulk loads append
  // without any per-key bookkeeping. The key index that point reads need
  // is built on the first Get and maintained from then on.
  static constexpr size_t kMaxReservedOps = size_t(1) << 22;
  struct EpochLog {
    Epoch epoch = 0;
    std::shared_ptr<WriteLog> ops = TakeSharedWriteLog(0);
    std::vector<std::shared_ptr<const BulkRows>> bulk;  // before every op
    KeyIndex index;  // of *ops
    bool indexed = false;
    void IndexFrom(size_t pos);
    // Set when the key was written in this epoch (nullopt value = deleted).
    bool Find(const std::string& key, std::optional<std::string>* value);
  };
  // Set when the key was written in this epoch or a sealed one not yet
  // released (the latest write wins); under mu_.
  bool FindBufferedLocked(const std::string& key, std::optional<std::string>* value) const;

  // The committed row under `key` (NotFound when none).
  Status ReadCommitted(const std::string& key, std::string* value) const;

  StateStore* store_;
  StateTableDesc desc_;
  const TableEngine* engine_ = nullptr;  // null: the row store

  mutable std::mutex mu_;
  EpochLog log_;                // the current epoch
  std::vector<EpochLog> sealed_;  // sealed, not yet committed; oldest first
};

// Computes the vnode of row i from the given distribution-key columns.
uint16_t ComputeVnode(const DataChunk& chunk, size_t row, const std::vector<int>& dist_key);
// The storage key of row `row` of a relation, its primary key ascending:
// [table][vnode of the distribution key][pk] (what StateTable::KeyOf gives
// for such a table, without one).
std::string RowKey(TableId table_id, const std::vector<int>& dist_key, const std::vector<int>& pk,
                   const DataChunk& chunk, size_t row);
// ComputeVnode for a distribution key of one non-NULL BIGINT column.
uint16_t ComputeVnodeOfBigint(int64_t v);

}  // namespace freshet
