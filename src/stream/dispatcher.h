// Dispatcher: sends one actor's output to the actors of a downstream
// fragment (an exchange edge of the stream graph).
//
//   kHash      each row goes to the actor owning the vnode of its
//              distribution-key columns (vnode ranges, see VnodeRange);
//   kSimple    everything goes to the single downstream actor;
//   kBroadcast everything goes to every downstream actor.
//
// Barriers go to every output. An UpdateDelete/UpdateInsert pair whose two
// rows land on different actors is sent as a Delete and an Insert.
//
// Not thread-safe: owned and used by one actor (or by the table change
// stream under its lock).
#pragma once

#include <memory>
#include <set>
#include <vector>

#include "stream/inbox.h"

namespace freshet {

// Vnodes [begin, end) owned by actor `index` of a fragment of `parallelism`
// actors: contiguous, nearly equal ranges.
std::pair<int, int> VnodeRange(int index, int parallelism);

class Dispatcher {
 public:
  enum class Kind { kHash, kSimple, kBroadcast };
  struct Output {
    ActorId actor = 0;
    std::shared_ptr<Inbox> inbox;
    size_t slot = 0;                          // this upstream's slot in the inbox
    std::pair<int, int> vnodes{0, kVnodeCount};  // kHash: the vnodes it owns
  };

  Dispatcher(Kind kind, std::vector<int> hash_keys, std::vector<Output> outputs);

  void Dispatch(const StreamChunk& chunk);
  // A table change stream's dispatcher: the table's columns the receiving
  // fragment reads (empty: every one). The rows it is given may hold NULL
  // in the others (the DML manager decodes only what some reader reads).
  void set_columns_read(std::vector<bool> columns) { columns_read_ = std::move(columns); }
  const std::vector<bool>& columns_read() const { return columns_read_; }
  void DispatchBarrier(const Barrier& barrier);
  // Drops outputs to the given actors (after they received their last barrier).
  void RemoveOutputs(const std::set<ActorId>& actors);
  bool empty() const { return outputs_.empty(); }
  const std::vector<Output>& outputs() const { return outputs_; }

 private:
  void Rebuild();
  Kind kind_;
  std::vector<int> hash_keys_;
  std::vector<Output> outputs_;
  std::vector<int> vnode_to_output_;
  std::vector<bool> columns_read_;
};

}  // namespace freshet
