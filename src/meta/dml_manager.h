// DmlManager: applies WriteSets to the tables of one database.
//
// It owns one StateTable per table that has received writes (registered
// with the database's epoch loop, which commits their buffers at each
// barrier) and one per index of a UNIQUE constraint (unique_index.h),
// written in the same epoch as the rows, and serializes appliers, so that
// a primary-key or unique check and the write it guards happen atomically. All ops of one WriteSet land in the
// same epoch. When jobs read the table, the changes also go, as whole rows,
// into the table's change stream (StreamRuntime), in the same epoch.
//
// Thread safety: all methods are safe to call concurrently.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "catalog/catalog.h"
#include "catalog/system_tables.h"
#include "meta/barrier_manager.h"
#include "meta/table_watermark.h"
#include "storage/write_set.h"

namespace freshet {

// 23505 for inserting `row` (encoded) into `table` where its key exists, as
// PostgreSQL words it: the constraint, DETAIL "Key (id)=(1) already
// exists.", the table and constraint fields.
SqlError DuplicateKeyError(const TableCatalog& table, std::string_view row);

class DmlManager {
 public:
  DmlManager(StateStore* store, const Catalog* catalog, DatabaseEpochLoop* loop)
      : store_(store), catalog_(catalog), loop_(loop) {}

  // Applies every op and bulk insert or none. Throws 23505 on a duplicate
  // primary key or unique constraint and 42P01 if a table was dropped
  // meanwhile. Returns the
  // epoch written. The ops are moved out of `writes`.
  //
  // `durable` (synchronous_commit = on): the ops are also written to the
  // DML log, in apply order, and Apply returns once the log is on disk
  // (group commit), without waiting for the epoch's commit. A restart
  // replays the log entries that no committed epoch covers (ReplayLog), so
  // an acknowledged write survives a crash. Bulk rows are not logged: the
  // caller waits for their commit instead.
  //
  // `on_applied`, when set, is called once the writes are in the tables,
  // before Apply waits for the log: the writer lock's holder releases the
  // lock there, so the next holder reads these writes (LatestRows) while
  // the sync runs. Safe because the log is one sequence synced in order: a
  // transaction that read them is durable only after them.
  //
  // `ddl`: the writes of a transaction block that also changed the
  // catalog. They are checked against its transaction's catalog
  // (`catalog`), and once they pass, `commit` stores that catalog, under
  // the same lock, before any is written: no other write comes between,
  // and writes refused leave the catalog as it was. Tables blocked by
  // `owner` (BlockWrites) do not hold them back.
  //
  // `wait`: how long a write to a blocked table (BlockWrites) waits: 57014
  // when `cancel` is set meanwhile, 55P03 after `timeout_ms` (lock_timeout;
  // 0 waits for ever).
  struct WithDdl {
    const Catalog* catalog = nullptr;
    std::function<void()> commit;
    const void* owner = nullptr;
  };
  struct WaitLimits {
    const std::atomic<bool>* cancel = nullptr;
    int64_t timeout_ms = 0;
    // The writing session: its writes pass the tables it blocked itself
    // (LockWrites, BlockWrites with it as owner).
    const void* owner = nullptr;
  };
  Epoch Apply(WriteSet&& writes, bool durable = false, const std::function<void()>& on_applied = {},
              const WithDdl* ddl = nullptr, const WaitLimits* wait = nullptr);
  // The latest epoch holding a write that Apply has returned (that some
  // session may have acknowledged to its client): a read that must see
  // every acknowledged write waits for its commit.
  Epoch LastAppliedEpoch() const { return last_applied_.load(); }
  // At start, before any session: applies the DML log's entries again (the
  // writes of epochs that were not committed when the server stopped), in
  // their order, and commits them. Returns how many entries were replayed.
  size_t ReplayLog();
  // Checks `added` (applied after `before`) for duplicate primary keys and
  // unique constraint violations without writing anything: statements
  // inside a transaction fail at once.
  // `catalog`: a transaction's catalog (its block's new tables), else the
  // database's.
  void CheckUnique(const WriteSet& before, const WriteSet& added, const Catalog* catalog = nullptr);
  // Forgets a dropped table or unique index (its buffered writes are
  // discarded), and a table's unique indexes with it.
  void DropTable(TableId id);
  // ALTER TABLE ... ADD UNIQUE / CREATE UNIQUE INDEX without a rewrite:
  // writes the index of `constraint` (a new one of `table`, the table's
  // next definition, its index_id fresh) from the table's committed rows,
  // in the current epoch. 23505 as an insert would get it when two rows
  // hold one value (nothing written then, the index forgotten). The caller
  // holds the table's writes back with every applied one committed, and
  // stores the constraint once this epoch is committed.
  void FillUniqueIndex(const TableCatalog& table, const ConstraintCatalog& constraint);
  // The database's writer lock. A statement that reads rows and writes from
  // what it read (UPDATE, DELETE, INSERT ... SELECT, TRUNCATE, SELECT ...
  // FOR UPDATE/SHARE) runs in a transaction that holds it, from before that
  // statement reads until the transaction ends, and reads every write
  // applied before it: such transactions run one after another, so none
  // overwrites what another wrote after it read (no lost updates; the
  // outcome PostgreSQL gives concurrent UPDATEs of a row, which wait for
  // each other's row locks). Writes that read nothing (INSERT ... VALUES,
  // COPY) do not take it: their duplicate keys are checked when applied.
  //
  // Waits until the lock is free; throws 57014 when `cancel` is set
  // meanwhile (a cancel request or statement_timeout) and 55P03 after
  // `timeout_ms` (lock_timeout; 0 waits for ever). The lock is released
  // when the returned guard is destroyed.
  std::shared_ptr<void> AcquireWriter(const std::atomic<bool>* cancel, int64_t timeout_ms);
  // The table's rows as every applied write leaves them, committed or not
  // (TableEngine::LookupLatest reads whole keys through it): how the writer
  // lock's holder reads the writes applied before it without waiting for
  // their epoch to commit. Also a unique constraint's index, once this
  // process has used it. Null for a relation that is not a table (DML
  // writes only tables) or an index not used yet; throws 42P01 when the
  // table was dropped.
  std::shared_ptr<const StateTable> LatestRows(TableId id);
  // The watermarks of the tables written since the start, with the rows
  // each dropped as late (rw_catalog.rw_watermarks).
  std::vector<WatermarkInfo> Watermarks();

  // Holds back every write to table `id` until the returned guard is
  // destroyed: an Apply touching it waits (and then finds the table
  // replaced or still there). ALTER TABLE's rewrite reads the table while
  // no write can change it. Once this returns, no write to it is being
  // applied.
  // `owner`'s own writes (Apply's WithDdl::owner) are not held back: a
  // transaction block keeps a table blocked until it commits.
  std::shared_ptr<void> BlockWrites(TableId id, const void* owner = nullptr);
  // LOCK TABLE in a mode that conflicts with writes: BlockWrites for
  // `owner`, once no other owner blocks the table (waiting within `wait`;
  // with `nowait`, null at once when another does).
  std::shared_ptr<void> LockWrites(TableId id, const void* owner, const WaitLimits& wait, bool nowait);

 private:
  // The guard that ends a hold (BlockWrites, LockWrites) on `entry`.
  std::shared_ptr<void> Unblocker(std::multimap<TableId, const void*>::iterator entry);
  std::shared_ptr<StateTable> TableFor(TableId id);
  // TableFor, its columns brought up to the catalog's (the table gained
  // columns): under mu_ and the epoch's write guard, which exclude every
  // reader of its desc().
  std::shared_ptr<StateTable> TableForWrite(TableId id);
  // Adds bulk inserts (bulk_rows.h) to their tables, the tables' change
  // streams getting them as inserts; under mu_ and a write guard, tables
  // checked.
  void WriteBulkLocked(const std::vector<std::shared_ptr<const BulkRows>>& loads);
  // The changes `ops` make to the table, as rows of all its columns (old
  // rows read before writing), decoding those of `columns_read` (empty:
  // every one; the others NULL). Which inserts are known to find no row,
  // and so are not read again: kCheckedInserts, CheckKeysLocked found none
  // under the key of each check_unique put (23505 otherwise);
  // kResolvedInserts, ResolveTableConflicts turned every insert of a key
  // that was there into an overwrite (row_delta 0), so every put with
  // row_delta > 0 addresses a new key.
  enum class KnownInserts { kCheckedInserts, kResolvedInserts };
  static std::vector<StreamChunk> ChangesOf(const StateTable& st, const WriteLog& ops, KnownInserts inserts,
                                            const std::vector<bool>& columns_read = {});
  // Throws 23505 if an insert of `ops` (applied after `before`) finds its key.
  void CheckKeysLocked(TableId id, const TableWriteSet* before, const TableWriteSet& ops);
  // The index relation of a unique constraint (unique_index.h), registered
  // for commit at its first use.
  std::shared_ptr<StateTable> UniqueIndexFor(const TableCatalog& table, const ConstraintCatalog& constraint);
  // Checks `writes` (after `before`, if given) against the unique
  // constraints of their tables, throwing 23505; with `out`, adds the index
  // writes they make.
  using IndexWrites = std::vector<std::pair<std::shared_ptr<StateTable>, WriteLog>>;
  void UniqueIndexWritesLocked(const WriteSet& writes, const WriteSet* before, IndexWrites* out);

  StateStore* store_;
  const Catalog* catalog_;
  // Where the checks under mu_ look tables up: catalog_, or a transaction's
  // catalog (CheckUnique, Apply's WithDdl).
  const Catalog* lookup_ = catalog_;
  TableWatermarks watermarks_;  // tables with WATERMARK FOR
  DatabaseEpochLoop* loop_;
  // The part of Apply under mu_ and the epoch guard; with `log_entry`, the
  // entry is appended to `log` first and its sequence number set in `seq`.
  Epoch ApplyLocked(WriteSet&& writes, DmlLog* log = nullptr, const std::string* log_entry = nullptr,
                    uint64_t* seq = nullptr, const WithDdl* ddl = nullptr);

  // Raises last_applied_ to `epoch`.
  void NoteApplied(Epoch epoch);

  // Waits (lock held on mu_) until `writes` touches no blocked table.
  void WaitUnblocked(std::unique_lock<std::mutex>& lock, const WriteSet& writes, const void* owner = nullptr,
                     const WaitLimits* wait = nullptr);

  std::mutex mu_;
  std::map<TableId, std::shared_ptr<StateTable>> tables_;  // tables and unique indexes, under mu_
  std::map<TableId, std::set<TableId>> unique_indexes_;    // a table's unique index relations, under mu_
  std::multimap<TableId, const void*> blocked_;  // by whom, under mu_
  std::condition_variable unblocked_;
  std::mutex writer_mu_;
  std::condition_variable writer_free_;
  bool writer_held_ = false;  // under writer_mu_
  std::atomic<Epoch> last_applied_{0};
};

}  // namespace freshet
