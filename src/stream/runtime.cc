#include "stream/runtime.h"

namespace freshet {

// An actor's link to the runtime, bound to its job, its id and the graph
// generation it was built for.
class StreamRuntime::Host : public ActorHost {
 public:
  Host(StreamRuntime* runtime, uint32_t job_id, ActorId actor)
      : runtime_(runtime), job_id_(job_id), actor_(actor), generation_(runtime->barriers_.generation()) {}
  Epoch committed_epoch() const override { return runtime_->barriers_.committed_epoch(); }
  bool WaitCommitted(Epoch epoch) override { return runtime_->barriers_.WaitCommitted(epoch, generation_); }
  void RequestBarrier() override { runtime_->RequestBarrier(); }
  std::optional<int64_t> BackfillRateLimit() const override { return runtime_->jobs_.BackfillRateLimit(job_id_); }
  void ReportBackfillFinished(Epoch epoch) override { runtime_->jobs_.ReportBackfillFinished(job_id_, actor_, epoch); }
  bool BackfillLevelReady(int level) const override { return runtime_->jobs_.BackfillLevelReady(job_id_, level); }
  void Collect(const Barrier& barrier, WriteLog&& writes) override {
    runtime_->barriers_.Collect(actor_, barrier, std::move(writes));
  }
  void ReportFailure(std::string message, std::string code) override {
    runtime_->barriers_.ReportFailure({actor_, job_id_, std::move(message), std::move(code)});
  }

 private:
  StreamRuntime* runtime_;
  uint32_t job_id_;
  ActorId actor_;
  uint64_t generation_;
};

StreamRuntime::~StreamRuntime() { Shutdown(); }

std::shared_ptr<ActorHost> StreamRuntime::MakeActorHost(uint32_t job_id, ActorId actor) {
  return std::make_shared<Host>(this, job_id, actor);
}

void StreamRuntime::OnCommitted(Epoch epoch) {
  barriers_.OnCommitted(epoch);
  jobs_.CompleteReady(epoch);
}

void StreamRuntime::ArmJob(uint32_t job_id) {
  jobs_.Arm(job_id);
  jobs_.CompleteReady(barriers_.committed_epoch());
}

void StreamRuntime::ForgetJob(uint32_t job_id) {
  jobs_.Forget(job_id);
  actors_.ForgetFragments(job_id);
}

void StreamRuntime::Shutdown() {
  jobs_.Shutdown();
  barriers_.Shutdown();
}

}  // namespace freshet
