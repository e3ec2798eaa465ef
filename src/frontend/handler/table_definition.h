// A table's definition as CREATE TABLE and ALTER TABLE both build it: a
// column from its ColumnDef (type, NOT NULL, DEFAULT, PRIMARY KEY), the
// text of a DEFAULT, and the normalized CREATE statement SHOW CREATE TABLE
// prints.
#pragma once

#include <string>

#include "catalog/catalog.h"
#include "expr/expression.h"
#include "frontend/handler/handler.h"
#include "sql/parser.h"

struct PgQuery__ColumnDef;
struct PgQuery__Constraint;
struct PgQuery__Node;

namespace freshet {

class Session;

struct BoundColumn;
// The sequence a serial or identity column draws from (`bound`, column
// `column_index` of `table`, in schema `schema_name`): named for the table
// and column (not one of `taken`), with the column's identity options; the
// column's DEFAULT is set to draw from it.
TableCatalog OwnedSequence(const HandlerArgs& args, const Catalog& catalog, const TableCatalog& table,
                           const std::string& schema_name, int column_index, const std::vector<std::string>& taken,
                           BoundColumn* bound);

struct BoundColumn {
  ColumnCatalog column;
  bool primary_key = false;  // declared PRIMARY KEY on the column
  // serial/bigserial/smallserial, or GENERATED ... AS IDENTITY (with its
  // sequence options, if any): the column draws from a sequence of its
  // own, which the caller makes (its DEFAULT is left empty).
  bool owns_sequence = false;
  const PgQuery__Constraint* identity = nullptr;
  // GENERATED ALWAYS AS (...) STORED: bound by BindGeneratedColumn once
  // the table's columns are known.
  const PgQuery__Constraint* generated = nullptr;
  // REFERENCES on the column: bound by BindForeignKey once the table's
  // columns and key are known; DEFERRABLE and INITIALLY DEFERRED after one
  // are separate constraint items of the column, applied to it here.
  struct ForeignKey {
    const PgQuery__Constraint* clause;
    bool deferrable, deferred;
  };
  std::vector<ForeignKey> foreign_keys;
  // CHECK on the column: bound by BindCheckConstraint once the table's
  // columns are known (it may read any of them, as in PostgreSQL).
  std::vector<const PgQuery__Constraint*> checks;
  // UNIQUE on the column: bound by BindUniqueConstraint.
  std::vector<const PgQuery__Constraint*> uniques;
};

// A FOREIGN KEY of `table` (being created, id 0, or altered: its columns
// and key as they will be) over its columns `columns`, checked as
// PostgreSQL checks it (the referenced table exists and is a table, the
// columns exist, the referenced columns are its primary key, as many as
// the referencing ones). Named as PostgreSQL names it unless the
// constraint is; its ordinal is the first free one. Recorded, not
// enforced: the caller sends a NOTICE (ForeignKeyNotice).
ConstraintCatalog BindForeignKey(const HandlerArgs& args, const TableCatalog& table,
                                 const std::vector<std::string>& columns, const PgQuery__Constraint* c);
std::string ForeignKeyNotice(const ConstraintCatalog& fk);

// Whether a CHECK's expression is an operator (pg_get_constraintdef then
// parenthesizes it once more).
bool IsOperatorNode(const PgQuery__Node* expr);

// A CHECK constraint of `table` (being created or altered, its columns as
// they will be): the expression bound over its columns (Binder::
// BindCheckExpression's errors), kept as deparsed SQL with the columns it
// reads; NOT VALID kept as not validated. Named as PostgreSQL names it
// (<table>_<column>_check when it reads one column, else <table>_check,
// numbered when taken) unless the constraint is.
ConstraintCatalog BindCheckConstraint(const HandlerArgs& args, const TableCatalog& table, const PgQuery__Constraint* c);

// A UNIQUE constraint of `table` over `columns` (which must be visible
// columns, each once): named <table>_<columns>_key (numbered when a
// relation of the schema has the name: its index is one) unless the
// constraint is (42P07 when a relation has that name); NULLS NOT DISTINCT
// kept; DEFERRABLE refused (0A000). Its index is
// made by the catalog when the table is created or rewritten.
ConstraintCatalog BindUniqueConstraint(const HandlerArgs& args, const TableCatalog& table,
                                       const std::vector<std::string>& columns, const PgQuery__Constraint* c);
// The column names of a table constraint's key (UNIQUE, PRIMARY KEY).
std::vector<std::string> ConstraintKeys(const PgQuery__Constraint* c);

// Gives *out the constraint's name (c's, 42710 when the table has it, or
// `chosen` numbered until free among the table's) and the first free
// ordinal (at most 32 per table: ConstraintOid).
void NameConstraint(const TableCatalog& table, const PgQuery__Constraint* c, const std::string& chosen,
                    ConstraintCatalog* out);

// The column a ColumnDef of `stmt` declares. Its DEFAULT is checked to bind
// without columns and to coerce to the column's type (42804). Constraints
// other than NOT NULL, NULL, DEFAULT and PRIMARY KEY are 0A000.
BoundColumn BindColumnDef(Session* session, const ParsedStatement& stmt, const PgQuery__ColumnDef* column_def);

// Column `column` of `table` generated as `bound` says: its expression
// bound over the table's columns (no other generated column, no DEFAULT
// besides: 42P17 / 42601), immutable (42P17), kept as its text.
void BindGeneratedColumn(Session* session, const ParsedStatement& stmt, TableCatalog* table, int column,
                         const BoundColumn& bound);

// Whether an expression's value depends on its inputs alone (PostgreSQL's
// IMMUTABLE): no clock, session or random functions.
bool IsImmutableExpression(const Expression& e);
// An index's expression or predicate (`what`) must be: 42P17 otherwise,
// as PostgreSQL's "functions in index expression must be marked IMMUTABLE".
void CheckImmutableInIndex(const Expression& e, const char* what);

// Checks that `expr`, a DEFAULT for `column`, binds without columns and
// coerces to its type (42804 otherwise), and returns the text to keep for
// it: PostgreSQL's own (pg_get_expr's) for the expressions whose printing
// is known exactly (constants, casts of constants, CURRENT_TIMESTAMP & co.,
// functions without arguments, number arithmetic), else `written`.
std::string ColumnDefaultText(Session* session, const ParsedStatement& stmt, const ColumnCatalog& column,
                              const PgQuery__Node* expr, const std::string& written);

// The SQL text of a DEFAULT expression: from after the DEFAULT keyword at
// `default_location` in `stmt` up to the next top-level comma, closing
// parenthesis or constraint keyword.
std::string DefaultText(const std::string& stmt, int default_location);

// A CREATE TABLE's WITH (storage parameters) as pg_class.reloptions lists
// them, checked (CheckStorageParameters: 22023 as PostgreSQL).
std::vector<std::string> StorageParametersOf(PgQuery__Node* const* options, size_t n_options);

// The CREATE TABLE statement as RisingWave's SHOW CREATE TABLE prints it:
// normalized type names, no IF NOT EXISTS, hidden columns left out.
std::string NormalizedCreateTable(const TableCatalog& t);

// A time-series table (catalog/timeseries_table.h) from CREATE TABLE's
// GreptimeDB clauses (`stmt`'s time_index, partition, engine and options),
// once `t`'s columns and declared primary key (the tags) are bound: checks
// them, sets t->timeseries and keys the table by (tags, time index[, row
// id in append mode]), distributed by the tags; later writes of a key
// replace earlier ones (ON CONFLICT OVERWRITE) unless in append mode.
void BindTimeSeriesTable(const ParsedStatement& stmt, TableCatalog* t);

}  // namespace freshet
