#include "stream/source.h"


#include <spdlog/spdlog.h>

#include <thread>

#include "common/encoding.h"
#include "common/error.h"

namespace freshet {

SourceOperator::SourceOperator(std::map<std::string, std::string> options, std::vector<SourceColumn> columns,
                               std::vector<DataType> output_types, int row_id_index, StateTableDesc offsets,
                               std::unique_ptr<WatermarkFilter> watermark, int level)
    : options_(std::move(options)), columns_(std::move(columns)), output_types_(std::move(output_types)),
      row_id_index_(row_id_index), offsets_desc_(std::move(offsets)), level_(level), watermark_(std::move(watermark)) {
  for (const auto& c : columns_) source_types_.push_back(c.type);
}

void SourceOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  offsets_ = ctx->NewStateTable(offsets_desc_);
  connector_ = SourceConnector::Create(options_, columns_);
  rows_per_second_ = connector_->rows_per_second();
  const std::vector<DataType> types = {DataType::Int32(), DataType::Int64(), DataType::Int64()};
  for (int s = ctx->actor_index; s < connector_->num_splits(); s += ctx->parallelism) {
    Split split;
    split.id = s;
    split.reader = connector_->OpenSplit(s);
    std::string key = offsets_->KeyIn(0);
    EncodeKeyValue(Value::Int32(s), &key);
    std::string value;
    Status st = offsets_->GetCommitted(key, &value);
    if (st.ok()) {
      Row row;
      if (!DecodeRow(value, types, &row)) throw SqlError(sqlstate::kDataCorrupted, "corrupt source offset");
      split.reader->Seek(row[1].int_value());
      split.rows = row[2].int_value();
    } else if (!st.IsNotFound()) {
      st.ThrowIfError();
    }
    splits_.push_back(std::move(split));
  }
  if (watermark_) {
    std::string value;
    Status st = offsets_->GetCommitted(WatermarkKey(), &value);
    if (st.ok()) {
      Row row;
      if (!DecodeRow(value, types, &row)) throw SqlError(sqlstate::kDataCorrupted, "corrupt source watermark");
      watermark_->set_watermark(Value::FromInt(output_types_[watermark_->column()], row[1].int_value()));
    } else if (!st.IsNotFound()) {
      st.ThrowIfError();
    }
  }
}

std::string SourceOperator::WatermarkKey() const {
  std::string key = offsets_->KeyIn(0);
  EncodeKeyValue(Value::Int32(-(ctx_->actor_index + 1)), &key);
  return key;
}

bool SourceOperator::HasWork() const {
  if (!started_) return false;
  for (const auto& s : splits_)
    if (!s.exhausted) return true;
  return false;
}

void SourceOperator::DoWork() {
  size_t budget = kChunkSize;
  if (rows_per_second_ > 0) {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - rate_start_).count();
    double allowed = elapsed * rows_per_second_ * double(splits_.size()) - double(rows_since_start_);
    if (allowed < 1) {
      // Wait a little; the actor checks its inbox between steps.
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      return;
    }
    budget = std::min(budget, size_t(allowed));
  }
  for (size_t tries = 0; tries < splits_.size(); tries++) {
    Split& s = splits_[next_split_];
    next_split_ = (next_split_ + 1) % splits_.size();
    if (s.exhausted) continue;
    DataChunk rows(source_types_);
    if (!s.reader->Next(&rows, budget)) {
      s.exhausted = true;
      continue;
    }
    const size_t n = rows.num_rows();
    DataChunk out;
    size_t src = 0;
    for (size_t c = 0; c < output_types_.size(); c++) {
      if (int(c) == row_id_index_) {
        Vector ids(DataType::Int64());
        ids.Reserve(n);
        for (size_t r = 0; r < n; r++) ids.AppendInt((int64_t(s.id) << 40) | (s.rows + int64_t(r)));
        out.AddColumn(std::move(ids));
      } else {
        out.AddColumn(std::move(rows.column(src++)));
      }
    }
    out.set_cardinality(n);
    s.rows += int64_t(n);
    s.dirty = true;
    rows_since_start_ += int64_t(n);
    if (watermark_) {
      size_t late = 0;
      const Value before = watermark_->watermark();
      std::vector<uint8_t> on_time = watermark_->Filter(out, &late);
      watermark_dirty_ |= Value::Compare(before, watermark_->watermark()) != 0;
      if (late) {
        late_rows_ += int64_t(late);
        out.Filter(on_time);
      }
    }
    Emit(StreamChunk(std::vector<Op>(out.num_rows(), Op::kInsert), std::move(out)));
    return;
  }
}

void SourceOperator::OnBarrier(const Barrier&) {
  if (!started_ && (level_ == 0 || ctx_->services->BackfillLevelReady(level_))) {
    started_ = true;
    rate_start_ = std::chrono::steady_clock::now();
  }
  for (auto& s : splits_) {
    if (!s.dirty) continue;
    s.dirty = false;
    std::string key = offsets_->KeyIn(0);
    EncodeKeyValue(Value::Int32(s.id), &key);
    Row row = {Value::Int32(s.id), Value::Int64(s.reader->offset()), Value::Int64(s.rows)};
    std::string value;
    EncodeRowValues(row, &value);
    offsets_->Put(std::move(key), std::move(value));
  }
  if (watermark_ && splits_.empty()) {
    // An actor that reads no split sends no row at all: its watermark is
    // the greatest value, so that it holds no other actor's back.
    EmitWatermarks({{watermark_->column(), GreatestWatermark(output_types_[watermark_->column()])}});
  } else if (watermark_ && !watermark_->watermark().is_null()) {
    if (watermark_dirty_) {
      watermark_dirty_ = false;
      Row row = {Value::Int32(-(ctx_->actor_index + 1)), Value::Int64(watermark_->watermark().int_value()), Value::Int64(0)};
      std::string value;
      EncodeRowValues(row, &value);
      offsets_->Put(WatermarkKey(), std::move(value));
    }
    EmitWatermarks({{watermark_->column(), watermark_->watermark()}});
  }
}

}  // namespace freshet
