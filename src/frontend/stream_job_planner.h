// Planning stream jobs from their SQL definitions.
//
// CREATE plans a job once; meta's StreamJobs persists that plan with the
// job (TableCatalog::stream_plan, planner/stream_plan_codec.h), and
// restarts and recoveries build the job from it, never from its SQL (see
// meta/stream_jobs.h). Only jobs created by versions that did not keep
// their plan are planned again here (ReplanLegacyJob).
#pragma once

#include "planner/stream_plan.h"
#include "binder/binder.h"
#include "catalog/catalog.h"
#include "sql/parser.h"

namespace freshet {

struct JobPlanContext {
  const Catalog* catalog = nullptr;
  DatabaseCatalog database;
  std::string user = "root";
  std::vector<std::string> search_path = {"public"};
  std::string temp_schema;  // the session's (BinderContext::temp_schema): found only to be refused
  EvalContext eval;  // the time zone; no session pointers
  std::vector<NameUse>* name_uses = nullptr;  // BinderContext::name_uses
  std::vector<ObjectId>* referenced_functions = nullptr;  // BinderContext::referenced_functions
};

// What a job's definition statement creates.
struct JobDefinition {
  RelationKind kind = RelationKind::kMaterializedView;
  std::vector<std::string> name;  // as written (maybe schema-qualified)
  bool if_not_exists = false;
  std::string connector;          // sinks
};

// The session's search path as a job's plan_settings record it, and back.
std::string JoinSearchPath(const std::vector<std::string>& path);
std::vector<std::string> SplitSearchPath(const std::string& joined);
// The search path a view or job was made with (plan_settings).
std::vector<std::string> PlanSearchPath(const TableCatalog& relation);

// Recognises CREATE MATERIALIZED VIEW, CREATE SINK and CREATE INDEX;
// false for other statements.
bool DescribeJobDefinition(const ParsedStatement& stmt, JobDefinition* out);

// A subscription's retention in milliseconds from its text ('1D', '12 hours');
// 22023 when it is not a positive interval.
int64_t ParseRetentionMs(const std::string& text);
// CREATE SUBSCRIPTION's WITH (retention = '...'), in milliseconds: 22023
// when it is missing, not an interval, not positive, or another option is given.
int64_t SubscriptionRetentionMs(const ParsedStatement& stmt);
// Plans a job's definition statement: the query of a materialized view
// (renaming its columns as the statement's column list says), of a sink,
// or the table an index covers.
StreamPlan PlanJob(const JobPlanContext& ctx, const ParsedStatement& stmt);

// A job of a version that did not keep its stream plan: planned again
// from its definition with the settings recorded at CREATE (search_path;
// `eval` holds its time zone). StreamJobs' legacy planner.
// `name_uses` (if given) gets the names the definition gives.
std::shared_ptr<StreamPlan> ReplanLegacyJob(const Catalog* catalog, const TableCatalog& job, EvalContext* eval,
                                            std::vector<NameUse>* name_uses = nullptr);

// Whether stream job `job`'s definition, planned again against `catalog`,
// gives the job's stored plan exactly, column names and hidden flags
// aside (what a plan computes is by column position). The tables the job
// scans are taken at the width it scans them (columns added since are not
// the job's). False for a job without a stored plan, and for a definition
// that no longer plans. `name_uses` (if given) gets the names the
// definition gives (a rename follows them: frontend/handler/dependent_definitions.h).
bool JobPlansAsStored(Catalog& catalog, const TableCatalog& job, const EvalContext& eval,
                      std::vector<NameUse>* name_uses = nullptr);

// Whether stream job `job` reads a column that `altered` (a copy of the
// catalog) hides under another name (DROP COLUMN without a rewrite):
// unless its definition plans against `altered` as stored
// (JobPlansAsStored), the job is taken to read it. Conservative: a job
// without a stored plan, or one that would be planned otherwise now,
// reads it.
bool JobReadsColumn(Catalog& altered, const TableCatalog& job, const EvalContext& eval);

}  // namespace freshet
