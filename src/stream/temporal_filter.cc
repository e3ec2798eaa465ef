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
      split_(SplitTemporalCondition(*predicate_)) {}

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
  for (size_t i = 0; i < keys.size(); i++) rows_[keys[i]] = Entry{all.GetRow(i), pass[i] != 0};
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
        rows_[key] = Entry{std::move(row), pass[r] != 0};
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
      rows_.erase(it);
      table_->Delete(std::move(storage_key));
    }
  }
  if (!out_rows.empty()) Emit(StreamChunk(std::move(out_ops), data.Take(out_rows)));
}

void TemporalFilterOperator::OnBarrier(const Barrier& barrier) {
  // Changes arriving after this barrier see its time.
  eval_.statement_time = barrier.NowMicros();
  have_time_ = true;
  std::string t;
  EncodeRowValues({Value::Timestamptz(eval_.statement_time)}, &t);
  time_table_->Put(time_table_->KeyIn(0), std::move(t));
  // Every kept row, at the new time, a chunk at a time.
  std::vector<Op> ops;
  DataChunk out(types_);
  auto it = rows_.begin();
  std::vector<std::string> settled_keys;  // rows whose outcome is final: no longer kept
  while (it != rows_.end()) {
    DataChunk batch(types_);
    std::vector<std::map<std::string, Entry>::iterator> entries;
    for (; it != rows_.end() && entries.size() < kChunkSize; ++it) {
      batch.AppendRow(it->second.row);
      entries.push_back(it);
    }
    std::vector<uint8_t> settled;
    std::vector<uint8_t> pass = Evaluate(batch, &settled);
    for (size_t i = 0; i < entries.size(); i++) {
      if (settled[i]) settled_keys.push_back(entries[i]->first);
      bool now_passes = pass[i] != 0;
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
  for (const std::string& key : settled_keys) {
    rows_.erase(key);
    table_->Delete(table_->KeyIn(0, key));
  }
}

}  // namespace freshet
