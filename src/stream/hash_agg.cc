#include "stream/hash_agg.h"

#include <spdlog/spdlog.h>

#include "common/array.h"
#include "common/encoding.h"
#include "common/error.h"

namespace freshet {

namespace {

bool KeepsOnlyValue(AggKind k) {
  return k == AggKind::kMin || k == AggKind::kMax || k == AggKind::kBoolAnd || k == AggKind::kBoolOr;
}

}  // namespace

HashAggOperator::HashAggOperator(std::vector<int> group_keys, std::vector<StreamAggCall> calls,
                                 std::vector<int> input_stream_key, std::vector<DataType> output_types,
                                 StateTableDesc result_table, std::vector<StateTableDesc> call_tables, EvalContext eval,
                                 bool input_append_only, int window_column, bool emit_on_window_close)
    : group_keys_(std::move(group_keys)), calls_(std::move(calls)), input_stream_key_(std::move(input_stream_key)),
      output_types_(std::move(output_types)), result_desc_(std::move(result_table)),
      call_descs_(std::move(call_tables)), eval_(std::move(eval)),
      input_append_only_(input_append_only), emit_on_window_close_(emit_on_window_close),
      distinct_append_only_(input_append_only && calls_.empty() && !group_keys_.empty()) {
  for (const auto& c : calls_) {
    auto fn = CreateAggregate(c.sig, c.append_only);
    if (c.distinct && AggregateListsInputs(c.sig.kind)) modes_.push_back(CallMode::kDistinctInputs);
    else if (c.distinct) modes_.push_back(CallMode::kDistinct);
    else if (fn->StateTypes().empty()) modes_.push_back(KeepsOnlyValue(c.sig.kind) ? CallMode::kExtreme : CallMode::kInputs);
    else modes_.push_back(CallMode::kValue);
    bool keeps_inputs = modes_.back() == CallMode::kInputs || modes_.back() == CallMode::kExtreme ||
                        modes_.back() == CallMode::kDistinctInputs;
    fns_.push_back(keeps_inputs ? nullptr : std::move(fn));
  }
  for (size_t k = 0; k < group_keys_.size() && window_column >= 0; k++)
    if (group_keys_[k] == window_column) window_key_ = int(k);
}

void HashAggOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  share_.set_job(ctx->memory);
  result_table_ = ctx->NewStateTable(result_desc_);
  for (const auto& d : call_descs_) call_tables_.push_back(d.table_id ? ctx->NewStateTable(d) : nullptr);
  if (window_key_ >= 0) LoadOpenWindows();
  if (group_keys_.empty()) {
    // The global row: emitted at the first barrier if it never was.
    DataChunk none;
    none.set_cardinality(1);
    std::string key;
    uint32_t g = GroupOf(none, 0, &key);
    if (!groups_[g].emitted && !groups_[g].dirty) {
      groups_[g].dirty = true;
      dirty_.push_back(g);
    }
  }
}

std::string HashAggOperator::ResultKey(const Group& grp) const {
  return result_table_->KeyIn(grp.vnode, grp.key);
}

uint32_t HashAggOperator::GroupOf(const DataChunk& data, size_t row, std::string* key) {
  key->clear();
  for (int c : group_keys_) EncodeKeyFromVector(data.column(c), row, key);
  auto it = index_.find(*key);
  if (it != index_.end()) return it->second;
  uint32_t g;
  if (!free_.empty()) {
    g = free_.back();
    free_.pop_back();
    groups_[g] = Group();
  } else {
    g = uint32_t(groups_.size());
    groups_.emplace_back();
    for (auto& fn : fns_)
      if (fn) fn->Resize(groups_.size());
  }
  for (auto& fn : fns_)
    if (fn) fn->ResetGroup(g);
  Group& grp = groups_[g];
  grp.key = *key;
  for (int c : group_keys_) grp.keys.push_back(data.column(c).GetValue(row));
  grp.vnode = group_keys_.empty() ? 0 : ComputeVnode(data, row, group_keys_);
  grp.inputs.resize(calls_.size());
  grp.distinct.resize(calls_.size());
  grp.extremes.resize(calls_.size());
  auto [slot, added] = index_.emplace(*key, g);
  grp.lru = lru_.Add(&slot->first);
  LoadGroup(g);
  grp.bytes = EstimateBytes(grp);
  bytes_ += grp.bytes;
  return g;
}

namespace {
// Rough heap cost of a group, of a Value and of an entry of an input map
// (nodes, string headers), on top of the bytes of keys.
constexpr size_t kGroupOverhead = 256;
constexpr size_t kValueBytes = sizeof(Value) + 16;
constexpr size_t kInputEntryOverhead = 96;
}  // namespace

size_t HashAggOperator::EstimateBytes(const Group& grp) const {
  size_t bytes = kGroupOverhead + 2 * grp.key.size() + (grp.keys.size() + grp.prev_output.size()) * kValueBytes;
  for (size_t i = 0; i < calls_.size(); i++) {
    if (i < grp.inputs.size() && !grp.inputs[i].empty()) {
      size_t args = KeepsOnlyValue(calls_[i].sig.kind) ? 1 : calls_[i].args.size();
      bytes += grp.inputs[i].size() * (kInputEntryOverhead + grp.inputs[i].begin()->first.size() + args * kValueBytes);
    }
    if (i < grp.distinct.size() && !grp.distinct[i].empty())
      bytes += grp.distinct[i].size() * (kInputEntryOverhead + grp.distinct[i].begin()->first.size() + kValueBytes);
    if (i < grp.extremes.size() && grp.extremes[i]) bytes += grp.extremes[i]->bytes();
  }
  return bytes;
}

void HashAggOperator::Drop(uint32_t g) {
  Group& grp = groups_[g];
  bytes_ -= grp.bytes;
  lru_.Remove(grp.lru);
  index_.erase(grp.key);
  grp = Group();
  free_.push_back(g);
}

void HashAggOperator::Evict() {
  const size_t target = share_.Publish(bytes_);
  if (group_keys_.empty() || bytes_ <= target) return share_.Settle(bytes_);
  const Epoch committed = ctx_->services->committed_epoch();
  while (bytes_ > target && !lru_.empty()) {
    uint32_t g = index_.find(lru_.oldest())->second;
    if (groups_[g].dirty || groups_[g].written > committed) break;  // newer ones are not committed either
    Drop(g);
  }
  share_.Settle(bytes_);
}

void HashAggOperator::LoadGroup(uint32_t g) {
  Group& grp = groups_[g];
  std::string value;
  Status s = result_table_->GetCommitted(ResultKey(grp), &value);
  if (s.ok()) {
    Row row;
    if (!DecodeRow(value, result_desc_.column_types, &row)) throw SqlError(sqlstate::kDataCorrupted, "corrupt aggregation state");
    size_t pos = group_keys_.size();
    grp.row_count = row[pos++].int_value();
    for (size_t i = 0; i < calls_.size(); i++) {
      if (!fns_[i]) continue;
      fns_[i]->LoadState(g, &row[pos]);
      pos += fns_[i]->StateTypes().size();
    }
    grp.emitted = true;
  } else if (!s.IsNotFound()) {
    s.ThrowIfError();
  }
  for (size_t i = 0; i < calls_.size(); i++) {
    if (!call_tables_[i]) continue;
    std::string prefix = call_tables_[i]->KeyIn(grp.vnode, grp.key);
    if (modes_[i] == CallMode::kExtreme) {
      // Ranked by value: the least first for min/bool_and, the greatest for max/bool_or.
      AggKind kind = calls_[i].sig.kind;
      bool greatest = kind == AggKind::kMax || kind == AggKind::kBoolOr;
      grp.extremes[i] = std::make_unique<TopNCache>(prefix, TopNCacheCapacity(1), greatest);
      grp.extremes[i]->Load(*call_tables_[i]);
      continue;
    }
    const size_t gk = group_keys_.size();
    for (auto it = call_tables_[i]->ScanCommittedPrefix(prefix); it.Valid(); it.Next()) {
      Row row;
      if (!DecodeRow(it.value(), call_descs_[i].column_types, &row))
        throw SqlError(sqlstate::kDataCorrupted, "corrupt aggregation input state");
      std::string mkey(it.key().substr(prefix.size()));
      if (modes_[i] == CallMode::kDistinct && calls_[i].args.size() > 1) {
        // Group keys, arguments, multiplicity.
        grp.inputs[i][mkey] = Row(row.begin() + gk, row.end() - 1);
        grp.distinct[i][mkey] = {Value(), row.back().int_value()};
      } else if (modes_[i] == CallMode::kDistinct) {
        grp.distinct[i][mkey] = {row[gk], row[gk + 1].int_value()};
      } else if (modes_[i] == CallMode::kDistinctInputs) {
        // Group keys, ORDER BY values, arguments, multiplicity.
        size_t nargs = calls_[i].args.size();
        grp.inputs[i][mkey] = Row(row.end() - 1 - nargs, row.end() - 1);
        grp.distinct[i][mkey] = {Value(), row.back().int_value()};
      } else {
        size_t nargs = calls_[i].args.size();
        grp.inputs[i][mkey] = Row(row.end() - nargs, row.end());
      }
    }
  }
  if (grp.emitted) grp.prev_output = OutputOf(g);
}

void HashAggOperator::OnChunk(int, StreamChunk chunk) {
  if (window_key_ >= 0 && !closed_below_.is_null()) {
    // Rows of closed windows: their row was emitted for good.
    const Vector& window = chunk.data().column(group_keys_[window_key_]);
    std::vector<uint8_t> keep(chunk.num_rows(), 1);
    size_t late = 0;
    for (size_t r = 0; r < keep.size(); r++)
      if (!window.IsNull(r) && Value::Compare(window.GetValue(r), closed_below_) < 0) keep[r] = 0, late++;
    if (late) {
      late_rows_ += int64_t(late);
      spdlog::warn("job {}: {} rows of windows already closed dropped ({} in all)", ctx_->job_id, late, late_rows_);
      std::vector<Op> ops;
      for (size_t r = 0; r < keep.size(); r++)
        if (keep[r]) ops.push_back(IsInsertOp(chunk.ops()[r]) ? Op::kInsert : Op::kDelete);
      chunk.data().Filter(keep);
      chunk = StreamChunk(std::move(ops), std::move(chunk.data()));
      if (chunk.num_rows() == 0) return;
    }
  }
  const DataChunk& data = chunk.data();
  const size_t n = chunk.num_rows();
  std::vector<uint32_t> gids(n);
  std::vector<int8_t> signs(n);
  std::string key;
  for (size_t r = 0; r < n; r++) {
    uint32_t g = GroupOf(data, r, &key);
    gids[r] = g;
    signs[r] = IsInsertOp(chunk.ops()[r]) ? 1 : -1;
    Group& grp = groups_[g];
    grp.row_count += signs[r];
    if (!grp.dirty) {
      grp.dirty = true;
      dirty_.push_back(g);
    }
  }
  for (size_t i = 0; i < calls_.size(); i++) {
    const StreamAggCall& call = calls_[i];
    std::vector<uint8_t> keep(n, 1);
    if (call.filter >= 0) keep = ToMask(data.column(call.filter));
    if (modes_[i] == CallMode::kValue) {
      std::vector<uint32_t> sel;
      for (size_t r = 0; r < n; r++)
        if (keep[r]) sel.push_back(uint32_t(r));
      if (sel.empty()) continue;
      std::vector<Vector> args;
      std::vector<uint32_t> g2;
      std::vector<int8_t> s2;
      for (uint32_t r : sel) {
        g2.push_back(gids[r]);
        s2.push_back(signs[r]);
      }
      for (int a : call.args) args.push_back(data.column(a).Take(sel));
      std::vector<const Vector*> arg_ptrs;
      for (auto& v : args) arg_ptrs.push_back(&v);
      fns_[i]->Update(g2.data(), arg_ptrs, s2.data(), sel.size(), eval_);
      continue;
    }
    const Vector& arg0 = data.column(call.args.empty() ? 0 : call.args[0]);
    if (modes_[i] == CallMode::kDistinct) {
      // Each distinct argument tuple (a value, or corr/covar/regr_*'s pair)
      // is fed once. One argument is kept in the entry itself (no row to
      // allocate per value: Nexmark q16 has 8 DISTINCT calls a row); more
      // are kept in the group's inputs under the same key.
      const size_t nargs = call.args.size();
      std::vector<std::vector<Value>> fed_values(nargs);
      std::vector<uint32_t> fed_groups;
      std::vector<int8_t> fed_signs;
      for (size_t r = 0; r < n; r++) {
        if (!keep[r]) continue;
        bool has_null = false;
        for (int a : call.args) has_null = has_null || data.column(a).IsNull(r);
        if (has_null) continue;  // the aggregates planned here are strict
        Group& grp = groups_[gids[r]];
        std::string vkey;
        for (int a : call.args) EncodeKeyFromVector(data.column(a), r, &vkey);
        auto& entry = grp.distinct[i][vkey];
        int64_t before = entry.second;
        if (input_append_only_ && before > 0) continue;  // a duplicate: nothing to save
        if (before == 0 && nargs == 1) entry.first = arg0.GetValue(r);
        if (before == 0 && nargs > 1) {
          Row args;
          for (int a : call.args) args.push_back(data.column(a).GetValue(r));
          grp.inputs[i][vkey] = std::move(args);
        }
        entry.second += signs[r];
        std::string skey = call_tables_[i]->KeyIn(grp.vnode, grp.key + vkey);
        // The aggregate sees each distinct value once, always as the
        // representative kept for it: equal values may differ in form
        // (numeric 4.5 and 4.50), and a retraction of another form than the
        // one added would leave the aggregate's state (a numeric sum's
        // scales) other than never having seen the value.
        const Row* kept_args = nargs > 1 ? &grp.inputs[i][vkey] : nullptr;
        if ((before == 0) != (entry.second == 0)) {
          for (size_t j = 0; j < nargs; j++) fed_values[j].push_back(kept_args ? (*kept_args)[j] : entry.first);
          fed_groups.push_back(gids[r]);
          fed_signs.push_back(before == 0 ? 1 : -1);
        }
        if (entry.second == 0) {
          grp.distinct[i].erase(vkey);
          grp.inputs[i].erase(vkey);
          call_tables_[i]->Delete(std::move(skey));
        } else {
          Row row = grp.keys;
          if (kept_args) row.insert(row.end(), kept_args->begin(), kept_args->end());
          else row.push_back(entry.first);
          row.push_back(Value::Int64(entry.second));
          std::string v;
          EncodeRowValues(row, &v);
          call_tables_[i]->Put(std::move(skey), std::move(v));
        }
      }
      if (!fed_groups.empty()) {
        std::vector<Vector> fed;
        std::vector<const Vector*> fed_ptrs;
        for (size_t j = 0; j < nargs; j++) {
          fed.emplace_back(data.column(call.args[j]).type());
          for (const Value& v : fed_values[j]) fed.back().Append(v);
        }
        for (auto& v : fed) fed_ptrs.push_back(&v);
        fns_[i]->Update(fed_groups.data(), fed_ptrs, fed_signs.data(), fed_groups.size(), eval_);
      }
      continue;
    }
    if (modes_[i] == CallMode::kDistinctInputs) {
      // Keyed by the ORDER BY values, then the arguments: equal argument
      // tuples are one entry, counted; ordered as PostgreSQL sorts a
      // DISTINCT aggregate's input.
      const bool skip_null = call.sig.kind != AggKind::kArrayAgg;
      for (size_t r = 0; r < n; r++) {
        if (!keep[r] || (skip_null && arg0.IsNull(r))) continue;
        Group& grp = groups_[gids[r]];
        std::string mkey;
        Row row = grp.keys;
        for (const auto& k : call.order_by) {
          EncodeOrderKeyFromVector(data.column(k.column), r, k.descending, k.nulls_first, &mkey);
          row.push_back(data.column(k.column).GetValue(r));
        }
        Row args;
        for (int a : call.args) {
          EncodeKeyFromVector(data.column(a), r, &mkey);
          args.push_back(data.column(a).GetValue(r));
          row.push_back(args.back());
        }
        auto& entry = grp.distinct[i][mkey];
        const int64_t before = entry.second;
        if (input_append_only_ && before > 0) continue;  // a duplicate: nothing to save
        entry.second += signs[r];
        std::string skey = call_tables_[i]->KeyIn(grp.vnode, grp.key + mkey);
        if (entry.second == 0) {
          grp.distinct[i].erase(mkey);
          grp.inputs[i].erase(mkey);
          call_tables_[i]->Delete(std::move(skey));
          continue;
        }
        if (before == 0) grp.inputs[i][mkey] = std::move(args);
        row.push_back(Value::Int64(entry.second));
        std::string v;
        EncodeRowValues(row, &v);
        call_tables_[i]->Put(std::move(skey), std::move(v));
      }
      continue;
    }
    // kInputs: keep the inputs, ordered.
    bool only_value = KeepsOnlyValue(call.sig.kind);
    bool skip_null = call.sig.kind != AggKind::kArrayAgg;
    for (size_t r = 0; r < n; r++) {
      if (!keep[r] || (skip_null && arg0.IsNull(r))) continue;
      Group& grp = groups_[gids[r]];
      std::string mkey;
      Row row = grp.keys;
      if (only_value) {
        EncodeKeyFromVector(arg0, r, &mkey);
        row.push_back(arg0.GetValue(r));
      } else {
        for (const auto& k : call.order_by) {
          EncodeOrderKeyFromVector(data.column(k.column), r, k.descending, k.nulls_first, &mkey);
          row.push_back(data.column(k.column).GetValue(r));
        }
      }
      for (int k : input_stream_key_) {
        EncodeKeyFromVector(data.column(k), r, &mkey);
        row.push_back(data.column(k).GetValue(r));
      }
      Row args;
      if (only_value) {
        args.push_back(arg0.GetValue(r));
      } else {
        for (int a : call.args) {
          args.push_back(data.column(a).GetValue(r));
          row.push_back(args.back());
        }
      }
      std::string skey = call_tables_[i]->KeyIn(grp.vnode, grp.key + mkey);
      if (signs[r] > 0) {
        std::string v;
        EncodeRowValues(row, &v);
        call_tables_[i]->Put(std::move(skey), v);
        if (modes_[i] == CallMode::kExtreme) grp.extremes[i]->Insert(std::move(mkey), std::move(v), epoch_);
        else grp.inputs[i][mkey] = std::move(args);
      } else {
        call_tables_[i]->Delete(std::move(skey));
        if (modes_[i] == CallMode::kExtreme) grp.extremes[i]->Erase(mkey, epoch_);
        else grp.inputs[i].erase(mkey);
      }
    }
  }
}

Row HashAggOperator::OutputOf(uint32_t g) {
  Group& grp = groups_[g];
  Row out = grp.keys;
  for (size_t i = 0; i < calls_.size(); i++) {
    const StreamAggCall& call = calls_[i];
    if (fns_[i]) {
      Vector v(call.sig.return_type);
      fns_[i]->FinalizeGroups(&g, 1, &v, eval_);
      out.push_back(v.GetValue(0));
      continue;
    }
    const DataType& t = call.sig.return_type;
    if (modes_[i] == CallMode::kExtreme) {
      out.push_back(ExtremeOf(grp, i));
      out.back().set_type(t);
      continue;
    }
    const auto& m = grp.inputs[i];
    if (m.empty()) {
      out.push_back(Value::Null(t));
      continue;
    }
    switch (call.sig.kind) {
      case AggKind::kStringAgg: {
        std::string s;
        bool first = true;
        for (const auto& [k, args] : m) {
          if (!first && !args[1].is_null()) s += args[1].string_value();
          s += args[0].string_value();
          first = false;
        }
        out.push_back(Value::FromString(t, std::move(s)));
        break;
      }
      case AggKind::kArrayAgg: {
        Vector elements(call.sig.arg_type);
        for (const auto& [k, args] : m) elements.Append(args[0]);
        out.push_back(Value::FromString(t, EncodeArray(elements)));
        break;
      }
      default: out.push_back(Value::Null(t));
    }
    out.back().set_type(t);
  }
  return out;
}

Value HashAggOperator::ExtremeOf(Group& grp, size_t i) {
  TopNCache& inputs = *grp.extremes[i];
  inputs.Ensure(1, *call_tables_[i]);
  if (inputs.rows().empty()) return Value::Null(calls_[i].sig.return_type);
  // A stored input row: the group columns, then the value.
  Row row;
  if (!DecodeRow(inputs.rows().begin()->second, call_descs_[i].column_types, &row))
    throw SqlError(sqlstate::kDataCorrupted, "corrupt aggregation input state");
  return row[group_keys_.size()];
}

void HashAggOperator::SaveGroup(uint32_t g) {
  Group& grp = groups_[g];
  Row row = grp.keys;
  row.push_back(Value::Int64(grp.row_count));
  for (size_t i = 0; i < calls_.size(); i++)
    if (fns_[i]) fns_[i]->SaveState(g, &row);
  std::string v;
  EncodeRowValues(row, &v);
  result_table_->Put(ResultKey(grp), std::move(v));
}

void HashAggOperator::OnBarrier(const Barrier& barrier) {
  if (epoch_ == 0)
    for (auto& grp : groups_)
      for (auto& c : grp.extremes)
        if (c) c->StampUnknown(barrier.prev_epoch);
  epoch_ = barrier.curr_epoch;
  if (emit_on_window_close_) return CloseWindows(barrier);
  if (dirty_.empty()) {
    ForgetEmptied();
    if (window_key_ >= 0) return ForgetClosed(/*emit=*/false);
    return Evict();
  }
  std::vector<Op> ops;
  DataChunk out(output_types_);
  auto flush = [&] {
    if (ops.empty()) return;
    Emit(StreamChunk(std::move(ops), std::move(out)));
    ops.clear();
    out = DataChunk(output_types_);
  };
  const Epoch committed = ctx_->services->committed_epoch();
  for (uint32_t g : dirty_) {
    Group& grp = groups_[g];
    grp.dirty = false;
    for (auto& c : grp.extremes)
      if (c) c->Prune(committed);
    if (grp.row_count < 0) {
      spdlog::error("aggregation state of job {}: group has {} rows; reset", ctx_->job_id, grp.row_count);
      grp.row_count = 0;
    }
    if (!group_keys_.empty() && grp.row_count == 0) {
      if (grp.emitted) {
        ops.push_back(Op::kDelete);
        out.AppendRow(grp.prev_output);
      }
      result_table_->Delete(ResultKey(grp));
      // Kept, empty, until the deletes are committed: loaded again from
      // the store before that, it would find its old state.
      for (auto& fn : fns_)
        if (fn) fn->ResetGroup(g);
      for (auto& m : grp.inputs) m.clear();
      for (auto& m : grp.distinct) m.clear();
      grp.emitted = false;
      grp.prev_output.clear();
      grp.written = barrier.prev_epoch;
      size_t bytes = EstimateBytes(grp);
      bytes_ = bytes_ - grp.bytes + bytes;
      grp.bytes = bytes;
      emptied_.push_back(g);
    } else {
      Row now = OutputOf(g);
      bool saved_before = grp.emitted;
      if (!grp.emitted) {
        ops.push_back(Op::kInsert);
        out.AppendRow(now);
      } else if (!RowsIdentical(now, grp.prev_output)) {
        ops.push_back(Op::kUpdateDelete);
        out.AppendRow(grp.prev_output);
        ops.push_back(Op::kUpdateInsert);
        out.AppendRow(now);
      }
      grp.prev_output = std::move(now);
      grp.emitted = true;
      if (!(distinct_append_only_ && saved_before)) SaveGroup(g);
      grp.written = barrier.prev_epoch;
      lru_.Touch(grp.lru);
      size_t bytes = EstimateBytes(grp);
      bytes_ = bytes_ - grp.bytes + bytes;
      grp.bytes = bytes;
    }
    if (ops.size() + 2 > kChunkSize) flush();
  }
  dirty_.clear();
  flush();
  ForgetEmptied();
  if (window_key_ >= 0) return ForgetClosed(/*emit=*/false);
  Evict();
}

void HashAggOperator::ForgetEmptied() {
  const Epoch committed = ctx_->services->committed_epoch();
  std::vector<uint32_t> later;
  for (uint32_t g : emptied_) {
    Group& grp = groups_[g];
    // Dropped meanwhile (its slot may hold another group), or in use again.
    auto it = index_.find(grp.key);
    if (it == index_.end() || it->second != g || grp.dirty || grp.row_count != 0) continue;
    if (grp.written > committed) {
      later.push_back(g);
      continue;
    }
    Drop(g);
  }
  emptied_ = std::move(later);
}

void HashAggOperator::OnWatermarks(int, const std::vector<Watermark>& watermarks) {
  std::vector<Watermark> out;
  for (const Watermark& w : watermarks) {
    for (size_t k = 0; k < group_keys_.size(); k++)
      if (group_keys_[k] == w.column) out.push_back({int(k), w.value});
    if (window_key_ >= 0 && w.column == group_keys_[window_key_]) pending_watermark_ = w.value;
  }
  EmitWatermarks(out);
}

void HashAggOperator::LoadOpenWindows() {
  // A row shaped as the input, holding a group's keys, finds the group as
  // an input row would (its key, its vnode) and loads it.
  int width = 0;
  for (int c : group_keys_) width = std::max(width, c + 1);
  std::vector<DataType> types(width, DataType::Boolean());
  for (size_t k = 0; k < group_keys_.size(); k++) types[group_keys_[k]] = result_desc_.column_types[k];
  std::string key;
  for (int v = ctx_->vnodes.first; v < ctx_->vnodes.second; v++) {
    for (auto it = result_table_->ScanCommittedPrefix(result_table_->KeyIn(uint16_t(v))); it.Valid(); it.Next()) {
      Row row;
      if (!DecodeRow(it.value(), result_desc_.column_types, &row))
        throw SqlError(sqlstate::kDataCorrupted, "corrupt aggregation state");
      Row input(width, Value());
      for (size_t k = 0; k < group_keys_.size(); k++) input[group_keys_[k]] = row[k];
      DataChunk one(types);
      one.AppendRow(input);
      GroupOf(one, 0, &key);
    }
  }
}

void HashAggOperator::DeleteGroupState(uint32_t g) {
  Group& grp = groups_[g];
  result_table_->Delete(ResultKey(grp));
  for (size_t i = 0; i < calls_.size(); i++) {
    if (!call_tables_[i]) continue;
    for (const auto& [vkey, entry] : grp.distinct[i]) call_tables_[i]->Delete(call_tables_[i]->KeyIn(grp.vnode, grp.key + vkey));
    for (const auto& [mkey, args] : grp.inputs[i]) call_tables_[i]->Delete(call_tables_[i]->KeyIn(grp.vnode, grp.key + mkey));
  }
}

void HashAggOperator::CloseWindows(const Barrier& barrier) {
  // The epoch's changes are kept, not emitted: their windows are open.
  for (uint32_t g : dirty_) {
    Group& grp = groups_[g];
    grp.dirty = false;
    grp.written = barrier.prev_epoch;
    if (grp.row_count > 0) {
      SaveGroup(g);
      size_t bytes = EstimateBytes(grp);
      bytes_ = bytes_ - grp.bytes + bytes;
      grp.bytes = bytes;
      continue;
    }
    // Every row retracted: kept, empty, until the delete is committed (as
    // in OnBarrier).
    result_table_->Delete(ResultKey(grp));
    for (auto& fn : fns_)
      if (fn) fn->ResetGroup(g);
    for (auto& m : grp.inputs) m.clear();
    for (auto& m : grp.distinct) m.clear();
    grp.row_count = 0;
    emptied_.push_back(g);
  }
  dirty_.clear();
  ForgetClosed(/*emit=*/true);
  ForgetEmptied();
}

void HashAggOperator::ForgetClosed(bool emit) {
  if (!pending_watermark_.is_null()) {
    std::vector<uint32_t> closed;
    for (const auto& [key, g] : index_) {
      const Group& grp = groups_[g];
      const Value& window = grp.keys[window_key_];
      if (grp.row_count > 0 && !window.is_null() && Value::Compare(window, pending_watermark_) < 0) closed.push_back(g);
    }
    // In key order, so that the output does not depend on the hash table.
    std::sort(closed.begin(), closed.end(), [&](uint32_t a, uint32_t b) { return groups_[a].key < groups_[b].key; });
    std::vector<Op> ops;
    DataChunk out(output_types_);
    for (uint32_t g : closed) {
      if (emit) {
        ops.push_back(Op::kInsert);
        out.AppendRow(OutputOf(g));
      }
      DeleteGroupState(g);
      Drop(g);
      if (ops.size() == kChunkSize) {
        Emit(StreamChunk(std::move(ops), std::move(out)));
        ops.clear();
        out = DataChunk(output_types_);
      }
    }
    if (!ops.empty()) Emit(StreamChunk(std::move(ops), std::move(out)));
    if (closed_below_.is_null() || Value::Compare(pending_watermark_, closed_below_) > 0)
      closed_below_ = std::move(pending_watermark_);
    pending_watermark_ = Value();
  }
  share_.Publish(bytes_);
  share_.Settle(bytes_);
}

}  // namespace freshet
