// StreamOperator: one step of an actor's chain (docs/architecture.md, Invariants).
//
// An actor runs a linear chain of operators on its own thread. The first
// operator (the head) receives the actor's input: chunks from its inbox,
// tagged with the input they came from (a join's left or right), or, for
// sources and backfills, data it produces itself in DoWork(). Each operator
// passes its output to the next with Emit(); the last one's output goes to
// the actor's dispatchers.
//
// At an aligned barrier the actor calls OnBarrier on every operator from
// head to tail; an operator may Emit before returning (an aggregation emits
// the epoch's changes there), and the next operator sees those chunks before
// its own OnBarrier. All state an operator keeps must be written to its
// state tables (ActorContext::NewStateTable) by the end of OnBarrier: those
// writes commit atomically with the epoch, and after a crash the operator is
// rebuilt from them alone.
//
// State tables handed out by the context are drained with TakeWrites at each
// barrier, so an operator must not read back through StateTable::Get a key
// it wrote in an epoch not yet committed; operators keep in memory what they
// have written (a write-through cache) and read storage only for keys they
// have not touched since they started.
//
// Errors: an expression error on a row makes that value NULL and logs a
// warning (RisingWave's behaviour); a stream job never stops the server.
//
// Not thread-safe: used by the owning actor's thread only.
#pragma once

#include "stream/job_memory.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stream/message.h"
#include "storage/state_store.h"
#include "storage/state_table.h"

namespace freshet {

// What an actor's operators may ask of the graph they run in. The runtime
// implements it for each actor (StreamRuntime::MakeActorHost); an operator
// sees nothing else of the runtime.
class ActorServices {
 public:
  virtual ~ActorServices() = default;
  // The last committed epoch: what was written up to it is readable from
  // the store (a state cache may drop entries committed by then).
  virtual Epoch committed_epoch() const = 0;
  // Blocks until `epoch` is committed; false when the actor's graph stops
  // or is reset meanwhile (the operator should then return at once).
  virtual bool WaitCommitted(Epoch epoch) = 0;
  // Asks for a barrier now rather than at the next interval.
  virtual void RequestBarrier() = 0;
  // Backfill: the rows per second allowed to each backfill actor of the
  // job (0 pauses; nullopt: no limit), read at each barrier; and the
  // report that all this actor's vnodes were backfilled by `epoch`.
  virtual std::optional<int64_t> BackfillRateLimit() const = 0;
  virtual void ReportBackfillFinished(Epoch epoch) = 0;
  // Whether the job's backfills below `level` have all finished (a
  // backfill of that level may start: job_tracker.h).
  virtual bool BackfillLevelReady(int level) const = 0;
};

// What the actor itself reports (not its operators): its state writes at a
// barrier, and the failure that stops it.
class ActorHost : public ActorServices {
 public:
  virtual void Collect(const Barrier& barrier, WriteLog&& writes) = 0;
  virtual void ReportFailure(std::string message, std::string code) = 0;
};

struct ActorContext {
  StateStore* store = nullptr;
  ActorServices* services = nullptr;  // set by the Actor from its host
  ActorId actor_id = 0;
  uint32_t job_id = 0;
  std::pair<int, int> vnodes{0, kVnodeCount};  // the vnodes this actor owns
  int actor_index = 0;   // within its fragment
  int parallelism = 1;   // actors of its fragment
  std::vector<std::shared_ptr<StateTable>> state_tables;
  std::shared_ptr<JobMemory> memory;  // the job's, shared by its actors (null: no limit)
  std::shared_ptr<StateTable> NewStateTable(StateTableDesc desc) {
    auto t = std::make_shared<StateTable>(store, std::move(desc));
    state_tables.push_back(t);
    return t;
  }
};

class StreamOperator {
 public:
  virtual ~StreamOperator() = default;
  virtual std::string Name() const = 0;

  // Before the first message, on the actor's thread.
  virtual void Open(ActorContext* ctx) { ctx_ = ctx; }
  virtual void OnChunk(int input, StreamChunk chunk) = 0;
  virtual void OnBarrier(const Barrier& barrier) { (void)barrier; }
  // At an aligned barrier, before OnBarrier: the watermarks of input
  // `input` (for each column, the least over the upstream actors that
  // feed it; a column some upstream has none for is left out). Called
  // only when there are some. An operator that can say how its output
  // columns follow passes its own on with EmitWatermarks; the default
  // drops them. Acting on them (closing windows) belongs in OnBarrier,
  // after every chunk of the epoch.
  virtual void OnWatermarks(int input, const std::vector<Watermark>& watermarks) {
    (void)input;
    (void)watermarks;
  }
  // Heads that produce data (sources, backfill): whether DoWork has
  // something to do now, and one bounded step of it.
  virtual bool HasWork() const { return false; }
  virtual void DoWork() {}

  void set_next(std::function<void(StreamChunk)> next) { next_ = std::move(next); }
  void set_next_watermarks(std::function<void(const std::vector<Watermark>&)> next) {
    next_watermarks_ = std::move(next);
  }

 protected:
  void Emit(StreamChunk chunk) {
    if (chunk.num_rows() > 0) next_(std::move(chunk));
  }
  void EmitWatermarks(const std::vector<Watermark>& watermarks) {
    if (!watermarks.empty() && next_watermarks_) next_watermarks_(watermarks);
  }
  ActorContext* ctx_ = nullptr;

 private:
  std::function<void(StreamChunk)> next_;
  std::function<void(const std::vector<Watermark>&)> next_watermarks_;
};

using StreamOperatorPtr = std::unique_ptr<StreamOperator>;

}  // namespace freshet
