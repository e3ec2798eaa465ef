#include "frontend/handler/objects.h"

#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <algorithm>
#include <set>

#include "binder/binder.h"
#include "catalog/temp_schema.h"
#include "common/error.h"
#include "frontend/instance.h"
#include "frontend/session.h"
#include "frontend/stream_job_planner.h"

namespace freshet {

RelationDdlLock::RelationDdlLock(const HandlerArgs& args, ObjectId schema_id, const std::string& name)
    : locks_(args.instance()->relation_ddl_locks()), holder_(args.session) {
  key_.database_id = args.session->database().id;
  key_.value = static_cast<int64_t>(std::hash<std::string>{}(name) ^ (uint64_t{schema_id} * 0x9E3779B97F4A7C15ull));
  locks_->Lock(holder_, args.session->process_id(), key_, /*shared=*/false, /*wait=*/true, args.session->cancel_flag(),
               args.session->settings().lock_timeout_ms);
}

RelationDdlLock::~RelationDdlLock() { locks_->Unlock(holder_, key_, /*shared=*/false); }

bool RelationNameTaken(const Catalog& catalog, ObjectId database_id, ObjectId schema_id, const std::string& name) {
  if (catalog.FindTable(schema_id, name)) return true;
  for (const auto& t : catalog.ListTables(database_id))
    if (t->schema_id == schema_id)
      for (const auto& c : t->constraints)
        if (c.type == 'u' && c.name == name) return true;
  return false;
}

std::string ChooseIndexName(const Catalog& catalog, ObjectId database_id, ObjectId schema_id, const std::string& base) {
  std::string name = base;
  for (int i = 1; RelationNameTaken(catalog, database_id, schema_id, name); i++) name = base + std::to_string(i);
  return name;
}

TableRef FindRelation(const HandlerArgs& args, const std::vector<std::string>& name) {
  Catalog* catalog = args.session->catalog();
  if (name.size() > 1) {
    auto s = catalog->FindSchema(args.session->database().id, name[name.size() - 2]);
    return s ? catalog->FindTable(s->id, name.back()) : nullptr;
  }
  return Binder(args.session->BinderContextFor(args.stmt, nullptr)).FindInSearchPath(name.back());
}

TableRef FindFlow(const Catalog& catalog, ObjectId database_id, const std::string& name) {
  for (const auto& t : catalog.ListTables(database_id)) {
    auto it = t->plan_settings.find("flow");
    if (it != t->plan_settings.end() && it->second == name) return t;
  }
  return nullptr;
}

TableRef FindJobByName(const HandlerArgs& args, const std::vector<std::string>& name, const std::string& kind_name) {
  RelationKind kind = kind_name == "sink"    ? RelationKind::kSink
                      : kind_name == "index" ? RelationKind::kIndex
                                             : RelationKind::kMaterializedView;
  TableRef t = FindRelation(args, name);
  if (!t || t->kind != kind)
    FRESHET_THROW(kind == RelationKind::kMaterializedView ? sqlstate::kUndefinedTable : sqlstate::kUndefinedObject,
                  "{} \"{}\" does not exist", kind_name, name.back());
  return t;
}

std::vector<std::string> NameParts(PgQuery__Node* const* items, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; i++) out.push_back(StringOf(items[i]));
  return out;
}

std::string JoinNameParts(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ".") + p;
  return out;
}

void CheckOwner(const HandlerArgs& args, const TableCatalog& t) {
  auto user = args.session->catalog()->FindUser(args.session->user());
  if (user && (user->superuser || user->id == t.owner)) return;
  FRESHET_THROW(sqlstate::kInsufficientPrivilege, "must be owner of {} {}", RelationKindName(t.kind), t.name);
}

SchemaCatalog OwnedSchema(const HandlerArgs& args, const std::string& name) {
  const Catalog* catalog = args.session->DdlCatalog();
  auto schema = catalog->FindSchema(args.session->database().id, name);
  if (!schema) FRESHET_THROW(sqlstate::kInvalidSchemaName, "schema \"{}\" does not exist", name);
  auto me = catalog->FindUser(args.session->user());
  if (!me || (!me->superuser && me->id != schema->owner))
    FRESHET_THROW(sqlstate::kInsufficientPrivilege, "must be owner of schema {}", name);
  return *schema;
}

std::string DependentName(const Catalog& catalog, const TableCatalog& dependent, const TableCatalog& of) {
  if (dependent.database_id == of.database_id) return dependent.name;
  auto db = catalog.GetDatabase(dependent.database_id);
  auto schema = catalog.GetSchema(dependent.schema_id);
  return fmt::format("{}.{}.{}", db ? db->name : "?", schema ? schema->name : "?", dependent.name);
}

std::vector<ObjectId> DropClosure(const HandlerArgs& args, const std::vector<TableRef>& named, bool cascade,
                                  const std::string& kind_name) {
  Catalog* catalog = args.session->catalog();
  std::set<ObjectId> named_ids;
  for (const auto& t : named) named_ids.insert(t->id);
  std::vector<ObjectId> ids;
  std::vector<std::string> cancelled;
  for (const auto& t : named) {
    // Dependents (views over this relation), transitively with CASCADE;
    // indexes go with their relation, as in PostgreSQL; jobs still being
    // created on a job still being created are cancelled with it.
    std::vector<TableRef> queue = {t};
    for (size_t q = 0; q < queue.size(); q++) {
      std::vector<TableRef> blocking;
      bool creating = queue[q]->status == JobStatus::kCreating;
      bool across = false;  // a dependent in another database: CASCADE never reaches there
      for (const auto& dep : catalog->Dependents(queue[q]->id)) {
        bool goes_along = dep->kind == RelationKind::kIndex || named_ids.count(dep->id) ||
                          (creating && dep->status == JobStatus::kCreating);
        bool other_database = dep->database_id != queue[q]->database_id;
        across = across || other_database;
        if ((!cascade && !goes_along) || other_database) blocking.push_back(dep);
        if (creating && dep->status == JobStatus::kCreating && !named_ids.count(dep->id))
          cancelled.push_back(fmt::format("{} \"{}\"", RelationKindName(dep->kind), dep->name));
        queue.push_back(dep);
      }
      if (blocking.empty()) continue;
      // A change log job is named only when nothing else blocks: its
      // consumers, which depend on the relation too, are what the user made.
      if (std::any_of(blocking.begin(), blocking.end(), [](const TableRef& d) { return !IsChangeLogJob(*d); }))
        blocking.erase(std::remove_if(blocking.begin(), blocking.end(), [](const TableRef& d) { return IsChangeLogJob(*d); }),
                       blocking.end());
      std::string detail;
      for (const auto& dep : blocking)
        detail += fmt::format("{}{} {} depends on {} {}", detail.empty() ? "" : "\n", RelationKindName(dep->kind),
                              DependentName(*catalog, *dep, *queue[q]), RelationKindName(queue[q]->kind),
                              queue[q]->name);
      throw SqlError(sqlstate::kDependentObjectsStillExist,
                     fmt::format("cannot drop {} {} because other objects depend on it", kind_name, t->name))
          .WithDetail(detail)
          .WithHint(across ? "A drop never reaches into another database: drop the dependent objects there first."
                           : "Use DROP ... CASCADE to drop the dependent objects too.");
    }
    for (const auto& x : queue) {
      ids.push_back(x->id);
      // The sequences of its serial and identity columns go with a table.
      for (const auto& s : catalog->ListTables(x->database_id))
        if (s->kind == RelationKind::kSequence && s->sequence.owned_by_table == x->id) ids.push_back(s->id);
    }
  }
  if (!cancelled.empty()) {
    std::string list;
    for (const auto& c : cancelled) list += (list.empty() ? "" : ", ") + c;
    args.sink->Notice("cancelling the jobs still being created on it: " + list);
  }
  return ids;
}

void DropRelations(const HandlerArgs& args, const std::vector<ObjectId>& ids) {
  Instance* instance = args.instance();
  Catalog* catalog = args.session->DdlCatalog();
  std::vector<TableRef> jobs;
  std::vector<ObjectId> others;
  std::set<ObjectId> seen;
  for (ObjectId id : ids) {
    if (!seen.insert(id).second) continue;
    TableRef t = catalog->GetTable(id);
    if (!t || t->kind == RelationKind::kInternal) continue;  // dropped with its job
    // Subscriptions too: StreamJobs::Drop removes them from their change log.
    if (IsStreamJob(*t) || IsConnectorTable(*t) || t->kind == RelationKind::kSubscription)
      jobs.push_back(t);
    else others.push_back(id);
  }
  if (jobs.empty() && others.empty()) return;
  // What follows the catalog's drop: buffered writes forgotten, jobs
  // stopped, sequences' positions forgotten.
  const ObjectId database_id = args.session->database().id;
  auto drop_the_rest = [instance, database_id, jobs, others](const std::vector<ObjectId>& also_from_catalog) {
    DmlManager* dml = instance->DmlFor(database_id);
    for (ObjectId id : others) dml->DropTable(id);
    for (const auto& j : jobs) dml->DropTable(j->id);
    instance->jobs()->Drop(database_id, jobs, also_from_catalog);
    for (ObjectId id : others) instance->sequences()->Forget(id);
  };
  // In a transaction block: from the block's catalog; the rest once it
  // commits (stream jobs are stopped then, their relations' data dropped
  // again after their last writes).
  if (args.session->InDdlTransaction()) {
    std::vector<ObjectId> dropped = others;
    for (const auto& j : jobs) {
      dropped.push_back(j->id);
      dropped.insert(dropped.end(), j->internal_tables.begin(), j->internal_tables.end());
    }
    catalog->DropObjects({}, {}, dropped);
    args.session->AfterDdlCommit([drop_the_rest] { drop_the_rest({}); });
    return;
  }
  drop_the_rest(others);
}

ObjectId CreationSchema(const HandlerArgs& args, const PgQuery__RangeVar* rv, bool temporary) {
  Session* session = args.session;
  std::string own = TempSchemaName(session->process_id());
  std::string named = rv->schemaname ? rv->schemaname : "";
  if (named == "pg_temp" || named == own) temporary = true;
  else if (temporary && !named.empty())
    throw SqlError(sqlstate::kInvalidTableDefinition, "cannot create temporary relation in non-temporary schema");
  else if (IsTempSchemaName(named))
    throw SqlError(sqlstate::kFeatureNotSupported, "cannot create relations in temporary schemas of other sessions");
  if (!temporary) {
    Binder binder(session->BinderContextFor(args.stmt, nullptr));
    return binder.ResolveSchemaId(rv->schemaname);
  }
  Catalog* catalog = session->DdlCatalog();
  ObjectId database_id = session->database().id;
  if (auto s = catalog->FindSchema(database_id, own)) return s->id;
  session->NoteTemporarySchema();
  return catalog->CreateSchema(database_id, own, catalog->FindUser(session->user())->id).id;
}

bool ReadsTemporaryRelation(const Catalog& catalog, const std::vector<ObjectId>& relations) {
  for (ObjectId id : relations) {
    TableRef t = catalog.GetTable(id);
    auto schema = t ? catalog.GetSchema(t->schema_id) : std::nullopt;
    if (schema && IsTempSchemaName(schema->name)) return true;
  }
  return false;
}

}  // namespace freshet
