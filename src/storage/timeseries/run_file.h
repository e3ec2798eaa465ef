// RunFile: a file of one time-series table's rows of one time window
// (issue 21, item 4), as the engine flushes a memtable: a ColumnFile
// (column_file.h) whose blocks hold every version of every row, sorted by
// key (series, time, tail) and each key's versions by epoch, in columns:
//
//   0 series   string     the row's series ([vnode][tags], memcomparable)
//   1 time     timestamp  the time index, in its unit
//   2 tail     string     the key bytes after the time (append mode's row id)
//   3 epoch    integer    the epoch that wrote this version
//   4 deleted  integer    1: a delete of the key (the table's columns NULL)
//   5...       the table's columns in order, typed by their physical type:
//              integers (every integer, date, time, timestamp, boolean)
//              delta-encoded, floats Gorilla-encoded, strings (text, bytea,
//              JSON, arrays...) dictionary-encoded, and numeric and
//              interval as their row-encoding cells (strings)
//
// The file's meta entry (RunFileInfo, JSON) names each table column's form
// in `columns`, one letter each: i integer, f float, s string, c cell.
//
// A file written before columns were added holds fewer table columns: the
// reader gives the rows as the row encoding of the columns it holds, and
// the scan reads the added ones as their missing cells.
//
// A RunFile is a TimeSeriesRowSource: Read returns, of each key, the newest
// version at or below an epoch. The file is mapped into memory while open;
// it is deleted when the last reader lets go of a file marked obsolete
// (compaction's inputs, a dropped table's files).
//
// Thread safety: Read may be called concurrently; MarkObsolete too.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "storage/state_table_desc.h"
#include "storage/timeseries/column_file.h"
#include "storage/timeseries/memtable.h"

namespace freshet {

// What the engine records of a file (its meta entry).
struct RunFileInfo {
  uint64_t id = 0;
  int64_t window_start = 0, window_end = 0;  // the partition's range; both 0: unbounded
  bool unbounded = false;
  int64_t min_ts = 0, max_ts = 0;
  uint64_t rows = 0;       // versions written
  uint64_t max_epoch = 0;
  uint64_t bytes = 0;
  std::string columns;     // per table column: i, f, s or c (see above)
  // Every key has one version and none is a delete: at an epoch past
  // max_epoch the file's rows are its blocks' rows as they are (a scan
  // reads its columns without merging versions).
  bool plain = false;
  // The region whose rows the file holds (regions.h); -1 for files written
  // before regions, which may hold rows of any.
  int64_t region = -1;
  std::string ToJson() const;
  static std::optional<RunFileInfo> FromJson(const std::string& text);
};

// The form a column of type `type` is stored in (i, f, s or c: see above).
char RunFileColumnForm(const DataType& type);

// Builds a file's bytes from rows given in key order, a key's versions
// oldest first, with `desc`'s columns (rows with fewer cells read their
// missing cells); fills the info's columns, rows, time range, epoch, plain
// and size. The file is built in memory.
class RunFileBuilder {
 public:
  RunFileBuilder(const StateTableDesc& desc, RunFileInfo* info);
  // Rows in key order, each key's versions oldest first.
  void Add(TimeSeriesRow row);
  std::string Finish();

 private:
  const StateTableDesc& desc_;
  RunFileInfo* info_;
  std::string forms_;
  ColumnFileWriter writer_;
  std::vector<TimeSeriesRow> block_;
};

// The file bytes of every version in `memtable` (RunFileBuilder).
std::string EncodeRunFile(const TimeSeriesMemtable& memtable, const StateTableDesc& desc, RunFileInfo* info);

// Writes `bytes` to `path` durably: a temporary file synced, renamed into
// place, the directory synced.
Status WriteRunFile(const std::string& path, std::string_view bytes);

class RunFile : public TimeSeriesRowSource, public std::enable_shared_from_this<RunFile> {
 public:
  // Maps the file and checks its index (XX001 when damaged: the Status).
  static Result<std::shared_ptr<RunFile>> Open(const std::string& path, RunFileInfo info);
  ~RunFile() override;

  const RunFileInfo& info() const { return info_; }
  const std::string& path() const { return path_; }
  bool Read(const TimeSeriesKey& from, bool after, uint64_t visible, size_t max,
            std::vector<std::pair<TimeSeriesKey, TimeSeriesRow>>* out) const override;
  bool MayHoldTime(int64_t ts) const override { return info_.rows > 0 && ts >= info_.min_ts && ts <= info_.max_ts; }
  std::pair<int64_t, int64_t> TimeRange() const override {
    return info_.rows > 0 ? std::pair{info_.min_ts, info_.max_ts} : std::pair<int64_t, int64_t>{0, -1};
  }
  // The file's blocks, for a scan of its columns (the table's column c is
  // the block's column kFirstTableColumn + c).
  const ColumnFileReader& reader() const { return *reader_; }
  static constexpr size_t kFirstTableColumn = 5;
  // Throws XX001 unless block b holds the file's columns, of their kinds.
  void CheckBlockColumns(const ColumnBlockView& block, size_t b) const;
  // Every version of every row, in the file's order (key, then epoch), one
  // block decoded at a time: what a compaction merges.
  class VersionCursor {
   public:
    explicit VersionCursor(std::shared_ptr<const RunFile> file) : file_(std::move(file)) {}
    // The next version; false at the end. Throws XX001 on a damaged block.
    bool Next(TimeSeriesRow* out);

   private:
    std::shared_ptr<const RunFile> file_;
    size_t next_block_ = 0, row_ = 0;
    ColumnBlockView block_;
    std::vector<size_t> value_index_;
  };

  // Point reads of one file (GetCommittedMany's): the blocks that may hold
  // a key found by their series and time ranges, the key by binary search
  // in them; the last block read stays decoded, and the first and last key
  // of each block read are kept, so that keys read in key order decode
  // each block once (a series spans blocks: its later keys skip the
  // earlier blocks by their last keys).
  class PointReader {
   public:
    explicit PointReader(std::shared_ptr<const RunFile> file) : file_(std::move(file)) {}
    // The newest version at or below `visible` of exactly `key`. Throws
    // XX001 on a damaged block.
    std::optional<TimeSeriesRow> Get(const TimeSeriesKey& key, uint64_t visible);

   private:
    std::shared_ptr<const RunFile> file_;
    size_t block_index_ = SIZE_MAX;
    ColumnBlockView block_;
    std::vector<size_t> value_index_;
    std::vector<std::optional<std::pair<TimeSeriesKey, TimeSeriesKey>>> bounds_;  // per block read
  };
  std::optional<TimeSeriesRow> Get(const TimeSeriesKey& key, uint64_t visible) const override;

  // The file goes when the last holder drops it.
  void MarkObsolete() { obsolete_ = true; }

 private:
  RunFile(std::string path, RunFileInfo info) : path_(std::move(path)), info_(std::move(info)) {}
  std::string path_;
  RunFileInfo info_;
  void* map_ = nullptr;
  size_t size_ = 0;
  std::unique_ptr<ColumnFileReader> reader_;
  std::atomic<bool> obsolete_{false};
};

}  // namespace freshet
