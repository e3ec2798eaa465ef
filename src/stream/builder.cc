#include "stream/builder.h"

#include "common/error.h"
#include "planner/column_pruning.h"
#include "stream/asof_join.h"
#include "stream/backfill.h"
#include "stream/change_log_sink.h"
#include "stream/changelog.h"
#include "stream/cross_db_scan.h"
#include "stream/dynamic_filter.h"
#include "stream/group_top_n.h"
#include "stream/hash_agg.h"
#include "stream/hash_join.h"
#include "stream/hop.h"
#include "stream/materialize.h"
#include "stream/over_window.h"
#include "stream/project.h"
#include "stream/project_set.h"
#include "stream/sink.h"
#include "stream/source.h"
#include "stream/temporal_filter.h"
#include "stream/top_n.h"
#include "stream/union.h"
#include "stream/values.h"

namespace freshet {

namespace {

StateTableDesc DescOf(const TableCatalog& t) { return t.StorageDesc(); }

// The columns of a table that a fragment reads above its scan (`chain`,
// top first, the scan last): those the filters over it and the projection
// ending them read (column pruning puts one above a scan read in part),
// with the table's key and distribution columns (the backfill and the
// dispatch read those). Empty, meaning every column, when another node
// reads the scan's rows.
std::vector<bool> ColumnsReadAboveScan(const std::vector<const StreamNode*>& chain, const TableCatalog& table) {
  std::vector<bool> read(chain.back()->schema().size(), false);
  for (size_t i = chain.size() - 1; i-- > 0;) {
    const StreamNode* n = chain[i];
    if (n->kind() == StreamNode::Kind::kFilter) {
      MarkColumnsRead(static_cast<const StreamFilterNode*>(n)->predicate.get(), &read);
      continue;
    }
    if (n->kind() != StreamNode::Kind::kProject) return {};
    for (const auto& e : static_cast<const StreamProjectNode*>(n)->exprs) MarkColumnsRead(e.get(), &read);
    for (const std::vector<int>* keys : {&table.pk, &table.dist_key})
      for (int c : *keys)
        if (size_t(c) < read.size()) read[size_t(c)] = true;
    return read;
  }
  return {};
}

class JobBuilder {
 public:
  JobBuilder(const BuildRequest& req, StreamRuntime* runtime) : req_(req), runtime_(runtime) {
    built_.mutation = std::make_shared<Mutation>();
    if (req.memory_limit > 0) memory_ = std::make_shared<JobMemory>(req.job->id, req.memory_limit);
  }

  BuiltJob Build() {
    std::vector<ActorEntry> root = BuildFragment(req_.plan->root.get());
    for (auto& a : root) built_.outputs.push_back({a.actor->id(), a.vnodes});
    for (auto& a : actors_) {
      built_.actor_ids.insert(a->id());
      built_.actors.push_back(std::move(a));
    }
    return std::move(built_);
  }

 private:
  struct ActorEntry {
    Actor* actor;
    std::pair<int, int> vnodes;
    uint32_t fragment;
  };

  // "StreamProject" of "StreamProject { exprs: ... }".
  static std::string ShortName(const StreamNode& n) {
    std::string d = n.Describe();
    return d.substr(0, d.find_first_of(" {"));
  }

  void NoteStateTable(uint32_t id) {
    if (state_tables_ && std::find(state_tables_->begin(), state_tables_->end(), id) == state_tables_->end())
      state_tables_->push_back(id);
  }

  // The descriptor of the job's internal table `index`, noted as a state
  // table of the fragment being built.
  StateTableDesc StateDesc(int index) {
    const TableRef& t = req_.internal_tables[static_cast<size_t>(index)];
    NoteStateTable(t->id);
    return DescOf(*t);
  }

  // The operator for one node; `chain` nodes are built head first.
  StreamOperatorPtr MakeOperator(const StreamNode* n) {
    switch (n->kind()) {
      case StreamNode::Kind::kTableScan: {
        auto* s = static_cast<const StreamTableScanNode*>(n);
        if (s->cross_database) {
          TableRef log = req_.catalog ? req_.catalog->GetTable(s->log_table) : nullptr;
          if (!log)
            FRESHET_THROW(sqlstate::kObjectNotInPrerequisiteState,
                          "the change log of \"{}\" in its database is gone", s->table->name);
          StateTableDesc upstream = DescOf(*s->table);
          upstream.column_types = s->types();  // the columns the job reads
          return std::make_unique<CrossDbScanOperator>(std::move(upstream), s->table->database_id, DescOf(*log),
                                                       StateDesc(s->progress_table), s->backfill_level);
        }
        // The columns the job was planned with: the table may have more
        // now (ALTER TABLE ... ADD COLUMN), which the job does not read.
        return std::make_unique<BackfillOperator>(DescOf(*s->table), s->types(),
                                                  StateDesc(s->progress_table), s->backfill_level, s->changes_only);
      }
      case StreamNode::Kind::kSource: {
        auto* s = static_cast<const StreamSourceNode*>(n);
        std::vector<SourceColumn> columns;
        int row_id = -1;
        for (size_t c = 0; c < s->source->columns.size(); c++) {
          const auto& col = s->source->columns[c];
          if (int(c) == s->source->row_id_index) row_id = int(c);
          else columns.push_back({col.name, col.type});
        }
        return std::make_unique<SourceOperator>(
            s->source->connector_options, std::move(columns), s->types(), row_id, StateDesc(s->offsets_table),
            s->source->watermark_column >= 0 ? std::make_unique<WatermarkFilter>(*s->source) : nullptr,
            s->backfill_level);
      }
      case StreamNode::Kind::kHop: {
        auto* h = static_cast<const StreamHopNode*>(n);
        return std::make_unique<HopOperator>(h->time_column, h->slide, h->size, int(h->input()->schema().size()));
      }
      case StreamNode::Kind::kTemporalFilter: {
        auto* t = static_cast<const StreamTemporalFilterNode*>(n);
        return std::make_unique<TemporalFilterOperator>(t->predicate->Clone(), t->stream_key, t->types(),
                                                        StateDesc(t->rows_table),
                                                        StateDesc(t->time_table), req_.eval);
      }
      case StreamNode::Kind::kFilter: {
        auto* f = static_cast<const StreamFilterNode*>(n);
        return std::make_unique<FilterOperator>(f->predicate->Clone(), req_.eval);
      }
      case StreamNode::Kind::kProject: {
        auto* p = static_cast<const StreamProjectNode*>(n);
        std::vector<ExprPtr> exprs;
        for (const auto& e : p->exprs) exprs.push_back(e->Clone());
        return std::make_unique<ProjectOperator>(std::move(exprs), req_.eval);
      }
      case StreamNode::Kind::kHashAgg: {
        auto* a = static_cast<const StreamHashAggNode*>(n);
        std::vector<StateTableDesc> call_tables;
        for (const auto& c : a->calls)
          call_tables.push_back(c.input_table >= 0 ? StateDesc(c.input_table) : StateTableDesc{});
        return std::make_unique<HashAggOperator>(a->group_keys, a->calls, a->input_stream_key, a->types(),
                                                 StateDesc(a->result_table), std::move(call_tables), req_.eval,
                                                 a->input()->append_only, a->window_column, a->emit_on_window_close);
      }
      case StreamNode::Kind::kHashJoin: {
        auto* j = static_cast<const StreamHashJoinNode*>(n);
        if (j->asof) {
          AsOfJoinOperator::Side sides[2];
          for (int s = 0; s < 2; s++) {
            sides[s].keys = s == 0 ? j->left_keys : j->right_keys;
            sides[s].value = s == 0 ? j->asof_left_value : j->asof_right_value;
            sides[s].stream_key = j->input(s)->stream_key;
            sides[s].types = j->input(s)->types();
            sides[s].table = StateDesc(s == 0 ? j->left_table : j->right_table);
          }
          return std::make_unique<AsOfJoinOperator>(j->type, std::move(sides[0]), std::move(sides[1]),
                                                    j->condition ? j->condition->Clone() : nullptr, j->asof_greatest,
                                                    j->asof_narrow, req_.eval);
        }
        HashJoinOperator::Side sides[2];
        for (int s = 0; s < 2; s++) {
          sides[s].keys = s == 0 ? j->left_keys : j->right_keys;
          sides[s].stream_key = j->input(s)->stream_key;
          sides[s].types = j->input(s)->types();
          sides[s].table = StateDesc(s == 0 ? j->left_table : j->right_table);
        }
        std::vector<JoinStateCleaning> cleanings;
        for (const auto& c : j->cleanings) cleanings.push_back(c.Clone());
        return std::make_unique<HashJoinOperator>(j->type, std::move(sides[0]), std::move(sides[1]),
                                                  j->condition ? j->condition->Clone() : nullptr, req_.eval,
                                                  std::move(cleanings), j->process_time, j->process_time_keeps_left);
      }
      case StreamNode::Kind::kChangelog: {
        auto* c = static_cast<const StreamChangelogNode*>(n);
        return std::make_unique<ChangelogOperator>(c->width, StateDesc(c->state_table));
      }
      case StreamNode::Kind::kValues: {
        auto* v = static_cast<const StreamValuesNode*>(n);
        std::vector<std::vector<ExprPtr>> rows;
        for (const auto& row : v->rows) {
          rows.emplace_back();
          for (const auto& e : row) rows.back().push_back(e->Clone());
        }
        auto op = std::make_unique<ValuesOperator>(std::move(rows), v->types(), StateDesc(v->state_table), req_.eval);
        if (!v->function.empty()) {
          std::vector<ExprPtr> args;
          for (const auto& a : v->function_args) args.push_back(a->Clone());
          op->SetFunction(v->function, std::move(args), v->with_ordinality);
        }
        return op;
      }
      case StreamNode::Kind::kProjectSet: {
        auto* p = static_cast<const StreamProjectSetNode*>(n);
        std::vector<ExprPtr> exprs;
        for (const auto& e : p->exprs) exprs.push_back(e->Clone());
        return std::make_unique<ProjectSetOperator>(std::move(exprs), req_.eval, p->outer,
                                                    p->condition ? p->condition->Clone() : nullptr);
      }
      case StreamNode::Kind::kOverWindow: {
        auto* o = static_cast<const StreamOverWindowNode*>(n);
        std::vector<WindowCall> calls;
        for (const auto& c : o->calls) calls.push_back(CloneWindowCall(c));
        return std::make_unique<OverWindowOperator>(o->partition, std::move(calls), o->input_stream_key, o->input()->types(),
                                                    StateDesc(o->state_table), req_.eval, o->window_column);
      }
      case StreamNode::Kind::kDynamicFilter: {
        auto* d = static_cast<const StreamDynamicFilterNode*>(n);
        return std::make_unique<DynamicFilterOperator>(d->value_column, d->compare->Clone(), d->input(0)->stream_key,
                                                       d->input(0)->types(), d->input(1)->types()[0],
                                                       StateDesc(d->left_table), StateDesc(d->right_table), req_.eval);
      }
      case StreamNode::Kind::kUnion: return std::make_unique<UnionOperator>(int(n->inputs().size()));
      case StreamNode::Kind::kGroupTopN: {
        auto* t = static_cast<const StreamGroupTopNNode*>(n);
        return std::make_unique<GroupTopNOperator>(t->partition, t->order, t->input_stream_key, t->limit,
                                                   t->input()->types(), StateDesc(t->state_table),
                                                   t->input()->append_only, t->with_ties, t->window_column);
      }
      case StreamNode::Kind::kTopN: {
        auto* t = static_cast<const StreamTopNNode*>(n);
        return std::make_unique<TopNOperator>(t->order, t->stream_key, t->limit, t->offset, t->types(),
                                              StateDesc(t->state_table), t->input()->append_only);
      }
      case StreamNode::Kind::kMaterialize:
        NoteStateTable(req_.job->id);
        return std::make_unique<MaterializeOperator>(DescOf(*req_.job));
      case StreamNode::Kind::kSink: {
        auto* sink = static_cast<const StreamSinkNode*>(n);
        if (sink->connector != "changelog") return std::make_unique<BlackholeSinkOperator>();
        auto* scan = static_cast<const StreamTableScanNode*>(sink->inputs()[0].get());
        return std::make_unique<ChangeLogSinkOperator>(DescOf(*scan->table), StateDesc(sink->log_table),
                                                       sink->retention_ms);
      }
      case StreamNode::Kind::kExchange: break;
    }
    throw SqlError(sqlstate::kInternalError, "cannot build stream operator");
  }

  // Builds the fragment whose top node is `top` and everything below it;
  // returns its actors.
  std::vector<ActorEntry> BuildFragment(const StreamNode* top) {
    std::vector<const StreamNode*> chain = {top};
    while (chain.back()->inputs().size() == 1 && chain.back()->input()->kind() != StreamNode::Kind::kExchange)
      chain.push_back(chain.back()->input());
    const StreamNode* head = chain.back();

    // Where the head's input comes from, and how the fragment is spread.
    Distribution dist;
    std::vector<std::vector<ActorEntry>> children;   // per exchange input
    std::vector<StreamRuntime::OutputActor> upstream;  // backfill's upstream actors
    if (head->kind() == StreamNode::Kind::kTableScan) {
      dist = head->distribution;
      auto* scan = static_cast<const StreamTableScanNode*>(head);
      if (scan->cross_database) {
        // Reads the other database through the store: no upstream actors.
      } else if (scan->table->kind == RelationKind::kTable && scan->table->connector_options.empty()) {
        upstream = {{kTableStreamActor | scan->table->id, {0, kVnodeCount}}};
      } else {
        // Views, and tables a connector fills: their materialize actors.
        upstream = runtime_->RelationOutputs(scan->table->id);
        if (upstream.empty())
          throw SqlError(sqlstate::kObjectNotInPrerequisiteState,
                         "materialized view \"" + scan->table->name + "\" is not running");
      }
    } else if (head->kind() == StreamNode::Kind::kValues) {
      dist = head->distribution;  // one actor emits the rows
    } else {
      for (const auto& in : head->inputs()) {
        dist = in->distribution;  // the exchange's target distribution
        children.push_back(BuildFragment(in->input()));
      }
    }
    const int parallelism = dist.kind == Distribution::Kind::kSingle ? 1 : std::max(1, req_.parallelism);
    FragmentInfo info;
    info.id = runtime_->NextFragmentId();
    info.job_id = req_.job->id;
    info.distribution = parallelism == 1 && dist.kind == Distribution::Kind::kSingle ? "SINGLE" : "HASH";
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
      info.operators += (info.operators.empty() ? "" : " -> ") + ShortName(**it);
    for (const auto& child : children)
      if (!child.empty()) info.upstream_fragments.push_back(child.front().fragment);
    if (head->kind() == StreamNode::Kind::kTableScan)
      info.upstream_relations.push_back(static_cast<const StreamTableScanNode*>(head)->table->id);
    state_tables_ = &info.state_tables;

    size_t slots = upstream.size();
    std::vector<int> slot_inputs(upstream.size(), 0);
    for (size_t i = 0; i < children.size(); i++) {
      slots += children[i].size();
      slot_inputs.insert(slot_inputs.end(), children[i].size(), int(i));
    }
    std::vector<ActorEntry> mine;
    for (int i = 0; i < parallelism; i++) {
      ActorContext ctx;
      ctx.store = runtime_->store();
      ctx.actor_id = runtime_->NextActorId();
      ctx.job_id = req_.job->id;
      ctx.vnodes = VnodeRange(i, parallelism);
      ctx.actor_index = i;
      ctx.parallelism = parallelism;
      ctx.memory = memory_;
      std::vector<StreamOperatorPtr> ops;
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) ops.push_back(MakeOperator(*it));
      auto actor = std::make_unique<Actor>(ctx, runtime_->MakeActorHost(ctx.job_id, ctx.actor_id),
                                           std::make_shared<Inbox>(std::max<size_t>(slots, 1)), slot_inputs,
                                           std::move(ops), slots == 0);
      mine.push_back({actor.get(), ctx.vnodes, info.id});
      info.actors.push_back(ctx.actor_id);
      info.actor_vnodes.push_back(ctx.vnodes);
      // A function in FROM emits its rows as a backfill does: the job is
      // created once it has emitted them all.
      const bool emits_function = head->kind() == StreamNode::Kind::kValues &&
                                  !static_cast<const StreamValuesNode*>(head)->function.empty();
      if (head->kind() == StreamNode::Kind::kTableScan)
        built_.backfill_actors[ctx.actor_id] = static_cast<const StreamTableScanNode*>(head)->backfill_level;
      else if (emits_function)
        built_.backfill_actors[ctx.actor_id] = 0;
      actors_.push_back(std::move(actor));
    }

    // Upstream relation -> backfill actors, attached by the start barrier.
    for (size_t u = 0; u < upstream.size(); u++) {
      std::vector<Dispatcher::Output> outs;
      for (auto& m : mine) outs.push_back({m.actor->id(), m.actor->inbox(), u, m.vnodes});
      const auto& keys = static_cast<const StreamTableScanNode*>(head)->table->dist_key;
      auto d = std::make_shared<Dispatcher>(keys.empty() ? Dispatcher::Kind::kSimple : Dispatcher::Kind::kHash, keys,
                                            std::move(outs));
      if (upstream[u].actor & kTableStreamActor)
        d->set_columns_read(ColumnsReadAboveScan(chain, *static_cast<const StreamTableScanNode*>(head)->table));
      built_.mutation->add_outputs[upstream[u].actor].push_back(std::move(d));
    }
    // Child fragments -> this one.
    size_t slot = upstream.size();
    for (size_t i = 0; i < children.size(); i++) {
      const Distribution& to = head->input(i)->distribution;
      for (auto& child : children[i]) {
        std::vector<Dispatcher::Output> outs;
        for (auto& m : mine) outs.push_back({m.actor->id(), m.actor->inbox(), slot, m.vnodes});
        auto kind = to.kind == Distribution::Kind::kHash ? Dispatcher::Kind::kHash : Dispatcher::Kind::kSimple;
        child.actor->AddDispatcher(std::make_shared<Dispatcher>(kind, to.keys, std::move(outs)));
        slot++;
      }
    }
    built_.fragments.push_back(std::move(info));
    state_tables_ = nullptr;
    return mine;
  }

  const BuildRequest& req_;
  StreamRuntime* runtime_;
  std::shared_ptr<JobMemory> memory_;  // every actor's of the job
  std::vector<uint32_t>* state_tables_ = nullptr;  // of the fragment being built
  BuiltJob built_;
  std::vector<std::unique_ptr<Actor>> actors_;
};

}  // namespace

BuiltJob BuildJob(const BuildRequest& request, StreamRuntime* runtime) {
  return JobBuilder(request, runtime).Build();
}

}  // namespace freshet
