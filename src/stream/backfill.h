// Backfill: the head of a job's actor that reads an upstream table or
// materialized view: first the rows already there (a snapshot), then the
// upstream's changes, without losing or repeating a row (RisingWave's
// no-shuffle backfill).
//
// Each actor owns a range of the upstream's vnodes and scans them in key
// order, a chunk per step, between barriers. Per vnode it keeps the last
// key emitted (position), whether the vnode is finished and how many rows
// it emitted, in the job's backfill state table, committed with each epoch:
// a restart resumes from there.
//
// Consistency: between barriers B(E-1 -> E) and the next, the snapshot is
// read at epoch E-1 exactly (the actor waits for its commit), while the
// upstream delivers the changes of epoch E. A change to a key at or before
// its vnode's position is forwarded (the snapshot already produced the key's
// earlier version); a change beyond it is dropped once the epoch ends beyond
// the position, because the next epoch's snapshot will contain it. Changes
// beyond the position are held until the barrier for that reason; when too
// many are held, the scan pauses until the barrier so they can be dropped.
// Only a dropped change makes the next epoch re-read: when none was dropped
// since the snapshot was taken, the keys beyond the positions are still as
// it shows them and the scan goes on with it, without waiting for a commit.
#pragma once

#include <chrono>
#include <optional>

#include "stream/operator.h"

namespace freshet {

class BackfillOperator : public StreamOperator {
 public:
  BackfillOperator(StateTableDesc upstream, std::vector<DataType> upstream_types, StateTableDesc progress);
  std::string Name() const override { return "Backfill"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int input, StreamChunk chunk) override;
  void OnBarrier(const Barrier& barrier) override;
  bool HasWork() const override;
  void DoWork() override;

 private:
  struct VnodeProgress {
    std::string position;  // last storage key emitted; empty = none yet
    bool finished = false;
    int64_t rows = 0;
    bool dirty = false;
  };
  bool Forwards(const std::string& key) const;
  void RefillBudget();
  void SaveProgress();

  StateTableDesc upstream_;
  std::vector<DataType> types_;
  StateTableDesc progress_desc_;
  std::shared_ptr<StateTable> progress_table_;
  std::map<int, VnodeProgress> vnodes_;
  bool started_ = false;        // the first barrier arrived
  bool all_finished_ = false;
  bool reported_ = false;
  Epoch snapshot_epoch_ = 0;     // the epoch the next snapshot read must see
  std::shared_ptr<const Snapshot> snapshot_;
  std::unique_ptr<StateStore::Range> range_;
  int range_vnode_ = -1;
  bool paused_ = false;          // until the next barrier
  // A change beyond a position was dropped since the snapshot was taken:
  // the next barrier must re-read at its epoch.
  bool dropped_ = false;
  // Rate limit: rows the scan may still read; refilled at each barrier by
  // the limit times the time since the last refill. nullopt = no limit.
  std::optional<int64_t> budget_;
  std::chrono::steady_clock::time_point last_refill_;
  // Changes held until the barrier: keys beyond their vnode's position.
  std::vector<std::string> held_keys_;
  std::vector<Op> held_ops_;
  DataChunk held_;
};

}  // namespace freshet
