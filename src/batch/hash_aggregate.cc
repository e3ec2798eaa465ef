// HashAggregate: groups rows by key and folds aggregates per group.
//
// Group keys are encoded memcomparably into one string per row, which is
// the hash-table key; the key values of each group are kept once in
// `group_values_`. Without GROUP BY there is exactly one group, even on
// empty input (count(*) of nothing is 0).
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "batch/executors.h"
#include "common/encoding.h"

namespace freshet {

namespace {

class HashAggregateExecutor : public Executor {
 public:
  HashAggregateExecutor(const AggregateNode& node, ExecutorPtr child, ExecContext& ctx)
      : node_(node), child_(std::move(child)), ctx_(ctx) {
    std::vector<DataType> key_types;
    for (const auto& k : node.group_keys) key_types.push_back(k->type());
    group_values_ = DataChunk(key_types);
    for (const auto& call : node.aggs) aggs_.push_back(CreateAggregate(call.sig, /*inputs_never_retract=*/true));
    distinct_seen_.resize(node.aggs.size());
    ordered_.resize(node.aggs.size());
  }

  bool Next(DataChunk* out) override {
    if (!done_) Build();
    if (emitted_ >= num_groups_) return false;
    size_t n = std::min(kChunkSize, num_groups_ - emitted_);
    *out = DataChunk();
    for (size_t k = 0; k < node_.group_keys.size(); k++) {
      Vector v(group_values_.column(k).type());
      v.AppendRange(group_values_.column(k), emitted_, emitted_ + n);
      out->AddColumn(std::move(v));
    }
    for (size_t a = 0; a < aggs_.size(); a++) {
      Vector v(node_.aggs[a].sig.return_type);
      v.AppendRange(results_[a], emitted_, emitted_ + n);
      out->AddColumn(std::move(v));
    }
    out->set_cardinality(n);
    emitted_ += n;
    return true;
  }

 private:
  void Build() {
    done_ = true;
    DataChunk in;
    std::vector<uint32_t> groups;
    std::string key;
    if (node_.group_keys.empty()) AddGroup("", nullptr, 0);
    while (child_->Next(&in)) {
      ctx_.CheckCancelled();
      size_t n = in.num_rows();
      groups.assign(n, 0);
      if (!node_.group_keys.empty()) {
        DataChunk keys = EvalExpressions(node_.group_keys, in, ctx_.eval);
        if (keys.num_columns() == 1 && keys.column(0).physical() == PhysicalType::kInt64) {
          // One integer-like key: hash the int64 (NULL has its own group).
          const Vector& k = keys.column(0);
          for (size_t r = 0; r < n; r++) {
            if (k.IsNull(r)) {
              if (null_group_ == kNoGroup) null_group_ = AddGroup("", &keys, r);
              groups[r] = null_group_;
              continue;
            }
            auto [it, inserted] = int_index_.try_emplace(k.GetInt(r), 0);
            if (inserted) it->second = AddGroup("", &keys, r);
            groups[r] = it->second;
          }
        } else {
          for (size_t r = 0; r < n; r++) {
            // Input sorted by its keys (a time-series scan's series) repeats
            // them row after row: the previous row's group, unencoded.
            if (r > 0 && SameKeys(keys, r, r - 1)) {
              groups[r] = groups[r - 1];
              continue;
            }
            key.clear();
            for (const auto& c : keys.columns()) EncodeKeyFromVector(c, r, &key);
            auto it = index_.find(key);
            groups[r] = it != index_.end() ? it->second : AddGroup(key, &keys, r);
          }
        }
      }
      for (size_t a = 0; a < aggs_.size(); a++) Update(a, in, groups);
    }
    for (size_t a = 0; a < aggs_.size(); a++)
      if (Ordered(node_.aggs[a])) ReplayOrdered(a);
    results_.clear();
    for (size_t a = 0; a < aggs_.size(); a++) {
      Vector v(node_.aggs[a].sig.return_type);
      aggs_[a]->Finalize(num_groups_, &v, ctx_.eval);
      results_.push_back(std::move(v));
    }
  }

  // Whether rows a and b have equal group keys, compared directly for the
  // types whose equality is their key encoding's (false: unknown, encode).
  static bool SameKeys(const DataChunk& keys, size_t a, size_t b) {
    for (const Vector& c : keys.columns()) {
      const bool null_a = c.IsNull(a), null_b = c.IsNull(b);
      if (null_a != null_b) return false;
      if (null_a) continue;
      switch (c.physical()) {
        case PhysicalType::kInt64:
          if (c.GetInt(a) != c.GetInt(b)) return false;
          break;
        case PhysicalType::kDouble:
          if (!(c.GetFloat(a) == c.GetFloat(b))) return false;  // NaN: encoded
          break;
        case PhysicalType::kString:
          if (c.GetString(a) != c.GetString(b)) return false;
          break;
        default: return false;
      }
    }
    return true;
  }

  uint32_t AddGroup(const std::string& key, const DataChunk* keys, size_t row) {
    uint32_t id = static_cast<uint32_t>(num_groups_++);
    if (keys) {
      if (!key.empty()) index_.emplace(key, id);
      group_values_.AppendRowFrom(*keys, row);
    }
    for (auto& a : aggs_) a->Resize(num_groups_);
    return id;
  }

  void Update(size_t a, const DataChunk& in, const std::vector<uint32_t>& groups) {
    const AggregateCall& call = node_.aggs[a];
    std::vector<Vector> args;
    for (const auto& e : call.args) args.push_back(e->Eval(in, ctx_.eval));
    std::vector<const Vector*> arg_ptrs;
    for (const auto& v : args) arg_ptrs.push_back(&v);
    std::vector<uint8_t> keep;
    if (call.filter) keep = ToMask(call.filter->Eval(in, ctx_.eval));
    if (call.distinct) {
      // Only the first occurrence of each (group, arguments) counts.
      if (keep.empty()) keep.assign(in.num_rows(), 1);
      std::string key;
      for (size_t r = 0; r < in.num_rows(); r++) {
        if (!keep[r]) continue;
        key.assign(reinterpret_cast<const char*>(&groups[r]), sizeof(uint32_t));
        for (const auto& v : args) EncodeKeyFromVector(v, r, &key);
        keep[r] = distinct_seen_[a].insert(key).second;
      }
    }
    if (Ordered(call)) {
      // Fed later, in ORDER BY order (see ReplayOrdered).
      BufferOrdered(a, in, groups, args, keep);
      return;
    }
    if (keep.empty()) {
      aggs_[a]->Update(groups.data(), arg_ptrs, nullptr, in.num_rows(), ctx_.eval);
      return;
    }
    // Compact the selected rows.
    std::vector<uint32_t> sel, sel_groups;
    for (size_t r = 0; r < keep.size(); r++) {
      if (!keep[r]) continue;
      sel.push_back(static_cast<uint32_t>(r));
      sel_groups.push_back(groups[r]);
    }
    std::vector<Vector> picked;
    for (const auto& v : args) picked.push_back(v.Take(sel));
    std::vector<const Vector*> picked_ptrs;
    for (const auto& v : picked) picked_ptrs.push_back(&v);
    aggs_[a]->Update(sel_groups.data(), picked_ptrs, nullptr, sel.size(), ctx_.eval);
  }

  // Rows of an aggregate with ORDER BY, held until the input ends.
  struct OrderedRows {
    DataChunk args;
    std::vector<uint32_t> groups;
    std::vector<std::string> keys;
  };

  // Fed in an order: by ORDER BY, or string_agg/array_agg(DISTINCT ...)
  // without one by their arguments, as PostgreSQL sorts a DISTINCT
  // aggregate's input.
  static bool Ordered(const AggregateCall& call) {
    return !call.order_by.empty() || (call.distinct && AggregateListsInputs(call.sig.kind));
  }

  void BufferOrdered(size_t a, const DataChunk& in, const std::vector<uint32_t>& groups,
                     const std::vector<Vector>& args, const std::vector<uint8_t>& keep) {
    const AggregateCall& call = node_.aggs[a];
    OrderedRows& buf = ordered_[a];
    if (buf.args.num_columns() == 0) {
      std::vector<DataType> types;
      for (const auto& v : args) types.push_back(v.type());
      buf.args = DataChunk(types);
    }
    std::vector<Vector> keys;
    for (const auto& k : call.order_by) keys.push_back(k.expr->Eval(in, ctx_.eval));
    std::string key;
    for (size_t r = 0; r < in.num_rows(); r++) {
      if (!keep.empty() && !keep[r]) continue;
      key.clear();
      for (size_t k = 0; k < keys.size(); k++)
        EncodeOrderKeyFromVector(keys[k], r, call.order_by[k].descending, call.order_by[k].nulls_first, &key);
      if (call.order_by.empty())  // DISTINCT: by the arguments, ascending
        for (const auto& v : args) EncodeOrderKeyFromVector(v, r, false, false, &key);
      buf.keys.push_back(key);
      buf.groups.push_back(groups[r]);
      for (size_t c = 0; c < args.size(); c++) buf.args.column(c).AppendFrom(args[c], r);
    }
    buf.args.set_cardinality(buf.keys.size());
  }

  void ReplayOrdered(size_t a) {
    OrderedRows& buf = ordered_[a];
    std::vector<uint32_t> idx(buf.keys.size());
    for (size_t i = 0; i < idx.size(); i++) idx[i] = static_cast<uint32_t>(i);
    std::stable_sort(idx.begin(), idx.end(), [&](uint32_t x, uint32_t y) { return buf.keys[x] < buf.keys[y]; });
    for (size_t begin = 0; begin < idx.size(); begin += kChunkSize) {
      std::vector<uint32_t> part(idx.begin() + begin, idx.begin() + std::min(idx.size(), begin + kChunkSize));
      DataChunk rows = buf.args.Take(part);
      std::vector<uint32_t> groups;
      for (uint32_t i : part) groups.push_back(buf.groups[i]);
      std::vector<const Vector*> ptrs;
      for (const auto& c : rows.columns()) ptrs.push_back(&c);
      aggs_[a]->Update(groups.data(), ptrs, nullptr, part.size(), ctx_.eval);
    }
    buf = OrderedRows();
  }

  const AggregateNode& node_;
  ExecutorPtr child_;
  ExecContext& ctx_;
  std::vector<std::unique_ptr<AggregateFunction>> aggs_;
  std::vector<std::unordered_set<std::string>> distinct_seen_;
  std::vector<OrderedRows> ordered_;
  std::unordered_map<std::string, uint32_t> index_;
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  std::unordered_map<int64_t, uint32_t> int_index_;
  uint32_t null_group_ = kNoGroup;
  DataChunk group_values_;
  size_t num_groups_ = 0;
  std::vector<Vector> results_;
  bool done_ = false;
  size_t emitted_ = 0;
};

}  // namespace

ExecutorPtr MakeHashAggregate(const AggregateNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<HashAggregateExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
