// A stream plan as plain, versioned JSON, and back.
//
// This is the form in which a job's stream graph is meant to be kept by
// meta and rebuilt at recovery without binding or planning its SQL again
// (issue 17 item 3; recovery does not use it yet): every node with its
// parameters, schema, stream key, distribution and state table indices;
// expressions by kind, scalar functions by name and argument types (looked
// up again in the FunctionRegistry), constants as typed values in the row
// encoding; the job's columns, keys, dependencies and state table specs.
// Relations a plan reads (scans, sources) are stored by id and resolved at
// decoding.
//
// Contract: DecodeStreamPlan(EncodeStreamPlan(p)) is a plan equal to p in
// everything the stream builder and EXPLAIN read, and encoding it again
// gives the same JSON. A document of another format version, or one that
// names a function or relation that no longer exists, is refused with
// XX001 (data corrupted) or 42P01, never half-decoded.
#pragma once

#include <functional>
#include <string>

#include "planner/stream_plan.h"

namespace freshet {

// Incremented whenever the JSON's meaning changes; decoding refuses others.
inline constexpr int kStreamPlanFormatVersion = 1;

std::string EncodeStreamPlan(const StreamPlan& plan);
// `resolve` returns the relation of an id, or null when it does not exist.
StreamPlan DecodeStreamPlan(const std::string& json, const std::function<TableRef(ObjectId)>& resolve);
// An encoded plan whose job is now called `name` (its Materialize names the
// relation it writes: EXPLAIN's text, and what planning its definition
// again gives).
std::string RenameStreamPlanRelation(const std::string& json, const std::string& name);

}  // namespace freshet
