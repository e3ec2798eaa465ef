#include "planner/window_evaluator.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/encoding.h"
#include "common/error.h"
#include "expr/aggregate.h"
#include "expr/cast.h"

namespace freshet {

void EncodeWindowOrderKey(const WindowCall& call, const std::vector<Vector>& order_values, size_t r, std::string* out) {
  for (size_t k = 0; k < order_values.size(); k++)
    EncodeOrderKeyFromVector(order_values[k], r, call.order_by[k].descending, call.order_by[k].nulls_first, out);
}

namespace {

// A ROWS or GROUPS offset: a count, the same for every row.
int64_t CountOffset(const WindowFrameBound& b, bool start, EvalContext& ctx) {
  Value v = b.offset->EvalConstant(ctx);
  const char* which = start ? "starting" : "ending";
  if (v.is_null()) throw SqlError(sqlstate::kNullValueNotAllowed, fmt::format("frame {} offset must not be null", which));
  if (v.int_value() < 0) throw SqlError("22013", fmt::format("frame {} offset must not be negative", which));
  return v.int_value();
}

// A RANGE offset is checked once: not NULL, not negative.
void CheckRangeOffset(const WindowFrameBound& b, bool start, EvalContext& ctx) {
  Value v = b.offset->EvalConstant(ctx);
  if (v.is_null())
    throw SqlError(sqlstate::kNullValueNotAllowed, fmt::format("frame {} offset must not be null", start ? "starting" : "ending"));
  bool negative;
  if (v.type().id == TypeId::kInterval) {
    const Interval& iv = v.interval_value();
    negative = iv.months < 0 || iv.days < 0 || iv.micros < 0;
  } else {
    negative = Value::Compare(v, CastValue(Value::Int64(0), v.type(), ctx)) < 0;
  }
  if (negative) throw SqlError("22013", "invalid preceding or following size in window function");
}

class PartitionEvaluator {
 public:
  PartitionEvaluator(const WindowCall& call, const DataChunk& rows, EvalContext& ctx)
      : call_(call), rows_(rows), ctx_(ctx), n_(rows.num_rows()) {
    std::vector<Vector> order;
    for (const auto& k : call.order_by) order.push_back(k.expr->Eval(rows, ctx));
    keys_.resize(n_);
    group_.resize(n_);
    for (size_t r = 0; r < n_; r++) {
      EncodeWindowOrderKey(call, order, r, &keys_[r]);
      if (r == 0 || keys_[r] != keys_[r - 1]) {
        if (r > 0) group_end_.push_back(r);
        group_start_.push_back(r);
      }
      group_[r] = uint32_t(group_start_.size() - 1);
    }
    group_end_.push_back(n_);
  }

  Vector Evaluate() {
    Vector out(call_.type);
    out.Reserve(n_);
    switch (call_.kind) {
      case WindowFunctionKind::kRowNumber:
        for (size_t r = 0; r < n_; r++) out.AppendInt(int64_t(r) + 1);
        break;
      case WindowFunctionKind::kRank:
        for (size_t r = 0; r < n_; r++) out.AppendInt(int64_t(group_start_[group_[r]]) + 1);
        break;
      case WindowFunctionKind::kDenseRank:
        for (size_t r = 0; r < n_; r++) out.AppendInt(int64_t(group_[r]) + 1);
        break;
      case WindowFunctionKind::kPercentRank:
        for (size_t r = 0; r < n_; r++) out.AppendFloat(n_ > 1 ? double(group_start_[group_[r]]) / double(n_ - 1) : 0.0);
        break;
      case WindowFunctionKind::kCumeDist:
        for (size_t r = 0; r < n_; r++) out.AppendFloat(double(group_end_[group_[r]]) / double(n_));
        break;
      case WindowFunctionKind::kNtile: Ntile(&out); break;
      case WindowFunctionKind::kLag:
      case WindowFunctionKind::kLead: Shift(&out); break;
      case WindowFunctionKind::kFirstValue:
      case WindowFunctionKind::kLastValue:
      case WindowFunctionKind::kNthValue:
        Frames();
        FrameValue(&out);
        break;
      case WindowFunctionKind::kAggregate:
        Frames();
        Aggregate(&out);
        break;
    }
    return out;
  }

 private:
  void Ntile(Vector* out) {
    // The bucket count is the partition's first row's (PostgreSQL's).
    Vector k = call_.args[0]->Eval(rows_, ctx_);
    if (k.IsNull(0)) return out->AppendNulls(n_);
    const int64_t buckets = k.GetInt(0);
    if (buckets <= 0) throw SqlError("22014", "argument of ntile must be greater than zero");
    // n / buckets rows each, the first n % buckets buckets one more.
    const int64_t per = int64_t(n_) / buckets, extra = int64_t(n_) % buckets;
    int64_t bucket = 1, left = per + (extra > 0 ? 1 : 0);
    for (size_t r = 0; r < n_; r++) {
      if (left == 0) {
        bucket++;
        left = per + (bucket <= extra ? 1 : 0);
      }
      out->AppendInt(bucket);
      left--;
    }
  }

  void Shift(Vector* out) {
    const bool lag = call_.kind == WindowFunctionKind::kLag;
    Vector value = call_.args[0]->Eval(rows_, ctx_);
    Vector offset = call_.args.size() > 1 ? call_.args[1]->Eval(rows_, ctx_) : Vector::Constant(Value::Int64(1), n_);
    Vector fallback = call_.args.size() > 2 ? call_.args[2]->Eval(rows_, ctx_) : Vector::Constant(Value::Null(call_.type), n_);
    for (size_t r = 0; r < n_; r++) {
      if (offset.IsNull(r)) {
        out->AppendNull();
        continue;
      }
      int64_t j = int64_t(r) + (lag ? -offset.GetInt(r) : offset.GetInt(r));
      if (j >= 0 && j < int64_t(n_)) out->AppendFrom(value, size_t(j));
      else out->AppendFrom(fallback, r);
    }
  }

  // Each row's frame [start_[r], end_[r]) before exclusion.
  void Frames() {
    start_.assign(n_, 0);
    end_.assign(n_, n_);
    const WindowFrame& f = call_.frame;
    const size_t groups = group_start_.size();
    for (int which = 0; which < 2; which++) {
      const bool start = which == 0;
      const WindowFrameBound& b = start ? f.start : f.end;
      std::vector<size_t>& bound = start ? start_ : end_;
      using K = WindowFrameBound::Kind;
      if (b.kind == K::kUnboundedPreceding || b.kind == K::kUnboundedFollowing) continue;
      if (b.kind == K::kCurrentRow) {
        for (size_t r = 0; r < n_; r++) {
          if (f.mode == WindowFrame::Mode::kRows) bound[r] = start ? r : r + 1;
          else bound[r] = start ? group_start_[group_[r]] : group_end_[group_[r]];
        }
        continue;
      }
      const bool preceding = b.kind == K::kPreceding;
      if (f.mode == WindowFrame::Mode::kRange) {
        CheckRangeOffset(b, start, ctx_);
        Vector value = b.range_value->Eval(rows_, ctx_);
        std::string key;
        for (size_t r = 0; r < n_; r++) {
          if (value.IsNull(r)) {  // a NULL sort key: the frame is its peers
            bound[r] = start ? group_start_[group_[r]] : group_end_[group_[r]];
            continue;
          }
          key.clear();
          EncodeOrderKeyFromVector(value, r, call_.order_by[0].descending, call_.order_by[0].nulls_first, &key);
          auto it = start ? std::lower_bound(keys_.begin(), keys_.end(), key) : std::upper_bound(keys_.begin(), keys_.end(), key);
          bound[r] = size_t(it - keys_.begin());
        }
        continue;
      }
      const int64_t off = CountOffset(b, start, ctx_);
      for (size_t r = 0; r < n_; r++) {
        if (f.mode == WindowFrame::Mode::kRows) {
          // The bound row r -/+ off; the end is one past it.
          int64_t row = preceding ? int64_t(r) - off : int64_t(r) + std::min<int64_t>(off, int64_t(n_));
          if (!start) row++;
          bound[r] = size_t(std::clamp<int64_t>(row, 0, int64_t(n_)));
        } else {
          int64_t g = preceding ? int64_t(group_[r]) - off : int64_t(group_[r]) + std::min<int64_t>(off, int64_t(groups));
          if (g < 0) bound[r] = 0;
          else if (g >= int64_t(groups)) bound[r] = n_;
          else bound[r] = start ? group_start_[size_t(g)] : group_end_[size_t(g)];
        }
      }
    }
    for (size_t r = 0; r < n_; r++) end_[r] = std::max(end_[r], start_[r]);
  }

  // The rows EXCLUDE takes out of row r's frame: [first, last), but r
  // itself for TIES.
  void Excluded(size_t r, size_t* first, size_t* last, bool* keep_r) const {
    *keep_r = false;
    switch (call_.frame.exclude) {
      case WindowFrame::Exclude::kNone: *first = *last = r; return;
      case WindowFrame::Exclude::kCurrentRow: *first = r, *last = r + 1; return;
      case WindowFrame::Exclude::kTies: *keep_r = true; [[fallthrough]];
      case WindowFrame::Exclude::kGroup: *first = group_start_[group_[r]], *last = group_end_[group_[r]]; return;
    }
  }

  void FrameValue(Vector* out) {
    Vector value = call_.args[0]->Eval(rows_, ctx_);
    Vector nth;
    if (call_.kind == WindowFunctionKind::kNthValue) nth = call_.args[1]->Eval(rows_, ctx_);
    for (size_t r = 0; r < n_; r++) {
      int64_t want = 1;  // the how-many-th row of the frame, from its start (or its end)
      if (call_.kind == WindowFunctionKind::kNthValue) {
        if (nth.IsNull(r)) {
          out->AppendNull();
          continue;
        }
        want = nth.GetInt(r);
        if (want <= 0) throw SqlError("22016", "argument of nth_value must be greater than zero");
      }
      size_t xs, xe;
      bool keep_r;
      Excluded(r, &xs, &xe, &keep_r);
      auto included = [&](size_t j) { return j < xs || j >= xe || (keep_r && j == r); };
      std::optional<size_t> found;
      if (call_.kind == WindowFunctionKind::kLastValue) {
        for (size_t j = end_[r]; j > start_[r] && !found; j--)
          if (included(j - 1)) found = j - 1;
      } else {
        int64_t seen = 0;
        for (size_t j = start_[r]; j < end_[r] && !found; j++)
          if (included(j) && ++seen == want) found = j;
      }
      if (found) out->AppendFrom(value, *found);
      else out->AppendNull();
    }
  }

  void Aggregate(Vector* out) {
    std::unique_ptr<AggregateFunction> fn = CreateAggregate(call_.agg, false);
    fn->Resize(1);
    std::vector<Vector> args;
    for (const auto& a : call_.args) args.push_back(a->Eval(rows_, ctx_));
    std::vector<uint8_t> counted(n_, 1);
    if (call_.filter) counted = ToMask(call_.filter->Eval(rows_, ctx_));
    // Adds (sign 1) or retracts (-1) rows [from, to) of those counted.
    auto apply = [&](size_t from, size_t to, int8_t sign, size_t skip = SIZE_MAX) {
      std::vector<uint32_t> sel;
      for (size_t j = from; j < to; j++)
        if (counted[j] && j != skip) sel.push_back(uint32_t(j));
      if (sel.empty()) return;
      std::vector<Vector> taken;
      std::vector<const Vector*> ptrs;
      for (const auto& a : args) taken.push_back(a.Take(sel));
      for (const auto& t : taken) ptrs.push_back(&t);
      std::vector<uint32_t> groups(sel.size(), 0);
      std::vector<int8_t> signs(sel.size(), sign);
      fn->Update(groups.data(), ptrs, signs.data(), sel.size(), ctx_);
    };
    const uint32_t group0 = 0;
    size_t lo = 0, hi = 0;  // rows in the aggregate: [lo, hi)
    for (size_t r = 0; r < n_; r++) {
      const size_t s = start_[r], t = end_[r];
      if (s >= hi) {
        apply(lo, hi, -1);
        lo = hi = s;
      } else if (s > lo) {
        apply(lo, s, -1);
        lo = s;
      }
      if (t > hi) {
        apply(hi, t, 1);
        hi = t;
      }
      size_t xs, xe;
      bool keep_r;
      Excluded(r, &xs, &xe, &keep_r);
      xs = std::max(xs, lo);
      xe = std::min(xe, hi);
      const bool excluding = xs < xe;
      if (excluding) apply(xs, xe, -1, keep_r ? r : SIZE_MAX);
      fn->FinalizeGroups(&group0, 1, out, ctx_);
      if (excluding) apply(xs, xe, 1, keep_r ? r : SIZE_MAX);
    }
  }

  const WindowCall& call_;
  const DataChunk& rows_;
  EvalContext& ctx_;
  const size_t n_;
  std::vector<std::string> keys_;      // ORDER BY keys, ascending in key order
  std::vector<uint32_t> group_;        // each row's peer group
  std::vector<size_t> group_start_, group_end_;
  std::vector<size_t> start_, end_;    // frames
};

}  // namespace

Vector EvaluateWindowPartition(const WindowCall& call, const DataChunk& rows, EvalContext& ctx) {
  if (rows.num_rows() == 0) return Vector(call.type);
  return PartitionEvaluator(call, rows, ctx).Evaluate();
}

}  // namespace freshet
