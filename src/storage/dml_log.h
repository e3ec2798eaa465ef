// DmlLog: the write-ahead log of one database's DML under
// synchronous_commit = on (docs/architecture.md, "The DML log").
//
// A durable write set is appended here in the order it is applied, and its
// statement returns once the log is on disk; the epoch holding the write is
// committed later by the barrier manager, which stores with it the highest
// sequence number it covers (DmlLogCoveredKey). At start, the entries after
// that number are applied again.
//
//   Append(entry)  gives the entry the next sequence number (1, 2, ...) and
//                  writes it to the page cache. Callers append in the order
//                  their writes are applied.
//   Sync(seq)      returns once every entry up to `seq` is on disk. Callers
//                  waiting at the same time share one fdatasync (group
//                  commit).
//   Retire(seq)    entries up to `seq` are covered by a durable epoch
//                  commit: the segments holding only such entries are
//                  reused.
//   Replay(fn)     at start, before any Append: fn(seq, entry) for each
//                  entry after the covered number given at construction,
//                  in order, up to the first one missing or torn (never
//                  acknowledged: a sync covers every earlier entry).
//                  Appends then go to a new segment.
//
// Files: <dir>/<slot>.seg. A segment is written full of zeros when created
// and overwritten in place when reused, so a sync writes data and no file
// metadata: an fdatasync of a growing file also commits the file system's
// journal and takes ~1.6x as long (PostgreSQL's WAL segments are made the
// same way). An entry too large for a segment gets a segment of its own
// size, deleted once retired. Creating a segment first asks `check_space`
// (the store's disk reserve); a refusal is returned and nothing is written.
//
// Layout: a segment starts with a header (magic, segment number, first
// sequence number, checksum); records follow: [checksum u64][seq u64]
// [length u32][entry]. Segment numbers are never reused, and a record's
// checksum is seeded with its segment's number, so the records a reused
// segment still holds from its previous use never read as valid. Replay
// reads the segments in number order; one that starts after a gap in the
// sequence holds only entries that were never acknowledged (the server
// died before syncing the gap), and is invalidated on disk before any new
// entry takes those numbers.
//
// A failed write or sync leaves the log unusable until restart (every call
// returns the error): after a failed fdatasync the kernel may have dropped
// the pages, so a later sync succeeding proves nothing.
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace freshet {

class DmlLog {
 public:
  static constexpr uint64_t kSegmentBytes = uint64_t(4) << 20;
  // Segments kept for reuse beyond those in use; more are deleted.
  static constexpr size_t kMaxFreeSegments = 4;
  using CheckSpace = std::function<Status(uint64_t bytes)>;

  // `covered`: the highest sequence number a committed epoch covers.
  DmlLog(std::string dir, uint64_t covered, CheckSpace check_space);
  ~DmlLog();
  DmlLog(const DmlLog&) = delete;
  DmlLog& operator=(const DmlLog&) = delete;

  Result<uint64_t> Append(std::string_view entry);
  Status Sync(uint64_t seq);
  void Retire(uint64_t seq);
  Result<size_t> Replay(const std::function<void(uint64_t seq, std::string_view entry)>& fn);

  // For tests: segment files in use and kept for reuse.
  size_t segments_in_use() const;
  size_t free_segments() const;

 private:
  struct Segment;
  Status Load(const std::function<void(uint64_t, std::string_view)>* fn, size_t* replayed);
  Status StartSegment(uint64_t record_bytes);
  Status Fail(std::string why);
  void Free(std::shared_ptr<Segment> seg);

  const std::string dir_;
  const uint64_t covered_;
  const CheckSpace check_space_;

  mutable std::mutex mu_;  // everything below up to the group commit's state
  bool loaded_ = false;
  Status broken_;
  std::vector<std::shared_ptr<Segment>> active_;  // by number; back() is appended to
  std::vector<std::shared_ptr<Segment>> free_;
  bool appending_ = false;  // active_.back() takes appends (false after Load)
  uint64_t next_seq_ = 1;
  uint64_t next_number_ = 1;
  uint64_t next_slot_ = 0;

  std::mutex sync_mu_;  // group commit
  std::condition_variable sync_cv_;
  uint64_t synced_ = 0;
  bool syncing_ = false;
};

}  // namespace freshet
