// AsOfJoin: an incremental as-of join (ASOF [LEFT] JOIN; planner/plan.h
// JoinNode::asof): each left row is joined with at most one right row of
// its join key, the nearest by the compared values: among the right rows
// that pass the condition, the one whose value is the greatest (the
// condition says left >= right or left > right) or else the least.
//
// Both inputs arrive hashed on the join key. Each side keeps its rows by
// join key, ordered by the compared value then the stream key, in memory
// (a key's rows are loaded from the side's state table at its first use and
// kept) and in its state table (key: vnode, join key, value, stream key;
// value: the row's cells). Rows whose join key or value is NULL match
// nothing and are not kept (a LEFT join pads them as they come and go).
//
// A left row's change emits the row with its nearest right row (an insert
// or a delete); a right row's change recomputes the left rows it may
// affect: those whose value lies between the right values next to the
// changed one (all of the key's left rows when the condition has more than
// the comparison), each compared before and after the change, and emits a
// delete of the old output row and an insert of the new one where they
// differ. Ties (right rows of one value) go to the least stream key, for
// the greatest as for the least.
//
// Keys in memory are a cache of the state tables within the process's
// operator-state budget (stream/state_cache.h): past its share, the least
// recently changed keys whose writes are committed are dropped, and loaded
// again at their next use.
#pragma once

#include <map>
#include <unordered_map>

#include "planner/plan.h"
#include "stream/operator.h"
#include "stream/state_cache.h"

namespace freshet {

class AsOfJoinOperator : public StreamOperator {
 public:
  struct Side {
    std::vector<int> keys;        // join key columns
    int value = -1;               // the compared value's column
    std::vector<int> stream_key;  // columns identifying a row
    std::vector<DataType> types;
    StateTableDesc table;
  };
  // `narrow`: the condition is the comparison alone, so a right change
  // affects only the left rows between its neighbours.
  AsOfJoinOperator(JoinType type, Side left, Side right, ExprPtr condition, bool greatest, bool narrow,
                   EvalContext eval);
  std::string Name() const override { return "AsOfJoin"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int input, StreamChunk chunk) override;
  void OnBarrier(const Barrier& barrier) override;

 private:
  // A side's rows of one key: (encoded value, encoded stream key) -> cells.
  using RowKey = std::pair<std::string, std::string>;
  using Rows = std::map<RowKey, std::string>;
  struct Bucket {
    uint16_t vnode = 0;
    Rows rows[2];
    bool dirty = false;  // written since the last barrier
    Epoch written = 0;   // the last epoch that wrote its rows
    size_t bytes = 0;    // estimated memory, as of its last barrier
    LruOrder<std::string>::Handle lru;
  };
  // The key's bucket, loaded from storage at its first use; marked
  // written in this epoch.
  Bucket& BucketOf(const std::string& key, uint16_t vnode);
  size_t EstimateBytes(const std::string& key, const Bucket& b) const;
  void Drop(std::unordered_map<std::string, Bucket>::iterator it);
  // The right row nearest to the left row (`value`: its encoded value), or
  // rows.end().
  Rows::const_iterator Nearest(const Bucket& b, const std::string& value, const std::string& left_cells) const;
  // A row's key in its side's rows; false when its join key or value is
  // NULL (it matches nothing).
  bool KeysOf(int side, const DataChunk& data, size_t row, std::string* join_key, RowKey* key) const;
  std::string StorageKey(int side, const Bucket& b, const std::string& join_key, const RowKey& key) const;
  bool Passes(const std::string& left_cells, const std::string& right_cells) const;
  void OnLeftRow(bool insert, const DataChunk& data, size_t row);
  void OnRightRow(bool insert, const DataChunk& data, size_t row);
  // Appends an output row: the left's cells and the right's (null: NULLs).
  void EmitRow(Op op, const std::string& left_cells, const std::string* right_cells);
  void FlushOutput();

  JoinType type_;
  Side sides_[2];
  ExprPtr condition_;
  bool greatest_;
  bool narrow_;
  mutable EvalContext eval_;
  std::shared_ptr<StateTable> tables_[2];
  std::unordered_map<std::string, Bucket> buckets_;
  std::vector<const std::string*> dirty_;  // keys of the buckets written since the barrier
  std::vector<std::string> emptied_;       // buckets left empty, dropped once committed
  LruOrder<std::string> lru_;              // buckets by their last change
  size_t bytes_ = 0;
  StateCacheShare share_;
  std::vector<DataType> pair_types_;
  std::vector<Op> out_ops_;
  DataChunk out_;
};

}  // namespace freshet
