// Actor: a thread running one chain of stream operators (docs/architecture.md, Invariants).
//
// It reads its inbox, feeds the head operator, sends the chain's output
// through its dispatchers and, at each barrier aligned over all its input
// slots, lets every operator flush its epoch, forwards the barrier, drains
// the writes of its state tables and reports them to the StreamRuntime
// ("collects" the barrier). A barrier whose mutation stops the actor is
// its last message.
//
// An exception out of an operator stops the actor and is reported to the
// host (ActorHost::ReportFailure), which fails the epoch: see runtime.h.
//
// Lifecycle: built by the stream builder, started by the runtime when the
// barrier that adds it is injected, joined by the runtime after it stopped.
#pragma once

#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "stream/dispatcher.h"
#include "stream/inbox.h"
#include "stream/operator.h"

namespace freshet {

class Actor {
 public:
  // `slot_inputs[s]` is the head's input index for inbox slot s.
  // `host` is where the actor reports (its operators see it only as the
  // ActorServices of their context).
  Actor(ActorContext ctx, std::shared_ptr<ActorHost> host, std::shared_ptr<Inbox> inbox, std::vector<int> slot_inputs,
        std::vector<StreamOperatorPtr> ops, bool is_source);
  ~Actor();

  ActorId id() const { return ctx_.actor_id; }
  uint32_t job_id() const { return ctx_.job_id; }
  bool is_source() const { return is_source_; }
  const std::shared_ptr<Inbox>& inbox() const { return inbox_; }
  void AddDispatcher(std::shared_ptr<Dispatcher> d) { dispatchers_.push_back(std::move(d)); }

  void Start();
  // Closes the inbox (shutdown) and waits for the thread.
  void Stop();
  void Join();

 private:
  void Run();
  void RunLoop();
  // Folds the watermarks a slot's barrier brought into its input's.
  void AlignWatermarks(size_t slot, const std::vector<Watermark>& watermarks);
  void HandleBarrier(const Barrier& barrier);
  // Memory held to the job's limit (job_memory.h): the thread's net
  // allocation when the current message started, checked as it goes.
  void StartMessage();
  void CheckMessageMemory() const;

  ActorContext ctx_;
  std::shared_ptr<ActorHost> host_;
  std::shared_ptr<Inbox> inbox_;
  std::vector<int> slot_inputs_;
  std::vector<StreamOperatorPtr> ops_;
  std::vector<std::shared_ptr<Dispatcher>> dispatchers_;
  bool is_source_;
  int64_t message_start_net_ = 0;
  // Watermarks of the barrier being aligned, per head input (see
  // AlignWatermarks), and those the chain's last operator emitted for it.
  std::map<int, std::vector<Watermark>> input_watermarks_;
  std::vector<Watermark> out_watermarks_;
  std::thread thread_;
};

}  // namespace freshet
