// CrossDbScan: the head of a job in database A that reads a relation of
// database B (issue 20, item 5; docs/status.md "Next for issue 20"). No
// stream channel crosses databases: B's relation is read like a source
// whose splits are its vnodes, through the shared store — its rows at B's
// committed epochs, then its change log (storage/change_log.h) — and B's
// epochs are only offsets; A's barriers carry A's epochs.
//
// Per vnode it keeps, in A's state table (committed with A's epochs):
//   vnode | epoch | position | finished | row_count
// `position` is the storage key of the last row of B's relation emitted
// from a snapshot, `epoch` the B epoch the vnode's output is exact at for
// the keys up to the position (every key once finished). One step of a
// vnode, between A's barriers, reads B at its latest committed epoch E:
//  1. the log's changes of the epochs after `epoch` up to E, for the keys
//     at or before the position (all of them once finished): those keys
//     were emitted from an earlier snapshot and follow the log from there;
//  2. `epoch` becomes E;
//  3. unless finished, the next rows after the position, read at E, as
//     inserts: keys past the position are read fresh, so no change to them
//     is needed from the log (the "watermark" snapshot algorithm).
// Nothing is lost or repeated across restarts: a step's output and the
// progress it reached commit together in A's epoch. While B recovers or
// pauses its committed epoch stays, and steps emit nothing new.
//
// The log must hold every epoch after the first snapshot's: it is written
// by a log job in B created before this job (StreamJobs), which records
// with each of its commits that the log is written through that epoch. A
// vnode still reading its snapshot steps only when the log is written
// through B's committed epoch; a finished one follows the log as far as it
// is written. (A log job that stopped, failed, leaves the view behind, not
// wrong.) The log is shared with the relation's other consumers: about once
// a second the actor owning vnode 0 records in it, with A's commit, the
// epoch every vnode's committed progress is past, and the log's writer
// truncates below the least such record of all consumers. Until then the
// record made when the job was created (B's committed epoch then) holds
// the log back.
//
// Vnodes still reading their snapshot step between barriers (DoWork);
// finished ones follow the log at each barrier of A, up to the epoch B last
// committed: a FLUSH in A after one in B shows B's changes. B's committed
// epoch and the log's are read once per barrier for HasWork (a step reads
// them again, with the snapshot it reads).
//
// Not thread-safe: used by its actor's thread only.
#pragma once

#include <map>
#include <memory>

#include "storage/change_log.h"
#include "stream/backfill_budget.h"
#include "stream/operator.h"

namespace freshet {

class CrossDbScanOperator : public StreamOperator {
 public:
  // `upstream`: B's relation (its storage layout, with the column types the
  // job reads: columns B's table gained since are left out);
  // `upstream_database`: B; `log`: the relation's change log in B (an
  // internal table of the log job); `progress`: the state table above;
  // `level`: the snapshot is read once the job's backfills of lower levels
  // finished (job_tracker.h); `rows_per_step`: the snapshot rows a step
  // reads at most.
  CrossDbScanOperator(StateTableDesc upstream, uint32_t upstream_database, StateTableDesc log, StateTableDesc progress,
                      int level = 0, size_t rows_per_step = kChunkSize)
      : upstream_(std::move(upstream)), upstream_database_(upstream_database), log_desc_(std::move(log)),
        progress_desc_(std::move(progress)), level_(level), rows_per_step_(rows_per_step) {}
  std::string Name() const override { return "CrossDbScan"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int, StreamChunk) override {}  // no input: a head
  void OnBarrier(const Barrier& barrier) override;
  // Work: a vnode reading its snapshot that can step (NeedsStep) at the
  // epochs last read.
  bool HasWork() const override;
  // One such vnode's step (the log's changes up to B's committed epoch for
  // the keys it emitted, then at most rows_per_step rows of snapshot).
  void DoWork() override;

  // Every owned vnode is finished and exact at B's epoch `epoch` or later.
  bool CaughtUp(Epoch epoch) const;

 private:
  struct VnodeProgress {
    Epoch epoch = 0;       // 0: nothing read yet
    std::string position;  // last storage key emitted from a snapshot; empty: none
    bool finished = false;
    int64_t rows = 0;
    bool dirty = false;
  };
  // B as a step reads it: a snapshot, B's committed epoch in it and the
  // epoch its log is written through.
  struct View {
    std::shared_ptr<const Snapshot> snapshot;
    Epoch committed = 0, logged = 0;
  };
  View ReadView() const;
  // Whether a step of the vnode would do something, with B committed
  // through `committed` and the log written through `logged`.
  bool NeedsStep(const VnodeProgress& p, Epoch committed, Epoch logged) const;
  // A vnode reading its snapshot: the log's changes to the keys it emitted,
  // then the next rows.
  void StepSnapshot(int vnode, VnodeProgress* p, const View& view);
  // The finished vnodes: the log's changes up to B's committed epoch.
  void FollowLog(const View& view);
  // Records in the log the epoch every vnode's committed progress is past:
  // the log's writer may delete the epochs up to it.
  void RecordProgressInLog();
  // Throws when the log no longer holds the epochs after `read_through`.
  void CheckRetained(const ChangeLogReader& log, const Snapshot* snapshot, Epoch read_through) const;
  void EmitRow(Op op, std::string_view encoded_row);
  void FlushOut();

  StateTableDesc upstream_;
  uint32_t upstream_database_;
  StateTableDesc log_desc_;
  StateTableDesc progress_desc_;
  int level_;
  size_t rows_per_step_;
  std::shared_ptr<StateTable> progress_;
  std::shared_ptr<StateTable> log_;  // written only to record this job's progress in it
  std::map<int, VnodeProgress> vnodes_;
  Epoch recorded_ = 0;  // the progress last recorded in the log
  int64_t last_record_ms_ = 0;
  bool level_ready_ = false;
  bool reported_ = false;
  bool started_ = false;  // the first barrier arrived
  BackfillBudget budget_;  // the job's backfill rate limit, for the snapshot's rows
  Epoch committed_ = 0, logged_ = 0;  // B's and the log's, as read at the last barrier (or Open)
  int next_vnode_ = 0;  // round robin over the owned vnodes
  std::vector<Op> out_ops_;
  std::unique_ptr<DataChunk> out_;
};

}  // namespace freshet
