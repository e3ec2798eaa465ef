// HashAggregate (see hash_aggregate.h).
#include "batch/hash_aggregate.h"

#include <algorithm>

#include "batch/executors.h"
#include "common/encoding.h"

namespace freshet {

HashAggregateExecutor::HashAggregateExecutor(const AggregateNode& node, ExecutorPtr child, ExecContext& ctx)
    : node_(node), child_(std::move(child)), ctx_(ctx) {
  std::vector<DataType> key_types;
  for (const auto& k : node.group_keys) key_types.push_back(k->type());
  group_values_ = DataChunk(key_types);
  for (const auto& call : node.aggs) aggs_.push_back(CreateAggregate(call.sig, /*inputs_never_retract=*/true));
  distinct_seen_.resize(node.aggs.size());
  ordered_.resize(node.aggs.size());
}

bool HashAggregateExecutor::Next(DataChunk* out) {
  Consume();
  Finish();
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

void HashAggregateExecutor::Consume() {
  if (consumed_) return;
  consumed_ = true;
  DataChunk in;
  std::vector<uint32_t> groups;
  std::vector<uint8_t> changed;
  std::string key;
  if (node_.group_keys.empty()) AddGroup("", nullptr, 0);
  while (child_->Next(&in)) {
    ctx_.CheckCancelled();
    size_t n = in.num_rows();
    groups.assign(n, 0);
    if (!node_.group_keys.empty()) {
      DataChunk keys = EvalExpressions(node_.group_keys, in, ctx_.eval);
      // Input sorted by its keys (a time-series scan's series) repeats
      // them row after row: such a row takes the previous row's group,
      // unencoded.
      MarkKeyChanges(keys, &changed);
      for (size_t r = 0; r < n; r++) groups[r] = changed[r] ? GroupOf(keys, r, &key) : groups[r - 1];
    }
    for (size_t a = 0; a < aggs_.size(); a++) Update(a, in, groups);
  }
}

uint32_t HashAggregateExecutor::GroupOf(const DataChunk& keys, size_t r, std::string* key) {
  if (keys.num_columns() == 1 && keys.column(0).physical() == PhysicalType::kInt64) {
    // One integer-like key: hash the int64 (NULL has its own group).
    const Vector& k = keys.column(0);
    if (k.IsNull(r)) {
      if (null_group_ == kNoGroup) null_group_ = AddGroup("", &keys, r);
      return null_group_;
    }
    auto [it, inserted] = int_index_.try_emplace(k.GetInt(r), 0);
    if (inserted) it->second = AddGroup("", &keys, r);
    return it->second;
  }
  key->clear();
  for (const auto& c : keys.columns()) EncodeKeyFromVector(c, r, key);
  auto it = index_.find(*key);
  return it != index_.end() ? it->second : AddGroup(*key, &keys, r);
}

bool HashAggregateExecutor::Mergeable(const AggregateNode& node) {
  for (const AggregateCall& call : node.aggs)
    if (call.distinct || Ordered(call) || !CreateAggregate(call.sig, /*inputs_never_retract=*/true)->Mergeable())
      return false;
  return true;
}

void HashAggregateExecutor::Absorb(const HashAggregateExecutor& other) {
  std::string key;
  for (uint32_t g = 0; g < other.num_groups_; g++) {
    // Without GROUP BY both have their one group, 0.
    const uint32_t into = node_.group_keys.empty() ? 0 : GroupOf(other.group_values_, g, &key);
    for (size_t a = 0; a < aggs_.size(); a++) aggs_[a]->MergeGroup(into, *other.aggs_[a], g);
  }
}

void HashAggregateExecutor::Finish() {
  if (finished_) return;
  finished_ = true;
  for (size_t a = 0; a < aggs_.size(); a++)
    if (Ordered(node_.aggs[a])) ReplayOrdered(a);
  results_.clear();
  for (size_t a = 0; a < aggs_.size(); a++) {
    Vector v(node_.aggs[a].sig.return_type);
    aggs_[a]->Finalize(num_groups_, &v, ctx_.eval);
    results_.push_back(std::move(v));
  }
}

// changed[r]: whether row r's keys may differ from row r - 1's (row 0:
// always), compared column by column for the types whose equality is
// their key encoding's (others: always, encode).
void HashAggregateExecutor::MarkKeyChanges(const DataChunk& keys, std::vector<uint8_t>* changed) {
  const size_t n = keys.num_rows();
  changed->assign(n, 0);
  if (n == 0) return;
  uint8_t* out = changed->data();
  out[0] = 1;
  for (const Vector& c : keys.columns()) {
    const uint8_t* valid = c.validity().data();
    switch (c.physical()) {
      case PhysicalType::kInt64: {
        const int64_t* v = c.ints().data();
        for (size_t r = 1; r < n; r++) out[r] |= (valid[r] != valid[r - 1]) | (valid[r] & (v[r] != v[r - 1]));
        break;
      }
      case PhysicalType::kDouble: {
        const double* v = c.floats().data();  // NaN never equals: encoded
        for (size_t r = 1; r < n; r++) out[r] |= (valid[r] != valid[r - 1]) | (valid[r] & !(v[r] == v[r - 1]));
        break;
      }
      case PhysicalType::kString: {
        const std::vector<std::string>& v = c.strings();
        for (size_t r = 1; r < n; r++)
          if (!out[r]) out[r] = valid[r] != valid[r - 1] || (valid[r] && v[r] != v[r - 1]);
        break;
      }
      default: std::fill(out, out + n, 1); return;
    }
  }
}

uint32_t HashAggregateExecutor::AddGroup(const std::string& key, const DataChunk* keys, size_t row) {
  uint32_t id = static_cast<uint32_t>(num_groups_++);
  if (keys) {
    if (!key.empty()) index_.emplace(key, id);
    group_values_.AppendRowFrom(*keys, row);
  }
  for (auto& a : aggs_) a->Resize(num_groups_);
  return id;
}

void HashAggregateExecutor::Update(size_t a, const DataChunk& in, const std::vector<uint32_t>& groups) {
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

// Fed in an order: by ORDER BY, or string_agg/array_agg(DISTINCT ...)
// without one by their arguments, as PostgreSQL sorts a DISTINCT
// aggregate's input.
bool HashAggregateExecutor::Ordered(const AggregateCall& call) {
  return !call.order_by.empty() || (call.distinct && AggregateListsInputs(call.sig.kind));
}

void HashAggregateExecutor::BufferOrdered(size_t a, const DataChunk& in, const std::vector<uint32_t>& groups,
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

void HashAggregateExecutor::ReplayOrdered(size_t a) {
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

ExecutorPtr MakeHashAggregate(const AggregateNode& node, ExecutorPtr child, ExecContext& ctx) {
  return std::make_unique<HashAggregateExecutor>(node, std::move(child), ctx);
}

}  // namespace freshet
