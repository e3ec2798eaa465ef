// Plan rewrites that every engine benefits from:
//  * filters above inner/cross joins move into the join condition;
//  * join conditions are split into equi-join keys (hashable, one side each)
//    and a residual condition;
//  * conjuncts that read only one side of an inner join are pushed into
//    that side, down to the scans.
// Conjuncts containing subqueries stay where they are (their outer
// references are positional).
#pragma once

#include "planner/plan.h"

namespace freshet {

PlanPtr OptimizePlan(PlanPtr plan);

// Helpers shared with other planners.
void SplitConjuncts(ExprPtr e, std::vector<ExprPtr>* out);
ExprPtr MakeConjunction(std::vector<ExprPtr> parts);
// Column indices an expression reads (ColumnRefExpr only).
void CollectColumns(const Expression& e, std::vector<int>* out);
bool ContainsSubquery(const Expression& e);
// Adds `delta` to every column index (ColumnRefExpr) in e.
void ShiftColumns(Expression* e, int delta);
// Which side of a join's row (left: columns below `left_width`) the
// expression's columns are on.
enum class JoinSide { kNone, kLeft, kRight, kBoth };
JoinSide SideOf(const Expression& e, int left_width);

}  // namespace freshet
