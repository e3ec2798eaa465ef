// CREATE SEQUENCE and ALTER SEQUENCE, and the helpers CREATE TABLE uses for
// serial and identity columns.
#include "frontend/handler/sequence.h"

#include <fmt/format.h>

#include <charconv>
#include <set>

#include "common/error.h"
#include "common/identifier.h"
#include "frontend/handler/objects.h"
#include "frontend/session.h"
#include "sql/parser.h"

namespace freshet {

namespace {

int64_t TypeMax(const DataType& t) {
  return t.id == TypeId::kInt16 ? INT16_MAX : t.id == TypeId::kInt32 ? INT32_MAX : INT64_MAX;
}
int64_t TypeMin(const DataType& t) {
  return t.id == TypeId::kInt16 ? INT16_MIN : t.id == TypeId::kInt32 ? INT32_MIN : INT64_MIN;
}

int64_t OptionNumber(const PgQuery__DefElem* d) {
  std::string text = DefElemText(d);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "{} requires an integer value", d->defname);
  return v;
}

}  // namespace

TableCatalog MakeSequence(const std::string& name, ObjectId database_id, ObjectId schema_id, ObjectId owner,
                          const SequenceOptions& options) {
  TableCatalog t;
  t.kind = RelationKind::kSequence;
  t.name = name;
  t.database_id = database_id;
  t.schema_id = schema_id;
  t.owner = owner;
  t.sequence = options;
  t.columns = {{"last_value", DataType::Int64(), true}, {"log_cnt", DataType::Int64(), true},
               {"is_called", DataType::Boolean(), true}};
  t.definition = fmt::format("CREATE SEQUENCE {}", QuoteIdent(name));
  return t;
}

SequenceChanges ApplySequenceOptions(const HandlerArgs& args, PgQuery__Node* const* options, size_t n,
                                     const SequenceOptions& base, bool create) {
  SequenceChanges out;
  SequenceOptions& q = out.options;
  q = base;
  std::set<std::string> seen;
  std::optional<int64_t> min, max, start;
  bool no_min = false, no_max = false, type_changed = false;
  for (size_t i = 0; i < n; i++) {
    const PgQuery__DefElem* d = options[i]->def_elem;
    std::string name = d->defname;
    if (!seen.insert(name).second) throw SqlError(sqlstate::kSyntaxError, "conflicting or redundant options");
    if (name == "as") {
      DataType t = Binder(args.session->BinderContextFor(args.stmt, nullptr)).BindTypeName(d->arg->type_name);
      if (t.id != TypeId::kInt16 && t.id != TypeId::kInt32 && t.id != TypeId::kInt64)
        throw SqlError(sqlstate::kInvalidParameterValue, "sequence type must be smallint, integer, or bigint");
      type_changed = !(t == q.type);
      q.type = t;
    } else if (name == "increment") {
      q.increment = OptionNumber(d);
      if (q.increment == 0) throw SqlError(sqlstate::kInvalidParameterValue, "INCREMENT must not be zero");
    } else if (name == "minvalue") {
      if (d->arg) min = OptionNumber(d);
      else no_min = true;
    } else if (name == "maxvalue") {
      if (d->arg) max = OptionNumber(d);
      else no_max = true;
    } else if (name == "start") {
      start = OptionNumber(d);
    } else if (name == "restart") {
      out.restart = d->arg ? OptionNumber(d) : INT64_MIN;  // alone: from START (resolved below)
    } else if (name == "cache") {
      q.cache = OptionNumber(d);
      if (q.cache <= 0) FRESHET_THROW(sqlstate::kInvalidParameterValue, "CACHE ({}) must be greater than zero", q.cache);
    } else if (name == "cycle") {
      q.cycle = DefElemText(d) != "0" && DefElemText(d) != "false";
    } else if (name == "owned_by") {
      std::vector<std::string> parts;
      for (size_t k = 0; k < d->arg->list->n_items; k++) parts.push_back(StringOf(d->arg->list->items[k]));
      out.owned_by = parts;
    } else if (name == "sequence_name") {
      // An identity column's sequence name: taken as given by CREATE TABLE.
    } else {
      FRESHET_THROW(sqlstate::kSyntaxError, "option \"{}\" not recognized", name);
    }
  }
  // Bounds: given, else (new sequence, NO MINVALUE/MAXVALUE, or a type or
  // direction that changed) the type's, on the side the increment goes.
  const bool ascending = q.increment > 0;
  if (max) q.max = *max;
  else if (create || no_max || type_changed) q.max = ascending ? TypeMax(q.type) : -1;
  if (min) q.min = *min;
  else if (create || no_min || type_changed) q.min = ascending ? 1 : TypeMin(q.type);
  const char* type_name = q.type.id == TypeId::kInt16 ? "smallint" : q.type.id == TypeId::kInt32 ? "integer" : "bigint";
  if (q.max > TypeMax(q.type) || q.max < TypeMin(q.type))
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "MAXVALUE ({}) is out of range for sequence data type {}", q.max, type_name);
  if (q.min > TypeMax(q.type) || q.min < TypeMin(q.type))
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "MINVALUE ({}) is out of range for sequence data type {}", q.min, type_name);
  if (q.min >= q.max)
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "MINVALUE ({}) must be less than MAXVALUE ({})", q.min, q.max);
  if (start) q.start = *start;
  else if (create) q.start = ascending ? q.min : q.max;
  if (q.start < q.min)
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "START value ({}) cannot be less than MINVALUE ({})", q.start, q.min);
  if (q.start > q.max)
    FRESHET_THROW(sqlstate::kInvalidParameterValue, "START value ({}) cannot be greater than MAXVALUE ({})", q.start, q.max);
  if (out.restart) {
    if (*out.restart == INT64_MIN) out.restart = q.start;
    if (*out.restart < q.min)
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "RESTART value ({}) cannot be less than MINVALUE ({})", *out.restart, q.min);
    if (*out.restart > q.max)
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "RESTART value ({}) cannot be greater than MAXVALUE ({})", *out.restart, q.max);
  }
  return out;
}

std::string ChooseSequenceName(const Catalog& catalog, ObjectId schema_id, const std::string& table,
                               const std::string& column) {
  // PostgreSQL's ChooseRelationName: names stay within 63 bytes.
  std::string base = table.substr(0, 29) + "_" + column.substr(0, 29);
  for (int n = 0;; n++) {
    std::string name = base + "_seq" + (n ? std::to_string(n) : "");
    if (!catalog.FindTable(schema_id, name)) return name;
  }
}

std::string NextvalDefault(const std::string& schema, const std::string& sequence) {
  // Qualified, as a default keeps it (CatalogLookup::StoredDefault).
  std::string name = QuoteIdent(schema) + "." + QuoteIdent(sequence);
  std::string quoted;
  for (char c : name) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return "nextval('" + quoted + "'::regclass)";
}

// The column an OWNED BY names (table.column in the sequence's schema or
// along the search path); none for OWNED BY NONE.
static void ResolveOwner(const HandlerArgs& args, const std::vector<std::string>& owned_by, const TableCatalog& seq,
                         SequenceOptions* q) {
  if (owned_by.size() == 1 && owned_by[0] == "none") {
    q->owned_by_table = 0;
    q->owned_by_column = -1;
    return;
  }
  if (owned_by.size() < 2) throw SqlError(sqlstate::kSyntaxError, "invalid OWNED BY option");
  std::vector<std::string> table(owned_by.begin(), owned_by.end() - 1);
  TableRef t = FindRelation(args, table);
  if (!t) FRESHET_THROW(sqlstate::kUndefinedTable, "relation \"{}\" does not exist", table.back());
  if (t->kind != RelationKind::kTable && t->kind != RelationKind::kView && t->kind != RelationKind::kMaterializedView)
    FRESHET_THROW(sqlstate::kWrongObjectType, "sequence cannot be owned by relation \"{}\"", t->name);
  if (t->schema_id != seq.schema_id)
    throw SqlError(sqlstate::kObjectNotInPrerequisiteState, "sequence must be in same schema as table it is linked to");
  int column = t->ColumnIndex(owned_by.back());
  if (column < 0 || t->columns[column].hidden)
    FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" of relation \"{}\" does not exist", owned_by.back(), t->name);
  q->owned_by_table = t->id;
  q->owned_by_column = column;
}

StatementOutcome HandleCreateSequence(const HandlerArgs& args) {
  Session* session = args.session;
  Catalog* catalog = args.session->DdlCatalog();
  const PgQuery__CreateSeqStmt* cs = args.stmt.node->create_seq_stmt;
  if (cs->sequence->relpersistence && std::string(cs->sequence->relpersistence) == "t")
    throw SqlError(sqlstate::kFeatureNotSupported, "temporary sequences are not supported");
  Binder binder(session->BinderContextFor(args.stmt, nullptr));
  ObjectId schema_id = binder.ResolveSchemaId(cs->sequence->schemaname);
  if (catalog->FindTable(schema_id, cs->sequence->relname)) {
    if (cs->if_not_exists) {
      args.sink->Notice(fmt::format("relation \"{}\" already exists, skipping", cs->sequence->relname));
      return {"CREATE SEQUENCE"};
    }
    FRESHET_THROW(sqlstate::kDuplicateTable, "relation \"{}\" already exists", cs->sequence->relname);
  }
  SequenceChanges changes = ApplySequenceOptions(args, cs->options, cs->n_options, SequenceOptions{}, /*create=*/true);
  TableCatalog seq = MakeSequence(cs->sequence->relname, session->database().id, schema_id,
                                  catalog->FindUser(session->user())->id, changes.options);
  if (changes.owned_by) ResolveOwner(args, *changes.owned_by, seq, &seq.sequence);
  catalog->CreateTable(std::move(seq));
  return {"CREATE SEQUENCE"};
}

StatementOutcome HandleAlterSequence(const HandlerArgs& args) {
  Catalog* catalog = args.session->DdlCatalog();
  const PgQuery__AlterSeqStmt* as = args.stmt.node->alter_seq_stmt;
  std::vector<std::string> name;
  if (as->sequence->schemaname && *as->sequence->schemaname) name.push_back(as->sequence->schemaname);
  name.push_back(as->sequence->relname);
  TableRef t = FindRelation(args, name);
  if (!t) {
    if (as->missing_ok) {
      args.sink->Notice(fmt::format("relation \"{}\" does not exist, skipping", name.back()));
      return {"ALTER SEQUENCE"};
    }
    FRESHET_THROW(sqlstate::kUndefinedTable, "relation \"{}\" does not exist", name.back());
  }
  if (t->kind != RelationKind::kSequence) FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not a sequence", t->name);
  CheckOwner(args, *t);
  SequenceChanges changes = ApplySequenceOptions(args, as->options, as->n_options, t->sequence, /*create=*/false);
  TableCatalog altered = *t;
  altered.sequence = changes.options;
  if (changes.owned_by) ResolveOwner(args, *changes.owned_by, altered, &altered.sequence);
  SequenceManager* sequences = args.instance()->sequences();
  sequences->Forget(t->id);  // its position kept; its options read again
  catalog->AlterTable(altered);
  if (changes.restart) sequences->Restart(t->id, *changes.restart, catalog);  // the block's, in one
  return {"ALTER SEQUENCE"};
}

}  // namespace freshet
