// Column pruning: a plan rewritten so that each scan passes on only the
// columns some ancestor reads.
//
// ScanNode::used_columns (set by the optimizer) already lets a batch scan
// skip decoding the others, keeping them as NULLs so that no index above
// shifts. A stream plan needs more: every column a join's input carries is
// kept in the join's state (in memory and in its state table), and every
// column a scan passes on is copied through each exchange. PruneColumns
// puts a projection of the read columns above each scan that is read only
// in part, and renumbers the column references of every node above it.
//
// The rewrite keeps the root's output as it is and the order of every
// node's surviving columns; a projection's unread entries are dropped too.
// Nodes it does not understand (set operations, DISTINCT, lateral joins,
// DML, ...) read every column of their inputs, and an expression with a
// subquery reads its whole input row (a correlated subquery refers to it
// by position), so beneath those nothing changes.
#pragma once

#include <vector>

#include "planner/plan.h"

namespace freshet {

PlanPtr PruneColumns(PlanPtr plan);

// Marks in `read` the input columns `e` reads: every one when it holds a
// subquery. Null reads nothing.
void MarkColumnsRead(const Expression* e, std::vector<bool>* read);

}  // namespace freshet
