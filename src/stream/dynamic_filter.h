// DynamicFilter: the rows of the left input whose value compares true with
// the right input's single value, kept up to date as either changes
// (`x > (SELECT avg(y) FROM t)`; RisingWave's DynamicFilter). One actor.
//
// The right input is a one-row aggregate: its changes replace the
// threshold. Every left row is kept, ordered by its value (key: the
// value's memcomparable encoding, then the row's stream key), in memory
// and in the left state table; the threshold in the right one. A left row
// is passed on (or its delete) when it compares true with the current
// threshold. When the threshold moves from a to b, only the rows whose
// value lies between them can change sides: they are read in value order
// and each is inserted or deleted as its comparison with b differs from
// its comparison with a (a NULL threshold passes nothing, so leaving or
// reaching one reads every row). The comparison itself decides, so any
// comparison operator works (<, <=, >, >=, <>) whatever the direction.
//
// Output: the left's columns, each row as the left sent it.
#pragma once

#include <map>
#include <optional>

#include "expr/expression.h"
#include "stream/operator.h"

namespace freshet {

class DynamicFilterOperator : public StreamOperator {
 public:
  // `compare` reads a two-column chunk: [value, threshold].
  DynamicFilterOperator(int value_column, ExprPtr compare, std::vector<int> stream_key, std::vector<DataType> types,
                        DataType threshold_type, StateTableDesc left_table, StateTableDesc right_table,
                        EvalContext eval);
  std::string Name() const override { return "DynamicFilter"; }
  void Open(ActorContext* ctx) override;
  void OnChunk(int input, StreamChunk chunk) override;
  void OnBarrier(const Barrier&) override {}

 private:
  // Whether each of `values` compares true with `threshold`.
  std::vector<uint8_t> Passes(const Vector& values, const std::optional<Value>& threshold);
  void OnLeft(StreamChunk chunk);
  void OnThreshold(const StreamChunk& chunk);
  std::string RowKey(const DataChunk& data, size_t row) const;

  int value_column_;
  ExprPtr compare_;
  std::vector<int> stream_key_;
  std::vector<DataType> types_;
  DataType threshold_type_;
  StateTableDesc left_desc_, right_desc_;
  EvalContext eval_;
  std::shared_ptr<StateTable> left_, right_;
  std::map<std::string, std::string> rows_;  // row key -> encoded row
  std::optional<Value> threshold_;          // none: the right input has no row
};

}  // namespace freshet
