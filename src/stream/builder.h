// Stream builder: turns a job's StreamPlan into actors.
//
// The plan is cut into fragments at its exchanges; a fragment is a linear
// chain of operators whose head reads either an upstream relation
// (backfill), the exchanges below it, or nothing. A fragment hashed on some
// columns gets `parallelism` actors, each owning a range of vnodes; a single
// one gets one actor. Actors of a fragment send to the actors of the
// fragment above through dispatchers; the backfill actors are attached to
// their upstream (a table's change stream, or the materialize actors of an
// upstream view) by the mutation of the barrier that starts the job.
#pragma once

#include "catalog/catalog.h"
#include "planner/stream_plan.h"
#include "stream/runtime.h"

namespace freshet {

struct BuildRequest {
  const StreamPlan* plan = nullptr;
  TableRef job;                          // the job's relation (its id is the job id)
  std::vector<TableRef> internal_tables;  // in the order of plan->internal_tables
  int parallelism = 1;
  int64_t memory_limit = 0;              // bytes (job_memory.h); 0 = none
  EvalContext eval;                      // time zone of the definition; no session pointers
  const Catalog* catalog = nullptr;
};

struct BuiltJob {
  std::vector<std::unique_ptr<Actor>> actors;
  std::shared_ptr<Mutation> mutation;  // attaches the backfills to their upstreams
  std::map<ActorId, int> backfill_actors;  // with their backfill levels (StreamTableScanNode)
  std::vector<StreamRuntime::OutputActor> outputs;  // the materialize actors
  std::set<ActorId> actor_ids;
  std::vector<FragmentInfo> fragments;
};

// Throws SqlError when an upstream is not running.
BuiltJob BuildJob(const BuildRequest& request, StreamRuntime* runtime);

}  // namespace freshet
