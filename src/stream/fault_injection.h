// Test-only faults in stream operators: makes a chosen operator throw at
// its n-th chunk or barrier, so tests can prove that an operator failure
// fails the epoch and recovers the database instead of dropping rows.
//
// Configured by the environment variable FRESHET_STREAM_FAULT, read once at
// the first check:
//
//   FRESHET_STREAM_FAULT=<operator>:<chunk|barrier>:<n>[:<times>]
//
// The n-th call (counted over the whole process, from 1) of the operator's
// OnChunk or OnBarrier throws, and so does every later call until `times`
// faults were injected (default 1; 0 = every call from the n-th on).
// <operator> is the operator's Name() ("HashAgg", "HashJoin", ...). Unset,
// a check costs one relaxed atomic load.
#pragma once

#include <string>

namespace freshet {

enum class FaultPoint { kChunk, kBarrier };

// Whether FRESHET_STREAM_FAULT configures a fault (callers skip the check,
// and building the operator's name, when not).
bool StreamFaultConfigured();
// Throws std::runtime_error when the configured fault is due.
void MaybeInjectStreamFault(const std::string& op_name, FaultPoint point);

}  // namespace freshet
