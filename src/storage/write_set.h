// WriteSet: the writes of one statement or transaction, not yet applied.
//
// DML executors fill a WriteSet; the session applies it at the end of the
// statement (autocommit) or at COMMIT, through DmlManager, which checks
// primary-key uniqueness and writes all of it into one epoch. Keeping
// writes out of the state tables until then is what makes ROLLBACK and
// failed statements free.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "storage/bulk_rows.h"
#include "storage/keys.h"
#include "storage/write_log.h"

namespace freshet {

struct TableWriteSet {
  WriteLog ops;
};

class WriteSet {
 public:
  TableWriteSet& For(TableId table_id) { return tables_[table_id]; }
  const TableWriteSet* Find(TableId table_id) const {
    auto it = tables_.find(table_id);
    return it == tables_.end() ? nullptr : &it->second;
  }
  const std::map<TableId, TableWriteSet>& tables() const { return tables_; }
  std::map<TableId, TableWriteSet>& mutable_tables() { return tables_; }
  // Bulk inserts (bulk_rows.h): only outside transaction blocks, whose
  // writes must stay readable as ops.
  void AddBulk(std::shared_ptr<const BulkRows> rows) { bulk_.push_back(std::move(rows)); }
  const std::vector<std::shared_ptr<const BulkRows>>& bulk() const { return bulk_; }
  bool empty() const {
    for (const auto& [id, t] : tables_)
      if (!t.ops.empty()) return false;
    return bulk_.empty();
  }
  void Clear() {
    tables_.clear();
    bulk_.clear();
  }
  // How far the set has got: the number of ops of each table (bulk rows are
  // never part of a transaction block's set). TruncateTo(p) forgets every
  // write made after Position() returned p: a savepoint's rollback.
  using Position = std::map<TableId, size_t>;
  Position CurrentPosition() const {
    Position p;
    for (const auto& [id, t] : tables_) p[id] = t.ops.size();
    return p;
  }
  void TruncateTo(const Position& p) {
    for (auto it = tables_.begin(); it != tables_.end();) {
      auto at = p.find(it->first);
      size_t keep = at == p.end() ? 0 : at->second;
      if (keep == 0) {
        it = tables_.erase(it);
        continue;
      }
      it->second.ops.Truncate(keep);
      ++it;
    }
  }
  void Append(WriteSet&& other) {
    for (auto& [id, t] : other.tables_) {
      auto& mine = tables_[id].ops;
      if (mine.empty()) mine.swap(t.ops);
      else mine.Append(t.ops);
    }
    other.tables_.clear();
    bulk_.insert(bulk_.end(), other.bulk_.begin(), other.bulk_.end());
    other.bulk_.clear();
  }

 private:
  std::map<TableId, TableWriteSet> tables_;
  std::vector<std::shared_ptr<const BulkRows>> bulk_;
};

// The ops of a write set (not its bulk rows) as bytes, for the DML log, and
// back. Decode returns false for bytes that are not an encoding.
std::string EncodeWriteSetOps(const WriteSet& writes);
// `unique_checks`: keep the ops' primary-key checks (a replay drops them:
// the writes were checked when first applied).
bool DecodeWriteSetOps(std::string_view bytes, WriteSet* out, bool unique_checks = true);

}  // namespace freshet
