// BatchCounters: process-wide counts of the batch engine's parallel paths,
// shown by rw_catalog.rw_batch_counters (name, value): how many scans were
// read by two threads and how many aggregations ran as two partitions
// (parallel_aggregate.cc), with disjoint groups or merged. They make the
// choice between one thread and two observable (tests, operators); they
// are cumulative since the process started.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace freshet {

struct BatchCounters {
  std::atomic<uint64_t> parallel_scans{0};
  std::atomic<uint64_t> partitioned_aggregations_disjoint{0};
  std::atomic<uint64_t> partitioned_aggregations_merged{0};

  // (name, value) per counter, in a fixed order.
  std::vector<std::pair<std::string, int64_t>> List() const {
    return {{"parallel_scans", static_cast<int64_t>(parallel_scans.load())},
            {"partitioned_aggregations_disjoint", static_cast<int64_t>(partitioned_aggregations_disjoint.load())},
            {"partitioned_aggregations_merged", static_cast<int64_t>(partitioned_aggregations_merged.load())}};
  }
};

inline BatchCounters& GetBatchCounters() {
  static BatchCounters counters;
  return counters;
}

}  // namespace freshet
