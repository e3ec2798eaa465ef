// Stream plans: what a materialized view (or sink, or index) runs.
//
// PlanStream turns the optimized logical plan of a query (plan.h) into a
// tree of StreamNodes. Every stream node knows, besides its output schema:
//   - its stream key: columns that identify a row of its output, so that
//     a later delete or update names exactly one earlier insert (hidden
//     columns are added to projections to keep it, as RisingWave does);
//   - its distribution: how its rows are spread over the actors of its
//     fragment (single actor, hashed on some columns, or arbitrary).
// Where an operator needs a distribution its input does not have (an
// aggregation needs each group on one actor), the planner inserts an
// Exchange; the stream builder cuts the tree into fragments there.
//
// Stateful operators ask for internal state tables; their layouts are
// listed in StreamPlan::internal_tables in a deterministic order, so that
// planning the same definition again (at recovery) maps each operator to
// the same table.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "planner/plan.h"

namespace freshet {

struct Distribution {
  enum class Kind { kSingle, kHash, kAny } kind = Kind::kAny;
  std::vector<int> keys;  // kHash: output columns hashed to pick the vnode

  static Distribution Single() { return {Kind::kSingle, {}}; }
  static Distribution Hash(std::vector<int> keys) { return {Kind::kHash, std::move(keys)}; }
  static Distribution Any() { return {Kind::kAny, {}}; }
  std::string ToString() const;
};

// The layout of an internal state table requested by an operator.
struct InternalTableSpec {
  std::string kind;  // e.g. "backfill", "aggresult", "aggcall"
  std::vector<ColumnCatalog> columns;
  std::vector<int> pk;
  std::vector<int> dist_key;
  ObjectId upstream = 0;  // "backfill": the relation it reads
};

// The per-split offsets of a source reader (split, offset, row_count).
InternalTableSpec SourceOffsetsTable();
// A backfill's progress per vnode of `upstream` (vnode, position,
// finished, row_count; stream/backfill.h).
InternalTableSpec BackfillProgressTable(ObjectId upstream);
// A cross-database scan's progress per vnode of `upstream` (vnode, epoch,
// position, finished, row_count; stream/cross_db_scan.h): kind "crossdb".
InternalTableSpec CrossDbProgressTable(ObjectId upstream);

class StreamNode;
using StreamNodePtr = std::unique_ptr<StreamNode>;

class StreamNode {
 public:
  enum class Kind { kTableScan, kSource, kFilter, kTemporalFilter, kProject, kHop, kHashAgg, kHashJoin, kUnion, kTopN, kGroupTopN, kExchange, kMaterialize, kSink, kDynamicFilter,
                    kOverWindow, kProjectSet, kValues, kChangelog };
  StreamNode(Kind kind, std::vector<PlanColumn> schema) : kind_(kind), schema_(std::move(schema)) {}
  virtual ~StreamNode() = default;

  Kind kind() const { return kind_; }
  const std::vector<PlanColumn>& schema() const { return schema_; }
  void set_schema(std::vector<PlanColumn> schema) { schema_ = std::move(schema); }
  std::vector<DataType> types() const;
  std::vector<StreamNodePtr>& inputs() { return inputs_; }
  const std::vector<StreamNodePtr>& inputs() const { return inputs_; }
  StreamNode* input(size_t i = 0) const { return inputs_[i].get(); }

  std::vector<int> stream_key;
  Distribution distribution;
  bool append_only = false;

  virtual std::string Describe() const = 0;

 protected:
  Kind kind_;
  std::vector<PlanColumn> schema_;
  std::vector<StreamNodePtr> inputs_;
};

// Reads a table or materialized view: a snapshot (backfill), then its
// change stream. Output: all the relation's columns.
class StreamTableScanNode : public StreamNode {
 public:
  explicit StreamTableScanNode(TableRef table);
  std::string Describe() const override;
  TableRef table;
  int progress_table = -1;  // internal table: per-vnode backfill progress
  // The job's backfills of a lower level finish before this one starts
  // (AssignBackfillLevels): the right side of a process-time temporal join
  // is loaded before its left side's rows look it up.
  int backfill_level = 0;
  // No snapshot: the relation's changes from the job's first epoch only (a
  // subscription's change log).
  bool changes_only = false;
  // A relation of another database (stream/cross_db_scan.h): read through
  // the shared store as a source whose splits are its vnodes, its rows at
  // that database's committed epochs then its change log `log_table` (an
  // internal table of the log job created in that database with this job);
  // `progress_table` is then a CrossDbProgressTable.
  bool cross_database = false;
  ObjectId log_table = 0;
};

// Reads a source connector (each job reads the source on its own, from
// the beginning). Output: the source's columns and its hidden _row_id.
class StreamSourceNode : public StreamNode {
 public:
  explicit StreamSourceNode(TableRef source);
  std::string Describe() const override;
  TableRef source;
  int offsets_table = -1;  // internal table: per-split offsets
  // As StreamTableScanNode's: the source is read once the job's backfills
  // of lower levels finished.
  int backfill_level = 0;
};

class StreamFilterNode : public StreamNode {
 public:
  StreamFilterNode(StreamNodePtr input, ExprPtr predicate);
  std::string Describe() const override;
  ExprPtr predicate;
};

// A filter on now() (one actor): rows enter and leave as time passes.
class StreamTemporalFilterNode : public StreamNode {
 public:
  StreamTemporalFilterNode(StreamNodePtr input, ExprPtr predicate);
  std::string Describe() const override;
  ExprPtr predicate;
  int rows_table = -1, time_table = -1;
};

class StreamProjectNode : public StreamNode {
 public:
  StreamProjectNode(StreamNodePtr input, std::vector<ExprPtr> exprs, std::vector<PlanColumn> schema);
  std::string Describe() const override;
  std::vector<ExprPtr> exprs;
};

// VALUES (or a SELECT without FROM): its rows once, on one actor, each
// with its number, a hidden bigint that is the stream key.
class StreamValuesNode : public StreamNode {
 public:
  StreamValuesNode(std::vector<PlanColumn> schema, std::vector<std::vector<ExprPtr>> rows);
  std::string Describe() const override;
  std::vector<std::vector<ExprPtr>> rows;
  // A function in FROM over constants (generate_series(1, 10)) instead of
  // rows: its rows, numbered from 1 in a last column WITH ORDINALITY.
  std::string function;
  std::vector<ExprPtr> function_args;
  bool with_ordinality = false;
  int state_table = -1;  // whether the rows were emitted
};

// A projection with set-returning functions (SELECT unnest(a) FROM t):
// each input row gives as many rows as its longest function (PostgreSQL's
// rules, as the batch ProjectSet). Output: the expressions' columns, then
// a hidden bigint numbering an input row's output rows from 0, which joins
// the stream key (with the input's key, passed through by column
// references among the expressions). Stateless: a retraction generates the
// same rows again.
class StreamProjectSetNode : public StreamNode {
 public:
  StreamProjectSetNode(StreamNodePtr input, std::vector<ExprPtr> exprs, std::vector<PlanColumn> schema);
  std::string Describe() const override;
  std::vector<ExprPtr> exprs;
  // An input row whose functions give no row gives one, their columns NULL
  // (LEFT JOIN LATERAL of a function); with `condition` (over the
  // expressions' columns), only the generated rows that pass it count.
  bool outer = false;
  ExprPtr condition;
};

// Each change of the input as an inserted row (plan.h ChangelogNode): its
// first `width` columns, changelog_op, _changelog_row_id (the stream key).
// Append-only.
class StreamChangelogNode : public StreamNode {
 public:
  StreamChangelogNode(StreamNodePtr input, int width);
  std::string Describe() const override { return "StreamChangelog"; }
  int width;
  int state_table = -1;  // internal table: each actor's next row id
};

// HOP windows: each row once per window containing its time column; the
// window start joins the stream key.
class StreamHopNode : public StreamNode {
 public:
  StreamHopNode(StreamNodePtr input, int time_column, int64_t slide, int64_t size, std::vector<PlanColumn> schema);
  std::string Describe() const override;
  int time_column;
  int64_t slide, size;
};

struct StreamOrderKey {
  int column;
  bool descending = false;
  bool nulls_first = false;
};

struct StreamAggCall {
  AggregateSignature sig;
  std::vector<int> args;                        // input columns
  int filter = -1;                              // input column of FILTER (WHERE), -1 when none
  bool distinct = false;
  std::vector<StreamOrderKey> order_by;         // string_agg/array_agg ORDER BY
  int input_table = -1;  // internal table keeping the inputs (min, max, string_agg...), -1 when none
  // The input is append-only: min/max/bool_and/bool_or keep only their
  // extreme (CreateAggregate's inputs_never_retract), no input table.
  bool append_only = false;
  std::string ToString(const std::vector<PlanColumn>& input) const;
};

// Aggregation keyed by group columns (none: a single global row, which
// exists even when the input is empty, as SQL's aggregate without GROUP BY).
// Output: the group columns, then one column per call.
class StreamHashAggNode : public StreamNode {
 public:
  StreamHashAggNode(StreamNodePtr input, std::vector<int> group_keys, std::vector<StreamAggCall> calls,
                    std::vector<PlanColumn> schema);
  std::string Describe() const override;
  std::vector<int> group_keys;
  std::vector<StreamAggCall> calls;
  std::vector<int> input_stream_key;  // input columns identifying an input row
  int result_table = -1;              // internal table: per-group states
  // The input column among the group keys whose watermark closes groups
  // (-1: none): a group below it gets no more rows, so its state is
  // deleted. With EMIT ON WINDOW CLOSE its row is emitted then, once, as
  // an insert (the output is append-only); else as it changes.
  int window_column = -1;
  bool emit_on_window_close = false;
};

// Equi-join of two inputs hashed on their join keys (inner, left, right,
// full, semi, anti; no keys: one actor). Output: left columns, then right
// columns (semi, anti: left columns). The stream key is the output sides'
// stream keys plus their join keys, so that every output key is produced
// by exactly one actor.
// How an inner join's condition lets a watermark expire one side's rows
// (interval joins: a.ts BETWEEN b.ts - x AND b.ts + y): a row of `side`
// whose `key` (over that side's columns) is below `bound` of the other
// side's watermark on `other_column` (`bound` reads it as column 0) can
// match no row to come, so it leaves the join's state.
struct JoinStateCleaning {
  int side = 0;
  ExprPtr key;
  int other_column = 0;
  ExprPtr bound;
  JoinStateCleaning Clone() const { return {side, key->Clone(), other_column, bound->Clone()}; }
};

class StreamHashJoinNode : public StreamNode {
 public:
  StreamHashJoinNode(JoinType type, StreamNodePtr left, StreamNodePtr right, std::vector<int> left_keys,
                     std::vector<int> right_keys, ExprPtr condition);
  std::string Describe() const override;
  JoinType type;
  std::vector<int> left_keys, right_keys;  // columns of each side
  ExprPtr condition;                       // over left ++ right; may be null
  int left_table = -1, right_table = -1;   // internal tables: each side's rows
  std::vector<JoinStateCleaning> cleanings;
  // A process-time temporal join (JoinNode::process_time): the right's rows
  // are kept, the left's are not; a left row is joined with the right rows
  // there are when it comes, and right changes emit nothing. A retractable
  // left's rows are kept with the right rows they were joined with
  // (process_time_keeps_left); the output is append-only when the left is.
  bool process_time = false;
  bool process_time_keeps_left = false;
  // An as-of join (JoinNode::asof; stream/asof_join.h): the columns of each
  // side holding the compared values, whether the greatest right value is
  // the nearest, and whether the condition is the comparison alone.
  bool asof = false;
  int asof_left_value = -1, asof_right_value = -1;
  bool asof_greatest = true, asof_narrow = false;
};

// The cleanings an inner join's condition allows (comparisons `g >= l`, `g
// > l` and their mirrors, g monotonic in a column of one side, l in a
// column of the other that has a watermark); none for other joins.
std::vector<JoinStateCleaning> DeriveJoinStateCleaning(const StreamHashJoinNode& join);

// The rows of the left input whose value column compares true with the
// right input's one value (x > (SELECT avg(y) FROM t): RisingWave's
// DynamicFilter), on one actor. `compare` reads [value, threshold] (column
// 0, column 1) in the query's order of operands. Output: the left's columns.
class StreamDynamicFilterNode : public StreamNode {
 public:
  StreamDynamicFilterNode(StreamNodePtr left, StreamNodePtr right, int value_column, ExprPtr compare);
  std::string Describe() const override;
  int value_column;
  ExprPtr compare;
  int left_table = -1, right_table = -1;  // internal tables: the left's rows by value; the threshold
};

// UNION ALL of inputs with the same columns (each input's rows tagged with
// a hidden branch number, so that stream keys of different branches never
// collide).
class StreamUnionNode : public StreamNode {
 public:
  StreamUnionNode(std::vector<StreamNodePtr> inputs, std::vector<PlanColumn> schema, std::vector<int> key);
  std::string Describe() const override { return "StreamUnion { all: true }"; }
};

// ORDER BY ... LIMIT/OFFSET over the whole input (one actor): emits the
// rows ranked [offset, offset + limit), kept up to date. Ties are broken
// by the stream key.
class StreamTopNNode : public StreamNode {
 public:
  StreamTopNNode(StreamNodePtr input, std::vector<StreamOrderKey> order, int64_t limit, int64_t offset);
  std::string Describe() const override;
  std::vector<StreamOrderKey> order;
  int64_t limit, offset;  // limit -1: none
  int state_table = -1;   // every input row, in rank order
};

// row_number() OVER (PARTITION BY ... ORDER BY ...) <= limit: per partition
// the first `limit` rows. Output: the input's columns and the row number.
// With ties (rank() <= limit, FETCH FIRST ... WITH TIES): also the rows
// equal on the order keys to the last of them, and the rank instead of the
// row number.
class StreamGroupTopNNode : public StreamNode {
 public:
  StreamGroupTopNNode(StreamNodePtr input, std::vector<int> partition, std::vector<StreamOrderKey> order, int64_t limit,
                      bool with_ties = false);
  std::string Describe() const override;
  std::vector<int> partition;
  std::vector<StreamOrderKey> order;
  int64_t limit;
  bool with_ties;
  std::vector<int> input_stream_key;
  int state_table = -1;
  // EMIT ON WINDOW CLOSE: the watermarked partition column (-1: emit on
  // update). A partition's rows are emitted once, when the watermark
  // passes it, and its state deleted; the output is append-only.
  int window_column = -1;
};

// Window functions of one PARTITION BY and ORDER BY (RisingWave's
// OverWindow), the input hashed on the partition columns (one actor when
// none). Output: the input's columns, then one per call; the calls read the
// input's columns. The partition columns join the stream key.
class StreamOverWindowNode : public StreamNode {
 public:
  StreamOverWindowNode(StreamNodePtr input, std::vector<int> partition, std::vector<WindowCall> calls);
  std::string Describe() const override;
  std::vector<int> partition;  // input columns
  std::vector<WindowCall> calls;
  std::vector<int> input_stream_key;
  int state_table = -1;  // every input row with its calls' values, by partition and order
  // EMIT ON WINDOW CLOSE: the ORDER BY column, watermarked (-1: emit on
  // update). A row is emitted once, as an insert, when the watermark passes
  // it (no call reads rows after it); the output is append-only.
  int window_column = -1;
};

// Redistributes its input to match `distribution`.
class StreamExchangeNode : public StreamNode {
 public:
  StreamExchangeNode(StreamNodePtr input, Distribution to);
  std::string Describe() const override;
};

// Writes its input into the relation's storage (the job's own table).
class StreamMaterializeNode : public StreamNode {
 public:
  explicit StreamMaterializeNode(StreamNodePtr input);
  std::string Describe() const override;
  std::string relation_name;
};

// Sends its input to an external system (connector 'blackhole': nowhere),
// or, connector 'changelog' (a subscription), into the change log of the
// relation its input scans (stream/change_log_sink.h).
class StreamSinkNode : public StreamNode {
 public:
  StreamSinkNode(StreamNodePtr input, std::string connector);
  std::string Describe() const override;
  std::string connector;
  int log_table = -1;         // changelog: the internal table holding the log
  int64_t retention_ms = 0;   // changelog: how long entries are kept (0: no limit)
};

// What the job does with its query's rows.
struct StreamRootOptions {
  bool sink = false;              // a sink instead of a materialized relation
  std::string connector;          // sinks
  std::vector<int> leading_key;   // indexes: key columns put first in the primary key (and hashed)
  // EMIT ON WINDOW CLOSE: the query's aggregation emits a group once its
  // window is closed by a watermark (0A000 when it has none to close by).
  bool emit_on_window_close = false;
  // The job's database: a relation of another one is read by a
  // cross-database scan (StreamTableScanNode::cross_database). 0: every
  // relation is read as one of the job's own database.
  ObjectId database_id = 0;
};

struct StreamPlan {
  StreamNodePtr root;  // a StreamMaterializeNode or StreamSinkNode
  // The job's relation: columns (hidden ones for keys the query does not
  // output), primary key (the stream key) and distribution key.
  std::vector<ColumnCatalog> columns;
  std::vector<int> pk;
  std::vector<int> dist_key;
  std::vector<ObjectId> depends_on;
  std::vector<InternalTableSpec> internal_tables;
};

// Throws SqlError 0A000 naming the part of the query that cannot run as a
// stream yet.
StreamPlan PlanStream(PlanPtr logical, const std::string& relation_name, const StreamRootOptions& options = {});

// A subscription's job: the changes of `relation` (a table or a
// materialized view) from the job's start, written into a change log kept
// for `retention_ms` (0: no limit).
StreamPlan PlanSubscription(TableRef relation, int64_t retention_ms);

// The job that fills a table created WITH (connector = ...): its source
// read into the table's own storage.
StreamPlan PlanTableSource(TableRef table);

// A temporal filter's condition as an AND of: conjuncts without now();
// those a row passes until now() grows past it (ts > now() - INTERVAL '1
// hour': expiring); those it passes from some now() on (ts <= now():
// maturing). Null when the condition has another shape. A row that fails
// an expiring or plain conjunct fails for good, one that passes them all
// with no expiring one passes for good: neither needs keeping.
struct TemporalConjuncts {
  std::vector<ExprPtr> plain, expiring, maturing;
};
std::optional<TemporalConjuncts> SplitTemporalCondition(const Expression& predicate);

// The output columns of `n` that carry a watermark when the job runs, by
// the rules its operators follow (message.h's Watermark): a table's or
// source's WATERMARK FOR column, monotonic projections of them
// (expr/monotonic.h), filters and exchanges, the columns every input of a
// union has, an aggregation's group keys.
std::vector<int> WatermarkColumns(const StreamNode& n);

// EXPLAIN CREATE MATERIALIZED VIEW: the stream plan, one fragment per
// exchange.
std::vector<std::string> ExplainStreamPlan(const StreamPlan& plan);

}  // namespace freshet
