// libFuzzer target: SQL text through parse -> bind -> optimize -> plan, the
// way the session plans a query (server/session.cc Session::Plan) and a
// CREATE MATERIALIZED VIEW (server/stream_ddl.cc PlanJob), with EXPLAIN
// of both plans. Nothing is executed. SqlError is a user error and fine;
// a crash, an ASan/UBSan report, another exception or a hang is a bug.
//
// The catalog (in-memory store) holds database dev with tables t (no key,
// every scalar type), k (int primary key), s (varchar key, numeric and
// timestamptz columns) and a materialized view mv over t.
#include <pg_query/pg_query.pb-c.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "binder/binder.h"
#include "catalog/catalog.h"
#include "catalog/pg_catalog.h"
#include "common/error.h"
#include "planner/optimizer.h"
#include "planner/stream_plan.h"
#include "sql/parser.h"
#include "storage/state_store.h"

using namespace freshet;

namespace {

struct World {
  std::unique_ptr<StateStore> store;
  std::unique_ptr<Catalog> catalog;
  DatabaseCatalog db;
  ObjectId schema_id = 0;
};

void AddTable(World* w, const std::string& name, std::vector<ColumnCatalog> cols, int pk_col,
              RelationKind kind = RelationKind::kTable) {
  TableCatalog t;
  t.database_id = w->db.id;
  t.schema_id = w->schema_id;
  t.name = name;
  t.kind = kind;
  t.columns = std::move(cols);
  if (pk_col < 0) {
    t.columns.push_back({"_row_id", DataType::Int64(), true, true, ""});
    t.row_id_index = static_cast<int>(t.columns.size()) - 1;
    t.pk = {t.row_id_index};
  } else {
    t.pk = {pk_col};
    t.columns[pk_col].not_null = true;
  }
  t.dist_key = t.pk;
  t.definition = "CREATE TABLE " + name;
  w->catalog->CreateTable(std::move(t));
}

World* MakeWorld() {
  auto* w = new World;
  StoreOptions options;
  options.in_memory = true;
  auto store = StateStore::Open(options);
  if (!store.ok()) {
    fprintf(stderr, "cannot open the in-memory store: %s\n", store.status().ToString().c_str());
    abort();
  }
  w->store = std::move(store).value();
  w->catalog = Catalog::Load(w->store.get());
  w->db = *w->catalog->FindDatabase(kDefaultDatabase);
  w->schema_id = w->catalog->FindSchema(w->db.id, kDefaultSchema)->id;
  AddTable(w, "t",
           {{"a", DataType::Int32()}, {"b", DataType::Varchar()}, {"c", DataType::Float64()},
            {"d", DataType::Numeric()}, {"e", DataType::Timestamp()}, {"f", DataType::Boolean()},
            {"g", DataType::Int64()}, {"h", DataType::Int16()}, {"i", DataType::Date()},
            {"j", DataType::Interval()}, {"l", DataType::Bytea()}, {"m", DataType::Timestamptz()},
            {"n", DataType::Float32()}, {"o", DataType::Time()}, {"p", DataType::Array(DataType::Int32())}},
           -1);
  AddTable(w, "k", {{"id", DataType::Int32()}, {"v", DataType::Varchar()}, {"w", DataType::Int64()}}, 0);
  AddTable(w, "s", {{"name", DataType::Varchar()}, {"amount", DataType::Numeric()}, {"ts", DataType::Timestamptz()}},
           0);
  AddTable(w, "mv", {{"a", DataType::Int32()}, {"cnt", DataType::Int64()}}, 0, RelationKind::kMaterializedView);
  return w;
}

// Made on the first input, after every static initializer has run.
World* world = nullptr;

BinderContext Context(const std::string* text, EvalContext* eval, std::vector<DataType>* params) {
  BinderContext ctx;
  ctx.catalog = world->catalog.get();
  ctx.database_id = world->db.id;
  ctx.database_name = world->db.name;
  ctx.eval = eval;
  ctx.param_types = params;
  ctx.query_text = text;
  return ctx;
}

void PlanStatement(const std::string& query, const ParsedStatement& stmt) {
  if (!stmt.node) return;
  EvalContext eval;
  eval.statement_time = 1700000000000000;
  eval.catalog = MakeCatalogLookup(world->catalog.get(), world->db.id, {"public"});
  std::vector<DataType> params;
  BinderContext ctx = Context(&query, &eval, &params);
  ctx.statement_offset = stmt.offset;
  Binder binder(ctx);
  PlanPtr plan;
  switch (stmt.node->node_case) {
    case PG_QUERY__NODE__NODE_SELECT_STMT: plan = binder.BindQuery(stmt.node); break;
    case PG_QUERY__NODE__NODE_INSERT_STMT: plan = binder.BindInsert(stmt.node); break;
    case PG_QUERY__NODE__NODE_UPDATE_STMT: plan = binder.BindUpdate(stmt.node); break;
    case PG_QUERY__NODE__NODE_DELETE_STMT: plan = binder.BindDelete(stmt.node); break;
    case PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT: {
      const PgQuery__CreateTableAsStmt* c = stmt.node->create_table_as_stmt;
      if (!c->query || !c->into || !c->into->rel) return;
      // As PlanJob: the statement's own text for positions.
      BinderContext mctx = Context(&stmt.text, &eval, &params);
      Binder mv_binder(mctx);
      PlanPtr logical = OptimizePlan(mv_binder.BindQuery(c->query));
      StreamPlan sp = PlanStream(std::move(logical), c->into->rel->relname);
      ExplainStreamPlan(sp);
      return;
    }
    default: return;
  }
  plan = OptimizePlan(std::move(plan));
  if (plan) ExplainPlan(*plan);
  // The same query as a materialized view's, when it is a SELECT.
  if (stmt.node->node_case == PG_QUERY__NODE__NODE_SELECT_STMT && params.empty()) {
    EvalContext eval2 = eval;
    std::vector<DataType> params2;
    Binder mv_binder(Context(&query, &eval2, &params2));
    PlanPtr logical = OptimizePlan(mv_binder.BindQuery(stmt.node));
    StreamPlan sp = PlanStream(std::move(logical), "fuzz_mv");
    ExplainStreamPlan(sp);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!world) world = MakeWorld();
  if (size > 4096) return 0;  // deep nesting is bounded by the parser (54001); long inputs only slow the search
  std::string query(reinterpret_cast<const char*>(data), size);
  std::vector<ParsedStatement> stmts;
  try {
    stmts = ParseSql(query);
  } catch (const SqlError&) {
    return 0;
  }
  for (const auto& stmt : stmts) {
    try {
      PlanStatement(query, stmt);
    } catch (const SqlError&) {
    }
  }
  return 0;
}
