#include "frontend/subscription_cursor.h"

#include <fmt/format.h>

#include "common/encoding.h"
#include "common/error.h"
#include "storage/state_store.h"
#include "storage/table_engines.h"

namespace freshet {

namespace {

int64_t NowMs() { return NowMicros() / 1000; }

int64_t EpochMs(Epoch e) { return static_cast<int64_t>(e >> 16); }
Epoch MsEpoch(int64_t ms) { return static_cast<Epoch>(ms) << 16; }

}  // namespace

SubscriptionCursor::SubscriptionCursor(StateStore* store, const Catalog& catalog, TableRef subscription, Start start,
                                       int64_t since_ms, std::shared_ptr<const Snapshot> snapshot)
    : store_(store), subscription_(std::move(subscription)) {
  if (subscription_->depends_on.empty() || !(relation_ = catalog.GetTable(subscription_->depends_on[0])))
    FRESHET_THROW(sqlstate::kObjectNotInPrerequisiteState, "subscription \"{}\" has no relation",
                  subscription_->name);
  // Its relation's shared log (an older version's subscription: its own).
  TableRef writer = subscription_;
  if (auto shared = subscription_->plan_settings.find("change_log"); shared != subscription_->plan_settings.end()) {
    writer = catalog.GetTable(static_cast<ObjectId>(std::stoul(shared->second)));
    if (writer && writer->status == JobStatus::kFailed)
      FRESHET_THROW(sqlstate::kObjectNotInPrerequisiteState, "the change log of subscription \"{}\" failed: {}",
                    subscription_->name, writer->failure);
  }
  for (ObjectId id : writer ? writer->internal_tables : std::vector<ObjectId>{})
    if (TableRef t = catalog.GetTable(id); t && t->internal_kind == "changelog") log_id_ = t->id;
  if (!log_id_)
    FRESHET_THROW(sqlstate::kObjectNotInPrerequisiteState, "subscription \"{}\" has no change log",
                  subscription_->name);
  if (auto it = subscription_->plan_settings.find("retention_ms"); it != subscription_->plan_settings.end())
    retention_ms_ = std::stoll(it->second);
  // The columns the subscription was created with: its log's rows hold
  // those (a table may have gained columns since, which it does not read).
  relation_types_ = subscription_->types();
  for (const auto& c : subscription_->columns)
    if (!c.hidden) columns_.push_back({c.name, c.type});
  columns_.push_back({"op", DataType::Varchar()});
  columns_.push_back({"rw_timestamp", DataType::Int64()});

  // The log holds every epoch that started after the subscription was
  // created (the log's job was running then); a shared log may hold older
  // ones too, which are not the subscription's.
  const int64_t created_ms = subscription_->finished_at_micros / 1000;
  const Epoch committed = store_->CommittedEpoch(relation_->database_id, snapshot.get()).value_or(0);
  switch (start) {
    case Start::kNow: done_epoch_ = committed; break;
    case Start::kBegin: {
      auto oldest = ChangeLogReader(store_, log_id_).OldestEpoch(snapshot.get());
      done_epoch_ = oldest ? std::max(*oldest - 1, MsEpoch(created_ms) - 1) : committed;
      break;
    }
    case Start::kSince: {
      if (since_ms < created_ms)
        FRESHET_THROW(sqlstate::kObjectNotInPrerequisiteState,
                      "SINCE {} is before subscription \"{}\" was created ({}): its change log starts then", since_ms,
                      subscription_->name, created_ms);
      if (since_ms > NowMs()) FRESHET_THROW(sqlstate::kInvalidParameterValue, "SINCE {} is in the future", since_ms);
      done_epoch_ = MsEpoch(since_ms) | 0xffff;  // epochs of that millisecond are done
      CheckRetained(snapshot.get(), done_epoch_);
      break;
    }
    case Start::kFull: {
      done_epoch_ = committed;
      ScanSpec spec;
      spec.table = relation_->StorageDesc();
      spec.read_once = true;
      snapshot_scan_ = store_->engines().For(relation_->id).Scan(snapshot, std::move(spec));
      break;
    }
  }
}

void SubscriptionCursor::CheckRetained(const Snapshot* snapshot, Epoch position) const {
  Epoch truncated = ChangeLogReader(store_, log_id_).TruncatedThrough(snapshot);
  if (truncated > position)
    FRESHET_THROW(sqlstate::kObjectNotInPrerequisiteState,
                  "the change log of subscription \"{}\" no longer holds the changes after {}: its retention "
                  "({} s) removed them up to {}",
                  subscription_->name, EpochMs(position), retention_ms_ / 1000, EpochMs(truncated));
}

void SubscriptionCursor::AppendRow(const Row& row, const char* op, std::optional<int64_t> timestamp_ms,
                                   DataChunk* out) const {
  Row shown;
  for (size_t c = 0; c < subscription_->columns.size() && c < row.size(); c++)
    if (!subscription_->columns[c].hidden) shown.push_back(row[c]);
  shown.push_back(Value::Varchar(op));
  shown.push_back(timestamp_ms ? Value::Int64(*timestamp_ms) : Value::Null(DataType::Int64()));
  out->AppendRow(shown);
}

DataChunk SubscriptionCursor::Fetch(int64_t count, const std::shared_ptr<const Snapshot>& snapshot) {
  std::vector<DataType> types;
  for (const auto& c : columns_) types.push_back(c.type);
  DataChunk out(types);
  int64_t n = 0;
  // FULL: the rows at the snapshot first.
  while (snapshot_scan_ && n < count) {
    if (snapshot_row_ >= snapshot_chunk_.num_rows()) {
      snapshot_chunk_ = DataChunk(relation_->types());
      snapshot_row_ = 0;
      if (!snapshot_scan_->Next(&snapshot_chunk_)) {
        snapshot_scan_.reset();
        break;
      }
      continue;
    }
    AppendRow(snapshot_chunk_.GetRow(snapshot_row_++), "Insert", std::nullopt, &out);
    n++;
  }
  if (n >= count) return out;
  CheckRetained(snapshot.get(), done_epoch_);
  ChangeLogReader reader(store_, log_id_);
  while (n < count) {
    if (!reading_epoch_) {
      std::optional<Epoch> next = reader.NextEpoch(snapshot.get(), done_epoch_);
      if (!next) {
        // Nothing more: every committed epoch is read (an idle relation
        // keeps the position current, so retention does not pass it).
        Epoch committed = store_->CommittedEpoch(relation_->database_id, snapshot.get()).value_or(0);
        done_epoch_ = std::max(done_epoch_, committed);
        break;
      }
      reading_epoch_ = *next;
      reading_at_.reset();
    }
    bool stopped = false;
    reader.ReadEpoch(snapshot.get(), reading_epoch_, 0, kVnodeCount, reading_at_,
                     [&](const ChangeLogEntry& e, const ChangeLogReader::Position& at) {
                       Row row;
                       if (!DecodeRow(e.row, relation_types_, &row))
                         throw SqlError(sqlstate::kDataCorrupted, "corrupt change log entry");
                       AppendRow(row, ChangeLogOpName(e.op), EpochMs(reading_epoch_), &out);
                       reading_at_ = at;
                       if (++n < count) return true;
                       stopped = true;
                       return false;
                     });
    if (stopped) break;  // the epoch may have more: resume after reading_at_
    done_epoch_ = reading_epoch_;
    reading_epoch_ = 0;
  }
  return out;
}

}  // namespace freshet
