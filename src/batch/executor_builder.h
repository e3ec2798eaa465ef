// Builds the executor tree of a plan.
#pragma once

#include "batch/executor.h"
#include "planner/plan.h"

namespace freshet {

ExecutorPtr BuildExecutor(const PlanNode& plan, ExecContext& ctx);

}  // namespace freshet
