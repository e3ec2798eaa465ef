// Join: hash join on equi-keys, nested-loop join without them.
//
// The right input is the build side: it is read completely into one chunk
// (and, with keys, indexed by the memcomparable encoding of its keys; NULL
// keys never match). Each left chunk is then probed: candidate pairs are
// gathered (key matches, or every right row), the residual condition is
// evaluated on the joined pairs, and outer/semi/anti semantics are applied
// from the match flags. Unmatched right rows of RIGHT/FULL joins are
// emitted after the left input is exhausted. An as-of join keeps, for each
// left row, only its pair whose right value (asof_right) is the greatest
// or least, chosen over all its pairs before the row's output is made.
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "batch/executors.h"
#include "common/encoding.h"

namespace freshet {

namespace {

constexpr size_t kMaxPairs = 4096;

class JoinExecutor : public Executor {
 public:
  JoinExecutor(const JoinNode& node, ExecutorPtr left, ExecutorPtr right, ExecContext& ctx)
      : node_(node), left_(std::move(left)), right_(std::move(right)), ctx_(ctx),
        left_types_(node.child(0)->types()), right_types_(node.child(1)->types()) {}

  bool Next(DataChunk* out) override {
    if (!built_) {
      // Without a left row (and no right rows to keep) the right side is
      // never read: as PostgreSQL, a subquery joined here is not run (nor
      // fails) for an empty outer query.
      if (node_.type != JoinType::kRight && node_.type != JoinType::kFull) {
        if (!left_->Next(&first_left_)) return false;
        has_first_left_ = true;
      }
      Build();
    }
    while (true) {
      if (!pending_.empty()) {
        *out = std::move(pending_.front());
        pending_.pop_front();
        return true;
      }
      if (left_done_) return false;
      DataChunk in;
      if (has_first_left_) {
        in = std::move(first_left_);
        has_first_left_ = false;
      } else if (!left_->Next(&in)) {
        left_done_ = true;
        EmitUnmatchedRight();
        continue;
      }
      ctx_.CheckCancelled();
      Probe(in);
    }
  }

 private:
  bool keyed() const { return !node_.left_keys.empty(); }
  bool emits_right() const { return node_.type != JoinType::kSemi && node_.type != JoinType::kAnti; }

  void Build() {
    built_ = true;
    build_ = Materialize(right_.get(), right_types_, ctx_);
    right_matched_.assign(build_.num_rows(), 0);
    if (node_.asof) asof_values_ = node_.asof_right->Eval(build_, ctx_.eval);
    if (!keyed()) return;
    DataChunk keys = EvalExpressions(node_.right_keys, build_, ctx_.eval);
    // One integer-like key (the common case) is hashed as an int64; other
    // keys by their memcomparable encoding. Rows with equal keys are chained.
    int_key_ = keys.num_columns() == 1 && keys.column(0).physical() == PhysicalType::kInt64;
    next_.assign(build_.num_rows(), kNoRow);
    std::string key;
    for (size_t r = 0; r < build_.num_rows(); r++) {
      uint32_t row = static_cast<uint32_t>(r);
      uint32_t* head;
      if (node_.null_aware)
        for (const auto& c : keys.columns()) right_has_null_key_ |= c.IsNull(r);
      if (int_key_) {
        if (keys.column(0).IsNull(r)) continue;
        head = &int_table_.try_emplace(keys.column(0).GetInt(r), kNoRow).first->second;
      } else {
        if (!EncodeKeys(keys, r, &key)) continue;
        head = &table_.try_emplace(key, kNoRow).first->second;
      }
      next_[row] = *head;
      *head = row;
    }
  }

  // First build row whose key equals probe row r (kNoRow when none).
  uint32_t FirstMatch(const DataChunk& keys, size_t r, std::string* scratch) const {
    if (int_key_) {
      if (keys.column(0).IsNull(r)) return kNoRow;
      auto it = int_table_.find(keys.column(0).GetInt(r));
      return it == int_table_.end() ? kNoRow : it->second;
    }
    if (!EncodeKeys(keys, r, scratch)) return kNoRow;
    auto it = table_.find(*scratch);
    return it == table_.end() ? kNoRow : it->second;
  }

  // False when a key column is NULL (no match possible).
  static bool EncodeKeys(const DataChunk& keys, size_t r, std::string* out) {
    out->clear();
    for (const auto& c : keys.columns()) {
      if (c.IsNull(r)) return false;
      EncodeKeyFromVector(c, r, out);
    }
    return true;
  }

  void Probe(const DataChunk& in) {
    size_t n = in.num_rows();
    semi_emitted_.clear();
    std::vector<uint8_t> left_matched(n, 0);
    if (node_.asof) nearest_.assign(n, kNoRow);
    std::vector<uint32_t> lsel, rsel;
    auto flush = [&] {
      if (lsel.empty()) return;
      ctx_.CheckCancelled();  // a chunk of a cross join can be billions of pairs
      ProcessPairs(in, lsel, rsel, &left_matched);
      lsel.clear();
      rsel.clear();
    };
    if (keyed()) {
      DataChunk keys = EvalExpressions(node_.left_keys, in, ctx_.eval);
      std::string scratch;
      // NOT IN: once the subquery has a row, a NULL on either side makes
      // the comparison unknown, which the anti join counts as a match.
      const bool unknown_on_null = node_.null_aware && build_.num_rows() > 0;
      for (size_t r = 0; r < n; r++) {
        if (unknown_on_null) {
          bool null_key = right_has_null_key_;
          for (const auto& c : keys.columns()) null_key |= c.IsNull(r);
          if (null_key) {
            left_matched[r] = 1;
            continue;
          }
        }
        for (uint32_t b = FirstMatch(keys, r, &scratch); b != kNoRow; b = next_[b]) {
          lsel.push_back(static_cast<uint32_t>(r));
          rsel.push_back(b);
          if (lsel.size() >= kMaxPairs) flush();
        }
      }
    } else {
      for (size_t r = 0; r < n; r++) {
        for (size_t b = 0; b < build_.num_rows(); b++) {
          lsel.push_back(static_cast<uint32_t>(r));
          rsel.push_back(static_cast<uint32_t>(b));
          if (lsel.size() >= kMaxPairs) flush();
        }
      }
    }
    flush();
    if (node_.asof) {
      std::vector<uint32_t> l, r;
      for (size_t i = 0; i < n; i++)
        if (nearest_[i] != kNoRow) l.push_back(static_cast<uint32_t>(i)), r.push_back(nearest_[i]);
      if (!l.empty()) {
        DataChunk joined = in.Take(l);
        DataChunk right = build_.Take(r);
        for (auto& c : right.columns()) joined.AddColumn(std::move(c));
        joined.set_cardinality(l.size());
        pending_.push_back(std::move(joined));
      }
    }
    // Left rows without a match: outer rows (LEFT/FULL) or ANTI results.
    if (node_.type == JoinType::kLeft || node_.type == JoinType::kFull || node_.type == JoinType::kAnti) {
      std::vector<uint32_t> sel;
      for (size_t r = 0; r < n; r++)
        if (!left_matched[r]) sel.push_back(static_cast<uint32_t>(r));
      if (!sel.empty()) {
        DataChunk rows = in.Take(sel);
        if (node_.type != JoinType::kAnti) AppendNulls(&rows, right_types_, sel.size(), false);
        pending_.push_back(std::move(rows));
      }
    }
  }

  void ProcessPairs(const DataChunk& in, const std::vector<uint32_t>& lsel, const std::vector<uint32_t>& rsel,
                    std::vector<uint8_t>* left_matched) {
    DataChunk joined = in.Take(lsel);
    DataChunk right = build_.Take(rsel);
    for (auto& c : right.columns()) joined.AddColumn(std::move(c));
    joined.set_cardinality(lsel.size());
    std::vector<uint8_t> keep(lsel.size(), 1);
    if (node_.condition) keep = ToMask(node_.condition->Eval(joined, ctx_.eval));
    for (size_t i = 0; i < lsel.size(); i++) {
      if (!keep[i]) continue;
      (*left_matched)[lsel[i]] = 1;
      right_matched_[rsel[i]] = 1;
    }
    if (node_.asof) {
      // The nearest so far of each left row (its pairs may span batches).
      for (size_t i = 0; i < lsel.size(); i++) {
        if (!keep[i]) continue;
        uint32_t& best = nearest_[lsel[i]];
        if (best != kNoRow) {
          int cmp = Value::Compare(asof_values_.GetValue(rsel[i]), asof_values_.GetValue(best));
          if (node_.asof_greatest ? cmp <= 0 : cmp >= 0) continue;
        }
        best = rsel[i];
      }
      return;
    }
    if (node_.type == JoinType::kSemi) {
      // One output row per matching left row, the first time it matches.
      std::vector<uint32_t> sel;
      for (size_t i = 0; i < lsel.size(); i++) {
        if (keep[i] && !semi_emitted_.count(lsel[i])) {
          semi_emitted_.insert(lsel[i]);
          sel.push_back(lsel[i]);
        }
      }
      if (!sel.empty()) pending_.push_back(in.Take(sel));
      return;
    }
    if (node_.type == JoinType::kAnti) return;
    joined.Filter(keep);
    if (!joined.empty()) pending_.push_back(std::move(joined));
  }

  void EmitUnmatchedRight() {
    if (node_.type != JoinType::kRight && node_.type != JoinType::kFull) return;
    std::vector<uint32_t> sel;
    for (size_t r = 0; r < build_.num_rows(); r++)
      if (!right_matched_[r]) sel.push_back(static_cast<uint32_t>(r));
    for (size_t begin = 0; begin < sel.size(); begin += kChunkSize) {
      std::vector<uint32_t> part(sel.begin() + begin, sel.begin() + std::min(sel.size(), begin + kChunkSize));
      DataChunk right = build_.Take(part);
      DataChunk rows;
      AppendNulls(&rows, left_types_, part.size(), false);
      for (auto& c : right.columns()) rows.AddColumn(std::move(c));
      rows.set_cardinality(part.size());
      pending_.push_back(std::move(rows));
    }
  }

  static void AppendNulls(DataChunk* chunk, const std::vector<DataType>& types, size_t n, bool) {
    for (const auto& t : types) {
      Vector v(t);
      v.Reserve(n);
      for (size_t i = 0; i < n; i++) v.AppendNull();
      chunk->AddColumn(std::move(v));
    }
    chunk->set_cardinality(n);
  }

  const JoinNode& node_;
  ExecutorPtr left_, right_;
  ExecContext& ctx_;
  std::vector<DataType> left_types_, right_types_;
  bool built_ = false, left_done_ = false;
  DataChunk build_;
  static constexpr uint32_t kNoRow = UINT32_MAX;
  bool int_key_ = false;
  std::unordered_map<int64_t, uint32_t> int_table_;  // key -> first row of its chain
  std::unordered_map<std::string, uint32_t> table_;
  std::vector<uint32_t> next_;                       // row -> next row with the same key
  std::vector<uint8_t> right_matched_;
  bool right_has_null_key_ = false;  // null_aware: a build row has a NULL key
  DataChunk first_left_;             // read before building the right side
  bool has_first_left_ = false;
  std::unordered_set<uint32_t> semi_emitted_;
  Vector asof_values_;              // asof: each build row's right value
  std::vector<uint32_t> nearest_;   // asof: each probe row's nearest build row so far
  std::deque<DataChunk> pending_;
};

}  // namespace

ExecutorPtr MakeJoin(const JoinNode& node, ExecutorPtr left, ExecutorPtr right, ExecContext& ctx) {
  return std::make_unique<JoinExecutor>(node, std::move(left), std::move(right), ctx);
}

}  // namespace freshet
