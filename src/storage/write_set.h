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

namespace freshet {

struct WriteOp {
  bool is_delete = false;
  std::string key;    // full storage key
  std::string value;  // encoded row (inserts)
  bool check_unique = false;  // insert must not find an existing row
  // Change to the relation's row count: +1 a new row, -1 a removed one, 0
  // an overwrite or a state-table write (row-count statistics, committed
  // with the data; see RowCountMetaKey).
  int8_t row_delta = 0;
};

// Vectors of WriteOps live for an epoch: filled by a state table, handed
// to the commit, then dropped. Dropping and allocating them anew each epoch
// touches fresh memory every time, which on virtual machines costs more
// than filling it (docs/architecture.md, "Bulk loads"). So they are
// recycled: the commit returns them here (cleared, keeping their capacity)
// and state tables take them for the next epoch. The pool keeps at most a
// few, holding at most kMaxPooledWriteOps ops of capacity in all.
std::vector<WriteOp> TakeWriteVector(size_t min_capacity);
void RecycleWriteVector(std::vector<WriteOp>&& ops);
inline constexpr size_t kMaxPooledWriteOps = size_t(16) << 20;

struct TableWriteSet {
  std::vector<WriteOp> ops;
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
  void Append(WriteSet&& other) {
    for (auto& [id, t] : other.tables_) {
      auto& mine = tables_[id].ops;
      mine.insert(mine.end(), std::make_move_iterator(t.ops.begin()), std::make_move_iterator(t.ops.end()));
    }
    other.tables_.clear();
    bulk_.insert(bulk_.end(), other.bulk_.begin(), other.bulk_.end());
    other.bulk_.clear();
  }

 private:
  std::map<TableId, TableWriteSet> tables_;
  std::vector<std::shared_ptr<const BulkRows>> bulk_;
};

}  // namespace freshet
