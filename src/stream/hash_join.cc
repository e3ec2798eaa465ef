#include "stream/hash_join.h"

#include <spdlog/spdlog.h>

#include "common/encoding.h"
#include "common/error.h"
#include "expr/monotonic.h"
#include "stream/eval.h"

namespace freshet {

namespace {
constexpr size_t kMaxPairsPerBatch = 1024;
// Rough heap cost of a bucket and of a row in it (hash and map nodes,
// string headers), on top of the bytes of keys and rows.
constexpr size_t kBucketOverhead = 160;
constexpr size_t kEntryOverhead = 112;
}  // namespace

size_t HashJoinOperator::EntryBytes(const std::string& sk, const Entry& e) {
  return kEntryOverhead + sk.size() + e.cells.size() + e.matches.size();
}

HashJoinOperator::HashJoinOperator(JoinType type, Side left, Side right, ExprPtr condition, EvalContext eval,
                                   std::vector<JoinStateCleaning> cleanings, bool process_time, bool keep_left)
    : type_(type), process_time_(process_time), keep_left_(keep_left), sides_{std::move(left), std::move(right)}, condition_(std::move(condition)), eval_(std::move(eval)) {
  for (auto& c : cleanings) cleanings_.push_back(Cleaning{std::move(c)});
  pair_types_ = sides_[0].types;
  pair_types_.insert(pair_types_.end(), sides_[1].types.begin(), sides_[1].types.end());
  output_types_ = filtering() ? sides_[0].types : pair_types_;
  out_ = DataChunk(output_types_);
}

void HashJoinOperator::Open(ActorContext* ctx) {
  StreamOperator::Open(ctx);
  share_.set_job(ctx->memory);
  for (int s = 0; s < 2; s++) tables_[s] = ctx->NewStateTable(sides_[s].table);
  if (!cleanings_.empty()) LoadCleaningIndexes();
  else LoadWholeSides();
}

void HashJoinOperator::LoadWholeSides() {
  for (int side = 0; side < 2; side++) {
    const Side& me = sides_[side];
    whole_[side] = true;
    whole_rows_[side] = 0;
    for (int v = ctx_->vnodes.first; v < ctx_->vnodes.second && whole_[side]; v++) {
      for (auto i = tables_[side]->ScanCommittedPrefix(tables_[side]->KeyIn(uint16_t(v))); i.Valid(); i.Next()) {
        if (++whole_rows_[side] > kWholeSideRows) {
          whole_[side] = false;
          break;
        }
        // The join key and stream key, from the row (the storage key holds
        // them encoded one after the other).
        std::string_view cells = i.value();
        DataChunk row(me.types);
        if (!DecodeCellsInto(&cells, &row, 0, me.types.size())) throw SqlError(sqlstate::kDataCorrupted, "corrupt join state");
        std::string key, sk;
        for (int k : me.keys) EncodeKeyFromVector(row.column(k), 0, &key);
        for (int k : me.stream_key) EncodeKeyFromVector(row.column(k), 0, &sk);
        auto [it, inserted] = buckets_[side].try_emplace(key);
        Bucket& b = it->second;
        if (inserted) {
          b.vnode = uint16_t(v);
          b.lru = lru_[side].Add(&it->first);
          b.bytes = kBucketOverhead + key.size();
          bytes_ += b.bytes;
        }
        AddStored(side, b, std::move(sk), i.value());
      }
    }
    if (whole_[side]) continue;
    // Too many: none kept (they are loaded by key as they are used).
    for (auto& [key, b] : buckets_[side]) lru_[side].Remove(b.lru);
    for (auto& [key, b] : buckets_[side]) bytes_ -= b.bytes;
    buckets_[side].clear();
  }
}

void HashJoinOperator::AddStored(int side, Bucket& b, std::string sk, std::string_view value) {
  std::string_view rest = value;
  DataChunk degree({DataType::Int64()});
  bool ok = SkipCells(&rest, sides_[side].types);
  size_t cells_size = value.size() - rest.size();
  if (!ok || !DecodeCellsInto(&rest, &degree, 0, 1) || degree.column(0).IsNull(0))
    throw SqlError(sqlstate::kDataCorrupted, "corrupt join state");
  Entry e;
  e.cells.assign(value.data(), cells_size);
  e.degree = degree.column(0).GetInt(0);
  // A temporal join's left row: then the right rows it was joined with.
  e.matches.assign(rest.data(), rest.size());
  if (!e.matches.empty() && !(process_time_ && side == 0 && keep_left_))
    throw SqlError(sqlstate::kDataCorrupted, "corrupt join state");
  const size_t bytes = EntryBytes(sk, e);
  b.bytes += bytes;
  bytes_ += bytes;
  b.rows[std::move(sk)] = std::move(e);
}

void HashJoinOperator::LoadCleaningIndexes() {
  for (Cleaning& c : cleanings_) {
    const int side = c.spec.side;
    const Side& me = sides_[side];
    for (int v = ctx_->vnodes.first; v < ctx_->vnodes.second; v++) {
      for (auto i = tables_[side]->ScanCommittedPrefix(tables_[side]->KeyIn(uint16_t(v))); i.Valid(); i.Next()) {
        std::string_view cells = i.value();
        DataChunk row(me.types);
        if (!DecodeCellsInto(&cells, &row, 0, me.types.size())) throw SqlError(sqlstate::kDataCorrupted, "corrupt join state");
        Value key = c.spec.key->Eval(row, eval_).GetValue(0);
        if (key.is_null()) continue;
        Cleaning::Row ref{std::string(), std::string(), uint16_t(v)};
        for (int k : me.keys) EncodeKeyFromVector(row.column(k), 0, &ref.join_key);
        for (int k : me.stream_key) EncodeKeyFromVector(row.column(k), 0, &ref.sk);
        c.index.emplace(std::move(key), std::move(ref));
      }
    }
  }
}

void HashJoinOperator::Clean() {
  for (Cleaning& c : cleanings_) {
    const int side = c.spec.side;
    Value threshold;
    for (const Watermark& w : watermarks_[1 - side])
      if (w.column == c.spec.other_column) {
        try {
          threshold = EvalAtColumn(*c.spec.bound, 0, w.value, eval_);
        } catch (const SqlError&) {  // out of range: nothing expires
        }
      }
    if (threshold.is_null()) continue;
    while (!c.index.empty() && Value::Compare(c.index.begin()->first, threshold) < 0) {
      const Cleaning::Row& r = c.index.begin()->second;
      Bucket& b = BucketOf(side, r.join_key, r.vnode);
      if (auto it = b.rows.find(r.sk); it != b.rows.end()) {
        const size_t sub = EntryBytes(it->first, it->second);
        b.rows.erase(it);
        b.bytes -= sub;
        bytes_ -= sub;
        tables_[side]->Delete(tables_[side]->KeyIn(b.vnode, r.join_key + r.sk));
        Written(b);
      }
      c.index.erase(c.index.begin());
    }
  }
}

HashJoinOperator::Bucket& HashJoinOperator::BucketOf(int side, const std::string& key, uint16_t vnode) {
  auto [it, inserted] = buckets_[side].try_emplace(key);
  Bucket& b = it->second;
  if (!inserted) {
    lru_[side].Touch(b.lru);
    return b;
  }
  b.vnode = vnode;
  b.lru = lru_[side].Add(&it->first);
  b.bytes = kBucketOverhead + key.size();
  bytes_ += b.bytes;
  if (whole_[side]) return b;  // a new key
  // First use since the actor started: load the key's rows from storage.
  std::string prefix = tables_[side]->KeyIn(vnode, key);
  for (auto i = tables_[side]->ScanCommittedPrefix(prefix); i.Valid(); i.Next())
    AddStored(side, b, std::string(i.key().substr(prefix.size())), i.value());
  // Writes made while it was not in memory and not committed yet.
  if (auto u = unloaded_[side].find(key); u != unloaded_[side].end())
    for (const auto& [sk, e] : u->second.rows) {
      if (e) b.rows[sk] = *e;
      else b.rows.erase(sk);
    }
  size_t bytes = kBucketOverhead + key.size();
  for (const auto& [sk, e] : b.rows) bytes += EntryBytes(sk, e);
  bytes_ += bytes - b.bytes;
  b.bytes = bytes;
  return b;
}

HashJoinOperator::Bucket& HashJoinOperator::ProbeBucket(int side, const std::string& key, uint16_t vnode) {
  if (whole_[side] && !buckets_[side].count(key)) return empty_bucket_;
  return BucketOf(side, key, vnode);
}

void HashJoinOperator::WriteUnloaded(int side, const std::string& key, uint16_t vnode, const std::string& sk,
                                     std::optional<Entry> e) {
  if (e) SaveEntry(side, key, vnode, sk, *e);
  else tables_[side]->Delete(tables_[side]->KeyIn(vnode, key + sk));
  UnloadedWrites& u = unloaded_[side][key];
  if (u.written != 0 || u.rows.empty()) unloaded_now_.emplace_back(side, key);
  u.written = 0;
  u.rows[sk] = std::move(e);
}

void HashJoinOperator::Written(Bucket& b) {
  if (!b.written_now) {
    b.written_now = true;
    written_.push_back(&b);
  }
}

void HashJoinOperator::OnBarrier(const Barrier& barrier) {
  std::vector<Watermark> out;
  const int left_width = int(sides_[0].types.size());
  for (size_t k = 0; k < sides_[0].keys.size(); k++) {
    const Watermark *l = nullptr, *r = nullptr;
    for (const Watermark& w : watermarks_[0])
      if (w.column == sides_[0].keys[k]) l = &w;
    for (const Watermark& w : watermarks_[1])
      if (w.column == sides_[1].keys[k]) r = &w;
    if (!l || !r) continue;
    const Value& least = Value::Compare(l->value, r->value) <= 0 ? l->value : r->value;
    out.push_back({l->column, least});
    if (!filtering()) out.push_back({left_width + r->column, least});
  }
  Clean();
  watermarks_[0].clear();
  watermarks_[1].clear();
  EmitWatermarks(out);
  // Buckets are only dropped here, after this loop: the pointers are live.
  for (Bucket* b : written_) {
    b->written_now = false;
    b->written = barrier.prev_epoch;
  }
  written_.clear();
  for (const auto& [side, key] : unloaded_now_) unloaded_[side][key].written = barrier.prev_epoch;
  if (!unloaded_now_.empty()) unloaded_epochs_.emplace_back(barrier.prev_epoch, std::move(unloaded_now_));
  unloaded_now_.clear();
  Evict();
}

void HashJoinOperator::Evict() {
  const Epoch committed = ctx_->services->committed_epoch();
  // Writes to unloaded buckets are readable from the store once committed.
  while (!unloaded_epochs_.empty() && unloaded_epochs_.front().first <= committed) {
    for (const auto& [side, key] : unloaded_epochs_.front().second) {
      auto u = unloaded_[side].find(key);
      if (u != unloaded_[side].end() && u->second.written != 0 && u->second.written <= committed) unloaded_[side].erase(u);
    }
    unloaded_epochs_.pop_front();
  }
  const size_t target = share_.Publish(bytes_);
  if (bytes_ <= target) return share_.Settle(bytes_);
  // Of the two sides' least recently used keys, the one written longer ago
  // goes first; keys written since the last commit stay (their writes are
  // not readable from the store yet).
  auto evictable = [&](int s) -> Bucket* {
    if (lru_[s].empty()) return nullptr;
    Bucket& b = buckets_[s].find(lru_[s].oldest())->second;
    return b.written_now || b.written > committed ? nullptr : &b;
  };
  while (bytes_ > target) {
    Bucket* b0 = evictable(0);
    Bucket* b1 = evictable(1);
    if (!b0 && !b1) break;
    int s = !b0 ? 1 : !b1 ? 0 : (b0->written <= b1->written ? 0 : 1);
    auto it = buckets_[s].find(lru_[s].oldest());
    bytes_ -= it->second.bytes;
    lru_[s].Remove(it->second.lru);
    buckets_[s].erase(it);
    whole_[s] = false;
  }
  share_.Settle(bytes_);
}

void HashJoinOperator::SaveEntry(int side, const std::string& join_key, uint16_t vnode, const std::string& sk,
                                 const Entry& e) {
  std::string v = e.cells;
  EncodeRowValues({Value::Int64(e.degree)}, &v);
  v += e.matches;
  tables_[side]->Put(tables_[side]->KeyIn(vnode, join_key + sk), std::move(v));
}

void HashJoinOperator::AppendSide(int side, RowRef ref, DataChunk* out, size_t first) const {
  const size_t n = sides_[side].types.size();
  if (ref.chunk) {
    for (size_t c = 0; c < n; c++) out->column(first + c).AppendFrom(ref.chunk->column(c), ref.row);
  } else if (ref.cells) {
    std::string_view bytes(*ref.cells);
    if (!DecodeCellsInto(&bytes, out, first, n)) throw SqlError(sqlstate::kDataCorrupted, "corrupt join state");
  } else {
    for (size_t c = 0; c < n; c++) out->column(first + c).AppendNull();
  }
}

void HashJoinOperator::EmitRow(Op op, RowRef left, RowRef right) {
  out_ops_.push_back(op);
  AppendSide(0, left, &out_, 0);
  if (!filtering()) AppendSide(1, right, &out_, sides_[0].types.size());
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
  // Semi and anti joins pass a left row on while it has a match / none:
  // left rows keep their degrees too.
  const bool semi = type_ == JoinType::kSemi;
  const bool degrees_of_other = preserve_other || (filtering() && side == 1);
  // A process-time temporal join's left rows only probe; its right rows
  // only change its state.
  const bool probe_only = process_time_ && side == 0 && !keep_left_;
  const bool state_only = process_time_ && side == 1;
  // A retractable left side of a temporal join: its rows are kept with
  // the right rows they were joined with, which their deletes retract.
  const bool remembered = process_time_ && side == 0 && keep_left_;
  const Side& me = sides_[side];
  const DataChunk& data = chunk.data();
  const size_t n = chunk.num_rows();
  // The keys of this side's rows for the cleanings that may expire them.
  std::vector<std::pair<Cleaning*, Vector>> cleaning_keys;
  for (Cleaning& c : cleanings_)
    if (c.spec.side == side) cleaning_keys.emplace_back(&c, c.spec.key->Eval(data, eval_));

  // Rows are handled in batches: candidate pairs of a batch are checked
  // against the condition together, then each row is applied in order.
  // Rows of one side never change the other side's rows (only their
  // degrees), so computing a batch's pairs up front is exact.
  struct Pending {
    size_t row;
    std::string key, sk;
    uint16_t vnode;
    Bucket* other_bucket;  // null when its rows are not looked at
    size_t first_pair, num_pairs;
  };
  using EntryIt = std::map<std::string, Entry>::iterator;
  std::vector<Pending> batch;
  std::vector<EntryIt> pair_entries;
  DataChunk pairs(pair_types_);

  auto apply_batch = [&] {
    std::vector<uint8_t> ok(pair_entries.size(), 1);
    if (condition_ && !pair_entries.empty()) ok = ToMask(EvalRowTolerant(*condition_, pairs, eval_));
    for (const Pending& p : batch) {
      const RowRef mine{&data, p.row, nullptr};
      bool insert = IsInsertOp(chunk.ops()[p.row]);
      std::vector<Entry*> matches;
      for (size_t i = 0; i < p.num_pairs; i++)
        if (ok[p.first_pair + i]) matches.push_back(&pair_entries[p.first_pair + i]->second);
      // Output rows with this row on its own side and `theirs` on the other.
      auto emit = [&](Op op, RowRef ours, RowRef theirs) {
        if (side == 0) EmitRow(op, ours, theirs);
        else EmitRow(op, theirs, ours);
      };
      auto entry = [](const Entry* m) { return RowRef{nullptr, 0, &m->cells}; };
      std::string remembered_matches;
      if (state_only) {
        // A temporal join's right row: its state only, below.
      } else if (remembered) {
        Bucket& own = BucketOf(side, p.key, p.vnode);
        if (insert) {
          if (matches.empty() && preserve_mine) emit(Op::kInsert, mine, RowRef{});
          for (Entry* m : matches) {
            emit(Op::kInsert, mine, entry(m));
            remembered_matches += m->cells;
          }
        } else if (auto it = own.rows.find(p.sk); it != own.rows.end()) {
          std::string_view rest = it->second.matches;
          if (it->second.degree == 0 && preserve_mine) emit(Op::kDelete, mine, RowRef{});
          for (int64_t i = 0; i < it->second.degree; i++) {
            std::string_view before = rest;
            if (!SkipCells(&rest, sides_[1].types)) throw SqlError(sqlstate::kDataCorrupted, "corrupt join state");
            std::string cells(before.substr(0, before.size() - rest.size()));
            emit(Op::kDelete, mine, RowRef{nullptr, 0, &cells});
          }
        }
      } else if (filtering() && side == 0) {
        if (matches.empty() != semi) EmitRow(insert ? Op::kInsert : Op::kDelete, mine, RowRef{});
      } else if (filtering()) {
        // A left row's first match passes it (semi) or withdraws it (anti);
        // its last match's going does the opposite.
        for (Entry* m : matches) {
          if (insert ? m->degree++ == 0 : --m->degree == 0)
            EmitRow(insert == semi ? Op::kInsert : Op::kDelete, entry(m), RowRef{});
        }
      } else if (insert) {
        if (matches.empty() && preserve_mine) emit(Op::kInsert, mine, RowRef{});
        for (Entry* m : matches) {
          if (preserve_other) {
            if (m->degree == 0) emit(Op::kDelete, RowRef{}, entry(m));
            m->degree++;
          }
          emit(Op::kInsert, mine, entry(m));
        }
      } else {
        if (matches.empty() && preserve_mine) emit(Op::kDelete, mine, RowRef{});
        for (Entry* m : matches) {
          emit(Op::kDelete, mine, entry(m));
          if (preserve_other) {
            m->degree--;
            if (m->degree == 0) emit(Op::kInsert, RowRef{}, entry(m));
          }
        }
      }
      if (degrees_of_other && !matches.empty()) {
        // Persist the matched rows' new degrees.
        for (size_t i = 0; i < p.num_pairs; i++) {
          EntryIt m = pair_entries[p.first_pair + i];
          if (ok[p.first_pair + i]) SaveEntry(other, p.key, p.other_bucket->vnode, m->first, m->second);
        }
        Written(*p.other_bucket);
      }
      if (probe_only) continue;
      // This side's own state: written without loading its bucket when
      // that is not in memory (interval joins index the rows they clean;
      // temporal joins' kept left rows were loaded above).
      if (cleanings_.empty() && !process_time_ && !whole_[side] && !buckets_[side].count(p.key)) {
        std::optional<Entry> e;
        if (insert) {
          e = Entry{std::string(), int64_t(matches.size()), std::string()};
          EncodeRow(data, p.row, &e->cells);
        }
        WriteUnloaded(side, p.key, p.vnode, p.sk, std::move(e));
        continue;
      }
      Bucket& mine_bucket = BucketOf(side, p.key, p.vnode);
      std::string storage_key = tables_[side]->KeyIn(mine_bucket.vnode, p.key + p.sk);
      if (insert) {
        Entry e{std::string(), int64_t(matches.size()), std::move(remembered_matches)};
        EncodeRow(data, p.row, &e.cells);
        SaveEntry(side, p.key, mine_bucket.vnode, p.sk, e);
        size_t add = EntryBytes(p.sk, e);
        auto [it, inserted] = mine_bucket.rows.try_emplace(p.sk);
        if (!inserted) add -= EntryBytes(it->first, it->second);  // wraps when smaller; the sums stay right
        if (inserted && whole_[side] && ++whole_rows_[side] > kWholeSideRows) whole_[side] = false;
        it->second = std::move(e);
        mine_bucket.bytes += add;
        bytes_ += add;
        for (auto& [c, keys] : cleaning_keys)
          if (!keys.IsNull(p.row)) c->index.emplace(keys.GetValue(p.row), Cleaning::Row{p.key, p.sk, mine_bucket.vnode});
      } else if (auto it = mine_bucket.rows.find(p.sk); it != mine_bucket.rows.end()) {
        size_t sub = EntryBytes(it->first, it->second);
        mine_bucket.rows.erase(it);
        if (whole_[side]) whole_rows_[side]--;
        mine_bucket.bytes -= sub;
        bytes_ -= sub;
        tables_[side]->Delete(std::move(storage_key));
      }
      Written(mine_bucket);
    }
    batch.clear();
    pair_entries.clear();
    pairs = DataChunk(pair_types_);
  };

  for (size_t r = 0; r < n; r++) {
    Pending p{r, "", "", 0, nullptr, pair_entries.size(), 0};
    bool null_key = false;
    for (int k : me.keys) {
      null_key |= data.column(k).IsNull(r);
      EncodeKeyFromVector(data.column(k), r, &p.key);
    }
    for (int k : me.stream_key) EncodeKeyFromVector(data.column(k), r, &p.sk);
    const uint16_t vnode = me.keys.empty() ? 0 : ComputeVnode(data, r, me.keys);
    p.vnode = vnode;
    if (null_key) {
      // Never matches; an outer join still shows it (padded) while it exists.
      bool insert = IsInsertOp(chunk.ops()[r]);
      if (preserve_mine || (type_ == JoinType::kAnti && side == 0)) {
        RowRef mine{&data, r, nullptr};
        EmitRow(insert ? Op::kInsert : Op::kDelete, side == 0 ? mine : RowRef{}, side == 0 ? RowRef{} : mine);
      }
      continue;
    }
    if (state_only) {
      batch.push_back(std::move(p));
      continue;
    }
    p.other_bucket = &ProbeBucket(other, p.key, vnode);
    for (auto it = p.other_bucket->rows.begin(); it != p.other_bucket->rows.end(); ++it) {
      pair_entries.push_back(it);
      size_t base = side == 0 ? 0 : sides_[0].types.size();
      size_t obase = side == 0 ? sides_[0].types.size() : 0;
      AppendSide(side, RowRef{&data, r, nullptr}, &pairs, base);
      AppendSide(other, RowRef{nullptr, 0, &it->second.cells}, &pairs, obase);
    }
    p.num_pairs = pair_entries.size() - p.first_pair;
    batch.push_back(std::move(p));
    if (pair_entries.size() >= kMaxPairsPerBatch) apply_batch();
  }
  apply_batch();
  FlushOutput();
}

}  // namespace freshet
