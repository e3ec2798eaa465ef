// Change log: a relation's committed changes, per epoch and vnode, kept in
// storage for consumers outside the relation's stream graph (a view in
// another database reading it as a source, a subscription cursor;
// docs/architecture.md, "Change logs").
//
// A log is a relation of its own (an internal relation id, `log_id`) in the
// store's change-log column family (StateStore::change_log_cf), keyed epoch
// first:
//
//   [log_id: 4][epoch: 8 BE][vnode: 2 BE][memcomparable pk]
//
// so that a reader finds the next epoch with changes with one seek and
// reads that epoch's changes of a range of vnodes in (vnode, key) order,
// and truncation — every epoch below a bound — is one range delete. The
// changes of one key within one epoch are netted to the row it had before
// the epoch and the row it has after, one entry: an Insert (the row after),
// a Delete (the row before) or an update (both; read back as an
// UpdateDelete followed by an UpdateInsert). A value is a tag byte and the
// row(s), encoded as the relation stores them (an update's first with its
// length, 4 bytes BE).
//
// The writer (ChangeLogEpoch) collects an epoch's changes in memory and
// hands them, netted, to the epoch's WriteLog, so that they commit
// atomically with the relation's own writes of that epoch: a reader sees an
// epoch's changes exactly when the relation's commit of it is visible.
// Each of its commits also records the epoch it was: the log is "written
// through" it. A reader that finds the relation's database committed past
// that knows that the writer is not running and that the log lacks those
// epochs' changes.
//
// A log is shared by every consumer of its relation. Each consumer records
// in the log what it still needs (ChangeLogConsumer): a view in another
// database the epochs after the one its every vnode has read through (it
// writes that record with its own commits, so that it never runs ahead of
// its committed progress), a subscription a retention. The writer truncates
// below the least of them: it deletes the entries of every epoch below that
// bound and records that the log is truncated through the bound's
// predecessor, so that a reader can tell whether changes after its position
// may be gone. A log without consumers is not truncated. These records are
// keys of epoch 0, which holds no changes.
//
// A consumer joining a log that others truncate registers a bound of the
// relation's committed epoch before it reads anything: every bound is at
// most the committed epoch at the time it is computed, so a truncation
// computed before the registration removes nothing the new consumer, whose
// reads start at or after that epoch, needs.
//
// Thread safety: a ChangeLogEpoch belongs to one writer; ChangeLogReader's
// methods are const and may be called concurrently.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"
#include "storage/keys.h"
#include "storage/write_log.h"

namespace freshet {

class Snapshot;
class StateStore;

// As StreamChunk's ops (Insert, Delete, UpdateDelete, UpdateInsert).
enum class ChangeLogOp : uint8_t { kInsert = 0, kDelete = 1, kUpdateDelete = 2, kUpdateInsert = 3 };
const char* ChangeLogOpName(ChangeLogOp op);  // "Insert", "Delete", "UpdateDelete", "UpdateInsert"

// One epoch's changes of one relation, netted per key.
class ChangeLogEpoch {
 public:
  // A row enters (`enters`: an insert, or an update's new row) or leaves
  // (a delete, or an update's old row) the relation under primary key
  // `pk` (memcomparable) in `vnode`. Changes of one key come in the order
  // they were made.
  void Add(uint16_t vnode, std::string_view pk, bool enters, std::string_view row);
  // The same for a row given by its storage key in the relation
  // ([table_id][vnode][pk], StateTable::KeyOf).
  void AddKeyed(std::string_view relation_key, bool enters, std::string_view row);
  bool empty() const { return keys_.empty(); }
  // Appends the epoch's net changes to `out` as writes of log `log_id` at
  // `epoch`, with the record that the log is written through `epoch` (also
  // when there are no changes), and forgets them. Returns how many changes
  // it wrote (an update counts two: its UpdateDelete and UpdateInsert).
  size_t WriteTo(TableId log_id, Epoch epoch, WriteLog* out);

 private:
  struct Net {
    std::optional<std::string> before;  // the row before the epoch (none: the key was absent)
    std::optional<std::string> after;   // the row after it
  };
  std::map<std::pair<uint16_t, std::string>, Net> keys_;
};

// What one consumer still needs of a log.
struct ChangeLogConsumer {
  uint32_t id = 0;  // the consumer's catalog id
  // A view: it has read every epoch through this one (it needs the later ones).
  Epoch read_through = 0;
  // A subscription: it keeps this much history (read_through unused).
  int64_t retention_ms = 0;
  // The oldest epoch it needs when the time is now_ms (epochs carry their
  // Unix milliseconds in their high bits).
  Epoch Needs(int64_t now_ms) const;
};

// Records `consumer` in log `log_id` (replacing its earlier record) with an
// epoch's writes: a view's progress.
void PutChangeLogConsumer(TableId log_id, const ChangeLogConsumer& consumer, WriteLog* out);
// The same, committed at once (outside any epoch): a consumer joining the
// log, a subscription's retention.
Status RegisterChangeLogConsumer(StateStore* store, TableId log_id, const ChangeLogConsumer& consumer);
// Removes the record of consumer `id` at once (it was dropped).
Status RemoveChangeLogConsumer(StateStore* store, TableId log_id, uint32_t id);

// A log written by session 41's layout (in the data family, vnode first),
// which this version does not read: when the data family holds entries of
// `log_id`, deletes them and records the log truncated through `through`
// (the database's committed epoch at the upgrade) or, when this layout
// holds entries already (written since an earlier upgrade), through the
// epoch before the oldest of them, so that a reader resuming before that
// is told its changes are gone rather than missing them. Returns whether
// it found such entries.
Result<bool> RetireOldLayoutChangeLog(StateStore* store, TableId log_id, Epoch through);

// One change read back.
struct ChangeLogEntry {
  ChangeLogOp op;
  uint16_t vnode;
  std::string_view pk;   // memcomparable
  std::string_view row;  // encoded as the relation stores it
};

class ChangeLogReader {
 public:
  ChangeLogReader(const StateStore* store, TableId log_id) : store_(store), log_id_(log_id) {}

  // The first epoch after `after` with changes (in any vnode), at
  // `snapshot`; nullopt when there is none (yet).
  std::optional<Epoch> NextEpoch(const Snapshot* snapshot, Epoch after) const;
  // Calls fn for the changes of `epoch` in vnodes [vnode_begin, vnode_end),
  // in (vnode, key) order, starting after the change `after` (nullopt: from
  // the first); stops when fn returns false.
  struct Position {
    uint16_t vnode = 0;
    std::string pk;
    uint8_t half = 0;  // of an update: 0 its UpdateDelete, 1 its UpdateInsert
  };
  void ReadEpoch(const Snapshot* snapshot, Epoch epoch, int vnode_begin, int vnode_end,
                 const std::optional<Position>& after,
                 const std::function<bool(const ChangeLogEntry&, const Position&)>& fn) const;
  // The oldest epoch the log still holds changes of; nullopt when empty.
  std::optional<Epoch> OldestEpoch(const Snapshot* snapshot) const { return NextEpoch(snapshot, 0); }
  // Appends to `out` the deletion of every entry of the epochs before
  // `before` (one range delete) and, when it raises it, the record that the
  // log is truncated through before - 1.
  void Truncate(const Snapshot* snapshot, Epoch before, WriteLog* out) const;
  // Every entry of an epoch at or below this is gone (0: none was ever
  // truncated): a reader that has read through an earlier epoch may have
  // lost changes.
  Epoch TruncatedThrough(const Snapshot* snapshot) const;
  // The last epoch the writer committed (WriteTo); 0: none.
  Epoch WrittenThrough(const Snapshot* snapshot) const;
  // The consumers recorded in the log, by id.
  std::vector<ChangeLogConsumer> Consumers(const Snapshot* snapshot) const;
  // The oldest epoch any consumer needs at now_ms: what the writer may
  // truncate below; nullopt when the log has no consumer.
  std::optional<Epoch> TruncationBound(const Snapshot* snapshot, int64_t now_ms) const;
  // How many entries (netted changes of a key in an epoch) the log holds
  // and the oldest epoch among them (a scan of the whole log: for
  // monitoring and tests).
  struct Stats {
    uint64_t entries = 0;
    Epoch oldest = 0;  // 0: empty
  };
  Stats Count(const Snapshot* snapshot) const;
  // Approximate bytes the log holds (files and memtables).
  uint64_t ApproximateBytes() const;

 private:
  Epoch Record(const Snapshot* snapshot, char tag) const;

  const StateStore* store_;
  TableId log_id_;
};

}  // namespace freshet
