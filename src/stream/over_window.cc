#include "stream/over_window.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/encoding.h"
#include "common/error.h"
#include "planner/window_evaluator.h"

namespace freshet {

namespace {
// A constant count of rows (a frame offset, lag's offset), or -1.
int64_t ConstantCount(const ExprPtr& e) {
  if (!e || e->kind() != Expression::Kind::kConstant) return -1;
  const Value& v = static_cast<const ConstantExpr&>(*e).value();
  if (v.is_null() || !v.type().IsInteger()) return -1;
  return v.int_value() >= 0 ? v.int_value() : -1;
}

// How many rows before and after the current one the call reads, whatever
// the current row's position; -1 where that is unbounded or the value
// depends on the position.
std::pair<int64_t, int64_t> ReachOf(const WindowCall& call) {
  switch (call.kind) {
    case WindowFunctionKind::kLag: return {call.args.size() > 1 ? ConstantCount(call.args[1]) : 1, 0};
    case WindowFunctionKind::kLead: return {0, call.args.size() > 1 ? ConstantCount(call.args[1]) : 1};
    case WindowFunctionKind::kFirstValue:
    case WindowFunctionKind::kLastValue:
    case WindowFunctionKind::kNthValue:
    case WindowFunctionKind::kAggregate: {
      const WindowFrame& f = call.frame;
      if (f.mode != WindowFrame::Mode::kRows || f.exclude == WindowFrame::Exclude::kGroup ||
          f.exclude == WindowFrame::Exclude::kTies)
        return {-1, -1};
      using Bound = WindowFrameBound::Kind;
      auto reach = [](const WindowFrameBound& b, Bound toward, Bound unbounded) -> int64_t {
        if (b.kind == unbounded) return -1;
        return b.kind == toward ? ConstantCount(b.offset) : 0;
      };
      // (A frame starting after the current row ends after its start; one
      // ending before it starts before its end.)
      return {reach(f.start, Bound::kPreceding, Bound::kUnboundedPreceding),
              reach(f.end, Bound::kFollowing, Bound::kUnboundedFollowing)};
    }
    default: return {-1, -1};
  }
}
}  // namespace

OverWindowOperator::OverWindowOperator(std::vector<int> partition, std::vector<WindowCall> calls, std::vector<int> stream_key,
                                       std::vector<DataType> types, StateTableDesc table, EvalContext eval,
                                       int window_column)
    : partition_(std::move(partition)), calls_(std::move(calls)), stream_key_(std::move(stream_key)),
      types_(std::move(types)), desc_(std::move(table)), eval_(std::move(eval)), window_column_(window_column) {
  for (const auto& c : calls_) value_types_.push_back(c.type);
  out_types_ = types_;
  out_types_.insert(out_types_.end(), value_types_.begin(), value_types_.end());
  for (const auto& c : calls_) {
    auto [before, after] = ReachOf(c);
    reach_before_ = before < 0 || reach_before_ == kUnbounded ? kUnbounded : std::max(reach_before_, before);
    reach_after_ = after < 0 || reach_after_ == kUnbounded ? kUnbounded : std::max(reach_after_, after);
  }
}

void OverWindowOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  share_.set_job(ctx->memory);
  table_ = ctx->NewStateTable(desc_);
  if (window_column_ < 0) return;
  // EMIT ON WINDOW CLOSE: every partition, to find the rows a watermark closes.
  for (int v = ctx->vnodes.first; v < ctx->vnodes.second; v++) {
    for (auto i = table_->ScanCommittedPrefix(table_->KeyIn(uint16_t(v))); i.Valid(); i.Next()) {
      std::string_view cells = i.value();
      DataChunk row(types_);
      if (!DecodeCellsInto(&cells, &row, 0, types_.size())) throw SqlError(sqlstate::kDataCorrupted, "corrupt over-window state");
      std::string pkey;
      for (int c : partition_) EncodeKeyFromVector(row.column(c), 0, &pkey);
      if (!partitions_.count(pkey)) PartitionOf(pkey, uint16_t(v));
    }
  }
}

void OverWindowOperator::OnWatermarks(int, const std::vector<Watermark>& watermarks) {
  // A new row changes the values of rows of its partition only: the
  // partition columns' watermarks hold for the output. The order column's
  // does once rows are emitted only when closed.
  std::vector<Watermark> out;
  for (const Watermark& w : watermarks) {
    if (window_column_ >= 0 && w.column == window_column_) {
      pending_watermark_ = w.value;
      out.push_back(w);
    } else if (std::find(partition_.begin(), partition_.end(), w.column) != partition_.end()) {
      out.push_back(w);
    }
  }
  EmitWatermarks(out);
}

OverWindowOperator::Partition& OverWindowOperator::PartitionOf(const std::string& key, uint16_t vnode) {
  auto [it, inserted] = partitions_.try_emplace(key);
  Partition& p = it->second;
  if (!inserted) return p;
  // First use since the actor started: its rows and values from storage.
  p.vnode = vnode;
  const std::string prefix = table_->KeyIn(vnode, key);
  for (auto i = table_->ScanCommittedPrefix(prefix); i.Valid(); i.Next()) {
    std::string_view value = i.value(), rest = value;
    if (!SkipCells(&rest, types_)) throw SqlError(sqlstate::kDataCorrupted, "corrupt over-window state");
    Row row;
    row.cells.assign(value.data(), value.size() - rest.size());
    row.values.assign(rest);
    p.rows.emplace_hint(p.rows.end(), std::string(i.key().substr(prefix.size())), std::move(row));
  }
  p.lru = lru_.Add(&it->first);
  p.bytes = EstimateBytes(key, p);
  bytes_ += p.bytes;
  return p;
}

namespace {
// Per partition and per row: hash and tree nodes, string headers.
constexpr size_t kPartitionOverhead = 192;
constexpr size_t kRowOverhead = 128;
}  // namespace

size_t OverWindowOperator::EstimateBytes(const std::string& key, const Partition& p) const {
  size_t bytes = kPartitionOverhead + key.size();
  for (const auto& [k, row] : p.rows) bytes += kRowOverhead + k.size() + row.cells.size() + row.values.size();
  return bytes;
}

void OverWindowOperator::Drop(std::unordered_map<std::string, Partition>::iterator it) {
  bytes_ -= it->second.bytes;
  lru_.Remove(it->second.lru);
  partitions_.erase(it);
}

void OverWindowOperator::Evict() {
  const Epoch committed = ctx_->services->committed_epoch();
  ShrinkToShare(
      share_, lru_, bytes_,
      [&](const std::string& key) {
        const Partition& p = partitions_.at(key);
        return window_column_ >= 0 || p.dirty || p.written > committed;
      },
      [&](const std::string& key) { Drop(partitions_.find(key)); });
}

void OverWindowOperator::OnChunk(int, StreamChunk chunk) {
  const DataChunk& data = chunk.data();
  std::vector<Vector> order;
  for (const auto& k : calls_[0].order_by) order.push_back(k.expr->Eval(data, eval_));
  for (size_t r = 0; r < chunk.num_rows(); r++) {
    std::string pkey, key;
    for (int c : partition_) EncodeKeyFromVector(data.column(c), r, &pkey);
    EncodeWindowOrderKey(calls_[0], order, r, &key);
    for (int c : stream_key_) EncodeKeyFromVector(data.column(c), r, &key);
    uint16_t vnode = partition_.empty() ? 0 : ComputeVnode(data, r, partition_);
    Partition& p = PartitionOf(pkey, vnode);
    if (!p.dirty) {
      p.dirty = true;
      dirty_.push_back(pkey);
    }
    if (window_column_ < 0) p.touched.insert(key);
    if (IsInsertOp(chunk.ops()[r])) {
      Row row;
      EncodeRow(data, r, &row.cells);
      row.saved = window_column_ < 0;  // saved at the barrier
      p.rows[key] = std::move(row);
    } else if (auto it = p.rows.find(key); window_column_ >= 0 && it != p.rows.end()) {
      // Emitted rows stay emitted (a watermark said none would change).
      if (it->second.saved) table_->Delete(table_->KeyIn(p.vnode, pkey) + key);
      p.rows.erase(it);
    } else if (auto it = p.rows.find(key); it != p.rows.end()) {
      // Emitted rows are remembered until the barrier tells downstream.
      if (!it->second.values.empty()) p.removed.emplace(key, std::move(it->second));
      p.rows.erase(it);
    }
  }
}

void OverWindowOperator::Append(DataChunk* out, const Row& row, bool, const std::string& values) const {
  std::string_view cells = row.cells, vals = values;
  if (!DecodeCellsInto(&cells, out, 0, types_.size()) || !DecodeCellsInto(&vals, out, types_.size(), value_types_.size()))
    throw SqlError(sqlstate::kDataCorrupted, "corrupt over-window state");
  out->set_cardinality(out->num_rows());
}

DataChunk OverWindowOperator::Evaluate(RowIt first, RowIt last) const {
  // The rows in window order, and the calls' values over them.
  DataChunk rows(types_);
  size_t n = 0;
  for (auto it = first; it != last; ++it, ++n) {
    std::string_view cells = it->second.cells;
    if (!DecodeCellsInto(&cells, &rows, 0, types_.size())) throw SqlError(sqlstate::kDataCorrupted, "corrupt over-window state");
  }
  rows.set_cardinality(n);
  rows_evaluated_ += n;
  EvalContext eval = eval_;
  DataChunk values(value_types_);
  for (size_t c = 0; c < calls_.size(); c++) {
    try {
      values.column(c) = EvaluateWindowPartition(calls_[c], rows, eval);
    } catch (const SqlError& e) {
      // As for any expression in a stream: NULL, and a warning.
      spdlog::warn("window function {} over a partition failed, giving NULL: {}", calls_[c].ToString(), e.what());
      Vector nulls(value_types_[c]);
      nulls.AppendNulls(rows.num_rows());
      values.column(c) = std::move(nulls);
    }
  }
  values.set_cardinality(rows.num_rows());
  return values;
}

void OverWindowOperator::Refresh(const std::string& key, Partition& p, Epoch epoch) {
  p.written = epoch;
  const std::string prefix = table_->KeyIn(p.vnode, key);
  DataChunk deletes(out_types_), updates(out_types_), inserts(out_types_);
  std::vector<Op> update_ops;
  // Compares the rows [first, last), whose values are those of `values`
  // from row `at` on, with what was emitted for them.
  auto refresh_rows = [&](RowIt first, RowIt last, const DataChunk& values, size_t at) {
    for (auto it = first; it != last; ++it) {
      const std::string& k = it->first;
      Row& row = it->second;
      std::string now;
      EncodeRow(values, at++, &now);
      const Row* before = &row;
      auto gone = p.removed.find(k);
      if (gone != p.removed.end()) before = &gone->second;  // deleted and inserted again
      if (before->values.empty()) {
        Append(&inserts, row, true, now);
      } else if (before->values != now || before->cells != row.cells) {
        Append(&updates, *before, false, before->values);
        Append(&updates, row, true, now);
        update_ops.push_back(Op::kUpdateDelete);
        update_ops.push_back(Op::kUpdateInsert);
      } else if (gone == p.removed.end()) {
        continue;  // unchanged: nothing to emit or write
      }
      if (gone != p.removed.end()) p.removed.erase(gone);
      if (row.values != now || before != &row) {
        row.values = std::move(now);
        table_->Put(prefix + k, row.cells + row.values);
      }
    }
  };
  const bool whole = reach_before_ == kUnbounded || reach_after_ == kUnbounded ||
                     p.touched.size() * size_t(reach_before_ + reach_after_ + 1) >= p.rows.size();
  if (whole) {
    refresh_rows(p.rows.begin(), p.rows.end(), Evaluate(p.rows.begin(), p.rows.end()), 0);
  } else {
    // A row reads reach_before_ rows before it and reach_after_ after it:
    // a row inserted or deleted at position i (a deleted one: the gap
    // before the row now at i) changes the rows [i - reach_after_,
    // i + reach_before_], which are evaluated over the rows they read.
    auto back = [&](RowIt it, int64_t n) {
      for (; n > 0 && it != p.rows.begin(); n--) --it;
      return it;
    };
    auto forward = [&](RowIt it, int64_t n) {
      for (; n > 0 && it != p.rows.end(); n--) ++it;
      return it;
    };
    auto evaluate = [&](RowIt first, RowIt last) {
      const RowIt from = back(first, reach_before_), to = forward(last, reach_after_);
      refresh_rows(first, last, Evaluate(from, to), size_t(std::distance(from, first)));
    };
    // The touched keys are in order, so are their ranges: overlapping ones
    // are merged.
    std::optional<std::pair<RowIt, RowIt>> open;
    for (const std::string& t : p.touched) {
      const RowIt at = p.rows.lower_bound(t);
      const RowIt first = back(at, reach_after_), last = forward(at, reach_before_ + 1);
      if (open && (open->second == p.rows.end() || (first != p.rows.end() && first->first <= open->second->first))) {
        if (last == p.rows.end() || (open->second != p.rows.end() && last->first > open->second->first)) open->second = last;
        continue;
      }
      if (open) evaluate(open->first, open->second);
      open.emplace(first, last);
    }
    if (open) evaluate(open->first, open->second);
  }
  for (const auto& [k, row] : p.removed) {
    Append(&deletes, row, false, row.values);
    table_->Delete(prefix + k);
  }
  p.removed.clear();
  p.touched.clear();
  p.dirty = false;
  if (deletes.num_rows()) Emit(StreamChunk(std::vector<Op>(deletes.num_rows(), Op::kDelete), std::move(deletes)));
  if (updates.num_rows()) Emit(StreamChunk(std::move(update_ops), std::move(updates)));
  if (inserts.num_rows()) Emit(StreamChunk(std::vector<Op>(inserts.num_rows(), Op::kInsert), std::move(inserts)));
}

void OverWindowOperator::CloseRows() {
  for (const std::string& key : dirty_) {
    auto it = partitions_.find(key);
    if (it == partitions_.end()) continue;
    Partition& p = it->second;
    p.dirty = false;
    const std::string prefix = table_->KeyIn(p.vnode, key);
    for (auto& [k, row] : p.rows)
      if (!row.saved) {
        table_->Put(prefix + k, row.cells + row.values);
        row.saved = true;
      }
  }
  dirty_.clear();
  if (pending_watermark_.is_null()) return;
  const Value watermark = std::move(pending_watermark_);
  pending_watermark_ = Value();
  // A row's order value, from its cells.
  auto order_of = [&](const Row& row) {
    std::string_view cells = row.cells;
    DataChunk one(types_);
    if (!DecodeCellsInto(&cells, &one, 0, types_.size())) throw SqlError(sqlstate::kDataCorrupted, "corrupt over-window state");
    return one.column(window_column_).GetValue(0);
  };
  auto closed = [&](const Value& v) { return !v.is_null() && Value::Compare(v, watermark) < 0; };
  DataChunk inserts(out_types_);
  for (auto& [key, p] : partitions_) {
    // Rows are in order: the first not emitted tells whether any closes.
    auto first = std::find_if(p.rows.begin(), p.rows.end(), [](const auto& r) { return r.second.values.empty(); });
    if (first == p.rows.end() || !closed(order_of(first->second))) continue;
    const DataChunk values = Evaluate(p.rows.begin(), p.rows.end());
    const std::string prefix = table_->KeyIn(p.vnode, key);
    size_t i = 0;
    for (auto& [k, row] : p.rows) {
      const size_t at = i++;
      if (!row.values.empty()) continue;
      if (!closed(order_of(row))) break;
      EncodeRow(values, at, &row.values);
      Append(&inserts, row, true, row.values);
      table_->Put(prefix + k, row.cells + row.values);
      if (inserts.num_rows() >= kChunkSize) {
        Emit(StreamChunk(std::vector<Op>(inserts.num_rows(), Op::kInsert), std::move(inserts)));
        inserts = DataChunk(out_types_);
      }
    }
  }
  if (inserts.num_rows()) Emit(StreamChunk(std::vector<Op>(inserts.num_rows(), Op::kInsert), std::move(inserts)));
}

void OverWindowOperator::OnBarrier(const Barrier& barrier) {
  if (window_column_ >= 0) return CloseRows();
  for (const std::string& key : dirty_) {
    auto it = partitions_.find(key);
    if (it == partitions_.end() || !it->second.dirty) continue;
    Partition& p = it->second;
    Refresh(key, p, barrier.prev_epoch);
    const size_t bytes = EstimateBytes(key, p);
    bytes_ = bytes_ - p.bytes + bytes;
    p.bytes = bytes;
    lru_.Touch(p.lru);
    if (p.rows.empty()) emptied_.push_back(key);
  }
  dirty_.clear();
  const Epoch committed = ctx_->services->committed_epoch();
  std::vector<std::string> waiting;
  for (const std::string& key : emptied_) {
    auto it = partitions_.find(key);
    if (it == partitions_.end() || !it->second.rows.empty()) continue;
    if (it->second.written <= committed) Drop(it);
    else waiting.push_back(key);
  }
  emptied_ = std::move(waiting);
  Evict();
}

}  // namespace freshet
