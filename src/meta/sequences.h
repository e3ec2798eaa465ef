// Sequences: the values of CREATE SEQUENCE, serial and identity columns.
//
// nextval is not transactional (a rolled-back transaction's values are not
// handed out again) and never gives a value twice, across restarts and
// kill -9: values are handed out from memory, and before the first value
// past what was last stored, the sequence's position a block of values
// ahead (32, or CACHE when larger) is stored durably (one synced meta
// write per block, like PostgreSQL's WAL-logged log_cnt). After a crash a
// sequence resumes past the stored position, skipping the values of the
// block that were not handed out, as PostgreSQL does.
//
// The definition (start, increment, bounds, CYCLE) is the catalog's
// (TableCatalog::sequence); the position is stored under the catalog's
// SequenceState. setval and ALTER SEQUENCE RESTART store it at once.
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

#include "catalog/catalog.h"

namespace freshet {

class SequenceManager {
 public:
  explicit SequenceManager(Catalog* catalog) : catalog_(catalog) {}

  // Each takes the catalog to find the sequence in: a transaction's (a
  // sequence its block created; its position is then stored with it), or
  // null for the database's.
  //
  // The next value; 2200H when the sequence reached its bound without
  // CYCLE; 42P01 when `id` is not a sequence.
  int64_t NextVal(ObjectId id, Catalog* catalog = nullptr);
  // setval: the value nextval returned last (is_called) or returns next
  // (!is_called); 22003 outside the sequence's bounds.
  void SetVal(ObjectId id, int64_t value, bool is_called, Catalog* catalog = nullptr);
  // ALTER SEQUENCE ... RESTART [WITH value]: nextval returns `value` next.
  void Restart(ObjectId id, int64_t value, Catalog* catalog = nullptr);
  // The position as SELECT * FROM a sequence shows it (last_value, is_called).
  std::pair<int64_t, bool> Peek(ObjectId id, Catalog* catalog = nullptr);
  // After ALTER SEQUENCE changed its options, or DROP: read afresh.
  void Forget(ObjectId id);

 private:
  struct State {
    int64_t last = 0;      // the last value handed out, or the next one when !called
    bool called = false;
    int64_t stored = 0;    // the position stored: values up to it may have been handed out
    bool stored_called = false;
  };
  State& Load(ObjectId id, SequenceOptions* options);
  void Store(ObjectId id, int64_t value, bool called);

  struct LookupIn;
  Catalog* catalog_;
  Catalog* lookup_ = catalog_;  // where sequences are looked up, under mu_
  std::mutex mu_;
  std::map<ObjectId, State> states_;
};

}  // namespace freshet
