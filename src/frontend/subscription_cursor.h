// SubscriptionCursor: DECLARE c SUBSCRIPTION CURSOR FOR s [SINCE ... |
// FULL], read by FETCH (RisingWave's subscription cursors).
//
// It reads the change log of s's relation (storage/change_log.h; shared by
// the relation's consumers) epoch
// by epoch, each epoch's changes vnode by vnode in key order, and returns
// each change as a row of the relation's visible columns, then `op`
// (Insert, Delete, UpdateDelete, UpdateInsert) and `rw_timestamp` (the
// epoch's Unix time in milliseconds, which names the epoch: each epoch has
// a millisecond of its own). FULL first returns the relation's rows at a
// committed epoch (op Insert, rw_timestamp NULL), then the changes of the
// epochs after it; SINCE t the changes of the epochs after t (a client that
// read through the epoch t resumes with SINCE t: nothing again, nothing
// lost); no SINCE, now() or proctime() the changes committed from now on;
// begin() every change the log still holds.
//
// FETCH does not wait: with no change committed past its position it
// returns no row (FETCH ... WITH (timeout = '5s') waits up to that long for
// a commit of the relation's database that brings one: the handler's). Each FETCH reads at the session's snapshot of the moment (its own
// writes committed), so every epoch is seen once it is committed. A cursor
// whose next changes the log's retention deleted is an error (55000), as is
// a SINCE before what the log holds.
//
// Not thread-safe: owned by one session.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "common/data_chunk.h"
#include "frontend/result_sink.h"
#include "storage/change_log.h"
#include "storage/table_engine.h"

namespace freshet {

class SubscriptionCursor {
 public:
  enum class Start { kNow, kBegin, kSince, kFull };
  // `subscription`: its catalog entry (its relation is depends_on[0], its
  // log the "changelog" internal table of the log job plan_settings
  // "change_log" names, or of its own job: an older version's). `since_ms` for kSince.
  // `snapshot`: the session's (FULL reads the relation there, now() starts
  // at its committed epoch). Throws 55000 when the start is before the
  // retained log.
  SubscriptionCursor(StateStore* store, const Catalog& catalog, TableRef subscription, Start start, int64_t since_ms,
                     std::shared_ptr<const Snapshot> snapshot);

  const std::vector<ColumnDesc>& columns() const { return columns_; }
  const std::string& subscription() const { return subscription_->name; }
  ObjectId subscription_id() const { return subscription_->id; }
  ObjectId database_id() const { return relation_->database_id; }  // the relation's, whose epochs it reads
  // Up to `count` rows (INT64_MAX: every one available now), read at
  // `snapshot` (the session's: its own writes are committed in it).
  DataChunk Fetch(int64_t count, const std::shared_ptr<const Snapshot>& snapshot);

 private:
  // Appends the relation's row (all its columns) with op and timestamp.
  void AppendRow(const Row& row, const char* op, std::optional<int64_t> timestamp_ms, DataChunk* out) const;
  // 55000 when the log's truncation deleted changes of an epoch after
  // `position` (in any vnode): they cannot be returned.
  void CheckRetained(const Snapshot* snapshot, Epoch position) const;

  StateStore* store_;
  TableRef subscription_, relation_;
  TableId log_id_ = 0;
  int64_t retention_ms_ = 0;
  std::vector<DataType> relation_types_;
  std::vector<ColumnDesc> columns_;
  // FULL: the relation's rows at a committed epoch, then the log after it.
  std::unique_ptr<ChunkScan> snapshot_scan_;
  DataChunk snapshot_chunk_;
  size_t snapshot_row_ = 0;
  // The log: every epoch up to `done_epoch_` has been returned whole; the
  // epoch being read (0: none) and where in it.
  Epoch done_epoch_ = 0;
  Epoch reading_epoch_ = 0;
  std::optional<ChangeLogReader::Position> reading_at_;
};

}  // namespace freshet
