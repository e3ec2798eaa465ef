#include "meta/dml_manager.h"

#include <chrono>
#include <set>
#include <unordered_map>

#include "common/encoding.h"
#include "common/error.h"
#include "expr/cast.h"
#include "meta/table_conflict.h"
#include "meta/unique_index.h"

namespace freshet {

std::shared_ptr<StateTable> DmlManager::TableFor(TableId id) {
  auto it = tables_.find(id);
  if (it != tables_.end()) return it->second;
  TableRef t = lookup_->GetTable(id);
  if (!t) FRESHET_THROW(sqlstate::kUndefinedTable, "relation with id {} was dropped", id);
  auto st = std::make_shared<StateTable>(store_, t->StorageDesc());
  loop_->Register(st);
  tables_[id] = st;
  return st;
}

std::shared_ptr<StateTable> DmlManager::TableForWrite(TableId id) {
  std::shared_ptr<StateTable> st = TableFor(id);
  // A table that gained columns (ADD COLUMN keeps its id and rows): its
  // changes are decoded with them from now on.
  TableRef t = lookup_->GetTable(id);
  if (!t) return st;
  std::vector<std::string> missing = t->MissingCells();
  if (t->columns.size() != st->desc().column_types.size() || missing != st->desc().missing_cells)
    st->SetColumns(t->types(), std::move(missing));
  return st;
}

std::shared_ptr<const StateTable> DmlManager::LatestRows(TableId id) {
  TableRef t = catalog_->GetTable(id);
  std::lock_guard lock(mu_);
  if (!t) {
    // A unique constraint's index this process has written or read.
    auto it = tables_.find(id);
    return it != tables_.end() ? it->second : nullptr;
  }
  if (t->kind != RelationKind::kTable) return nullptr;
  return TableFor(id);
}

std::vector<WatermarkInfo> DmlManager::Watermarks() {
  std::lock_guard lock(mu_);
  return watermarks_.Infos();
}

void DmlManager::DropTable(TableId id) {
  std::lock_guard lock(mu_);
  tables_.erase(id);
  watermarks_.Forget(id);
  loop_->Unregister(id);
  auto owned = unique_indexes_.find(id);
  if (owned == unique_indexes_.end()) return;
  for (TableId index : owned->second) {
    tables_.erase(index);
    loop_->Unregister(index);
  }
  unique_indexes_.erase(owned);
}

void DmlManager::FillUniqueIndex(const TableCatalog& table, const ConstraintCatalog& constraint) {
  std::lock_guard lock(mu_);
  std::shared_ptr<StateTable> rows = TableFor(table.id);
  if (rows->HasPendingWrites())
    throw SqlError(sqlstate::kInternalError, "the table has writes that are not committed");
  try {
    auto guard = loop_->BeginWrite();  // ended before the catch (Unregister waits for writers)
    std::shared_ptr<StateTable> index_table = UniqueIndexFor(table, constraint);
    // Every row into the (empty) index: two rows with one value conflict
    // as two inserts would.
    TableCatalog only = table;
    only.constraints = {constraint};
    UniqueIndexWrites index(only, *rows, [&](const ConstraintCatalog&) { return index_table; });
    WriteLog ops;
    for (uint16_t vnode = 0; vnode < kVnodeCount; vnode++) {
      auto c = rows->ScanCommittedPrefix(rows->KeyIn(vnode));
      for (; c.Valid(); c.Next()) ops.Put(c.key(), c.value());
      c.status().ThrowIfError();
      if (ops.size() >= 4096 || vnode + 1 == kVnodeCount) {
        index.AddStored(ops);
        ops = WriteLog();
      }
    }
    for (auto& [st, writes] : index.Writes()) st->Write(std::move(writes));
  } catch (...) {
    tables_.erase(constraint.index_id);
    loop_->Unregister(constraint.index_id);
    throw;
  }
}

std::shared_ptr<StateTable> DmlManager::UniqueIndexFor(const TableCatalog& table, const ConstraintCatalog& constraint) {
  auto it = tables_.find(constraint.index_id);
  if (it != tables_.end()) return it->second;
  auto st = std::make_shared<StateTable>(store_, table.UniqueIndexDesc(constraint));
  loop_->Register(st);
  tables_[constraint.index_id] = st;
  unique_indexes_[table.id].insert(constraint.index_id);
  return st;
}

void DmlManager::UniqueIndexWritesLocked(const WriteSet& writes, const WriteSet* before, IndexWrites* out) {
  std::set<TableId> ids;
  for (const auto& [id, tw] : writes.tables())
    if (!tw.ops.empty()) ids.insert(id);
  for (const auto& rows : writes.bulk()) ids.insert(rows->table_id());
  for (TableId id : ids) {
    TableRef t = lookup_->GetTable(id);
    if (!t || !UniqueIndexWrites::HasUniqueConstraints(*t)) continue;
    UniqueIndexWrites index(*t, *TableFor(id), [&](const ConstraintCatalog& c) { return UniqueIndexFor(*t, c); });
    if (const TableWriteSet* earlier = before ? before->Find(id) : nullptr) index.Add(earlier->ops);
    if (const TableWriteSet* tw = writes.Find(id)) index.Add(tw->ops);
    for (const auto& rows : writes.bulk())
      if (rows->table_id() == id) index.AddBulk(*rows);
    if (!out) continue;
    for (auto& w : index.Writes()) out->push_back(std::move(w));
  }
}

void DmlManager::CheckKeysLocked(TableId id, const TableWriteSet* before, const TableWriteSet& ops) {
  bool needs_check = false;
  for (const auto& op : ops.ops) needs_check |= op.check_unique;
  if (!needs_check) return;
  // A table with a conflict behaviour resolves its duplicate keys instead
  // (ResolveTableConflicts, when the writes are applied).
  if (TableRef t = lookup_->GetTable(id); t && HasConflictBehaviour(*t)) return;
  auto st = TableFor(id);
  // Whether each key exists after the ops so far (a statement may delete a
  // key and insert it again), found once per op (views into the logs).
  struct KeyState {
    int8_t present = -1;       // -1: as stored
    size_t stored = SIZE_MAX;  // index in `stored`, if read
  };
  std::unordered_map<std::string_view, KeyState> keys;
  keys.reserve(ops.ops.size() + (before ? before->ops.size() : 0));
  if (before)
    for (const auto& op : before->ops) keys[op.key].present = !op.is_delete;
  // The stored rows of the keys inserted before anything else addresses
  // them, read together.
  std::vector<KeyState*> state_of(ops.ops.size());
  std::vector<std::string_view> to_read;
  for (size_t i = 0; i < ops.ops.size(); i++) {
    const WriteOp& op = ops.ops[i];
    auto [it, first] = keys.try_emplace(op.key);
    state_of[i] = &it->second;
    if (first && op.check_unique && !op.is_delete) {
      it->second.stored = to_read.size();
      to_read.push_back(op.key);
    }
  }
  const std::vector<std::optional<std::string>> stored = st->MultiGet(to_read);
  for (size_t i = 0; i < ops.ops.size(); i++) {
    const WriteOp& op = ops.ops[i];
    KeyState& key = *state_of[i];
    if (op.check_unique && !op.is_delete) {
      const bool exists = key.present >= 0 ? key.present == 1 : key.stored != SIZE_MAX && stored[key.stored];
      if (exists) {
        TableRef t = lookup_->GetTable(id);
        if (!t) FRESHET_THROW(sqlstate::kUndefinedTable, "relation with id {} was dropped", id);
        throw DuplicateKeyError(*t, op.value);
      }
    }
    key.present = !op.is_delete;
  }
}

SqlError DuplicateKeyError(const TableCatalog& table, std::string_view row) {
  Row values;
  if (!DecodeStoredRow(row, table.types(), table.MissingCells(), &values)) {
    SqlError e(sqlstate::kUniqueViolation,
               "duplicate key value violates unique constraint \"" + table.name + "_pkey\"");
    return e.WithField('t', table.name).WithField('n', table.name + "_pkey");
  }
  return UniqueViolation(table, table.name + "_pkey", table.pk, values);
}

namespace {
// Points the manager's catalog lookups at `catalog` while in scope.
struct LookupIn {
  const Catalog*& lookup;
  const Catalog* saved;
  LookupIn(const Catalog*& l, const Catalog* catalog) : lookup(l), saved(l) {
    if (catalog) lookup = catalog;
  }
  ~LookupIn() { lookup = saved; }
};
}  // namespace

void DmlManager::CheckUnique(const WriteSet& before, const WriteSet& added, const Catalog* catalog) {
  std::lock_guard lock(mu_);
  LookupIn in(lookup_, catalog);
  for (const auto& [id, tw] : added.tables()) CheckKeysLocked(id, before.Find(id), tw);
  UniqueIndexWritesLocked(added, &before, nullptr);
}

Epoch DmlManager::Apply(WriteSet&& writes, bool durable, const std::function<void()>& on_applied,
                        const WithDdl* ddl, const WaitLimits* wait) {
  // A database whose last commit failed (a full disk) takes no writes.
  loop_->CheckAcceptingWrites();
  // Rows held in memory are written out by the commit: refused now if they
  // would not fit (spilled loads are on disk already).
  uint64_t bulk_bytes = 0;
  for (const auto& rows : writes.bulk()) bulk_bytes += rows->unwritten_bytes();
  if (bulk_bytes) store_->CheckWritable(bulk_bytes).ThrowIfError();
  bool has_ops = false;
  for (const auto& [id, tw] : writes.tables()) has_ops |= !tw.ops.empty();
  DmlLog* log = durable && has_ops ? store_->DmlLogFor(loop_->database_id()) : nullptr;
  if (!log) {  // in memory, nothing is durable
    Epoch epoch;
    {
      std::unique_lock lock(mu_);
      WaitUnblocked(lock, writes, ddl && ddl->owner ? ddl->owner : wait ? wait->owner : nullptr, wait);
      epoch = ApplyLocked(std::move(writes), nullptr, nullptr, nullptr, ddl);
    }
    NoteApplied(epoch);
    if (on_applied) on_applied();
    return epoch;
  }
  std::string entry = EncodeWriteSetOps(writes);
  store_->CheckWritable(entry.size()).ThrowIfError();
  Epoch epoch;
  uint64_t seq = 0;
  {
    std::unique_lock lock(mu_);
    WaitUnblocked(lock, writes, ddl && ddl->owner ? ddl->owner : wait ? wait->owner : nullptr, wait);
    epoch = ApplyLocked(std::move(writes), log, &entry, &seq, ddl);
  }
  // Before the sync: a read that waits for every applied write waits for
  // this one's epoch too (it may then see it before its writer's client).
  NoteApplied(epoch);
  if (on_applied) on_applied();
  // Outside the lock, so that other writers append meanwhile and share
  // this sync.
  log->Sync(seq).ThrowIfError();
  return epoch;
}

void DmlManager::WaitUnblocked(std::unique_lock<std::mutex>& lock, const WriteSet& writes, const void* owner,
                               const WaitLimits* wait) {
  auto blocked = [&](TableId id) {
    auto [from, to] = blocked_.equal_range(id);
    for (auto it = from; it != to; ++it)
      if (!owner || it->second != owner) return true;
    return false;
  };
  auto free = [&] {
    if (blocked_.empty()) return true;
    for (const auto& [id, tw] : writes.tables())
      if (!tw.ops.empty() && blocked(id)) return false;
    for (const auto& rows : writes.bulk())
      if (blocked(rows->table_id())) return false;
    return true;
  };
  using Clock = std::chrono::steady_clock;
  const int64_t timeout_ms = wait ? wait->timeout_ms : 0;
  const auto deadline = timeout_ms > 0 ? Clock::now() + std::chrono::milliseconds(timeout_ms) : Clock::time_point::max();
  while (!free()) {
    if (wait && wait->cancel && wait->cancel->load())
      throw SqlError(sqlstate::kQueryCanceled, "canceling statement due to user request");
    if (Clock::now() >= deadline) throw SqlError(sqlstate::kLockNotAvailable, "canceling statement due to lock timeout");
    // Woken by the release; the timeout also notices a cancel request.
    unblocked_.wait_until(lock, std::min(deadline, Clock::now() + std::chrono::milliseconds(10)));
  }
}

std::shared_ptr<void> DmlManager::AcquireWriter(const std::atomic<bool>* cancel, int64_t timeout_ms) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = timeout_ms > 0 ? Clock::now() + std::chrono::milliseconds(timeout_ms) : Clock::time_point::max();
  std::unique_lock lock(writer_mu_);
  while (writer_held_) {
    if (cancel && cancel->load()) throw SqlError(sqlstate::kQueryCanceled, "canceling statement due to user request");
    if (Clock::now() >= deadline) throw SqlError(sqlstate::kLockNotAvailable, "canceling statement due to lock timeout");
    // Woken by the release; the timeout also notices a cancel request.
    writer_free_.wait_until(lock, std::min(deadline, Clock::now() + std::chrono::milliseconds(10)));
  }
  writer_held_ = true;
  // Not null: holders test the guard for whether they hold the lock.
  return std::shared_ptr<void>(this, [this](void*) {
    {
      std::lock_guard lock(writer_mu_);
      writer_held_ = false;
    }
    writer_free_.notify_one();
  });
}

std::shared_ptr<void> DmlManager::BlockWrites(TableId id, const void* owner) {
  std::multimap<TableId, const void*>::iterator entry;
  {
    std::lock_guard lock(mu_);
    entry = blocked_.emplace(id, owner);
  }
  return Unblocker(entry);
}

std::shared_ptr<void> DmlManager::Unblocker(std::multimap<TableId, const void*>::iterator entry) {
  // Not null (LockWrites' null means not obtained).
  return std::shared_ptr<void>(this, [this, entry](void*) {
    {
      std::lock_guard lock(mu_);
      blocked_.erase(entry);
    }
    unblocked_.notify_all();
  });
}

std::shared_ptr<void> DmlManager::LockWrites(TableId id, const void* owner, const WaitLimits& wait, bool nowait) {
  using Clock = std::chrono::steady_clock;
  const auto deadline =
      wait.timeout_ms > 0 ? Clock::now() + std::chrono::milliseconds(wait.timeout_ms) : Clock::time_point::max();
  std::multimap<TableId, const void*>::iterator entry;
  {
    std::unique_lock lock(mu_);
    auto by_other = [&] {
      auto [from, to] = blocked_.equal_range(id);
      for (auto it = from; it != to; ++it)
        if (it->second != owner) return true;
      return false;
    };
    while (by_other()) {
      if (nowait) return nullptr;
      if (wait.cancel && wait.cancel->load())
        throw SqlError(sqlstate::kQueryCanceled, "canceling statement due to user request");
      if (Clock::now() >= deadline) throw SqlError(sqlstate::kLockNotAvailable, "canceling statement due to lock timeout");
      unblocked_.wait_until(lock, std::min(deadline, Clock::now() + std::chrono::milliseconds(10)));
    }
    entry = blocked_.emplace(id, owner);
  }
  return Unblocker(entry);
}

void DmlManager::NoteApplied(Epoch epoch) {
  Epoch seen = last_applied_.load();
  while (seen < epoch && !last_applied_.compare_exchange_weak(seen, epoch)) {
  }
}

Epoch DmlManager::ApplyLocked(WriteSet&& writes, DmlLog* log, const std::string* log_entry, uint64_t* seq,
                              const WithDdl* ddl) {
  auto guard = loop_->BeginWrite();
  LookupIn in(lookup_, ddl ? ddl->catalog : nullptr);
  // Check everything first so that a failure leaves no trace.
  for (const auto& rows : writes.bulk())
    if (!lookup_->GetTable(rows->table_id()))
      FRESHET_THROW(sqlstate::kUndefinedTable, "relation with id {} was dropped", rows->table_id());
  struct Target {
    std::shared_ptr<StateTable> st;
    TableWriteSet* tw;
    TableRef table;
  };
  std::vector<Target> targets;
  for (auto& [id, tw] : writes.mutable_tables()) {
    if (tw.ops.empty()) continue;
    TableRef table = lookup_->GetTable(id);
    if (!table) FRESHET_THROW(sqlstate::kUndefinedTable, "relation with id {} was dropped", id);
    auto st = TableForWrite(id);
    CheckKeysLocked(id, nullptr, tw);
    if (HasConflictBehaviour(*table)) ResolveTableConflicts(*table, *st, &tw.ops);
    targets.push_back({std::move(st), &tw, std::move(table)});
  }
  IndexWrites index_writes;
  UniqueIndexWritesLocked(writes, nullptr, &index_writes);
  // The writes pass: their transaction's DDL is stored first (a crash
  // before the DML log's sync below keeps it without the writes).
  if (ddl) ddl->commit();
  // Logged after the checks (a refused write set is not logged) and before
  // the writes, in the order writers hold mu_: replay reproduces the order.
  if (log_entry) {
    Result<uint64_t> appended = log->Append(*log_entry);
    appended.status().ThrowIfError();
    *seq = *appended;
    loop_->NoteDmlLogEntry(guard.epoch(), *seq);
  }
  StreamRuntime* runtime = loop_->runtime();
  for (auto& [st, tw, table] : targets) {
    TableId id = st->desc().table_id;
    if (table->watermark_column >= 0) {
      Value watermark = watermarks_.Filter(*table, *st, &tw->ops);
      if (!watermark.is_null()) runtime->SetTableWatermark(id, {table->watermark_column, std::move(watermark)});
    }
    if (!runtime->HasSubscribers(id)) {
      st->Write(std::move(tw->ops));
      continue;
    }
    // The table's change stream carries whole rows (but the columns no
    // reader reads, left NULL): the old row of each delete or overwrite is
    // read before the write. (A table with a conflict behaviour resolved
    // its duplicates instead of checking them.)
    std::vector<StreamChunk> changes =
        ChangesOf(*st, tw->ops, HasConflictBehaviour(*table) ? KnownInserts::kResolvedInserts : KnownInserts::kCheckedInserts,
                  runtime->TableColumnsRead(id));
    st->Write(std::move(tw->ops));
    for (const auto& c : changes) runtime->PushTableChanges(id, c);
  }
  // Bulk inserts are new keys: no op above can have addressed them.
  WriteBulkLocked(writes.bulk());
  for (auto& [index, ops] : index_writes) index->Write(std::move(ops));
  return guard.epoch();
}

size_t DmlManager::ReplayLog() {
  DmlLog* log = store_->DmlLogFor(loop_->database_id());
  if (!log) return 0;
  std::lock_guard lock(mu_);
  Result<size_t> replayed = log->Replay([&](uint64_t seq, std::string_view entry) {
    WriteSet writes;
    if (!DecodeWriteSetOps(entry, &writes, /*unique_checks=*/false)) throw SqlError(sqlstate::kDataCorrupted, "corrupt DML log entry");
    // The entry of a table dropped since then is dropped with it.
    for (auto it = writes.mutable_tables().begin(); it != writes.mutable_tables().end();)
      it = catalog_->GetTable(it->first) ? std::next(it) : writes.mutable_tables().erase(it);
    // Covered by the commit that holds the replay.
    loop_->NoteDmlLogEntry(ApplyLocked(std::move(writes)), seq);
  });
  replayed.status().ThrowIfError();
  return *replayed;
}

void DmlManager::WriteBulkLocked(const std::vector<std::shared_ptr<const BulkRows>>& loads) {
  StreamRuntime* runtime = loop_->runtime();
  for (const auto& rows : loads) {
    TableId id = rows->table_id();
    auto st = TableForWrite(id);
    if (runtime->HasSubscribers(id)) {
      // New keys only: every row is an insert, no old row to read.
      const std::vector<DataType>& types = st->desc().column_types;
      const std::vector<bool> read = runtime->TableColumnsRead(id);
      DataChunk chunk(types);
      auto push = [&] {
        runtime->PushTableChanges(id, StreamChunk(std::vector<Op>(chunk.num_rows(), Op::kInsert), std::move(chunk)));
        chunk = DataChunk(types);
      };
      BulkRows::Cursor c(rows.get());
      for (c.Seek(""); c.Valid(); c.Next()) {
        if (!DecodeStoredRowInto(c.value(), &chunk, st->desc().missing_cells, read.empty() ? nullptr : &read))
          throw SqlError(sqlstate::kDataCorrupted, "corrupt row in bulk insert");
        if (chunk.num_rows() == kChunkSize) push();
      }
      if (chunk.num_rows()) push();
    }
    st->WriteBulk(rows);
  }
}

std::vector<StreamChunk> DmlManager::ChangesOf(const StateTable& st, const WriteLog& ops, KnownInserts inserts,
                                               const std::vector<bool>& columns_read) {
  const std::vector<DataType>& types = st.desc().column_types;
  std::vector<StreamChunk> out;
  std::vector<Op> chunk_ops;
  DataChunk rows(types);
  const std::vector<bool>* wanted = columns_read.empty() ? nullptr : &columns_read;
  auto append = [&](Op op, std::string_view value) {
    if (!DecodeStoredRowInto(value, &rows, st.desc().missing_cells, wanted))
      throw SqlError(sqlstate::kDataCorrupted, "corrupt row in table change");
    chunk_ops.push_back(op);
  };
  // Each key's state, found once per op (views into `ops`).
  struct KeyState {
    size_t stored = SIZE_MAX;  // index in `stored`, if read
    bool written = false;      // by an earlier op of this write set
    std::optional<std::string_view> latest;  // the row it left, if written
  };
  std::unordered_map<std::string_view, KeyState> keys;
  keys.reserve(ops.size());
  std::vector<KeyState*> state_of(ops.size());
  // The stored rows under the keys the ops address first, read together
  // (a lookup each cost 5 us at TPC-H's SF 1); a checked insert's key has
  // none, and a DML delete carries the row it removes. (Both hold because
  // nothing else writes those keys first: a checked insert would fail, and
  // a DELETE holds the writer lock from its read to its commit. In a table
  // with a conflict behaviour, ResolveTableConflicts turned the inserts of
  // keys that were there into overwrites, which are read; its remaining
  // inserts are of new keys.)
  std::vector<std::string_view> to_read;
  for (size_t i = 0; i < ops.size(); i++) {
    const WriteOp& op = ops[i];
    auto [it, first] = keys.try_emplace(op.key);
    state_of[i] = &it->second;
    if (!first) continue;
    const bool new_key = inserts == KnownInserts::kCheckedInserts ? op.check_unique : op.row_delta > 0;
    const bool known = op.is_delete ? !op.value.empty() : new_key;
    if (known) continue;
    it->second.stored = to_read.size();
    to_read.push_back(op.key);
  }
  const std::vector<std::optional<std::string>> stored = st.MultiGet(to_read);
  for (size_t i = 0; i < ops.size(); i++) {
    const WriteOp& op = ops[i];
    KeyState& key = *state_of[i];
    std::optional<std::string_view> old;
    if (key.written) {
      old = key.latest;
    } else if (key.stored != SIZE_MAX) {
      if (stored[key.stored]) old = *stored[key.stored];
    } else if (op.is_delete) {
      old = op.value;
    }
    key.written = true;
    if (rows.num_rows() + 2 > kChunkSize) {
      out.emplace_back(std::move(chunk_ops), std::move(rows));
      chunk_ops.clear();
      rows = DataChunk(types);
    }
    if (op.is_delete) {
      if (old) append(Op::kDelete, *old);
      key.latest = std::nullopt;
      continue;
    }
    if (old) {
      append(Op::kUpdateDelete, *old);
      append(Op::kUpdateInsert, op.value);
    } else {
      append(Op::kInsert, op.value);
    }
    key.latest = op.value;
  }
  if (!chunk_ops.empty()) out.emplace_back(std::move(chunk_ops), std::move(rows));
  return out;
}

}  // namespace freshet
