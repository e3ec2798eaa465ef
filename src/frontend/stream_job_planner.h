// Planning stream jobs from their SQL definitions, and starting them again
// after a restart or a failure.
//
// CREATE plans a job once; StreamJobs persists that plan with the job
// (TableCatalog::stream_plan, planner/stream_plan_codec.h), and restarts
// and recoveries build the job from it, never from its SQL: a later
// planner that plans the same SQL differently does not change a running
// job's operators or state layout. Internal state tables are matched to
// the plan's state table indices by their order. Jobs created by versions
// that did not keep their plan are planned again from their definition
// with the settings recorded at CREATE (search_path, TimeZone).
#pragma once

#include "planner/stream_plan.h"
#include "frontend/instance.h"
#include "sql/parser.h"

namespace freshet {

struct JobPlanContext {
  const Catalog* catalog = nullptr;
  DatabaseCatalog database;
  std::string user = "root";
  std::vector<std::string> search_path = {"public"};
  EvalContext eval;  // the time zone; no session pointers
};

// What a job's definition statement creates.
struct JobDefinition {
  RelationKind kind = RelationKind::kMaterializedView;
  std::vector<std::string> name;  // as written (maybe schema-qualified)
  bool if_not_exists = false;
  std::string connector;          // sinks
};

// The session's search path as a job's plan_settings record it.
std::string JoinSearchPath(const std::vector<std::string>& path);

// Recognises CREATE MATERIALIZED VIEW, CREATE SINK and CREATE INDEX;
// false for other statements.
bool DescribeJobDefinition(const ParsedStatement& stmt, JobDefinition* out);

// Plans a job's definition statement: the query of a materialized view
// (renaming its columns as the statement's column list says), of a sink,
// or the table an index covers.
StreamPlan PlanJob(const JobPlanContext& ctx, const ParsedStatement& stmt);

// The job that fills a table created WITH (connector = ...): its source
// read into the table's own storage.
StreamPlan PlanTableSource(TableRef table);
bool IsConnectorTable(const TableCatalog& t);

// Starts every stream job of every database after a restart, upstreams
// first. A job whose definition no longer plans is logged and left stopped.
void ResumeStreamJobs(Instance* instance);
// The epoch loops' recovery handler (DatabaseEpochLoop): counts the
// failure, records it in rw_catalog.rw_event_logs, pauses (or marks the job
// failed after repeated failures) and rebuilds the database's jobs.
void RecoverStreamJobs(Instance* instance, uint32_t database_id, const StreamRuntime::Failure& failure);

}  // namespace freshet
