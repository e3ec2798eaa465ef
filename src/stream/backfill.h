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
// Consistency: the snapshot is read at a committed epoch S; the upstream
// delivers the changes of the epochs after it. A change to a key at or
// before its vnode's position is forwarded (the snapshot already produced
// the key's earlier version). A change beyond the position is held until the
// barrier, then forwarded if the scan has passed it by then (or finished the
// vnode), and otherwise dropped: the vnode is then stale, and is scanned on
// only from a snapshot that contains the epoch of the dropped change. When
// too many changes are held, the same is done at once (a held change whose
// vnode finished meanwhile must go on: its vnode will not be read again),
// and the scan goes on with the vnodes that are not stale.
//
// Staleness is per vnode, so a job on an upstream that is itself being
// created follows it in one pass: the upstream's own backfill fills its
// vnodes one after another, so the vnodes it has not reached yet are empty
// in the snapshot and finish at once, after which everything the upstream
// writes there is forwarded from its stream instead of read again from its
// table. Only the vnodes the upstream was filling while they were scanned go
// stale and are read again from a later snapshot. A vnode that is not stale
// keeps the snapshot it has (an upstream that does not change, the common
// case of a backfill, never waits for a commit).
#pragma once

#include <chrono>
#include <optional>
#include <set>

#include "storage/table_engine.h"
#include "stream/backfill_budget.h"
#include "stream/operator.h"

namespace freshet {

class BackfillOperator : public StreamOperator {
 public:
  // `upstream_types`: the columns the job reads, those the upstream had
  // when the job was planned. A table may have gained columns at the end
  // since (ALTER TABLE ... ADD COLUMN): its rows and changes are cut to
  // these.
  // `level`: the scan starts once the job's backfills of lower levels have
  // finished (job_tracker.h); changes are followed meanwhile.
  // `changes_only`: no snapshot; every vnode starts finished and the
  // upstream's changes from the job's first epoch are all it emits (a
  // subscription's change log).
  BackfillOperator(StateTableDesc upstream, std::vector<DataType> upstream_types, StateTableDesc progress,
                   int level = 0, bool changes_only = false);
  std::string Name() const override { return "Backfill"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int input, StreamChunk chunk) override;
  void OnBarrier(const Barrier& barrier) override;
  // The upstream's watermarks hold for this job's stream once every vnode
  // is backfilled: before, snapshot rows below them may still come.
  void OnWatermarks(int, const std::vector<Watermark>& watermarks) override {
    if (all_finished_) EmitWatermarks(watermarks);
  }
  bool HasWork() const override;
  void DoWork() override;

 private:
  struct VnodeProgress {
    std::string position;  // last storage key emitted; empty = none yet
    bool finished = false;
    int64_t rows = 0;
    bool dirty = false;
    // A change beyond the position was dropped in this epoch: the vnode is
    // scanned on only from a snapshot that contains it. 0 = not stale.
    Epoch stale_until = 0;
  };
  // Cuts an upstream change to the columns the job reads, or fills those
  // it lacks with their missing values (StateTableDesc::missing_cells).
  void FitColumns(DataChunk* data) const;
  // The progress of the vnode a storage key is in; null if not this actor's.
  VnodeProgress* ProgressOf(const std::string& key);
  bool Forwards(const std::string& key);
  // Drops a change to a key beyond its vnode's position: the vnode goes stale.
  void Drop(const std::string& key, Epoch epoch);
  // Emits the held changes the scan has passed (or whose vnode finished),
  // in arrival order; the others are dropped as of `drop_as_of` (their
  // vnodes go stale) or, without it, stay held.
  void ReleaseHeld(std::optional<Epoch> drop_as_of);
  // A vnode the current snapshot may scan: unfinished and not stale for it.
  bool Scannable(const VnodeProgress& p) const;
  bool AnyScannable() const;
  void SaveProgress();

  StateTableDesc upstream_;
  std::vector<DataType> types_;
  StateTableDesc progress_desc_;
  std::shared_ptr<StateTable> progress_table_;
  std::map<int, VnodeProgress> vnodes_;
  int level_;
  bool changes_only_;
  bool level_ready_;            // the lower levels finished
  bool started_ = false;        // the first barrier arrived
  bool all_finished_ = false;
  bool reported_ = false;
  Epoch snapshot_epoch_ = 0;     // the epoch the next snapshot read must see
  std::shared_ptr<const Snapshot> snapshot_;
  Epoch snapshot_sees_ = 0;      // committed epoch the snapshot contains (at least)
  Epoch current_epoch_ = 0;      // the epoch whose changes arrive now
  std::unique_ptr<StateTable> upstream_table_;  // never written: the storage keys of upstream rows
  std::unique_ptr<ChunkScan> range_;  // the vnode being read
  int range_vnode_ = -1;
  bool paused_ = false;          // until the next barrier: every unfinished vnode is stale
  BackfillBudget budget_;  // the rate limit's
  // Changes held until the barrier: keys beyond their vnode's position.
  // Once the scan passes a held key, the change is emitted right after the
  // scanned rows (ReleaseHeld from DoWork), before any later change to the
  // key, which is forwarded as it arrives.
  std::set<int> held_vnodes_;  // the vnodes of the held keys
  std::vector<std::string> held_keys_;
  std::vector<Op> held_ops_;
  DataChunk held_;
};

}  // namespace freshet
