// Sequences as relations: CREATE SEQUENCE and ALTER SEQUENCE (sequence.cc),
// and the sequences CREATE TABLE makes for serial and identity columns.
// Their values are meta/sequences.h's.
#pragma once

#include <pg_query/pg_query.pb-c.h>

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "frontend/handler/handler.h"

namespace freshet {

// A sequence relation: its options and the columns SELECT * shows
// (last_value, log_cnt, is_called).
TableCatalog MakeSequence(const std::string& name, ObjectId database_id, ObjectId schema_id, ObjectId owner,
                          const SequenceOptions& options);

// CREATE/ALTER SEQUENCE's options (or an identity column's) over `base`,
// checked as PostgreSQL does (22023 and its messages). For a new sequence
// (`create`) the bounds and start default from the type and the sign of the
// increment. RESTART [WITH n] and OWNED BY are returned, not applied.
struct SequenceChanges {
  SequenceOptions options;
  std::optional<int64_t> restart;  // RESTART: the value nextval gives next
  std::optional<std::vector<std::string>> owned_by;  // OWNED BY t.c, or {"none"}
};
SequenceChanges ApplySequenceOptions(const HandlerArgs& args, PgQuery__Node* const* options, size_t n,
                                     const SequenceOptions& base, bool create);

// The name of the sequence of column `column` of `table`: table_column_seq,
// with a number appended while that is taken in the schema.
std::string ChooseSequenceName(const Catalog& catalog, ObjectId schema_id, const std::string& table,
                               const std::string& column);
// The DEFAULT that draws from it: nextval('schema.name'::regclass).
std::string NextvalDefault(const std::string& schema, const std::string& sequence);

}  // namespace freshet
