// Internal to the stream planner (stream_plan.cc, stream_planner.cc,
// stream_plan_check.cc): helpers they share.
#pragma once

#include <string>
#include <vector>

#include "planner/stream_plan.h"

namespace freshet::stream_plan_detail {

std::vector<PlanColumn> CopySchema(const StreamNode& n);
// Whether every element of a is in b.
bool IsSubset(const std::vector<int>& a, const std::vector<int>& b);
// "[a, b]": the named columns, for Describe.
std::string ColumnList(const std::vector<PlanColumn>& schema, const std::vector<int>& cols);
// Throws 0A000 "<what> in a materialized view is not supported yet".
[[noreturn]] void Unsupported(const std::string& what);
bool IsNowFunction(const Expression& e);
// Whether the expression calls now().
bool ReadsNow(const Expression& e);
// The operands of a chain of ANDs.
void SplitConjuncts(const Expression& e, std::vector<const Expression*>* out);
// Throws 0A000 for what a stream job cannot evaluate (subqueries,
// parameters, now() outside temporal filters unless allow_now).
void CheckStreamable(const Expression& e, bool allow_now = false);
// Refuses (XX000) a plan whose nodes read columns outside their inputs or
// of another physical type (stream_plan_check.cc).
void CheckStreamPlan(const StreamNode& root);

}  // namespace freshet::stream_plan_detail
