// Subqueries rewritten into joins (unnesting), so that every engine runs
// them as set operations: the batch engine with hash joins instead of one
// run of the subquery per outer row, the stream engine at all (a stream
// job cannot run a query per row).
//
// The binder leaves each subquery as a SubqueryExpr holding its plan, whose
// OuterRefExprs read the row of the node evaluating it (subquery.h). The
// rewrite pulls the correlation out of the subquery's plan: conjuncts that
// read the outer row move up through filters, projections, inner joins and
// the preserved side of outer and semi joins, and through an aggregation
// when they are equalities (outer = inner), which become its group keys
// (Neumann and Kemper's "Unnesting Arbitrary Queries"). An aggregation correlated otherwise (t.x < outer.x) is
// made per value of the outer columns it reads, over their DISTINCT values
// in the outer plan (the domain) joined with its input; a function in FROM
// of outer values (unnest(outer.a)) runs LATERAL over such a domain. The
// outer row finds its rows by equality with the domain's values, NULL
// matching NULL unless the conditions reject it (coalesce(c, v) and c IS
// NULL as keys). What is left is a plan that reads nothing outside it,
// and conditions over the outer row and that plan's row:
//   * a WHERE/HAVING conjunct EXISTS, IN, op ANY, op ALL, or NOT of them,
//     becomes a semi or anti join on those conditions (NOT IN and ALL
//     keep SQL's NULL semantics: a comparison that is NULL counts as a
//     match of the anti join);
//   * a WHERE/HAVING conjunct comparing an expression with an uncorrelated
//     scalar subquery of one row at most becomes an inner join with it on
//     that comparison (the stream planner runs it as a dynamic filter);
//   * a scalar subquery (in WHERE, HAVING or a select list) becomes a left
//     join with the subquery's rows, provided the subquery has at most one
//     row per outer row: an aggregate without GROUP BY, made per
//     correlation key (an outer row without a group sees each aggregate's
//     value over no rows: count's 0, NULL for the others), or, uncorrelated,
//     a plan that cannot return two rows;
// and the expression reads the joined columns instead.
//
// A subquery whose correlation cannot be pulled out (a reference two
// levels up, LIMIT in a correlated subquery, a set-returning function in
// its select list reading the outer row, ...) stays a SubqueryExpr: the batch engine runs it per
// distinct outer row, the stream planner refuses it (0A000).
#pragma once

#include "planner/plan.h"

namespace freshet {

PlanPtr UnnestSubqueries(PlanPtr plan);

// Whether a plan that reads nothing outside it returns at most one row (an
// aggregate without GROUP BY, LIMIT 1, one row of VALUES, ...).
bool AtMostOneRow(const PlanNode& n);

}  // namespace freshet
