// What an index made by CREATE INDEX holds, read from its statement.
//
// A non-unique index is a stream job (RelationKind::kIndex) that keeps a
// copy of its table's rows keyed by the index's elements first. Its columns
// are, in order, the table's columns as they were when the index was made
// (IndexedTableColumns of them: ADD COLUMN adds none), then one column per
// element that is an expression (CREATE INDEX ... (lower(email))), holding
// the expression's value; a partial index (CREATE INDEX ... WHERE p) holds
// only the rows p is true for. Its distribution key is its elements'
// positions among these columns.
//
// The elements and the predicate are not stored apart from the index's
// definition, the CREATE INDEX text, which renames keep current
// (frontend/handler/dependent_definitions.h): DescribeUserIndex parses it,
// once per text, into the fields a unique index keeps in its
// ConstraintCatalog (columns, expressions, expression_types, predicate), so
// that pg_index, pg_get_indexdef and pg_attribute print both kinds alike.
#pragma once

#include <memory>

#include "catalog/catalog.h"

struct PgQuery__IndexStmt;

namespace freshet {

// A CREATE [UNIQUE] INDEX statement's elements, in a ConstraintCatalog's
// fields: `columns` names each column element ("" for an expression);
// `expressions` holds each expression element's deparsed text ("" for a
// column), or is empty when there is none; `include` the INCLUDE
// columns; `predicate` is the WHERE clause's deparsed text ("" when
// none). Types are left unknown.
ConstraintCatalog IndexElements(const PgQuery__IndexStmt* stmt);

// PostgreSQL's name for an index of `table` without one:
// <table>_<element names>_idx (ChooseIndexName numbers it when taken).
std::string DefaultIndexName(const std::string& table, const ConstraintCatalog& elements);

// A CREATE INDEX index's elements and predicate, from its definition, with
// the expressions' types (of its columns that hold them). Throws XX000 when
// the definition is not a CREATE INDEX.
std::shared_ptr<const ConstraintCatalog> DescribeUserIndex(const TableCatalog& index);

// How many of its table's columns an index made by CREATE INDEX holds (the
// first ones, in the table's order); its later columns hold its
// expressions' values.
size_t IndexedTableColumns(const TableCatalog& index);

// Its elements as its table's column positions, -1 for an expression.
std::vector<int> IndexElementColumns(const TableCatalog& index);

}  // namespace freshet
