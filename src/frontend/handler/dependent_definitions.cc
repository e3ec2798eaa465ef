#include "frontend/handler/dependent_definitions.h"

#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include <algorithm>

#include "binder/binder.h"
#include "catalog/pg_catalog.h"
#include "common/error.h"
#include "frontend/session.h"
#include "frontend/stream_job_planner.h"
#include "sql/parser.h"

namespace freshet {

namespace {

// What a dependent's definition names, bound against `catalog` as its
// readers bind it: the names in order, and a view's column types. Throws
// when it does not bind (or, for a stream job, when it does not plan to
// its stored plan: 0A000).
struct Bound {
  std::vector<NameUse> uses;
  std::vector<DataType> types;
};
Bound BindDefinition(const HandlerArgs& args, Catalog& catalog, const TableCatalog& dep) {
  Bound out;
  if (dep.kind == RelationKind::kView) {
    std::vector<ParsedStatement> stmts = ParseSql(dep.definition);
    if (stmts.size() != 1 || !stmts[0].node || stmts[0].node->node_case != PG_QUERY__NODE__NODE_VIEW_STMT)
      throw SqlError(sqlstate::kInternalError, "a view's definition is not a CREATE VIEW");
    EvalContext eval = args.session->eval();
    eval.catalog = MakeCatalogLookup(&catalog, dep.database_id, PlanSearchPath(dep));  // for 'name'::regclass
    BinderContext ctx;
    ctx.catalog = &catalog;
    ctx.database_id = dep.database_id;
    ctx.database_name = args.session->database().name;
    if (auto owner = catalog.GetUser(dep.owner)) ctx.user_name = owner->name;
    ctx.eval = &eval;
    ctx.search_path = PlanSearchPath(dep);
    ctx.name_uses = &out.uses;
    Binder binder(ctx);
    PlanPtr plan = binder.BindQuery(stmts[0].node->view_stmt->query);
    for (const auto& c : plan->schema())
      if (!c.hidden) out.types.push_back(c.type);
    return out;
  }
  if (!JobPlansAsStored(catalog, dep, args.session->eval(), &out.uses))
    throw SqlError(sqlstate::kFeatureNotSupported, "it no longer plans as it was made");
  return out;
}

bool IsNameToken(const Token& t) { return t.kind == Token::Kind::kIdent || t.kind == Token::Kind::kKeyword; }

// The edits that make `dep`'s definition follow the rename (or the move
// to schema `moved_to`, which its names of the relation then give).
std::vector<NameEdit> EditsFor(const TableCatalog& dep, const Bound& bound, const TableCatalog& before,
                               const TableCatalog& after, int column, const std::string& moved_to) {
  std::vector<NameEdit> edits;
  const std::string old_name = column >= 0 ? before.columns[column].name : before.name;
  const std::string new_name = column >= 0 ? after.columns[column].name : after.name;
  for (const auto& use : bound.uses) {
    if (use.relation != before.id) continue;
    if (use.implicit) continue;  // no name in the text (a rename changes what * reads: checked below)
    if (column >= 0) {
      if (use.column == column && !use.range_var) edits.push_back({use.location, 0, new_name, old_name});
    } else if (use.range_var) {
      edits.push_back({use.location, 0, new_name, "", moved_to});
    } else if (use.qualified_by_name) {
      edits.push_back({use.location, 1, new_name, ""});
    }
  }
  // What the binder does not see: an index's table and columns, a sink's
  // FROM relation.
  std::vector<ParsedStatement> stmts = ParseSql(dep.definition);
  if (stmts.size() != 1) return edits;
  const ParsedStatement& stmt = stmts[0];
  if (stmt.node && stmt.node->node_case == PG_QUERY__NODE__NODE_INDEX_STMT) {
    const PgQuery__RangeVar* rel = stmt.node->index_stmt->relation;
    if (column < 0) {
      edits.push_back({rel->location, 0, new_name, "", moved_to});
    } else {
      // A column is a name alone in a list: after ( or , and before
      // neither ( (a function) nor . (a qualified name).
      std::vector<Token> tokens = Tokenize(dep.definition);
      for (size_t i = 1; i < tokens.size(); i++) {
        if (tokens[i].start <= rel->location || !IsNameToken(tokens[i]) || tokens[i].text != old_name) continue;
        if (tokens[i - 1].text != "(" && tokens[i - 1].text != ",") continue;
        if (i + 1 < tokens.size() && (tokens[i + 1].text == "(" || tokens[i + 1].text == ".")) continue;
        // One the binder saw (in an expression element or the predicate).
        if (std::any_of(edits.begin(), edits.end(), [&](const NameEdit& e) { return e.location == tokens[i].start; }))
          continue;
        edits.push_back({tokens[i].start, 0, new_name, ""});
      }
    }
  } else if (const auto* sink = std::get_if<CreateSinkStatement>(&stmt.extension); sink && !sink->from.empty()) {
    if (column < 0) {
      std::vector<Token> tokens = Tokenize(dep.definition);
      for (size_t i = 0; i + 1 < tokens.size(); i++)
        if (tokens[i].kind == Token::Kind::kKeyword && tokens[i].text == "from") {
          edits.push_back({tokens[i + 1].start, 0, new_name, "", moved_to});
          break;
        }
    }
  }
  return edits;
}

SqlError CannotFollow(const std::string& what, const TableCatalog& dep, const std::string& why) {
  return SqlError(sqlstate::kFeatureNotSupported, fmt::format("cannot {} because {} {} depends on it", what,
                                                              RelationKindName(dep.kind), dep.name))
      .WithDetail(fmt::format("Its definition could not follow: {}.", why))
      .WithHint(fmt::format("Drop {} {} first, then create it again.", RelationKindName(dep.kind), dep.name));
}

bool SameNames(const std::vector<NameUse>& a, const std::vector<NameUse>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++)
    if (a[i].relation != b[i].relation || a[i].column != b[i].column || a[i].range_var != b[i].range_var ||
        a[i].implicit != b[i].implicit)
      return false;
  return true;
}

}  // namespace

std::vector<TableRef> ViewsReadingColumn(const HandlerArgs& args, ObjectId table, int column) {
  Catalog* catalog = args.session->DdlCatalog();
  std::vector<TableRef> readers;
  for (const TableRef& dep : catalog->Dependents(table)) {
    if (dep->kind != RelationKind::kView) continue;
    Bound bound;
    try {
      bound = BindDefinition(args, *catalog, *dep);
    } catch (const SqlError&) {
      readers.push_back(dep);  // it no longer binds: taken to read it, the cautious answer
      continue;
    }
    if (std::any_of(bound.uses.begin(), bound.uses.end(),
                    [&](const NameUse& use) { return use.relation == table && use.column == column; }))
      readers.push_back(dep);
  }
  return readers;
}

std::vector<TableCatalog> FollowRename(const HandlerArgs& args, const TableCatalog& before, const TableCatalog& after,
                                       int column) {
  Catalog* catalog = args.session->DdlCatalog();
  std::string moved_to;
  if (before.schema_id != after.schema_id)
    if (auto schema = catalog->GetSchema(after.schema_id)) moved_to = schema->name;
  const std::string what =
      column >= 0       ? fmt::format("rename column {} of {} {}", before.columns[column].name,
                                      RelationKindName(before.kind), before.name)
      : moved_to.empty() ? fmt::format("rename {} {}", RelationKindName(before.kind), before.name)
                         : fmt::format("move {} {} to schema {}", RelationKindName(before.kind), before.name, moved_to);
  struct Follower {
    TableRef was;
    TableCatalog now;
    Bound bound;
    bool columns_renamed = false;
  };
  std::vector<Follower> followers;
  for (const TableRef& dep : catalog->Dependents(before.id)) {
    if (dep->kind != RelationKind::kView && !IsStreamJob(*dep)) continue;
    Follower f{dep, *dep, {}, false};
    try {
      f.bound = BindDefinition(args, *catalog, *dep);
      f.now.definition = EditNames(dep->definition, EditsFor(*dep, f.bound, before, after, column, moved_to));
    } catch (const SqlError& e) {
      throw CannotFollow(what, *dep, e.what());
    }
    if (dep->kind == RelationKind::kView) {
      std::vector<ParsedStatement> stmts = ParseSql(f.now.definition);
      f.now.view_query = ViewQueryText(stmts.at(0));
    }
    // An index holds its table's columns, in order, by their names.
    if (dep->kind == RelationKind::kIndex && column >= 0 && static_cast<size_t>(column) < f.now.columns.size() &&
        f.now.columns[column].name == before.columns[column].name) {
      f.now.columns[column].name = after.columns[column].name;
      f.columns_renamed = true;
    }
    followers.push_back(std::move(f));
  }
  if (followers.empty()) return {};

  // Checked against the catalog as the rename leaves it.
  std::unique_ptr<Catalog> renamed = catalog->BeginTransaction();
  renamed->AlterTable(after);
  for (const auto& f : followers) renamed->AlterTable(f.now);
  std::vector<TableCatalog> changed;
  for (auto& f : followers) {
    std::string why;
    try {
      Bound again = BindDefinition(args, *renamed, f.now);
      if (!SameNames(f.bound.uses, again.uses)) why = "it would read other columns";
      else if (f.bound.types != again.types) why = "its columns would change type";
    } catch (const SqlError& e) {
      why = e.what();
    }
    if (!why.empty()) throw CannotFollow(what, *f.was, why);
    if (f.now.definition != f.was->definition || f.columns_renamed) changed.push_back(std::move(f.now));
  }
  return changed;
}

}  // namespace freshet
