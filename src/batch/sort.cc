// Sort (ORDER BY) and top-N (ORDER BY ... LIMIT n).
//
// Each row gets one memcomparable sort key built from all ORDER BY keys
// (direction and NULLS FIRST/LAST folded into the bytes), so ordering is a
// plain string comparison and ties keep input order (stable). For top-N
// only the best `limit` rows are kept: whenever the buffer doubles, it is
// sorted and cut back.
#include <algorithm>
#include <numeric>

#include "batch/executors.h"
#include "common/encoding.h"

namespace freshet {

namespace {

class SortExecutor : public Executor {
 public:
  SortExecutor(const SortNode& node, ExecutorPtr child, int64_t limit, ExecContext& ctx)
      : node_(node), child_(std::move(child)), limit_(limit), ctx_(ctx), rows_(node.types()) {}

  bool Next(DataChunk* out) override {
    if (!sorted_) SortAll();
    if (emitted_ >= order_.size()) return false;
    size_t n = std::min(kChunkSize, order_.size() - emitted_);
    std::vector<uint32_t> sel(order_.begin() + emitted_, order_.begin() + emitted_ + n);
    *out = rows_.Take(sel);
    out->set_cardinality(n);
    emitted_ += n;
    return true;
  }

 private:
  // Appends the sort keys of `in` and returns which rows to keep: for top-N,
  // a row whose key is not below the current N-th best key can never make
  // it (ties keep input order), so it is dropped before being copied.
  std::vector<uint8_t> AppendKeys(const DataChunk& in) {
    DataChunk values;
    for (const auto& k : node_.keys) values.AddColumn(k.expr->Eval(in, ctx_.eval));
    std::vector<uint8_t> keep(in.num_rows(), 1);
    std::string key;
    for (size_t r = 0; r < in.num_rows(); r++) {
      key.clear();
      for (size_t k = 0; k < node_.keys.size(); k++) {
        const Vector& v = values.column(k);
        const SortKey& sk = node_.keys[k];
        if (v.IsNull(r)) {
          key.push_back(sk.nulls_first ? 0 : 2);
          continue;
        }
        key.push_back(1);
        size_t start = key.size();
        EncodeKeyFromVector(v, r, &key);
        if (sk.descending)
          for (size_t i = start; i < key.size(); i++) key[i] = static_cast<char>(~static_cast<uint8_t>(key[i]));
      }
      if (has_threshold_ && key >= threshold_) {
        keep[r] = 0;
        continue;
      }
      keys_.push_back(key);
    }
    return keep;
  }

  // Sorts the buffered rows (stable) and keeps at most `keep` of them.
  void SortAndTrim(size_t keep) {
    std::vector<uint32_t> idx(keys_.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) { return keys_[a] < keys_[b]; });
    if (idx.size() > keep) idx.resize(keep);
    if (idx.size() == keep && keep > 0) {
      threshold_ = keys_[idx.back()];
      has_threshold_ = true;
    }
    rows_ = rows_.Take(idx);
    std::vector<std::string> keys;
    keys.reserve(idx.size());
    for (uint32_t i : idx) keys.push_back(std::move(keys_[i]));
    keys_ = std::move(keys);
  }

  void SortAll() {
    sorted_ = true;
    DataChunk in;
    size_t keep = limit_ < 0 ? SIZE_MAX : static_cast<size_t>(limit_);
    while (child_->Next(&in)) {
      ctx_.CheckCancelled();
      std::vector<uint8_t> keep_rows = AppendKeys(in);
      if (has_threshold_) in.Filter(keep_rows);
      for (size_t c = 0; c < rows_.num_columns(); c++) rows_.column(c).AppendRange(in.column(c), 0, in.num_rows());
      rows_.set_cardinality(keys_.size());
      if (limit_ >= 0 && keys_.size() >= std::max<size_t>(2 * keep, kChunkSize)) SortAndTrim(keep);
    }
    SortAndTrim(keep);
    order_.resize(keys_.size());
    std::iota(order_.begin(), order_.end(), 0);
    rows_.set_cardinality(keys_.size());
  }

  const SortNode& node_;
  ExecutorPtr child_;
  int64_t limit_;
  ExecContext& ctx_;
  DataChunk rows_;
  std::vector<std::string> keys_;
  std::string threshold_;  // top-N: the N-th best key seen so far
  bool has_threshold_ = false;
  std::vector<uint32_t> order_;
  bool sorted_ = false;
  size_t emitted_ = 0;
};

}  // namespace

ExecutorPtr MakeSort(const SortNode& node, ExecutorPtr child, int64_t limit, ExecContext& ctx) {
  return std::make_unique<SortExecutor>(node, std::move(child), limit, ctx);
}

}  // namespace freshet
