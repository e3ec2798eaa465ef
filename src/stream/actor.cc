#include "stream/actor.h"

#include <spdlog/spdlog.h>

#include "common/error.h"
#include "common/thread_memory.h"
#include "stream/fault_injection.h"

namespace freshet {

Actor::Actor(ActorContext ctx, std::shared_ptr<ActorHost> host, std::shared_ptr<Inbox> inbox,
             std::vector<int> slot_inputs, std::vector<StreamOperatorPtr> ops, bool is_source)
    : ctx_(std::move(ctx)), host_(std::move(host)), inbox_(std::move(inbox)), slot_inputs_(std::move(slot_inputs)),
      ops_(std::move(ops)), is_source_(is_source) {
  ctx_.services = host_.get();
  const bool faults = StreamFaultConfigured();
  for (size_t i = 0; i < ops_.size(); i++) {
    if (i + 1 < ops_.size()) {
      StreamOperator* next = ops_[i + 1].get();
      ops_[i]->set_next_watermarks([next](const std::vector<Watermark>& w) { next->OnWatermarks(0, w); });
      if (faults) {
        ops_[i]->set_next([next](StreamChunk c) {
          MaybeInjectStreamFault(next->Name(), FaultPoint::kChunk);
          next->OnChunk(0, std::move(c));
        });
        continue;
      }
      ops_[i]->set_next([next](StreamChunk c) { next->OnChunk(0, std::move(c)); });
    } else {
      ops_[i]->set_next_watermarks([this](const std::vector<Watermark>& w) { out_watermarks_ = w; });
      ops_[i]->set_next([this](StreamChunk c) {
        CheckMessageMemory();
        for (auto& d : dispatchers_) d->Dispatch(c);
      });
    }
  }
}

Actor::~Actor() { Stop(); }

void Actor::Start() { thread_ = std::thread([this] { Run(); }); }

void Actor::Stop() {
  inbox_->Close();
  Join();
}

void Actor::Join() {
  if (thread_.joinable()) thread_.join();
}

// An exception out of an operator (not a per-row expression error: those
// become NULL with a warning inside the operators) leaves the operator's
// state unknown, so the actor stops and reports it: the runtime fails the
// epoch and the database recovers from its last committed one. Nothing is
// dropped silently.
void Actor::Run() {
  try {
    RunLoop();
  } catch (const SqlError& e) {
    std::string what = e.detail().empty() ? e.message() : e.message() + ": " + e.detail();
    spdlog::error("actor {} (job {}) failed: {}", ctx_.actor_id, ctx_.job_id, what);
    host_->ReportFailure(what, e.code());
  } catch (const std::exception& e) {
    spdlog::error("actor {} (job {}) failed: {}", ctx_.actor_id, ctx_.job_id, e.what());
    host_->ReportFailure(e.what(), sqlstate::kInternalError);
  }
}

void Actor::StartMessage() {
  if (ctx_.memory) message_start_net_ = ThreadMemory::Net();
}

void Actor::CheckMessageMemory() const {
  if (ctx_.memory) ctx_.memory->CheckMessage(ThreadMemory::Net() - message_start_net_);
}

void Actor::RunLoop() {
  for (auto& op : ops_) op->Open(&ctx_);
  StreamOperator* head = ops_.front().get();
  const bool faults = StreamFaultConfigured();
  size_t arrived = 0;  // slots that delivered the barrier being aligned
  Message m;
  size_t slot = 0;
  while (true) {
    if (head->HasWork()) {
      if (!inbox_->TryPop(&m, &slot)) {
        if (inbox_->closed()) return;  // shutdown while busy
        StartMessage();
        head->DoWork();
        CheckMessageMemory();
        continue;
      }
    } else if (!inbox_->Pop(&m, &slot)) {
      return;  // shutdown
    }
    if (m.kind == Message::Kind::kChunk) {
      if (faults) MaybeInjectStreamFault(head->Name(), FaultPoint::kChunk);
      StartMessage();
      head->OnChunk(slot_inputs_.empty() ? 0 : slot_inputs_[slot], std::move(m.chunk));
      CheckMessageMemory();
      continue;
    }
    if (inbox_->num_slots() > 1) {
      AlignWatermarks(slot, m.barrier.watermarks);
      inbox_->Block(slot);
      if (++arrived < inbox_->num_slots()) continue;
      arrived = 0;
      inbox_->UnblockAll();
    } else {
      AlignWatermarks(0, m.barrier.watermarks);
    }
    HandleBarrier(m.barrier);
    if (m.barrier.Stops(ctx_.actor_id)) return;
  }
}

// The watermarks of each input are, per column, the least any of its
// slots brought with this barrier; a column one slot brought none for has
// none (its upstream may still send anything).
void Actor::AlignWatermarks(size_t slot, const std::vector<Watermark>& watermarks) {
  const int input = slot_inputs_.empty() ? 0 : slot_inputs_[slot];
  auto [it, first] = input_watermarks_.try_emplace(input, watermarks);
  if (!first) it->second = LeastWatermarks(it->second, watermarks);
}

void Actor::HandleBarrier(const Barrier& in) {
  const bool faults = StreamFaultConfigured();
  StartMessage();
  out_watermarks_.clear();
  for (auto& [input, watermarks] : input_watermarks_)
    if (!watermarks.empty()) ops_.front()->OnWatermarks(input, watermarks);
  input_watermarks_.clear();
  for (auto& op : ops_) {
    if (faults) MaybeInjectStreamFault(op->Name(), FaultPoint::kBarrier);
    op->OnBarrier(in);
  }
  Barrier barrier = in;
  barrier.watermarks = std::move(out_watermarks_);
  CheckMessageMemory();
  if (barrier.mutation) {
    auto it = barrier.mutation->add_outputs.find(ctx_.actor_id);
    if (it != barrier.mutation->add_outputs.end())
      for (auto& d : it->second) dispatchers_.push_back(d);
  }
  for (auto& d : dispatchers_) d->DispatchBarrier(barrier);
  if (barrier.mutation && !barrier.mutation->stop.empty()) {
    std::vector<std::shared_ptr<Dispatcher>> kept;
    for (auto& d : dispatchers_) {
      d->RemoveOutputs(barrier.mutation->stop);
      if (!d->empty()) kept.push_back(d);
    }
    dispatchers_ = std::move(kept);
  }
  WriteLog writes;
  for (auto& t : ctx_.state_tables) t->TakeWrites(&writes);
  if (ctx_.memory) ctx_.memory->CheckEpochWrites(static_cast<int64_t>(writes.bytes()));
  host_->Collect(barrier, std::move(writes));
}

}  // namespace freshet
