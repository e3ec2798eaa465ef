#include "loader/copy_loader.h"

#include <fmt/format.h>

#include "batch/dml.h"
#include "common/error.h"
#include "expr/cast.h"
#include "pgproto/pg_binary.h"
#include "pgproto/utf8_check.h"
#include "storage/state_store.h"
#include "storage/table_engines.h"
#include "storage/state_table.h"

namespace freshet {

namespace {
// Blocks handed to the workers; a block of this size holds some ten
// thousand typical rows.
constexpr size_t kBlockBytes = 1 << 20;
}  // namespace

CopyRowBuilder::CopyRowBuilder(TableRef table, std::vector<int> targets, const EvalContext& eval,
                               const std::vector<ExprPtr>* defaults)
    : table_(std::move(table)), targets_(std::move(targets)), eval_(eval) {
  slot_of_.assign(table_->columns.size(), -1);
  for (size_t k = 0; k < targets_.size(); k++) slot_of_[targets_[k]] = static_cast<int>(k);
  for (size_t i = 0; i < table_->columns.size(); i++)
    if (!table_->columns[i].hidden) {
      visible_.push_back(static_cast<int>(i));
      visible_types_.push_back(table_->columns[i].type);
      // A copy of its own: expressions are evaluated by one thread each.
      bool has = defaults && i < defaults->size() && (*defaults)[i] && slot_of_[i] < 0;
      defaults_.push_back(has ? (*defaults)[i]->Clone() : nullptr);
    }
  chunk_ = DataChunk(visible_types_);
}

template <typename Append>
void CopyRowBuilder::AddFields(const std::vector<CopyField>& fields, int64_t line_no, bool show_text, Append append) {
  if (fields.size() != targets_.size()) {
    if (fields.size() < targets_.size())
      throw SqlError(sqlstate::kBadCopyFileFormat,
                     fmt::format("missing data for column \"{}\"", table_->columns[targets_[fields.size()]].name))
          .WithDetail(fmt::format("COPY {}, line {}", table_->name, line_no));
    throw SqlError(sqlstate::kBadCopyFileFormat, "extra data after last expected column")
        .WithDetail(fmt::format("COPY {}, line {}", table_->name, line_no));
  }
  for (size_t v = 0; v < visible_.size(); v++) {
    int slot = slot_of_[visible_[v]];
    if (slot < 0 || fields[slot].null) {
      chunk_.column(v).AppendNull();
      continue;
    }
    try {
      append(fields[slot].text, visible_types_[v], &chunk_.column(v));
    } catch (SqlError& e) {
      // The text of a field is shown; binary bytes are not (as PostgreSQL).
      std::string where = fmt::format("COPY {}, line {}, column {}", table_->name, line_no,
                                      table_->columns[visible_[v]].name);
      e.WithDetail(show_text ? fmt::format("{}: \"{}\"", where, fields[slot].text) : where);
      throw;
    }
  }
  chunk_.set_cardinality(chunk_.num_rows());
}

void CopyRowBuilder::Add(const std::vector<CopyField>& fields, int64_t line_no) {
  AddFields(fields, line_no, /*show_text=*/true, [&](std::string_view text, const DataType& type, Vector* out) {
    AppendParsedText(text, type, eval_, out);
  });
}

void CopyRowBuilder::AddBinary(const std::vector<CopyField>& fields, int64_t line_no) {
  if (fields.size() != targets_.size())
    throw SqlError(sqlstate::kBadCopyFileFormat,
                   fmt::format("row field count is {}, expected {}", fields.size(), targets_.size()))
        .WithDetail(fmt::format("COPY {}, line {}", table_->name, line_no));
  AddFields(fields, line_no, /*show_text=*/false, [](std::string_view bytes, const DataType& type, Vector* out) {
    out->Append(DecodeBinaryParam(std::string(bytes), type));
  });
}

DataChunk CopyRowBuilder::Take() {
  DataChunk out = std::move(chunk_);
  chunk_ = DataChunk(visible_types_);
  // Columns left out were filled with NULLs; those with a DEFAULT get it,
  // evaluated for each row (as INSERT does: volatile defaults differ).
  DataChunk no_columns;
  no_columns.set_cardinality(out.num_rows());
  for (size_t v = 0; v < defaults_.size(); v++)
    if (defaults_[v]) out.column(v) = defaults_[v]->Eval(no_columns, eval_);
  return out;
}

ParallelCopyLoader::ParallelCopyLoader(TableRef table, std::vector<int> targets, std::vector<ExprPtr> defaults,
                                       CopyFormat format, const EvalContext& eval, StateStore* store,
                                       const std::atomic<bool>* cancel, int workers)
    : table_(std::move(table)),
      targets_(std::move(targets)),
      defaults_(std::move(defaults)),
      format_(format),
      eval_(eval),
      store_(store),
      cancel_(cancel),
      max_workers_(static_cast<size_t>(std::max(1, workers))),
      splitter_(std::move(format)) {
  load_ = store_->engines().For(table_->id).NewBulkRows(table_->id, table_->row_id_index,
                                                         table_->StorageDesc().dist_key_indices);
}

ParallelCopyLoader::~ParallelCopyLoader() { StopWorkers(); }

std::unique_ptr<BulkRows> ParallelCopyLoader::NewStaging() const {
  return std::make_unique<BulkRows>(table_->id, table_->row_id_index, table_->StorageDesc().dist_key_indices);
}

std::unique_ptr<CopyRowEncoder> ParallelCopyLoader::NewEncoder() const {
  // Encoded rows are placed by their row id alone (BulkRows::AddEncoded).
  if (table_->StorageDesc().dist_key_indices != std::vector<int>{table_->row_id_index}) return nullptr;
  return CopyRowEncoder::For(*table_, targets_);
}

void ParallelCopyLoader::StopWorkers() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
    queue_.clear();
  }
  cv_.notify_all();
  for (auto& w : workers_)
    if (w->thread.joinable()) w->thread.join();
}

void ParallelCopyLoader::Append(std::string_view data) {
  splitter_.Append(data);
  Dispatch(false);
  RethrowFirstError();
}

std::string ParallelCopyLoader::TakeSpareBlock() {
  std::lock_guard lock(mu_);
  if (spare_blocks_.empty()) return {};
  std::string data = std::move(spare_blocks_.back());
  spare_blocks_.pop_back();
  data.clear();
  return data;
}

void ParallelCopyLoader::ReturnSpareBlock(std::string data) {
  std::lock_guard lock(mu_);
  spare_blocks_.push_back(std::move(data));
}

bool ParallelCopyLoader::NextBlock(bool final, Block* block) {
  // Most calls come with a received message, before a block is complete:
  // no spare block is taken for them.
  if (!final && splitter_.pending() < kBlockBytes) return false;
  try {
    // The splitter swaps its pending data out for block->data and goes on
    // filling that: a spare block's memory.
    block->data = TakeSpareBlock();
    if (!splitter_.Next(final, final && workers_.empty() ? 0 : kBlockBytes, &block->data, &block->first_record)) {
      ReturnSpareBlock(std::move(block->data));
      return false;
    }
    // Ids in block order: each block's rows follow the previous block's.
    block->row_ids = ReserveRowIds(static_cast<size_t>(splitter_.records() - block->first_record));
    return true;
  } catch (...) {
    // Bad data found while cutting (an unterminated quote): it comes after
    // every block handed out, whose errors come first.
    Fail(next_block_, std::current_exception());
    RethrowFirstError();
    throw;
  }
}

void ParallelCopyLoader::Dispatch(bool final) {
  Block block;
  while (NextBlock(final, &block)) {
    block.index = next_block_++;
    std::unique_lock lock(mu_);
    if (workers_.size() < max_workers_) {
      // Started on demand: a small COPY never starts a thread.
      auto w = std::make_unique<Worker>();
      w->staged = NewStaging();
      w->encoder = NewEncoder();
      Worker* raw = w.get();
      w->thread = std::thread([this, raw] { Work(raw); });
      workers_.push_back(std::move(w));
    }
    cv_.wait(lock, [&] { return queue_.size() < 2 * max_workers_; });
    queue_.push_back(std::move(block));
    cv_.notify_all();
    block = Block();
  }
}

void ParallelCopyLoader::Work(Worker* worker) {
  CopyRowBuilder rows(table_, targets_, eval_, &defaults_);
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return !queue_.empty() || closing_; });
    if (queue_.empty()) return;
    Block block = std::move(queue_.front());
    queue_.pop_front();
    busy_++;
    cv_.notify_all();
    lock.unlock();
    // Blocks after a failed one are not parsed: the error of the earliest
    // line wins, and the COPY is lost anyway.
    if (block.index < first_failed_.load()) {
      size_t index = block.index;
      try {
        Parse(std::move(block), &rows, worker);
      } catch (...) {
        worker->staged->Clear();
        Fail(index, std::current_exception());
      }
    }
    block = Block();  // freed outside the lock
    lock.lock();
    busy_--;
    cv_.notify_all();
  }
}

bool ParallelCopyLoader::ParseDirect(Block* block, Worker* worker) {
  CopyRecordReader reader(format_);
  reader.Append(std::move(block->data));
  std::vector<CopyField> fields;
  std::string_view row;
  int64_t line = block->first_record;
  size_t ids_used = 0;
  bool refused = false;
  try {
    while (reader.Next(true, &fields)) {
      line++;
      if (IsHeaderRecord(format_, line, fields, table_->name)) continue;
      if (ids_used >= block->row_ids.count) throw SqlError(sqlstate::kInternalError, "row ids run out");
      int64_t row_id;
      block->row_ids.Fill(ids_used++, 1, &row_id);
      if (!worker->encoder->Encode(fields, row_id, &row)) {
        refused = true;
        break;
      }
      worker->staged->AddEncoded(row_id, row);
      if (ids_used % kChunkSize == 0 && cancel_->load())
        throw SqlError(sqlstate::kQueryCanceled, "canceling statement due to user request");
    }
  } catch (const SqlError& e) {
    if (e.code() == sqlstate::kQueryCanceled || e.code() == sqlstate::kInternalError) throw;
    refused = true;
  }
  if (refused) {
    worker->staged->Clear();
    block->data = reader.TakeBuffer();
    return false;
  }
  worker->count += static_cast<int64_t>(ids_used);
  ReturnSpareBlock(reader.TakeBuffer());
  return true;
}

void ParallelCopyLoader::Parse(Block block, CopyRowBuilder* rows, Worker* worker) {
  if (worker->encoder && ParseDirect(&block, worker)) {
    Submit(block.index, &worker->staged);
    return;
  }
  CopyRecordReader reader(format_);
  reader.Append(std::move(block.data));
  std::vector<CopyField> fields;
  int64_t line = block.first_record;
  size_t ids_used = 0;
  auto flush = [&] {
    size_t n = rows->rows();
    worker->count += static_cast<int64_t>(n);
    worker->staged->Add(PrepareInsertRows(*table_, rows->Take(), block.row_ids, ids_used));
    ids_used += n;
  };
  // Bad UTF-8 is found by the reader, before the record is counted.
  auto next = [&] {
    try {
      return reader.Next(true, &fields);
    } catch (SqlError& e) {
      if (e.code() == kCharacterNotInRepertoire) e.WithDetail(fmt::format("COPY {}, line {}", table_->name, line + 1));
      throw;
    }
  };
  try {
    while (next()) {
      line++;
      if (IsHeaderRecord(format_, line, fields, table_->name)) continue;
      rows->Add(fields, line);
      if (rows->rows() >= kChunkSize) {
        flush();
        if (cancel_->load()) throw SqlError(sqlstate::kQueryCanceled, "canceling statement due to user request");
      }
    }
    // Each block's rows are added before the next block: an error (say a
    // NOT NULL violation) belongs to this block.
    if (rows->rows()) flush();
  } catch (...) {
    rows->Take();  // the rest of the failed block
    throw;
  }
  ReturnSpareBlock(reader.TakeBuffer());
  Submit(block.index, &worker->staged);
}

void ParallelCopyLoader::Submit(size_t index, std::unique_ptr<BulkRows>* staged) {
  std::unique_lock lock(mu_);
  ready_.emplace(index, ReadyBlock{std::move(*staged), lanes()});
  if (spare_.empty()) {
    *staged = NewStaging();
  } else {
    *staged = std::move(spare_.back());
    spare_.pop_back();
  }
  AppendTask task;
  while (NextAppendTask(&task)) {
    BulkRows* rows = ready_.at(task.block).rows.get();
    lock.unlock();
    std::exception_ptr error;
    try {
      if (task.lane < 0) {
        load_->Append(*rows);
      } else {
        int n = static_cast<int>(lanes());
        load_->AppendVnodes(*rows, task.lane * kVnodeCount / n, (task.lane + 1) * kVnodeCount / n);
      }
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    EndAppendTask(task);
    cv_.notify_all();
    if (error) {
      lock.unlock();
      Fail(task.block, error);
      return;
    }
  }
  // Backpressure: blocks wait here for one that is slower to parse or to
  // append; parsing on would only hold more of them in memory. (The block
  // they wait for is in a worker that has not submitted it, so not here.)
  cv_.wait(lock, [&] { return ready_.size() <= 4 * max_workers_ || closing_ || first_failed_.load() != SIZE_MAX; });
}

bool ParallelCopyLoader::NextAppendTask(AppendTask* task) {
  if (closing_) return false;
  if (lane_next_.empty()) lane_next_.assign(lanes(), {0, false});
  for (size_t l = 0; l < lane_next_.size(); l++) {
    auto [block, busy] = lane_next_[l];
    if (busy || block >= first_failed_.load() || !ready_.count(block)) continue;
    if (load_in_memory_) {
      // The whole block by one thread, once every lane is done with the
      // one before (the load's memory is not shared).
      for (const auto& [other, other_busy] : lane_next_)
        if (other_busy || other != block) return false;
      for (auto& lane : lane_next_) lane.second = true;
      *task = {block, -1};
      return true;
    }
    lane_next_[l].second = true;
    *task = {block, static_cast<int>(l)};
    return true;
  }
  return false;
}

void ParallelCopyLoader::EndAppendTask(const AppendTask& task) {
  ReadyBlock& ready = ready_.at(task.block);
  if (task.lane < 0) {
    for (auto& lane : lane_next_) lane = {task.block + 1, false};
    ready.lanes_left = 0;
    load_in_memory_ = !load_->spilled();
  } else {
    lane_next_[task.lane] = {task.block + 1, false};
    ready.lanes_left--;
  }
  if (ready.lanes_left == 0) {
    ready.rows->Clear();
    spare_.push_back(std::move(ready.rows));
    ready_.erase(task.block);
  }
}

void ParallelCopyLoader::Fail(size_t block, std::exception_ptr error) {
  std::lock_guard lock(mu_);
  errors_.emplace(block, error);
  size_t first = first_failed_.load();
  while (block < first && !first_failed_.compare_exchange_weak(first, block)) {
  }
}

void ParallelCopyLoader::RethrowFirstError() {
  size_t failed = first_failed_.load();
  if (failed == SIZE_MAX) return;
  // An earlier block may still be parsing: its error would come first.
  std::exception_ptr error;
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return busy_ == 0 && (queue_.empty() || queue_.front().index > first_failed_.load()); });
    error = errors_.begin()->second;
  }
  StopWorkers();
  std::rethrow_exception(error);
}

std::shared_ptr<const BulkRows> ParallelCopyLoader::Finish(int64_t* rows) {
  *rows = 0;
  if (workers_.empty()) {
    // All of it fits in one block: parsed here, no thread started.
    Block block;
    if (!NextBlock(true, &block)) {
      if (splitter_.records() == 0) CheckCopyHeaderOfNoData(format_, table_->name);
      return nullptr;
    }
    block.index = next_block_++;
    Worker inline_worker;
    inline_worker.staged = NewStaging();
    inline_worker.encoder = NewEncoder();
    CopyRowBuilder builder(table_, targets_, eval_, &defaults_);
    Parse(std::move(block), &builder, &inline_worker);
    *rows = inline_worker.count;
  } else {
    Dispatch(true);
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return (queue_.empty() && busy_ == 0) || first_failed_.load() != SIZE_MAX; });
    }
    RethrowFirstError();
    StopWorkers();
    for (auto& w : workers_) *rows += w->count;
  }
  load_->Finish();
  if (load_->size() == 0) return nullptr;
  return load_;
}

}  // namespace freshet
