// HashJoin: an incremental equi-join (inner, left, right or full outer,
// semi or anti), with an optional extra condition over the joined row.
//
// Both inputs arrive hashed on the join key, so matching rows meet in one
// actor. Each side keeps its rows, grouped by join key, in memory and in
// its state table (key: join key, then the side's stream key); a row of
// one side is joined with the other side's rows of the same key that
// satisfy the condition. For outer joins each row of a preserved side also
// keeps its degree (how many rows of the other side it matches), so that it
// is emitted padded with NULLs exactly while it matches nothing. Without
// join keys every row has the same (empty) key: a nested-loop join on one
// actor.
//
// Output: left columns then right columns (semi and anti joins: the left
// columns; a left row is passed on while it has a match, or none, as its
// degree says). Update pairs are emitted as a Delete and an Insert (their
// matches may differ).
//
// Rows kept in memory are in the row encoding (common/encoding.h), a
// fifth of the size of a Row of Values, and decoded only when they match:
// a Nexmark bid is ~150 bytes instead of ~1 KB. Join keys are cached within
// the process's state cache budget (state_cache.h): the least recently used keys of
// either side whose rows and degrees are committed are dropped at a
// barrier, and loaded again from the side's state table on their next use.
//
// A row's own side is only written when it arrives (its matches come from
// the other side): when its key's bucket is not in memory, the row goes to
// the state table without loading the bucket (which may hold hundreds of
// rows: lineitems by part or supplier), as RisingWave's join does. Those
// writes are also kept aside until their epoch commits, so that a load of
// the bucket before then (a committed read) sees them.
//
// A side with few rows (a filtered dimension table: TPC-H Q17's parts of
// one brand) is held whole: at Open when its stored rows are few, from the
// start for a new job, until it grows past kWholeSideRows or a key of it is
// evicted. A key missing from a whole side has no rows, so a row of the
// other side that finds none costs no read of the state table (otherwise
// every such key is looked up in storage once, then cached as empty).
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <unordered_map>

#include "planner/plan.h"
#include "planner/stream_plan.h"
#include "stream/operator.h"
#include "stream/state_cache.h"

namespace freshet {

class HashJoinOperator : public StreamOperator {
 public:
  struct Side {
    std::vector<int> keys;        // join key columns of this side
    std::vector<int> stream_key;  // columns identifying a row of this side
    std::vector<DataType> types;
    StateTableDesc table;         // rows + degree
  };
  // `cleanings`: rows a watermark expires (interval joins, planner's
  // DeriveJoinStateCleaning). Each side's rows they may expire are indexed
  // by key in memory (all of them, loaded at Open: the state they bound);
  // at a barrier whose watermark passes a row's bound the row leaves the
  // state table and the bucket.
  // `process_time`: a process-time temporal join (StreamHashJoinNode::
  // process_time; kInner or kLeft): right rows are kept and emit nothing,
  // left rows are joined with them as they come. An append-only left's rows
  // are not kept; a retractable left's (`keep_left`) are, each with the
  // right rows it was joined with, so that its delete retracts exactly the
  // rows its insert emitted (RisingWave's non-append-only temporal join).
  // A side with at most this many rows (per actor) is held whole.
  static constexpr size_t kWholeSideRows = 20000;
  HashJoinOperator(JoinType type, Side left, Side right, ExprPtr condition, EvalContext eval,
                   std::vector<JoinStateCleaning> cleanings = {}, bool process_time = false, bool keep_left = false);
  std::string Name() const override { return "HashJoin"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int input, StreamChunk chunk) override;
  void OnBarrier(const Barrier& barrier) override;
  // A join key whose columns on both sides have watermarks has the lesser
  // of them in the output (in its left column, and its right one when the
  // output has the right's columns): a new output row comes from a new row
  // of one side, with that side's key. Other columns have none: a new row
  // joins old rows of the other side.
  void OnWatermarks(int input, const std::vector<Watermark>& watermarks) override { watermarks_[input] = watermarks; }

 private:
  struct Entry {
    std::string cells;  // the row, encoded (EncodeRow)
    int64_t degree = 0;
    // A temporal join's kept left row: the cells of the right rows it was
    // joined with (`degree` of them, one after another).
    std::string matches;
  };
  // One side of an output row: a row of an input chunk, an entry's cells,
  // or nothing (NULLs: the padding of outer joins).
  struct RowRef {
    const DataChunk* chunk = nullptr;
    size_t row = 0;
    const std::string* cells = nullptr;
  };
  struct Bucket {
    uint16_t vnode = 0;
    bool written_now = false;  // written in the current epoch
    Epoch written = 0;         // the last epoch that wrote it
    size_t bytes = 0;          // estimated memory
    std::map<std::string, Entry> rows;  // by encoded stream key
    LruOrder<std::string>::Handle lru;
  };
  Bucket& BucketOf(int side, const std::string& key, uint16_t vnode);
  // The other side's bucket for a probe: a shared empty one for a key a
  // whole side does not have.
  Bucket& ProbeBucket(int side, const std::string& key, uint16_t vnode);
  // A stored row (its value: cells, degree, matches) into a bucket.
  void AddStored(int side, Bucket& b, std::string sk, std::string_view value);
  // At Open: each side whose stored rows are at most kWholeSideRows,
  // loaded whole.
  void LoadWholeSides();
  // A row's own side written without its bucket in memory (see the top).
  void WriteUnloaded(int side, const std::string& key, uint16_t vnode, const std::string& sk, std::optional<Entry> e);
  // Records that the bucket was written in the current epoch (a bucket
  // may be dropped only once its writes are committed).
  void Written(Bucket& b);
  // Estimated memory of a row kept in a bucket.
  static size_t EntryBytes(const std::string& sk, const Entry& e);
  void Evict();
  void SaveEntry(int side, const std::string& join_key, uint16_t vnode, const std::string& sk, const Entry& e);
  void EmitRow(Op op, RowRef left, RowRef right);
  // Appends one side's columns of `ref` to `out` from column `first` on.
  void AppendSide(int side, RowRef ref, DataChunk* out, size_t first) const;
  void FlushOutput();
  bool filtering() const { return type_ == JoinType::kSemi || type_ == JoinType::kAnti; }

  struct Cleaning {
    JoinStateCleaning spec;
    struct Row {
      std::string join_key, sk;
      uint16_t vnode;
    };
    std::multimap<Value, Row, bool (*)(const Value&, const Value&)> index{
        [](const Value& a, const Value& b) { return Value::Compare(a, b) < 0; }};
  };
  // At Open: every stored row of a side some cleaning expires, indexed.
  void LoadCleaningIndexes();
  // At a barrier: the rows the watermarks expire leave the state.
  void Clean();

  JoinType type_;
  bool process_time_;
  bool keep_left_;
  Side sides_[2];
  std::vector<Cleaning> cleanings_;
  std::vector<Watermark> watermarks_[2];  // of each input, for the barrier being handled
  ExprPtr condition_;
  EvalContext eval_;
  std::shared_ptr<StateTable> tables_[2];
  std::unordered_map<std::string, Bucket> buckets_[2];
  bool whole_[2] = {false, false};  // every row of the side is in buckets_
  size_t whole_rows_[2] = {0, 0};   // their count, while whole
  Bucket empty_bucket_;
  LruOrder<std::string> lru_[2];
  std::vector<Bucket*> written_;  // buckets written in the current epoch
  // Rows written to buckets not in memory, by side and join key (nullopt:
  // deleted), until their epoch commits; `unloaded_epochs_` lists the keys
  // each epoch wrote, oldest first (a key's entry goes once its last
  // writing epoch is committed).
  struct UnloadedWrites {
    std::map<std::string, std::optional<Entry>> rows;  // by stream key
    Epoch written = 0;  // 0: in the current epoch
  };
  std::unordered_map<std::string, UnloadedWrites> unloaded_[2];
  std::vector<std::pair<int, std::string>> unloaded_now_;
  std::deque<std::pair<Epoch, std::vector<std::pair<int, std::string>>>> unloaded_epochs_;
  size_t bytes_ = 0;
  StateCacheShare share_;
  std::vector<DataType> pair_types_;    // left ++ right: what the condition reads
  std::vector<DataType> output_types_;
  std::vector<Op> out_ops_;
  DataChunk out_;
};

}  // namespace freshet
