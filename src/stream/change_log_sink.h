// ChangeLogSink: the end of a subscription's job. It writes the changes of
// the relation it follows into the relation's change log
// (storage/change_log.h), netted per key and epoch, with the epoch's
// commit: a reader sees an epoch's changes exactly when the epoch is
// committed. Its input is the relation's change stream from the job's
// start (no snapshot: a FULL cursor reads the relation itself at a
// committed epoch, then the log after it).
//
// Truncation: about once a second, at a barrier, the actor owning vnode 0
// deletes, with that epoch's commit, the entries of the epochs before the
// oldest one a consumer of the log still needs (the consumers' records in
// the log: storage/change_log.h); a log without consumers keeps
// everything. A subscription job of an older version, which writes a log
// of its own, truncates by its own retention instead (epochs carry their
// wall-clock milliseconds).
#pragma once

#include <memory>

#include "storage/change_log.h"
#include "stream/operator.h"

namespace freshet {

class ChangeLogSinkOperator : public StreamOperator {
 public:
  // `relation`: the followed relation's storage layout (its keys name the
  // changes); `log`: the log's internal relation; `retention_ms`: how long
  // entries are kept (0: as long as a consumer needs them).
  ChangeLogSinkOperator(StateTableDesc relation, StateTableDesc log, int64_t retention_ms)
      : relation_desc_(std::move(relation)), log_desc_(std::move(log)), retention_ms_(retention_ms) {}
  std::string Name() const override { return "ChangeLogSink"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int input, StreamChunk chunk) override;
  void OnBarrier(const Barrier& barrier) override;

 private:
  StateTableDesc relation_desc_, log_desc_;
  int64_t retention_ms_;
  std::unique_ptr<StateTable> relation_;  // keys only: never read or written
  std::shared_ptr<StateTable> log_;
  ChangeLogEpoch epoch_;
  int64_t last_truncation_ms_ = 0;
  Epoch truncated_ = 0;  // the log is truncated through this epoch
  std::string row_;
};

}  // namespace freshet
