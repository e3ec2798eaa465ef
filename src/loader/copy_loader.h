// COPY FROM: turning records into rows of a table (CopyRowBuilder), and
// bulk loads parsed by several threads (ParallelCopyLoader).
//
// A bulk load (a table keyed by a generated row id, outside a transaction
// block; see HandleCopy in frontend/handler/copy.cc) is cut into blocks of
// whole records by the session thread, which also takes each block's row ids, so that ids grow
// with the block order. Worker threads parse and encode blocks into a
// staging BulkRows each, so parsing and encoding use every core; staged
// blocks are appended in block order to the load's one BulkRows by
// whichever worker finds a block's turn has come (it goes on with the
// blocks that are ready after it, while the other workers parse on): the
// load's rows stay in key order without a merge. A load past the spill
// size (bulk_rows.h) writes its rows into SST files while the data still
// arrives; from then on a block is appended in lanes (ranges of vnodes),
// so that several workers build the files at once. Block buffers and
// staging areas are reused, so the fresh memory a load touches is the
// load itself. Errors come out as a sequential COPY would give them: the
// one of the earliest line.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "catalog/catalog.h"
#include "common/data_chunk.h"
#include "expr/eval_context.h"
#include "expr/expression.h"
#include "pgproto/copy_format.h"
#include "loader/copy_row_encoder.h"
#include "storage/bulk_rows.h"
#include "storage/row_id.h"

namespace freshet {

class StateStore;

// Appends COPY records as rows of the table's visible columns; columns not
// among `targets` get their default: `defaults` holds, by table column,
// the expression of each column left out that has a DEFAULT (null
// otherwise, and then the column is NULL), evaluated per chunk.
class CopyRowBuilder {
 public:
  CopyRowBuilder(TableRef table, std::vector<int> targets, const EvalContext& eval,
                 const std::vector<ExprPtr>* defaults = nullptr);
  // Appends a record (line `line_no` of the data). Throws 22P04 for a wrong
  // number of fields and the type's error for a bad value, with the line
  // and column in the DETAIL.
  void Add(const std::vector<CopyField>& fields, int64_t line_no);
  // The same for a tuple of the binary format (fields in the types' binary
  // forms, pg_binary.h; 22P03 for malformed ones).
  void AddBinary(const std::vector<CopyField>& fields, int64_t line_no);
  size_t rows() const { return chunk_.num_rows(); }
  DataChunk Take();

 private:
  template <typename Append>
  void AddFields(const std::vector<CopyField>& fields, int64_t line_no, bool show_text, Append append);
  TableRef table_;
  std::vector<int> targets_, visible_, slot_of_;
  std::vector<DataType> visible_types_;
  std::vector<ExprPtr> defaults_;  // by visible column
  EvalContext eval_;
  DataChunk chunk_;
};

class ParallelCopyLoader {
 public:
  // `defaults` as for CopyRowBuilder.
  ParallelCopyLoader(TableRef table, std::vector<int> targets, std::vector<ExprPtr> defaults, CopyFormat format,
                     const EvalContext& eval, StateStore* store, const std::atomic<bool>* cancel, int workers);
  // Stops the workers (a failed or cancelled COPY).
  ~ParallelCopyLoader();
  ParallelCopyLoader(const ParallelCopyLoader&) = delete;
  ParallelCopyLoader& operator=(const ParallelCopyLoader&) = delete;

  // Data from the client; throws the first error found so far.
  void Append(std::string_view data);
  // Whether the data's end marker was seen (what follows is ignored).
  bool ended() const { return splitter_.ended(); }
  // After the last data: waits for every block, then returns the load (null
  // if empty) and sets *rows; throws the error of the earliest line, if any.
  std::shared_ptr<const BulkRows> Finish(int64_t* rows);

 private:
  struct Block {
    size_t index = 0;
    int64_t first_record = 0;
    std::string data;
    RowIdRun row_ids;  // one per record
  };
  struct Worker {
    std::unique_ptr<BulkRows> staged;  // the rows of the block in hand
    std::unique_ptr<CopyRowEncoder> encoder;  // the fast path, if it applies
    int64_t count = 0;
    std::thread thread;
  };
  // The next block of the splitter; a cutting error is reported in order.
  bool NextBlock(bool final, Block* block);
  void Dispatch(bool final);
  void Work(Worker* worker);
  // Parses a block into `rows`, adding full chunks to the worker's staging
  // rows, then appends those to the load in its turn.
  void Parse(Block block, CopyRowBuilder* rows, Worker* worker);
  // Parses a block with the worker's CopyRowEncoder into its staging rows.
  // Returns false, with the block's data back in place and the staging
  // rows empty, if the encoder refused a record or a value did not parse:
  // the block then goes the general way, which reports the error.
  bool ParseDirect(Block* block, Worker* worker);
  // Hands the staged rows of block `index` over to be appended in block
  // order (appending them and the blocks ready after them if it is their
  // turn and nobody is appending), and gives the worker an empty staging
  // area. Waits while too many blocks are waiting for their turn.
  void Submit(size_t index, std::unique_ptr<BulkRows>* staged);
  // Appending is split into lanes, each a range of vnodes appended block
  // after block, so that workers build the load's files at once (lanes
  // are used once the load has spilled; before, a block is appended whole
  // by one worker).
  size_t lanes() const { return 2 * max_workers_; }
  struct AppendTask {
    size_t block = 0;
    int lane = -1;  // -1: the whole block
  };
  // Under mu_: claims a task that may start now, if any.
  bool NextAppendTask(AppendTask* task);
  // Under mu_: records a finished (or failed) task; frees a block that
  // every lane is done with.
  void EndAppendTask(const AppendTask& task);
  void Fail(size_t block, std::exception_ptr error);
  void RethrowFirstError();
  void StopWorkers();
  std::unique_ptr<BulkRows> NewStaging() const;
  std::unique_ptr<CopyRowEncoder> NewEncoder() const;
  // Block buffers are reused: 600 MB of data through fresh 1 MB buffers
  // would be that much memory the kernel has to fault in and zero.
  std::string TakeSpareBlock();
  void ReturnSpareBlock(std::string data);

  TableRef table_;
  std::vector<int> targets_;
  std::vector<ExprPtr> defaults_;
  CopyFormat format_;
  EvalContext eval_;
  StateStore* store_;
  const std::atomic<bool>* cancel_;
  size_t max_workers_;
  CopyBlockSplitter splitter_;
  size_t next_block_ = 0;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::shared_ptr<BulkRows> load_;  // appended to by the lanes' workers

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Block> queue_;
  size_t busy_ = 0;  // workers parsing a block
  // Per lane: the block whose turn it is, and whether a worker is on it.
  std::vector<std::pair<size_t, bool>> lane_next_;
  bool load_in_memory_ = true;  // load_ has not spilled
  struct ReadyBlock {
    std::unique_ptr<BulkRows> rows;
    size_t lanes_left = 0;  // lanes yet to append it
  };
  std::map<size_t, ReadyBlock> ready_;  // staged blocks waiting for their turn
  std::vector<std::unique_ptr<BulkRows>> spare_;       // emptied staging areas
  std::vector<std::string> spare_blocks_;
  bool closing_ = false;
  std::map<size_t, std::exception_ptr> errors_;  // by block
  std::atomic<size_t> first_failed_{SIZE_MAX};
};

}  // namespace freshet
