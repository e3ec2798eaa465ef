#include "stream/hash_join.h"

#include <spdlog/spdlog.h>

#include "common/encoding.h"
#include "common/error.h"
#include "stream/eval.h"

namespace freshet {

namespace {
constexpr size_t kMaxPairsPerBatch = 1024;
}

HashJoinOperator::HashJoinOperator(JoinType type, Side left, Side right, ExprPtr condition, EvalContext eval)
    : type_(type), sides_{std::move(left), std::move(right)}, condition_(std::move(condition)), eval_(std::move(eval)) {
  output_types_ = sides_[0].types;
  output_types_.insert(output_types_.end(), sides_[1].types.begin(), sides_[1].types.end());
  out_ = DataChunk(output_types_);
}

void HashJoinOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  for (int s = 0; s < 2; s++) tables_[s] = ctx->NewStateTable(sides_[s].table);
}

HashJoinOperator::Bucket& HashJoinOperator::BucketOf(int side, const std::string& key, uint16_t vnode) {
  auto [it, inserted] = buckets_[side].try_emplace(key);
  Bucket& b = it->second;
  if (!inserted) return b;
  b.vnode = vnode;
  // First use since the actor started: load the key's rows from storage.
  StateStore* store = ctx_->store;
  std::string prefix = VnodePrefix(sides_[side].table.table_id, vnode) + key;
  auto range = store->NewRange(store->data_cf(), nullptr, prefix, PrefixSuccessor(prefix));
  std::vector<DataType> types = sides_[side].table.column_types;
  for (auto& i = range->it; i->Valid(); i->Next()) {
    Row row;
    if (!DecodeRow(std::string_view(i->value().data(), i->value().size()), types, &row))
      throw SqlError(sqlstate::kDataCorrupted, "corrupt join state");
    Entry e;
    e.degree = row.back().int_value();
    row.pop_back();
    e.row = std::move(row);
    b.rows[std::string(i->key().data() + prefix.size(), i->key().size() - prefix.size())] = std::move(e);
  }
  return b;
}

void HashJoinOperator::SaveEntry(int side, const std::string& join_key, const Bucket& b, const std::string& sk,
                                 const Entry& e) {
  Row row = e.row;
  row.push_back(Value::Int64(e.degree));
  std::string v;
  EncodeRowValues(row, &v);
  tables_[side]->Put(VnodePrefix(sides_[side].table.table_id, b.vnode) + join_key + sk, std::move(v));
}

void HashJoinOperator::EmitRow(Op op, const Row* left, const Row* right) {
  out_ops_.push_back(op);
  for (int s = 0; s < 2; s++) {
    const Row* r = s == 0 ? left : right;
    size_t base = s == 0 ? 0 : sides_[0].types.size();
    for (size_t c = 0; c < sides_[s].types.size(); c++) {
      if (r) out_.column(base + c).Append((*r)[c]);
      else out_.column(base + c).AppendNull();
    }
  }
  if (out_ops_.size() >= kChunkSize) FlushOutput();
}

void HashJoinOperator::FlushOutput() {
  if (out_ops_.empty()) return;
  Emit(StreamChunk(std::move(out_ops_), std::move(out_)));
  out_ops_.clear();
  out_ = DataChunk(output_types_);
}

void HashJoinOperator::OnChunk(int side, StreamChunk chunk) {
  const int other = 1 - side;
  const bool preserve_mine = side == 0 ? (type_ == JoinType::kLeft || type_ == JoinType::kFull)
                                       : (type_ == JoinType::kRight || type_ == JoinType::kFull);
  const bool preserve_other = side == 0 ? (type_ == JoinType::kRight || type_ == JoinType::kFull)
                                        : (type_ == JoinType::kLeft || type_ == JoinType::kFull);
  const Side& me = sides_[side];
  const DataChunk& data = chunk.data();
  const size_t n = chunk.num_rows();

  // Rows are handled in batches: candidate pairs of a batch are checked
  // against the condition together, then each row is applied in order.
  // Rows of one side never change the other side's rows (only their
  // degrees), so computing a batch's pairs up front is exact.
  struct Pending {
    size_t row;
    std::string key, sk;
    Bucket* other_bucket;  // null when the key has a NULL (no match)
    size_t first_pair, num_pairs;
  };
  using EntryIt = std::map<std::string, Entry>::iterator;
  std::vector<Pending> batch;
  std::vector<EntryIt> pair_entries;
  DataChunk pairs(output_types_);

  auto apply_batch = [&] {
    std::vector<uint8_t> ok(pair_entries.size(), 1);
    if (condition_ && !pair_entries.empty()) ok = ToMask(EvalRowTolerant(*condition_, pairs, eval_));
    for (const Pending& p : batch) {
      Row mine = data.GetRow(p.row);
      bool insert = IsInsertOp(chunk.ops()[p.row]);
      std::vector<Entry*> matches;
      for (size_t i = 0; i < p.num_pairs; i++)
        if (ok[p.first_pair + i]) matches.push_back(&pair_entries[p.first_pair + i]->second);
      const Row* l = side == 0 ? &mine : nullptr;
      auto pair_with = [&](Entry* m) { return side == 0 ? std::make_pair(&mine, &m->row) : std::make_pair(&m->row, &mine); };
      if (insert) {
        if (matches.empty() && preserve_mine) EmitRow(Op::kInsert, side == 0 ? l : nullptr, side == 0 ? nullptr : &mine);
        for (Entry* m : matches) {
          if (preserve_other) {
            if (m->degree == 0)
              EmitRow(Op::kDelete, side == 0 ? nullptr : &m->row, side == 0 ? &m->row : nullptr);
            m->degree++;
          }
          auto [a, b] = pair_with(m);
          EmitRow(Op::kInsert, a, b);
        }
      } else {
        if (matches.empty() && preserve_mine) EmitRow(Op::kDelete, side == 0 ? l : nullptr, side == 0 ? nullptr : &mine);
        for (Entry* m : matches) {
          auto [a, b] = pair_with(m);
          EmitRow(Op::kDelete, a, b);
          if (preserve_other) {
            m->degree--;
            if (m->degree == 0)
              EmitRow(Op::kInsert, side == 0 ? nullptr : &m->row, side == 0 ? &m->row : nullptr);
          }
        }
      }
      if (preserve_other) {
        // Persist the matched rows' new degrees.
        for (size_t i = 0; i < p.num_pairs; i++) {
          EntryIt m = pair_entries[p.first_pair + i];
          if (ok[p.first_pair + i]) SaveEntry(other, p.key, *p.other_bucket, m->first, m->second);
        }
      }
      // This side's own state.
      Bucket& mine_bucket = BucketOf(side, p.key, p.other_bucket->vnode);
      std::string storage_key = VnodePrefix(me.table.table_id, mine_bucket.vnode) + p.key + p.sk;
      if (insert) {
        Entry e{std::move(mine), int64_t(matches.size())};
        SaveEntry(side, p.key, mine_bucket, p.sk, e);
        mine_bucket.rows[p.sk] = std::move(e);
      } else if (mine_bucket.rows.erase(p.sk)) {
        tables_[side]->Delete(std::move(storage_key));
      }
    }
    batch.clear();
    pair_entries.clear();
    pairs = DataChunk(output_types_);
  };

  for (size_t r = 0; r < n; r++) {
    Pending p{r, "", "", nullptr, pair_entries.size(), 0};
    bool null_key = false;
    for (int k : me.keys) {
      null_key |= data.column(k).IsNull(r);
      EncodeKeyFromVector(data.column(k), r, &p.key);
    }
    for (int k : me.stream_key) EncodeKeyFromVector(data.column(k), r, &p.sk);
    uint16_t vnode = me.keys.empty() ? 0 : ComputeVnode(data, r, me.keys);
    if (null_key) {
      // Never matches; an outer join still shows it (padded) while it exists.
      bool insert = IsInsertOp(chunk.ops()[r]);
      if (preserve_mine) {
        Row mine = data.GetRow(r);
        EmitRow(insert ? Op::kInsert : Op::kDelete, side == 0 ? &mine : nullptr, side == 0 ? nullptr : &mine);
      }
      continue;
    }
    p.other_bucket = &BucketOf(other, p.key, vnode);
    for (auto it = p.other_bucket->rows.begin(); it != p.other_bucket->rows.end(); ++it) {
      const Entry& e = it->second;
      pair_entries.push_back(it);
      size_t base = side == 0 ? 0 : sides_[0].types.size();
      size_t obase = side == 0 ? sides_[0].types.size() : 0;
      for (size_t c = 0; c < me.types.size(); c++) pairs.column(base + c).AppendFrom(data.column(c), r);
      for (size_t c = 0; c < sides_[other].types.size(); c++) pairs.column(obase + c).Append(e.row[c]);
    }
    p.num_pairs = pair_entries.size() - p.first_pair;
    batch.push_back(std::move(p));
    if (pair_entries.size() >= kMaxPairsPerBatch) apply_batch();
  }
  apply_batch();
  FlushOutput();
}

}  // namespace freshet
