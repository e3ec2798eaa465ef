// UniqueIndexWrites: what a table's writes do to the indexes of its UNIQUE
// constraints, and whether they may.
//
// Each unique constraint of a table has an index, a relation of its own
// (ConstraintCatalog::index_id) that DmlManager keeps in the same epochs as
// the table's rows: its columns are the constrained columns, keyed, then
// the table's key columns (so the index is read like any relation: which
// row holds a value). A row whose constrained columns hold a NULL is not
// indexed (NULLs are distinct) unless the constraint says NULLS NOT
// DISTINCT; nor is a row for which a partial index's predicate
// (ConstraintCatalog::predicate) is not true.
//
// Given the table's rows as every applied write leaves them (DmlManager's
// state table), the writes are replayed in order over an overlay of the
// indexes: a write first takes its key's old row out of every index, then
// puts the new row in, and a new row whose index key another row holds is
// 23505, as PostgreSQL's immediate unique checks (so an UPDATE that moves
// values between rows can fail part-way, as it can in PostgreSQL). Nothing
// is written: Writes() says what to write once every table's writes of the
// write set passed.
//
// Not thread-safe; used under DmlManager's lock.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "catalog/catalog.h"
#include "common/error.h"
#include "expr/expression.h"
#include "storage/bulk_rows.h"
#include "storage/state_table.h"
#include "storage/write_log.h"

namespace freshet {

// 23505 as PostgreSQL words it: the constraint, DETAIL "Key (a, b)=(1, x)
// already exists.", the table and constraint fields. `row` holds all the
// table's columns; `columns` are the key's. The second form names the
// key's elements and gives their values.
SqlError UniqueViolation(const TableCatalog& table, const std::string& constraint, const std::vector<int>& columns,
                         const Row& row);
SqlError UniqueViolation(const TableCatalog& table, const std::string& constraint, const std::vector<std::string>& names,
                         const std::vector<Value>& values);

// Binds a partial unique index's predicate (`condition`) or an element
// that is an expression (SQL text) against its table's columns. meta has
// no binder: the frontend installs one at start (SetIndexExpressionBinder);
// without one, such an index is XX000.
using IndexExpressionBinder = std::function<ExprPtr(const TableCatalog&, const std::string& text, bool condition)>;
void SetIndexExpressionBinder(IndexExpressionBinder binder);

// The values of unique index `c`'s elements for `row` (the table's
// columns): a column's value, or the element's expression (`elements[k]`,
// null for a column) evaluated over the row.
std::vector<Value> IndexElementValues(const TableCatalog& table, const ConstraintCatalog& c,
                                      const std::vector<std::shared_ptr<const Expression>>& elements, const Row& row);
// The bound expressions of `c`'s elements (null for columns); empty when
// it has none.
std::vector<std::shared_ptr<const Expression>> BindIndexElements(const TableCatalog& table, const ConstraintCatalog& c);
// What DETAIL names an index's elements by: a column's name, an
// expression's text in parentheses is PostgreSQL's "lower(e)".
std::vector<std::string> IndexElementNames(const ConstraintCatalog& c);

class UniqueIndexWrites {
 public:
  // The index relation of a constraint (DmlManager's, registered for commit).
  using IndexFor = std::function<std::shared_ptr<StateTable>(const ConstraintCatalog&)>;

  // `rows`: the table's rows with every applied write. Tables without
  // unique constraints need none of this (HasUniqueConstraints).
  UniqueIndexWrites(const TableCatalog& table, const StateTable& rows, const IndexFor& index_for);
  static bool HasUniqueConstraints(const TableCatalog& table);

  // Replays ops in order; throws 23505 at the first conflict.
  void Add(const WriteLog& ops);
  // Bulk inserts (new keys, after every op).
  void AddBulk(const BulkRows& rows);
  // Rows the table already holds, each once, into indexes being filled:
  // nothing to take out first (DmlManager::FillUniqueIndex).
  void AddStored(const WriteLog& rows);

  // The net writes to each index.
  std::vector<std::pair<std::shared_ptr<StateTable>, WriteLog>> Writes() const;

 private:
  // An index row as the replayed writes leave it: the row key of the
  // table's row that holds the value, and the index row's encoding.
  struct Entry {
    std::string row_key;
    std::string encoded;
  };
  struct Index {
    const ConstraintCatalog* constraint;
    std::vector<int> columns;  // the table's: constrained ones, then its key's
    std::shared_ptr<StateTable> table;
    std::unordered_map<std::string, std::optional<Entry>> overlay;  // by index key; nullopt: deleted
    std::shared_ptr<const Expression> predicate;  // partial indexes: the rows it holds
    std::vector<std::shared_ptr<const Expression>> elements;  // BindIndexElements
  };
  // Whether a partial index holds `row` (its predicate is true).
  bool Holds(const Index& index, const Row& row) const;
  // The index row of a table row (elements, then the table's key), or
  // nullopt when it is not indexed.
  DataChunk IndexRow(const Index& index, const Row& row) const;
  std::optional<DataChunk> IndexRowOf(const Index& index, const Row& row) const;
  // The row key of the table's row holding index key `key`, if any.
  std::optional<std::string> Lookup(Index& index, const std::string& key) const;
  // Gives `key` of the index to the table's row `row_key` (index_row: the
  // index row's encoding, row r of index_rows); 23505 naming its values
  // when another row holds it.
  void Claim(Index& index, std::string key, const std::string& row_key, std::string index_row,
             const DataChunk& index_rows, size_t r);
  void Remove(const std::string& row_key, const std::string& encoded);
  void Insert(const std::string& row_key, const std::string& encoded);
  Row Decode(const std::string& encoded) const;

  const TableCatalog& table_;
  const StateTable& rows_;
  std::vector<std::string> missing_;  // TableCatalog::MissingCells
  std::vector<Index> indexes_;
  std::unordered_map<std::string, std::optional<std::string>> latest_;  // row key -> row as the replayed writes left it
};

}  // namespace freshet
