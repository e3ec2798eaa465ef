// Enum types: CREATE TYPE ... AS ENUM, ALTER TYPE (ADD VALUE, RENAME
// VALUE, RENAME TO, OWNER TO), DROP TYPE, and what DROP SCHEMA and COMMENT
// ask of them. Values are positions (common/enum_type.h): a new value takes
// the midpoint of its neighbours, so stored values never change.
#include <fmt/format.h>

#include <pg_query/pg_query.pb-c.h>

#include <set>

#include "binder/binder.h"
#include "common/error.h"
#include "common/identifier.h"
#include "common/limits.h"
#include "frontend/handler/handler.h"
#include "frontend/handler/objects.h"
#include "frontend/session.h"
#include "sql/parser.h"

namespace freshet {

namespace {

// PostgreSQL's NAMEDATALEN - 1: longer labels are refused, not truncated.
constexpr size_t kMaxLabelBytes = 63;

std::vector<std::string> NamesOf(PgQuery__Node* const* items, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; i++) out.push_back(StringOf(items[i]));
  return out;
}

std::string Qualified(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ".") + n;
  return out;
}

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
  if (!t) FRESHET_THROW(sqlstate::kUndefinedObject, "type \"{}\" does not exist", Qualified(names));
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

bool UsesType(const DataType& t, ObjectId type_id) {
  if (t.IsEnum()) return t.precision == static_cast<int32_t>(type_id);
  if (t.IsArray()) return UsesType(t.ElementType(), type_id);
  if (t.IsStruct() && !t.IsAnyStruct())
    for (const auto& [name, field] : t.StructFields())
      if (UsesType(field, type_id)) return true;
  return false;
}

}  // namespace

StatementOutcome HandleCreateEnum(const HandlerArgs& args) {
  const PgQuery__CreateEnumStmt* s = args.stmt.node->create_enum_stmt;
  Session* session = args.session;
  Catalog* catalog = session->DdlCatalog();
  std::vector<std::string> names = NamesOf(s->type_name, s->n_type_name);
  Binder binder(session->BinderContextFor(args.stmt, nullptr));
  TypeCatalog type;
  type.database_id = session->database().id;
  type.schema_id = binder.ResolveSchemaId(names.size() > 1 ? names[names.size() - 2].c_str() : nullptr);
  type.name = names.back();
  type.owner = catalog->FindUser(session->user())->id;
  std::set<std::string> seen;
  for (size_t i = 0; i < s->n_vals; i++) {
    std::string label = StringOf(s->vals[i]);
    CheckLabel(label);
    if (!seen.insert(label).second)
      throw SqlError(sqlstate::kUniqueViolation,
                     "duplicate key value violates unique constraint \"pg_enum_typid_label_index\"");
    type.labels.push_back({static_cast<int64_t>(i + 1) * kEnumPositionGap, label, 0});
  }
  catalog->CreateType(std::move(type));
  return {"CREATE TYPE"};
}

StatementOutcome HandleAlterEnum(const HandlerArgs& args) {
  const PgQuery__AlterEnumStmt* s = args.stmt.node->alter_enum_stmt;
  TypeCatalog type = NeedType(args, NamesOf(s->type_name, s->n_type_name));
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
  Catalog* catalog = args.session->DdlCatalog();
  std::vector<TypeCatalog> dropped;
  for (size_t i = 0; i < d->n_objects; i++) {
    const PgQuery__TypeName* tn = d->objects[i]->type_name;
    std::vector<std::string> names = NamesOf(tn->names, tn->n_names);
    auto type = FindType(args, names);
    if (!type) {
      if (d->missing_ok) {
        args.sink->Notice(fmt::format("type \"{}\" does not exist, skipping", Qualified(names)));
        continue;
      }
      FRESHET_THROW(sqlstate::kUndefinedObject, "type \"{}\" does not exist", Qualified(names));
    }
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
        if (!c.hidden && UsesType(c.type, type.id)) {
          users.push_back(fmt::format("column {} of {} {}", c.name, RelationKindName(t->kind), t->name));
          columns.push_back(c.name);
        }
      if (!columns.empty()) tables.emplace_back(t, std::move(columns));
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
  return {"DROP TYPE"};
}

namespace {

// The type an ALTER names (its object: a list of names), owned by the user.
TypeCatalog OwnedType(const HandlerArgs& args, const PgQuery__Node* object) {
  TypeCatalog type = NeedType(args, NamesOf(object->list->items, object->list->n_items));
  CheckTypeOwner(args, type);
  return type;
}

}  // namespace

StatementOutcome RenameType(const HandlerArgs& args) {
  const PgQuery__RenameStmt* s = args.stmt.node->rename_stmt;
  TypeCatalog type = OwnedType(args, s->object);
  type.name = s->newname;
  args.session->DdlCatalog()->AlterType(std::move(type));
  return {"ALTER TYPE"};
}

StatementOutcome AlterTypeOwner(const HandlerArgs& args) {
  const PgQuery__AlterOwnerStmt* s = args.stmt.node->alter_owner_stmt;
  TypeCatalog type = OwnedType(args, s->object);
  Catalog* catalog = args.session->DdlCatalog();
  const PgQuery__RoleSpec* role = s->newowner;
  std::string owner = role->rolename && *role->rolename ? role->rolename : args.session->user();
  auto user = catalog->FindUser(owner);
  if (!user) FRESHET_THROW(sqlstate::kUndefinedObject, "role \"{}\" does not exist", owner);
  type.owner = user->id;
  catalog->AlterType(std::move(type));
  return {"ALTER TYPE"};
}

StatementOutcome CommentOnType(const HandlerArgs& args) {
  const PgQuery__CommentStmt* c = args.stmt.node->comment_stmt;
  const PgQuery__TypeName* tn = c->object->type_name;
  TypeCatalog type = NeedType(args, NamesOf(tn->names, tn->n_names));
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

}  // namespace freshet
