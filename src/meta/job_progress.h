// JobProgressTracker: the progress of the stream jobs being created, for
// SHOW JOBS, rw_catalog.rw_ddl_progress and the error a SELECT on a creating
// view gets.
//
// Progress is computed from what is persisted, never from an in-memory
// tracker, so it survives restarts: the rows each backfill read and the
// vnodes it finished come from the job's backfill state tables (read at the
// latest committed snapshot), and the rows it has to read from the
// upstream's row count, a statistic committed with every epoch
// (RowCountMetaKey; for relations of older versions, an estimate from
// storage, StateStore::EstimateKeys). A job that reads a
// job still being created expects that upstream's final size: the larger of
// its current size and what the upstream itself expects to read. A job's
// fraction is at most 99% until every vnode of every backfill is finished,
// and never above the fraction of an upstream job it waits for (it
// completes after it).
//
// Only the rate (rows per second over the last ten seconds, from the
// samples taken each time progress is computed, and by a sampler thread
// every second while jobs are being created) and the largest fraction
// shown so far are kept in memory: an estimate that grows (rows inserted
// upstream meanwhile) must not make a job's progress go backwards.
//
// Thread safety: Compute may be called concurrently.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <thread>
#include <map>
#include <mutex>

#include "catalog/catalog.h"
#include "catalog/system_tables.h"
#include "meta/barrier_manager.h"
#include "meta/stream_jobs.h"
#include "storage/state_store.h"

namespace freshet {

class JobProgressTracker {
 public:
  JobProgressTracker(const StateStore* store, const Catalog* catalog, BarrierManager* barriers,
                     const StreamJobs* jobs);
  ~JobProgressTracker();

  // One entry per job of the database that is still being created.
  std::vector<JobProgress> Compute(ObjectId database_id);

 private:
  struct Sample {
    std::chrono::steady_clock::time_point at;
    int64_t rows;
  };
  // Per job: rows the backfills read, vnodes all finished, rows expected.
  struct Backfilled {
    int64_t rows = 0;
    int64_t expected = 0;
    bool done = false;
  };
  Backfilled ReadBackfill(const TableCatalog& job, const Snapshot& snapshot, ObjectId database_id,
                          std::map<ObjectId, Backfilled>* memo);
  int64_t ExpectedRows(ObjectId relation, const Snapshot& snapshot, ObjectId database_id,
                       std::map<ObjectId, Backfilled>* memo);
  // The relation's committed row count (statistics) at the snapshot.
  int64_t RowCount(ObjectId relation, const Snapshot& snapshot) const;
  // Records a sample and returns rows/s over the recent samples, if known.
  std::optional<double> Rate(ObjectId job, int64_t rows);
  void SamplerLoop();

  const StateStore* store_;
  const Catalog* catalog_;
  BarrierManager* barriers_;
  const StreamJobs* jobs_;
  std::mutex mu_;
  struct Shown {
    std::deque<Sample> samples;  // for the rate
    double fraction = 0;         // the largest fraction shown
  };
  std::map<ObjectId, Shown> shown_;  // per creating job
  std::mutex sampler_mu_;
  std::condition_variable sampler_cv_;
  bool stop_ = false;
  std::thread sampler_;
};

}  // namespace freshet
