#include "stream/temporal_filter.h"

#include "common/encoding.h"
#include "common/error.h"
#include "stream/eval.h"

namespace freshet {

TemporalFilterOperator::TemporalFilterOperator(ExprPtr predicate, std::vector<int> stream_key,
                                               std::vector<DataType> types, StateTableDesc rows,
                                               StateTableDesc time, EvalContext eval)
    : predicate_(std::move(predicate)), stream_key_(std::move(stream_key)), types_(std::move(types)),
      desc_(std::move(rows)), time_desc_(std::move(time)), eval_(std::move(eval)),
      split_(SplitTemporalCondition(*predicate_)) {
  FindMovingBounds();
}

void TemporalFilterOperator::FindMovingBounds() {
  if (!split_) return;
  // Types whose Value::Compare is the SQL comparison's order.
  auto ordered_type = [](const DataType& t) {
    switch (t.id) {
      case TypeId::kInt16: case TypeId::kInt32: case TypeId::kInt64: case TypeId::kFloat32:
      case TypeId::kFloat64: case TypeId::kNumeric: case TypeId::kDate: case TypeId::kTime:
      case TypeId::kTimestamp: case TypeId::kTimestamptz: case TypeId::kTimestampNs: case TypeId::kInterval:
        return true;
      default:
        return false;
    }
  };
  std::vector<MovingBound> bounds;
  for (int expiring = 1; expiring >= 0; expiring--) {
    for (const auto& c : expiring ? split_->expiring : split_->maturing) {
      // greater op lesser (SplitTemporalCondition checked the shape): the
      // row's side is the greater of an expiring conjunct, the lesser of a
      // maturing one.
      const std::string& op = static_cast<const FunctionExpr&>(*c).function()->name;
      const Expression& greater = *c->children()[op[0] == '>' ? 0 : 1];
      const Expression& lesser = *c->children()[op[0] == '>' ? 1 : 0];
      const bool strict = op.size() == 1;
      MovingBound b;
      b.row_side = (expiring ? greater : lesser).Clone();
      b.now_side = (expiring ? lesser : greater).Clone();
      // Expiring `v > bound` fails once bound >= v; maturing `bound >= v`
      // passes once bound >= v: both change at equality then.
      b.crossed_at_equal = expiring ? strict : !strict;
      if (b.row_side->type().id != b.now_side->type().id || !ordered_type(b.row_side->type())) return;
      bounds.push_back(std::move(b));
    }
  }
  bounds_ = std::move(bounds);
}

bool TemporalFilterOperator::ComputeBounds() {
  DataChunk one;
  one.set_cardinality(1);
  for (MovingBound& b : bounds_) {
    b.bound = EvalRowTolerant(*b.now_side, one, eval_).GetValue(0);
    if (b.bound.is_null()) {
      // No order to keep: every barrier evaluates every row from now on.
      bounds_.clear();
      return false;
    }
  }
  return true;
}

std::vector<std::vector<Value>> TemporalFilterOperator::BoundValues(const DataChunk& rows) {
  std::vector<std::vector<Value>> values(rows.num_rows());
  for (const MovingBound& b : bounds_) {
    Vector v = EvalRowTolerant(*b.row_side, rows, eval_);
    for (size_t i = 0; i < rows.num_rows(); i++) values[i].push_back(v.GetValue(i));
  }
  return values;
}

void TemporalFilterOperator::Track(const std::string& key, const Entry& e) {
  for (size_t j = 0; j < bounds_.size(); j++) {
    const Value& v = e.values[j];
    // A NULL value fails its conjunct at every time: the row never changes
    // by this bound. One already crossed waits for nothing.
    if (v.is_null() || (have_time_ && bounds_[j].Crossed(v))) continue;
    bounds_[j].waiting.emplace(v, key);
  }
}

void TemporalFilterOperator::Untrack(const std::string& key, const Entry& e) {
  for (size_t j = 0; j < bounds_.size(); j++) {
    if (j < e.values.size()) bounds_[j].waiting.erase({e.values[j], key});
  }
}

void TemporalFilterOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  table_ = ctx->NewStateTable(desc_);
  time_table_ = ctx->NewStateTable(time_desc_);
  std::string value;
  Status s = time_table_->GetCommitted(time_table_->KeyIn(0), &value);
  Row time_row;
  if (s.ok() && DecodeRow(value, {DataType::Timestamptz()}, &time_row) && !time_row[0].is_null()) {
    eval_.statement_time = time_row[0].int_value();
    have_time_ = true;
  }
  std::string prefix = table_->KeyIn(0);
  DataChunk all(types_);
  std::vector<std::string> keys;
  for (auto it = table_->ScanCommittedPrefix(prefix); it.Valid(); it.Next()) {
    if (!DecodeRowInto(it.value(), &all)) throw SqlError(sqlstate::kDataCorrupted, "corrupt temporal filter state");
    keys.emplace_back(it.key().substr(prefix.size()));
  }
  std::vector<uint8_t> pass = Evaluate(all);
  if (have_time_ && !bounds_.empty()) ComputeBounds();
  std::vector<std::vector<Value>> values = BoundValues(all);
  for (size_t i = 0; i < keys.size(); i++) {
    Entry& e = rows_[keys[i]] = Entry{all.GetRow(i), pass[i] != 0, std::move(values[i])};
    Track(keys[i], e);
  }
}

std::vector<uint8_t> TemporalFilterOperator::Evaluate(const DataChunk& rows, std::vector<uint8_t>* settled) {
  if (settled) settled->assign(rows.num_rows(), 0);
  if (!have_time_) return std::vector<uint8_t>(rows.num_rows(), 0);
  if (rows.num_rows() == 0) return {};
  if (!split_) return ToMask(EvalRowTolerant(*predicate_, rows, eval_));
  // The condition's conjuncts one by one: their AND is whether a row
  // passes, and which fail tells whether that can still change.
  auto all = [&](const std::vector<ExprPtr>& conjuncts) {
    std::vector<uint8_t> pass(rows.num_rows(), 1);
    for (const auto& c : conjuncts) {
      std::vector<uint8_t> p = ToMask(EvalRowTolerant(*c, rows, eval_));
      for (size_t i = 0; i < pass.size(); i++) pass[i] &= p[i];
    }
    return pass;
  };
  const std::vector<uint8_t> plain = all(split_->plain), expiring = all(split_->expiring),
                             maturing = all(split_->maturing);
  std::vector<uint8_t> pass(rows.num_rows());
  for (size_t i = 0; i < pass.size(); i++) {
    pass[i] = plain[i] && expiring[i] && maturing[i];
    const bool fails = !plain[i] || !expiring[i];
    const bool passes = pass[i] && split_->expiring.empty();
    if (settled) (*settled)[i] = fails || passes;
  }
  return pass;
}

void TemporalFilterOperator::OnChunk(int, StreamChunk chunk) {
  const DataChunk& data = chunk.data();
  std::vector<uint8_t> settled;
  std::vector<uint8_t> pass = Evaluate(data, &settled);
  std::vector<std::vector<Value>> values = BoundValues(data);
  std::vector<uint32_t> out_rows;
  std::vector<Op> out_ops;
  for (size_t r = 0; r < data.num_rows(); r++) {
    std::string key;
    for (int c : stream_key_) EncodeKeyFromVector(data.column(c), r, &key);
    std::string storage_key = table_->KeyIn(0, key);
    if (IsInsertOp(chunk.ops()[r])) {
      if (!settled[r]) {  // else nothing to keep: its outcome is final
        Row row = data.GetRow(r);
        std::string v;
        EncodeRowValues(row, &v);
        table_->Put(std::move(storage_key), std::move(v));
        if (auto old = rows_.find(key); old != rows_.end()) Untrack(key, old->second);
        auto [it, fresh] = rows_.insert_or_assign(key, Entry{std::move(row), pass[r] != 0, std::move(values[r])});
        Track(key, it->second);
      }
      if (pass[r]) {
        out_rows.push_back(uint32_t(r));
        out_ops.push_back(Op::kInsert);
      }
    } else {
      auto it = rows_.find(key);
      if (it == rows_.end()) {
        // Not kept: settled, so it passed before exactly if it passes now.
        if (split_ && pass[r]) {
          out_rows.push_back(uint32_t(r));
          out_ops.push_back(Op::kDelete);
        }
        continue;
      }
      if (it->second.passes) {
        out_rows.push_back(uint32_t(r));
        out_ops.push_back(Op::kDelete);
      }
      Untrack(key, it->second);
      rows_.erase(it);
      table_->Delete(std::move(storage_key));
    }
  }
  if (!out_rows.empty()) Emit(StreamChunk(std::move(out_ops), data.Take(out_rows)));
}

void TemporalFilterOperator::OnBarrier(const Barrier& barrier) {
  // Changes arriving after this barrier see its time.
  const bool had_time = have_time_;
  eval_.statement_time = barrier.NowMicros();
  have_time_ = true;
  std::string t;
  EncodeRowValues({Value::Timestamptz(eval_.statement_time)}, &t);
  time_table_->Put(time_table_->KeyIn(0), std::move(t));
  std::vector<Rows::iterator> entries;
  if (had_time && !bounds_.empty() && ComputeBounds()) {
    // Only the rows whose value a bound passed.
    std::set<std::string> crossed;
    for (MovingBound& b : bounds_) {
      while (!b.waiting.empty() && b.Crossed(b.waiting.begin()->first)) {
        crossed.insert(b.waiting.begin()->second);
        b.waiting.erase(b.waiting.begin());
      }
    }
    for (const std::string& key : crossed) {
      if (auto it = rows_.find(key); it != rows_.end()) entries.push_back(it);
    }
    Reevaluate(entries);
    return;
  }
  // Every kept row; then each waits again for the bounds it has not crossed.
  for (auto it = rows_.begin(); it != rows_.end(); ++it) entries.push_back(it);
  Reevaluate(entries);
  if (!bounds_.empty() && ComputeBounds()) {
    for (MovingBound& b : bounds_) b.waiting.clear();
    for (const auto& [key, e] : rows_) Track(key, e);
  }
}

void TemporalFilterOperator::Reevaluate(const std::vector<Rows::iterator>& entries) {
  visited_at_last_barrier_ = entries.size();
  std::vector<Op> ops;
  DataChunk out(types_);
  std::vector<Rows::iterator> settled_entries;  // rows whose outcome is final: no longer kept
  for (size_t begin = 0; begin < entries.size(); begin += kChunkSize) {
    const size_t end = std::min(entries.size(), begin + kChunkSize);
    DataChunk batch(types_);
    for (size_t i = begin; i < end; i++) batch.AppendRow(entries[i]->second.row);
    std::vector<uint8_t> settled;
    std::vector<uint8_t> pass = Evaluate(batch, &settled);
    for (size_t i = begin; i < end; i++) {
      if (settled[i - begin]) settled_entries.push_back(entries[i]);
      bool now_passes = pass[i - begin] != 0;
      Entry& e = entries[i]->second;
      if (now_passes == e.passes) continue;
      e.passes = now_passes;
      ops.push_back(now_passes ? Op::kInsert : Op::kDelete);
      out.AppendRow(e.row);
      if (ops.size() >= kChunkSize) {
        Emit(StreamChunk(std::move(ops), std::move(out)));
        ops.clear();
        out = DataChunk(types_);
      }
    }
  }
  if (!ops.empty()) Emit(StreamChunk(std::move(ops), std::move(out)));
  for (Rows::iterator it : settled_entries) {
    Untrack(it->first, it->second);
    table_->Delete(table_->KeyIn(0, it->first));
    rows_.erase(it);
  }
}

}  // namespace freshet
