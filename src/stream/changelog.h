// Changelog: RisingWave's `WITH c AS CHANGELOG FROM t` in a stream job
// (plan.h ChangelogNode). Every row of its input's chunks, whatever its op,
// goes on as an insert of the row's first `width` columns, its op as
// changelog_op (1 insert, 2 delete, 3 an update's new row, 4 its old row)
// and a fresh _changelog_row_id.
//
// Row ids: the actor's first vnode in the top bits, then a counter kept in
// the state table under that vnode and saved at each barrier, so a
// restarted actor goes on from the committed count (ids handed out after it
// belonged to rows the recovery discarded). Two actors never share a first
// vnode, whatever the parallelism before or after a restart.
#pragma once

#include "stream/operator.h"

namespace freshet {

class ChangelogOperator : public StreamOperator {
 public:
  ChangelogOperator(int width, StateTableDesc table) : width_(width), desc_(std::move(table)) {}
  std::string Name() const override { return "Changelog"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int input, StreamChunk chunk) override;
  void OnBarrier(const Barrier& barrier) override;

  // changelog_op of a stream op (RisingWave's numbering).
  static int16_t OpCode(Op op);

 private:
  std::string CounterKey() const;
  int width_;
  StateTableDesc desc_;
  std::shared_ptr<StateTable> table_;
  int64_t next_ = 0;
  bool dirty_ = false;
};

}  // namespace freshet
