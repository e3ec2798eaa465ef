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
// from before the job's first step (a log job in B created first).
//
// Not thread-safe: used by its actor's thread only.
#pragma once

#include <map>
#include <memory>

#include "storage/change_log.h"
#include "stream/operator.h"

namespace freshet {

class CrossDbScanOperator : public StreamOperator {
 public:
  // `upstream`: B's relation (its storage layout and the column types the
  // job reads); `upstream_database`: B; `log_id`: the relation's change log
  // in B; `progress`: the state table above; `rows_per_step`: the
  // snapshot rows a step reads at most.
  CrossDbScanOperator(StateTableDesc upstream, uint32_t upstream_database, TableId log_id, StateTableDesc progress,
                      size_t rows_per_step = kChunkSize)
      : upstream_(std::move(upstream)), upstream_database_(upstream_database), log_id_(log_id),
        progress_desc_(std::move(progress)), rows_per_step_(rows_per_step) {}
  std::string Name() const override { return "CrossDbScan"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int, StreamChunk) override {}  // no input: a head
  void OnBarrier(const Barrier& barrier) override;
  // Work: a vnode not finished, or B committed an epoch after a vnode's.
  bool HasWork() const override;
  // One vnode's step (at most rows_per_step rows of snapshot, and the
  // log's changes up to B's committed epoch).
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
  void Step(int vnode, VnodeProgress* p);
  void EmitRow(Op op, std::string_view encoded_row);
  void FlushOut();

  StateTableDesc upstream_;
  uint32_t upstream_database_;
  TableId log_id_;
  StateTableDesc progress_desc_;
  size_t rows_per_step_;
  std::shared_ptr<StateTable> progress_;
  std::map<int, VnodeProgress> vnodes_;
  int next_vnode_ = 0;  // round robin over the owned vnodes
  std::vector<Op> out_ops_;
  std::unique_ptr<DataChunk> out_;
};

}  // namespace freshet
