// ActorRegistry: the actors of one database's running stream graph and the
// ways into it: the tables' change streams (the outputs of DML: every
// change to a table with downstream jobs is dispatched from here to the
// jobs' backfill actors), the actors whose output is a relation's change
// stream (an MV's materialize actors, which jobs on it read), and the
// fragments of each job (rw_fragments, rw_actors).
//
// Actors are added when the barrier that adds them is injected and removed
// after the barrier that stops them is collected (barrier_injector.h), or
// all at once when the graph is reset.
//
// Thread safety: all methods are safe to call concurrently. Pointers to
// actors stay valid until the actors are removed, which only the epoch
// loop's thread does.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "catalog/system_tables.h"
#include "stream/actor.h"

namespace freshet {

class ActorRegistry {
 public:
  // Starts the actors and adds them.
  void Start(std::vector<std::unique_ptr<Actor>> actors);
  bool Contains(ActorId id) const;
  // Every actor's id, and the actors that read no inbox input (sources):
  // a barrier enters the graph through them and the table streams.
  std::set<ActorId> Ids() const;
  std::vector<Actor*> Sources() const;
  std::set<ActorId> JobActors(uint32_t job_id) const;
  size_t size() const;
  // Removes the actors (stopped or stopping: the caller joins them).
  std::vector<std::unique_ptr<Actor>> Remove(const std::set<ActorId>& ids);
  // Removes every actor and forgets the table streams, relation outputs
  // and fragments.
  std::vector<std::unique_ptr<Actor>> Clear();

  // Table change streams: whether a table has downstream jobs, pushing
  // its changes, the outputs a barrier's mutation adds to them, and
  // dropping the outputs to stopped actors.
  bool HasSubscribers(TableId table_id) const;
  // The table's columns its change stream's readers read together (each
  // reader's Dispatcher::columns_read); empty when one reads every column
  // or there is no reader.
  std::vector<bool> TableColumnsRead(TableId table_id) const;
  void PushTableChanges(TableId table_id, const StreamChunk& chunk);
  void AddTableOutputs(const Mutation& mutation);
  // Sends a barrier down every table's change stream, carrying the
  // table's watermark (SetTableWatermark) when it has one.
  void DispatchTableBarriers(const Barrier& barrier) const;
  // The watermark of a table that declares one: no row below it will be
  // pushed after the next barrier (the DML manager drops late rows).
  void SetTableWatermark(TableId table_id, Watermark watermark);
  void RemoveOutputsTo(const std::set<ActorId>& stopped);

  // The actors whose output is a relation's change stream, with the
  // vnodes each owns; a table's change stream is kTableStreamActor | id.
  struct OutputActor {
    ActorId actor;
    std::pair<int, int> vnodes;
  };
  void SetRelationOutputs(TableId relation, std::vector<OutputActor> actors);
  std::vector<OutputActor> RelationOutputs(TableId relation) const;
  void ForgetRelation(TableId relation);

  void RegisterFragments(uint32_t job_id, std::vector<FragmentInfo> fragments);
  void ForgetFragments(uint32_t job_id);
  std::vector<FragmentInfo> Fragments() const;

  ActorId NextActorId() { return next_actor_id_.fetch_add(1); }
  uint32_t NextFragmentId() { return next_fragment_id_.fetch_add(1); }

 private:
  mutable std::mutex mu_;
  std::map<ActorId, std::unique_ptr<Actor>> actors_;
  std::map<TableId, std::vector<std::shared_ptr<Dispatcher>>> table_streams_;
  std::map<TableId, Watermark> table_watermarks_;
  std::map<TableId, std::vector<OutputActor>> relation_outputs_;
  std::map<uint32_t, std::vector<FragmentInfo>> fragments_;  // by job
  std::atomic<ActorId> next_actor_id_{1};
  std::atomic<uint32_t> next_fragment_id_{1};
};

}  // namespace freshet
