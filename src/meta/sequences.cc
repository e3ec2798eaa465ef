#include "meta/sequences.h"

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

#include "catalog/system_tables.h"

#include "common/error.h"

namespace freshet {

namespace {

// Values stored ahead of the last one handed out: one synced write per block.
constexpr int64_t kBlock = 32;

// value + steps * increment, or nullopt past the bounds.
std::optional<int64_t> Advance(int64_t value, int64_t increment, int64_t steps, const SequenceOptions& q) {
  __int128 v = static_cast<__int128>(value) + static_cast<__int128>(increment) * steps;
  if (v > q.max || v < q.min) return std::nullopt;
  return static_cast<int64_t>(v);
}

}  // namespace

// Looks sequences up in `catalog` (a transaction's) while in scope.
struct SequenceManager::LookupIn {
  SequenceManager* m;
  LookupIn(SequenceManager* manager, Catalog* catalog) : m(manager) {
    if (catalog) m->lookup_ = catalog;
  }
  ~LookupIn() { m->lookup_ = m->catalog_; }
};

SequenceManager::State& SequenceManager::Load(ObjectId id, SequenceOptions* options) {
  TableRef t = lookup_->GetTable(id);
  if (!t || t->kind != RelationKind::kSequence)
    FRESHET_THROW(sqlstate::kUndefinedTable, "relation with OID {} is not a sequence", ObjectOid(id));
  *options = t->sequence;
  auto it = states_.find(id);
  if (it != states_.end()) return it->second;
  State s;
  s.last = t->sequence.start;
  if (std::optional<std::string> stored = lookup_->SequenceState(id)) {
    auto j = nlohmann::json::parse(*stored);
    s.last = j.at("value").get<int64_t>();
    s.called = j.at("called").get<bool>();
  }
  s.stored = s.last;
  s.stored_called = s.called;
  return states_.emplace(id, s).first->second;
}

void SequenceManager::Store(ObjectId id, int64_t value, bool called) {
  // A committed sequence's position is stored at once, whatever becomes of
  // the transaction; one its transaction created, with that transaction.
  Catalog* catalog = catalog_->GetTable(id) ? catalog_ : lookup_;
  catalog->StoreSequenceState(id, nlohmann::json{{"value", value}, {"called", called}}.dump());
  State& s = states_[id];
  s.stored = value;
  s.stored_called = called;
}

int64_t SequenceManager::NextVal(ObjectId id, Catalog* catalog) {
  std::lock_guard lock(mu_);
  LookupIn in(this, catalog);
  SequenceOptions q;
  State& s = Load(id, &q);
  int64_t next = s.last;
  bool wrapped = false;
  if (s.called) {
    std::optional<int64_t> advanced = Advance(s.last, q.increment, 1, q);
    if (!advanced) {
      if (!q.cycle)
        FRESHET_THROW(sqlstate::kSequenceGeneratorLimitExceeded, "nextval: reached {} value of sequence \"{}\" ({})",
                      q.increment > 0 ? "maximum" : "minimum", lookup_->GetTable(id)->name, q.increment > 0 ? q.max : q.min);
      advanced = q.increment > 0 ? q.min : q.max;
      wrapped = true;
    }
    next = *advanced;
  }
  // Handed out only if a restart from the stored position would not give
  // it again; else the position a block ahead is stored first.
  bool covered = !wrapped && (q.increment > 0 ? (next < s.stored || (s.stored_called && next == s.stored))
                                              : (next > s.stored || (s.stored_called && next == s.stored)));
  if (!covered) {
    int64_t steps = std::max(kBlock, q.cache) - 1;
    std::optional<int64_t> ahead = Advance(next, q.increment, steps, q);
    Store(id, ahead ? *ahead : (q.increment > 0 ? q.max : q.min), true);
  }
  s.last = next;
  s.called = true;
  return next;
}

void SequenceManager::SetVal(ObjectId id, int64_t value, bool is_called, Catalog* catalog) {
  std::lock_guard lock(mu_);
  LookupIn in(this, catalog);
  SequenceOptions q;
  Load(id, &q);
  if (value < q.min || value > q.max)
    FRESHET_THROW(sqlstate::kNumericValueOutOfRange, "setval: value {} is out of bounds for sequence \"{}\" ({}..{})",
                  value, lookup_->GetTable(id)->name, q.min, q.max);
  Store(id, value, is_called);
  State& s = states_[id];
  s.last = value;
  s.called = is_called;
}

void SequenceManager::Restart(ObjectId id, int64_t value, Catalog* catalog) {
  std::lock_guard lock(mu_);
  LookupIn in(this, catalog);
  SequenceOptions q;
  Load(id, &q);
  Store(id, value, false);
  State& s = states_[id];
  s.last = value;
  s.called = false;
}

std::pair<int64_t, bool> SequenceManager::Peek(ObjectId id, Catalog* catalog) {
  std::lock_guard lock(mu_);
  LookupIn in(this, catalog);
  SequenceOptions q;
  State& s = Load(id, &q);
  return {s.last, s.called};
}

void SequenceManager::Forget(ObjectId id) {
  std::lock_guard lock(mu_);
  auto it = states_.find(id);
  if (it == states_.end()) return;
  // Where it is, not a block ahead: the next Load continues from here.
  if (catalog_->GetTable(id)) Store(id, it->second.last, it->second.called);
  states_.erase(id);
}

}  // namespace freshet
