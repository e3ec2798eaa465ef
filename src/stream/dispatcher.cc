#include "stream/dispatcher.h"

#include "storage/state_table.h"

namespace freshet {

std::pair<int, int> VnodeRange(int index, int parallelism) {
  return {index * kVnodeCount / parallelism, (index + 1) * kVnodeCount / parallelism};
}

Dispatcher::Dispatcher(Kind kind, std::vector<int> hash_keys, std::vector<Output> outputs)
    : kind_(kind), hash_keys_(std::move(hash_keys)), outputs_(std::move(outputs)) {
  Rebuild();
}

void Dispatcher::Rebuild() {
  vnode_to_output_.assign(kVnodeCount, -1);
  for (size_t i = 0; i < outputs_.size(); i++)
    for (int v = outputs_[i].vnodes.first; v < outputs_[i].vnodes.second; v++) vnode_to_output_[v] = int(i);
}

void Dispatcher::Dispatch(const StreamChunk& chunk) {
  if (outputs_.empty() || chunk.num_rows() == 0) return;
  if (kind_ == Kind::kSimple || outputs_.size() == 1) {
    for (auto& o : outputs_) o.inbox->Push(o.slot, Message::Chunk(chunk));
    return;
  }
  if (kind_ == Kind::kBroadcast) {
    for (auto& o : outputs_) o.inbox->Push(o.slot, Message::Chunk(chunk));
    return;
  }
  const size_t n = chunk.num_rows();
  std::vector<int> target(n);
  for (size_t r = 0; r < n; r++) {
    int t = vnode_to_output_[ComputeVnode(chunk.data(), r, hash_keys_)];
    target[r] = t < 0 ? 0 : t;
  }
  std::vector<std::vector<uint32_t>> rows(outputs_.size());
  std::vector<std::vector<Op>> ops(outputs_.size());
  for (size_t r = 0; r < n; r++) {
    Op op = chunk.ops()[r];
    if (op == Op::kUpdateDelete && r + 1 < n && target[r + 1] != target[r]) op = Op::kDelete;
    if (op == Op::kUpdateInsert && r > 0 && target[r - 1] != target[r]) op = Op::kInsert;
    rows[target[r]].push_back(uint32_t(r));
    ops[target[r]].push_back(op);
  }
  for (size_t i = 0; i < outputs_.size(); i++) {
    if (rows[i].empty()) continue;
    outputs_[i].inbox->Push(outputs_[i].slot, Message::Chunk(StreamChunk(std::move(ops[i]), chunk.data().Take(rows[i]))));
  }
}

void Dispatcher::DispatchBarrier(const Barrier& barrier) {
  for (auto& o : outputs_) o.inbox->Push(o.slot, Message::OfBarrier(barrier));
}

void Dispatcher::RemoveOutputs(const std::set<ActorId>& actors) {
  std::vector<Output> kept;
  for (auto& o : outputs_)
    if (!actors.count(o.actor)) kept.push_back(std::move(o));
  outputs_ = std::move(kept);
  Rebuild();
}

}  // namespace freshet
