// User-defined types. Enums: CREATE TYPE ... AS ENUM, ALTER TYPE (ADD
// VALUE, RENAME VALUE, RENAME TO, OWNER TO), DROP TYPE, and what DROP
// SCHEMA and COMMENT ask of them. Values are positions
// (common/enum_type.h): a new value takes the midpoint of its neighbours,
// so stored values never change. Domains: CREATE DOMAIN, ALTER DOMAIN
// (DEFAULT, NOT NULL, ADD / DROP / VALIDATE CONSTRAINT, RENAME, OWNER TO),
// DROP DOMAIN; a domain's values are its base type's (catalog.h
// TypeCatalog), its constraints checked where values enter
// (expr/domain_check.h). A constraint added to a domain in use is checked
// against the columns of the domain first, as PostgreSQL does.
#include <fmt/format.h>

#include <pg_query/pg_query.pb-c.h>

#include <set>

#include "binder/binder.h"
#include "common/error.h"
#include "common/identifier.h"
#include "common/limits.h"
#include "frontend/handler/handler.h"
#include "frontend/handler/objects.h"
#include "frontend/handler/table_definition.h"
#include "frontend/result_sink.h"
#include "frontend/session.h"
#include "sql/parser.h"

namespace freshet {

namespace {

// PostgreSQL's NAMEDATALEN - 1: longer labels are refused, not truncated.
constexpr size_t kMaxLabelBytes = 63;

// The type `names` ([schema.]name) denotes, along the search path when
// unqualified; nullopt when there is none.
std::optional<TypeCatalog> FindType(const HandlerArgs& args, const std::vector<std::string>& names) {
  const Catalog* catalog = args.session->DdlCatalog();
  if (names.size() > 1) {
    auto s = catalog->FindSchema(args.session->database().id, names[names.size() - 2]);
    return s ? catalog->FindType(s->id, names.back()) : std::nullopt;
  }
  return Binder(args.session->BinderContextFor(args.stmt, nullptr)).FindTypeInSearchPath(names.back());
}

TypeCatalog NeedType(const HandlerArgs& args, const std::vector<std::string>& names) {
  auto t = FindType(args, names);
  if (!t) FRESHET_THROW(sqlstate::kUndefinedObject, "type \"{}\" does not exist", JoinNameParts(names));
  return *t;
}

void CheckTypeOwner(const HandlerArgs& args, const TypeCatalog& t) {
  auto user = args.session->DdlCatalog()->FindUser(args.session->user());
  if (user && (user->superuser || user->id == t.owner)) return;
  FRESHET_THROW(sqlstate::kInsufficientPrivilege, "must be owner of type {}", t.name);
}

void CheckLabel(const std::string& label) {
  if (label.size() > kMaxLabelBytes)
    throw SqlError(sqlstate::kInvalidName, fmt::format("invalid enum label \"{}\"", label))
        .WithDetail(fmt::format("Labels must be {} bytes or less.", kMaxLabelBytes));
}

// A statement naming a domain (DROP DOMAIN, ALTER DOMAIN) of another
// type is 42809, as PostgreSQL's; those naming a type take domains too.
void CheckTypeKind(const TypeCatalog& t, bool domain) {
  if (domain && !t.IsDomain()) FRESHET_THROW(sqlstate::kWrongObjectType, "\"{}\" is not a domain", t.name);
}

bool UsesType(const DataType& t, ObjectId type_id) {
  if (t.IsEnum()) return t.precision == static_cast<int32_t>(type_id);
  if (t.IsArray()) return UsesType(t.ElementType(), type_id);
  if (t.IsStruct() && !t.IsAnyStruct())
    for (const auto& [name, field] : t.StructFields())
      if (UsesType(field, type_id)) return true;
  return false;
}

}  // namespace

namespace {

// A type CREATE makes: `names` ([schema.]name), in the schema named or
// the creation schema, owned by the session's user.
TypeCatalog NewType(const HandlerArgs& args, const std::vector<std::string>& names) {
  Session* session = args.session;
  Binder binder(session->BinderContextFor(args.stmt, nullptr));
  TypeCatalog type;
  type.database_id = session->database().id;
  type.schema_id = binder.ResolveSchemaId(names.size() > 1 ? names[names.size() - 2].c_str() : nullptr);
  type.name = names.back();
  type.owner = session->DdlCatalog()->FindUser(session->user())->id;
  return type;
}

}  // namespace

StatementOutcome HandleCreateEnum(const HandlerArgs& args) {
  const PgQuery__CreateEnumStmt* s = args.stmt.node->create_enum_stmt;
  TypeCatalog type = NewType(args, NameParts(s->type_name, s->n_type_name));
  std::set<std::string> seen;
  for (size_t i = 0; i < s->n_vals; i++) {
    std::string label = StringOf(s->vals[i]);
    CheckLabel(label);
    if (!seen.insert(label).second)
      throw SqlError(sqlstate::kUniqueViolation,
                     "duplicate key value violates unique constraint \"pg_enum_typid_label_index\"");
    type.labels.push_back({static_cast<int64_t>(i + 1) * kEnumPositionGap, label, 0});
  }
  args.session->DdlCatalog()->CreateType(std::move(type));
  return {"CREATE TYPE"};
}

StatementOutcome HandleAlterEnum(const HandlerArgs& args) {
  const PgQuery__AlterEnumStmt* s = args.stmt.node->alter_enum_stmt;
  TypeCatalog type = NeedType(args, NameParts(s->type_name, s->n_type_name));
  CheckTypeOwner(args, type);
  std::string old_val = s->old_val ? s->old_val : "";
  std::string new_val = s->new_val ? s->new_val : "";
  if (!old_val.empty()) {  // RENAME VALUE old TO new
    CheckLabel(new_val);
    EnumLabel* target = nullptr;
    bool taken = false;
    for (auto& l : type.labels) {
      taken |= l.label == new_val;
      if (l.label == old_val) target = &l;
    }
    if (!target) FRESHET_THROW(sqlstate::kInvalidParameterValue, "\"{}\" is not an existing enum label", old_val);
    if (old_val == new_val) return {"ALTER TYPE"};
    if (taken) FRESHET_THROW(sqlstate::kDuplicateObject, "enum label \"{}\" already exists", new_val);
    target->label = new_val;
    args.session->DdlCatalog()->AlterType(std::move(type));
    return {"ALTER TYPE"};
  }
  // ADD VALUE [IF NOT EXISTS] new [BEFORE | AFTER neighbor]
  CheckLabel(new_val);
  for (const auto& l : type.labels)
    if (l.label == new_val) {
      if (s->skip_if_new_val_exists) {
        args.sink->Notice(fmt::format("enum label \"{}\" already exists, skipping", new_val));
        return {"ALTER TYPE"};
      }
      FRESHET_THROW(sqlstate::kDuplicateObject, "enum label \"{}\" already exists", new_val);
    }
  int64_t position;
  std::string neighbor = s->new_val_neighbor ? s->new_val_neighbor : "";
  if (neighbor.empty()) {
    int64_t last = type.labels.empty() ? 0 : type.labels.back().position;
    if (last > INT64_MAX - kEnumPositionGap) FRESHET_THROW(sqlstate::kProgramLimitExceeded, "too many enum labels for type \"{}\"", type.name);
    position = last + kEnumPositionGap;
  } else {
    size_t at = type.labels.size();
    for (size_t i = 0; i < type.labels.size(); i++)
      if (type.labels[i].label == neighbor) at = i;
    if (at == type.labels.size())
      FRESHET_THROW(sqlstate::kInvalidParameterValue, "\"{}\" is not an existing enum label", neighbor);
    // The gap between the neighbour and the label on the side the new one goes.
    int64_t low, high;
    if (s->new_val_is_after) {
      low = type.labels[at].position;
      high = at + 1 < type.labels.size() ? type.labels[at + 1].position : low + 2 * kEnumPositionGap;
    } else {
      high = type.labels[at].position;
      low = at > 0 ? type.labels[at - 1].position : 0;
    }
    if (high - low < 2)
      throw SqlError(sqlstate::kProgramLimitExceeded,
                     fmt::format("no room for enum label \"{}\" next to \"{}\" in type \"{}\"", new_val, neighbor, type.name))
          .WithHint("Values added again and again at one place use up the room between two labels; recreate the type.");
    position = low + (high - low) / 2;
  }
  type.labels.push_back({position, new_val, 0});
  args.session->DdlCatalog()->AlterType(std::move(type));
  return {"ALTER TYPE"};
}

StatementOutcome HandleDropType(const HandlerArgs& args) {
  const PgQuery__DropStmt* d = args.stmt.node->drop_stmt;
  const bool domain = d->remove_type == PG_QUERY__OBJECT_TYPE__OBJECT_DOMAIN;
  Catalog* catalog = args.session->DdlCatalog();
  std::vector<TypeCatalog> dropped;
  for (size_t i = 0; i < d->n_objects; i++) {
    const PgQuery__TypeName* tn = d->objects[i]->type_name;
    std::vector<std::string> names = NameParts(tn->names, tn->n_names);
    auto type = FindType(args, names);
    if (!type) {
      if (d->missing_ok) {
        args.sink->Notice(fmt::format("type \"{}\" does not exist, skipping", JoinNameParts(names)));
        continue;
      }
      FRESHET_THROW(sqlstate::kUndefinedObject, "type \"{}\" does not exist", JoinNameParts(names));
    }
    CheckTypeKind(*type, domain);
    CheckTypeOwner(args, *type);
    dropped.push_back(*type);
  }
  const bool cascade = d->behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
  for (const auto& type : dropped) {
    // The table columns of the type (with CASCADE dropped first, as
    // PostgreSQL: ALTER TABLE ... DROP COLUMN, so what reads them decides).
    std::vector<std::pair<TableRef, std::vector<std::string>>> tables;
    std::vector<std::string> users;
    for (const auto& t : catalog->ListTables(type.database_id)) {
      if (!t->IsUserVisible()) continue;
      std::vector<std::string> columns;
      for (const auto& c : t->columns)
        if (!c.hidden && (UsesType(c.type, type.id) || c.domain == type.id)) {
          users.push_back(fmt::format("column {} of {} {}", c.name, RelationKindName(t->kind), t->name));
          columns.push_back(c.name);
        }
      if (!columns.empty()) tables.emplace_back(t, std::move(columns));
    }
    // Domains over it: they go first (not with CASCADE here).
    for (const TypeCatalog& other : catalog->ListTypes(type.database_id))
      if (other.IsDomain() && other.base_domain == type.id) {
        if (cascade)
          FRESHET_THROW(sqlstate::kFeatureNotSupported, "DROP ... CASCADE cannot drop domain {}, which is over {}: drop it first",
                        other.name, type.name);
        users.push_back("type " + other.name);
      }
    if (users.empty()) continue;
    if (cascade) {
      for (const auto& [t, columns] : tables)
        if (t->kind != RelationKind::kTable)
          FRESHET_THROW(sqlstate::kFeatureNotSupported,
                        "DROP TYPE ... CASCADE cannot drop the columns of {} {}: drop it first", RelationKindName(t->kind),
                        t->name);
      for (const auto& u : users) args.sink->Notice("drop cascades to " + u);
      for (const auto& [t, columns] : tables) DropColumns(args, t, columns);
      continue;
    }
    std::string detail;
    for (const auto& u : users) detail += (detail.empty() ? "" : "\n") + u + " depends on type " + type.name;
    throw SqlError(sqlstate::kDependentObjectsStillExist,
                   fmt::format("cannot drop type {} because other objects depend on it", type.name))
        .WithDetail(detail)
        .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
  }
  for (const auto& type : dropped) catalog->DropType(type.id);
  return {domain ? "DROP DOMAIN" : "DROP TYPE"};
}

namespace {

// The type an ALTER names (its object: a list of names), owned by the user.
TypeCatalog OwnedType(const HandlerArgs& args, const PgQuery__Node* object) {
  TypeCatalog type = NeedType(args, NameParts(object->list->items, object->list->n_items));
  CheckTypeOwner(args, type);
  return type;
}

}  // namespace

StatementOutcome RenameType(const HandlerArgs& args) {
  const PgQuery__RenameStmt* s = args.stmt.node->rename_stmt;
  if (s->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_DOMCONSTRAINT) {
    // ALTER DOMAIN d RENAME CONSTRAINT a TO b
    TypeCatalog type = OwnedType(args, s->object);
    CheckTypeKind(type, true);
    ConstraintCatalog* target = nullptr;
    for (auto& c : type.checks) {
      if (c.name == s->newname)
        FRESHET_THROW(sqlstate::kDuplicateObject, "constraint \"{}\" for domain \"{}\" already exists", c.name, type.name);
      if (c.name == s->subname) target = &c;
    }
    if (!target)
      FRESHET_THROW(sqlstate::kUndefinedObject, "constraint \"{}\" for domain \"{}\" does not exist", s->subname, type.name);
    target->name = s->newname;
    args.session->DdlCatalog()->AlterType(std::move(type));
    return {"ALTER DOMAIN"};
  }
  const bool domain = s->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_DOMAIN;
  TypeCatalog type = OwnedType(args, s->object);
  CheckTypeKind(type, domain);
  type.name = s->newname;
  args.session->DdlCatalog()->AlterType(std::move(type));
  return {domain ? "ALTER DOMAIN" : "ALTER TYPE"};
}

StatementOutcome AlterTypeOwner(const HandlerArgs& args) {
  const PgQuery__AlterOwnerStmt* s = args.stmt.node->alter_owner_stmt;
  TypeCatalog type = OwnedType(args, s->object);
  const bool domain = s->object_type == PG_QUERY__OBJECT_TYPE__OBJECT_DOMAIN;
  CheckTypeKind(type, domain);
  Catalog* catalog = args.session->DdlCatalog();
  const PgQuery__RoleSpec* role = s->newowner;
  std::string owner = role->rolename && *role->rolename ? role->rolename : args.session->user();
  auto user = catalog->FindUser(owner);
  if (!user) FRESHET_THROW(sqlstate::kUndefinedObject, "role \"{}\" does not exist", owner);
  type.owner = user->id;
  catalog->AlterType(std::move(type));
  return {domain ? "ALTER DOMAIN" : "ALTER TYPE"};
}

StatementOutcome CommentOnType(const HandlerArgs& args) {
  const PgQuery__CommentStmt* c = args.stmt.node->comment_stmt;
  const PgQuery__TypeName* tn = c->object->type_name;
  TypeCatalog type = NeedType(args, NameParts(tn->names, tn->n_names));
  CheckTypeOwner(args, type);
  type.comment = c->comment ? c->comment : "";
  args.session->DdlCatalog()->AlterType(std::move(type));
  return {"COMMENT"};
}

bool SchemaHasTypes(const Catalog& catalog, ObjectId database_id, ObjectId schema_id) {
  for (const auto& t : catalog.ListTypes(database_id))
    if (t.schema_id == schema_id) return true;
  return false;
}

namespace {

// A domain's CHECK from its statement: bound over VALUE (boolean, no
// subqueries: 42804 / 0A000 as PostgreSQL's), kept as its deparsed text,
// named <domain>_check (numbered when taken) unless named.
ConstraintCatalog DomainCheck(const HandlerArgs& args, const TypeCatalog& type, const PgQuery__Constraint* c) {
  ConstraintCatalog check;
  check.type = 'c';
  check.check = DeparseExpression(c->raw_expr);
  check.check_is_operator = IsOperatorNode(c->raw_expr);
  Binder(args.session->BinderContextFor(args.stmt, nullptr)).BindDomainCheck(check.check, type.base_type);
  for (const auto& k : type.checks) check.ordinal = std::max(check.ordinal, k.ordinal + 1);
  check.name = c->conname && *c->conname ? c->conname : "";
  auto taken = [&](const std::string& name) {
    return std::any_of(type.checks.begin(), type.checks.end(), [&](const ConstraintCatalog& k) { return k.name == name; });
  };
  if (check.name.empty()) {
    const std::string base = type.name + "_check";
    check.name = base;
    for (int i = 1; taken(check.name); i++) check.name = base + std::to_string(i);
  } else if (taken(check.name)) {
    FRESHET_THROW(sqlstate::kDuplicateObject, "constraint \"{}\" for domain \"{}\" already exists", check.name, type.name);
  }
  check.validated = !c->skip_validation;
  return check;
}

// A DEFAULT for the domain: an expression without columns, assignable to
// its base type (checked by binding it as a column's default would be).
std::string DomainDefault(const HandlerArgs& args, const TypeCatalog& type, const PgQuery__Node* expr) {
  ColumnCatalog column{type.name, type.base_type};
  column.default_expr = ColumnDefaultText(args.session, args.stmt, column, expr, DeparseExpression(expr));
  Binder(args.session->BinderContextFor(args.stmt, nullptr)).BindColumnDefault(column);
  return column.default_expr;
}

// The columns holding values of `domain` (or of a domain over it), with
// their tables.
std::vector<std::pair<TableRef, std::string>> DomainColumns(const Catalog& catalog, const TypeCatalog& domain) {
  std::set<ObjectId> domains{domain.id};
  for (bool grew = true; grew;) {
    grew = false;
    for (const TypeCatalog& t : catalog.ListTypes(domain.database_id))
      if (t.IsDomain() && domains.count(t.base_domain) && domains.insert(t.id).second) grew = true;
  }
  std::vector<std::pair<TableRef, std::string>> out;
  for (const auto& t : catalog.ListTables(domain.database_id)) {
    if (t->kind != RelationKind::kTable) continue;
    for (const auto& c : t->columns)
      if (!c.hidden && domains.count(c.domain)) out.emplace_back(t, c.name);
  }
  return out;
}

// Whether some row of `table` has a value in `column` for which
// `condition` (SQL text over VALUE) holds, read by a nested query.
bool SomeRowWhere(const HandlerArgs& args, const TableCatalog& table, const std::string& column, const std::string& condition) {
  auto schema = args.session->DdlCatalog()->GetSchema(table.schema_id);
  std::string sql = fmt::format("SELECT 1 FROM {}.{} WHERE {} LIMIT 1", QuoteIdent(schema ? schema->name : ""),
                                QuoteIdent(table.name), RenameColumnInExpression(condition, "value", column));
  std::vector<ParsedStatement> stmts = ParseSql(sql);
  DiscardingSink sink;
  return args.session->RunNested(stmts.at(0), &sink).tag == "SELECT 1";
}

void ValidateDomainNotNull(const HandlerArgs& args, const TypeCatalog& type) {
  for (const auto& [table, column] : DomainColumns(*args.session->DdlCatalog(), type))
    if (SomeRowWhere(args, *table, column, "VALUE IS NULL"))
      FRESHET_THROW(sqlstate::kNotNullViolation, "column \"{}\" of table \"{}\" contains null values", column, table->name);
}

void ValidateDomainCheck(const HandlerArgs& args, const TypeCatalog& type, const ConstraintCatalog& check) {
  for (const auto& [table, column] : DomainColumns(*args.session->DdlCatalog(), type))
    if (SomeRowWhere(args, *table, column, "NOT (" + check.check + ")"))
      FRESHET_THROW(sqlstate::kCheckViolation, "column \"{}\" of table \"{}\" contains values that violate the new constraint",
                    column, table->name);
}

}  // namespace

StatementOutcome HandleCreateDomain(const HandlerArgs& args) {
  const PgQuery__CreateDomainStmt* s = args.stmt.node->create_domain_stmt;
  TypeCatalog type = NewType(args, NameParts(s->domainname, s->n_domainname));
  type.kind = 'd';
  Binder::BoundType base = Binder(args.session->BinderContextFor(args.stmt, nullptr)).BindColumnType(s->type_name);
  type.base_type = base.type;
  type.base_domain = base.domain;
  bool saw_null = false, saw_not_null = false, saw_default = false;
  for (size_t i = 0; i < s->n_constraints; i++) {
    const PgQuery__Constraint* c = s->constraints[i]->constraint;
    switch (c->contype) {
      case PG_QUERY__CONSTR_TYPE__CONSTR_NOTNULL:
      case PG_QUERY__CONSTR_TYPE__CONSTR_NULL:
        (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_NULL ? saw_null : saw_not_null) = true;
        if (saw_null && saw_not_null) throw SqlError(sqlstate::kSyntaxError, "conflicting NULL/NOT NULL constraints");
        type.not_null = saw_not_null;
        break;
      case PG_QUERY__CONSTR_TYPE__CONSTR_CHECK: type.checks.push_back(DomainCheck(args, type, c)); break;
      case PG_QUERY__CONSTR_TYPE__CONSTR_DEFAULT:
        if (saw_default) throw SqlError(sqlstate::kSyntaxError, "multiple default expressions");
        saw_default = true;
        type.default_expr = DomainDefault(args, type, c->raw_expr);
        break;
      case PG_QUERY__CONSTR_TYPE__CONSTR_UNIQUE: throw SqlError(sqlstate::kSyntaxError, "unique constraints not possible for domains");
      case PG_QUERY__CONSTR_TYPE__CONSTR_PRIMARY: throw SqlError(sqlstate::kSyntaxError, "primary key constraints not possible for domains");
      case PG_QUERY__CONSTR_TYPE__CONSTR_FOREIGN: throw SqlError(sqlstate::kSyntaxError, "foreign key constraints not possible for domains");
      default: throw SqlError(sqlstate::kFeatureNotSupported, "this constraint is not supported for domains");
    }
  }
  // Over a domain without a DEFAULT of its own: that domain's, as
  // PostgreSQL copies it.
  if (!saw_default && type.base_domain)
    if (auto over = args.session->DdlCatalog()->GetType(type.base_domain)) type.default_expr = over->default_expr;
  args.session->DdlCatalog()->CreateType(std::move(type));
  return {"CREATE DOMAIN"};
}

StatementOutcome HandleAlterDomain(const HandlerArgs& args) {
  const PgQuery__AlterDomainStmt* s = args.stmt.node->alter_domain_stmt;
  TypeCatalog type = NeedType(args, NameParts(s->type_name, s->n_type_name));
  CheckTypeKind(type, true);
  CheckTypeOwner(args, type);
  Catalog* catalog = args.session->DdlCatalog();
  const char subtype = s->subtype && *s->subtype ? s->subtype[0] : '?';
  switch (subtype) {
    case 'T':  // SET DEFAULT / DROP DEFAULT
      type.default_expr = s->def ? DomainDefault(args, type, s->def) : "";
      break;
    case 'O':  // SET NOT NULL: no column of the domain may hold NULL
      ValidateDomainNotNull(args, type);
      type.not_null = true;
      break;
    case 'N': type.not_null = false; break;  // DROP NOT NULL
    case 'C': {  // ADD CONSTRAINT
      const PgQuery__Constraint* c = s->def->constraint;
      if (c->contype == PG_QUERY__CONSTR_TYPE__CONSTR_NOTNULL) {
        ValidateDomainNotNull(args, type);
        type.not_null = true;
        break;
      }
      if (c->contype != PG_QUERY__CONSTR_TYPE__CONSTR_CHECK)
        throw SqlError(sqlstate::kSyntaxError, "only CHECK and NOT NULL constraints are possible for domains");
      ConstraintCatalog check = DomainCheck(args, type, c);
      if (check.validated) ValidateDomainCheck(args, type, check);
      type.checks.push_back(std::move(check));
      break;
    }
    case 'X': {  // DROP CONSTRAINT [IF EXISTS] name
      auto it = std::find_if(type.checks.begin(), type.checks.end(), [&](const ConstraintCatalog& c) { return c.name == s->name; });
      if (it == type.checks.end()) {
        if (s->missing_ok) {
          args.sink->Notice(fmt::format("constraint \"{}\" of domain \"{}\" does not exist, skipping", s->name, type.name));
          return {"ALTER DOMAIN"};
        }
        FRESHET_THROW(sqlstate::kUndefinedObject, "constraint \"{}\" of domain \"{}\" does not exist", s->name, type.name);
      }
      type.checks.erase(it);
      break;
    }
    case 'V': {  // VALIDATE CONSTRAINT name
      auto it = std::find_if(type.checks.begin(), type.checks.end(), [&](const ConstraintCatalog& c) { return c.name == s->name; });
      if (it == type.checks.end())
        FRESHET_THROW(sqlstate::kUndefinedObject, "constraint \"{}\" of domain \"{}\" does not exist", s->name, type.name);
      if (!it->validated) ValidateDomainCheck(args, type, *it);
      it->validated = true;
      break;
    }
    default: throw SqlError(sqlstate::kFeatureNotSupported, "this form of ALTER DOMAIN is not supported");
  }
  catalog->AlterType(std::move(type));
  return {"ALTER DOMAIN"};
}

}  // namespace freshet
