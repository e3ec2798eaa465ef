// TimeSeriesWal: the write-ahead log of one database's time-series writes
// (issue 21, item 3; the engine's part of an epoch commit: engine.h).
//
// Each epoch with time-series writes appends one record (Append) and syncs
// it before the store's commit; the commit then stores the log's end
// position as the engine's marker (table_engine.h), in the same atomic
// write as the epoch. So the committed records are exactly those before the
// committed position: a record after it belongs to an epoch whose commit
// failed or never happened, and is overwritten by the next Append (the
// position advances only by Commit) or cut off at the next Open.
//
// Files: <dir>/<segment>.wal, segment numbers from 1, never reused. Records
// are [payload length u32][XXH3-64 of the payload u64][payload], little
// endian. Rotate starts a new segment; once flushes hold every record of
// the older ones, RemoveBefore deletes them (the engine records how far it
// trimmed first: a committed position may then name a removed segment,
// when no commit came since the rotation).
//
// Open replays, in order, every record of the segments before the committed
// position's segment and of that segment up to the position; it truncates
// that segment there and deletes the segments after it (and, without a
// committed position, every segment). A record that does not read back
// (cut short, checksum mismatch) before the committed position is damage:
// Open stops replaying there, reports it and carries on (`damaged`), so the
// server still starts.
//
// Thread safety: one writer (the database's commits) at a time; the engine
// serializes them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.h"

namespace freshet {

struct WalPosition {
  uint64_t segment = 0;
  uint64_t offset = 0;
  std::string Encode() const;
  static std::optional<WalPosition> Decode(std::string_view text);
  bool operator==(const WalPosition&) const = default;
};

class TimeSeriesWal {
 public:
  // `sync`: fdatasync every appended record (the store's sync_commits).
  // `trimmed`: the segments up to it were removed on purpose (RemoveBefore
  // after a flush), so a committed position in one of them is no damage.
  // `replay` gets each record with the number of its segment.
  static Result<std::unique_ptr<TimeSeriesWal>> Open(
      std::string dir, std::optional<WalPosition> committed, uint64_t trimmed, bool sync,
      const std::function<void(uint64_t segment, std::string_view payload)>& replay, std::string* damaged);
  ~TimeSeriesWal();
  TimeSeriesWal(const TimeSeriesWal&) = delete;
  TimeSeriesWal& operator=(const TimeSeriesWal&) = delete;

  // Writes the record at the committed end and syncs it; returns the end
  // it would make committed. Nothing is committed until Commit.
  Result<WalPosition> Append(std::string_view payload);
  // The epoch commit that named `end` succeeded.
  void Commit(const WalPosition& end) { position_ = end; }
  WalPosition position() const { return position_; }
  // Starts a new segment at the committed end; returns its number. Records
  // appended before are in older segments.
  Result<uint64_t> Rotate();
  // Deletes the segments numbered below `segment`.
  void RemoveBefore(uint64_t segment);
  // Bytes in the segments on disk.
  uint64_t bytes() const;

 private:
  TimeSeriesWal(std::string dir, bool sync) : dir_(std::move(dir)), sync_(sync) {}
  std::string PathOf(uint64_t segment) const;
  Status OpenSegment(uint64_t segment, bool create);

  const std::string dir_;
  const bool sync_;
  int fd_ = -1;
  WalPosition position_;
};

}  // namespace freshet
