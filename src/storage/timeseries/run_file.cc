#include "storage/timeseries/run_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/encoding.h"
#include "storage/file_io.h"

namespace freshet {

namespace {

using json = nlohmann::json;

constexpr size_t kBlockRows = 4096;
constexpr size_t kSystemColumns = RunFile::kFirstTableColumn;  // series, time, tail, epoch, deleted

BlockColumn::Kind KindOf(char form) {
  switch (form) {
    case 'i': return BlockColumn::Kind::kInteger;
    case 'f': return BlockColumn::Kind::kFloat;
    default: return BlockColumn::Kind::kString;
  }
}

// The block of `rows` (every version of whole keys; their series and
// tails are moved into the block).
void AddBlock(std::vector<TimeSeriesRow>& rows, const StateTableDesc& desc, const std::string& forms,
              ColumnFileWriter* writer) {
  const size_t n = rows.size();
  std::vector<BlockColumn> cols(kSystemColumns + forms.size());
  cols[0].kind = BlockColumn::Kind::kString;
  cols[1].kind = BlockColumn::Kind::kTimestamp;
  cols[2].kind = BlockColumn::Kind::kString;
  cols[3].kind = BlockColumn::Kind::kInteger;
  cols[4].kind = BlockColumn::Kind::kInteger;
  DataChunk chunk(desc.column_types);
  for (size_t c = 0; c < kSystemColumns; c++) {
    if (cols[c].kind == BlockColumn::Kind::kString) cols[c].strings.reserve(n);
    else cols[c].ints.reserve(n);
  }
  for (TimeSeriesRow& r : rows) {
    cols[0].strings.push_back(std::move(r.series));
    cols[1].ints.push_back(r.ts);
    cols[2].strings.push_back(std::move(r.tail));
    cols[3].ints.push_back(static_cast<int64_t>(r.epoch));
    cols[4].ints.push_back(r.deleted ? 1 : 0);
    if (r.deleted) {
      for (size_t c = 0; c < chunk.num_columns(); c++) chunk.column(c).AppendNull();
    } else if (!DecodeStoredRowInto(r.fields, &chunk, desc.missing_cells)) {
      throw SqlError(sqlstate::kDataCorrupted, fmt::format("a corrupt row of table {} in a memtable", desc.table_id));
    }
  }
  chunk.set_cardinality(n);
  for (size_t c = 0; c < forms.size(); c++) {
    BlockColumn& out = cols[kSystemColumns + c];
    out.kind = KindOf(forms[c]);
    const Vector& v = chunk.column(c);
    bool any_null = false;
    for (size_t r = 0; r < n; r++) any_null = any_null || v.IsNull(r);
    if (any_null) out.valid.assign(n, true);
    for (size_t r = 0; r < n; r++) {
      if (v.IsNull(r)) {
        out.valid[r] = false;
        continue;
      }
      switch (forms[c]) {
        case 'i': out.ints.push_back(v.GetInt(r)); break;
        case 'f': out.floats.push_back(v.GetFloat(r)); break;
        case 's': out.strings.push_back(v.GetString(r)); break;
        default: {
          std::string cell;
          EncodeCell(v, r, &cell);
          out.strings.push_back(std::move(cell));
        }
      }
    }
  }
  writer->AddBlock(n, cols, 1, cols[0].strings, BlockCompression::kZstd);
}

// Where each row's value sits in each table column with NULLs (column c,
// row r at c * rows + r), for EncodeRowFrom.
std::vector<size_t> ValueIndexOf(const ColumnBlockView& block, size_t table_columns) {
  std::vector<size_t> index(table_columns * block.rows, 0);
  for (size_t c = 0; c < table_columns; c++) {
    const BlockColumn& col = *block.columns[kSystemColumns + c];
    if (col.valid.empty()) continue;
    size_t next = 0;
    for (size_t r = 0; r < block.rows; r++) index[c * block.rows + r] = col.valid[r] ? next++ : 0;
  }
  return index;
}

// Appends row r's table cells (the row encoding) from a decoded block.
void EncodeRowFrom(const ColumnBlockView& block, const std::string& forms, size_t r,
                   const std::vector<size_t>& value_index, std::string* out) {
  for (size_t c = 0; c < forms.size(); c++) {
    const BlockColumn& col = *block.columns[kSystemColumns + c];
    if (!col.valid.empty() && !col.valid[r]) {
      out->push_back(0);
      continue;
    }
    const size_t i = col.valid.empty() ? r : value_index[c * block.rows + r];
    char buf[16];
    switch (forms[c]) {
      case 'i': out->append(buf, EncodeInt64CellTo(col.ints[i], buf) - buf); break;
      case 'f': out->append(buf, EncodeDoubleCellTo(col.floats[i], buf) - buf); break;
      case 's': {
        const std::string& s = col.strings[i];
        std::string cell(s.size() + 11, '\0');
        cell.resize(EncodeStringCellTo(s, cell.data()) - cell.data());
        out->append(cell);
        break;
      }
      default: out->append(col.strings[i]);
    }
  }
}

}  // namespace

char RunFileColumnForm(const DataType& type) {
  switch (type.physical()) {
    case PhysicalType::kInt64: return 'i';
    case PhysicalType::kDouble: return 'f';
    case PhysicalType::kString: return 's';
    default: return 'c';
  }
}

std::string RunFileInfo::ToJson() const {
  return json{{"id", id},           {"window_start", window_start}, {"window_end", window_end},
              {"unbounded", unbounded}, {"min_ts", min_ts},        {"max_ts", max_ts},
              {"rows", rows},       {"max_epoch", max_epoch},       {"bytes", bytes},
              {"columns", columns},     {"plain", plain},               {"region", region}}
      .dump();
}

std::optional<RunFileInfo> RunFileInfo::FromJson(const std::string& text) {
  try {
    json j = json::parse(text);
    RunFileInfo i;
    i.id = j.at("id");
    i.window_start = j.at("window_start");
    i.window_end = j.at("window_end");
    i.unbounded = j.at("unbounded");
    i.min_ts = j.at("min_ts");
    i.max_ts = j.at("max_ts");
    i.rows = j.at("rows");
    i.max_epoch = j.at("max_epoch");
    i.bytes = j.at("bytes");
    i.columns = j.at("columns");
    i.plain = j.value("plain", false);  // files of session 44 do not say
    i.region = j.value("region", int64_t{-1});  // nor those before session 47
    return i;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

RunFileBuilder::RunFileBuilder(const StateTableDesc& desc, RunFileInfo* info) : desc_(desc), info_(info) {
  forms_.clear();
  for (const DataType& t : desc.column_types) forms_.push_back(RunFileColumnForm(t));
  info_->columns = forms_;
  info_->rows = 0;
  info_->max_epoch = 0;
  info_->min_ts = INT64_MAX;
  info_->max_ts = INT64_MIN;
  info_->plain = true;
}

void RunFileBuilder::Add(TimeSeriesRow row) {
  const bool same_key = !block_.empty() && block_.back().series == row.series && block_.back().ts == row.ts &&
                        block_.back().tail == row.tail;
  info_->plain = info_->plain && !same_key && !row.deleted;
  // Blocks end between keys: a key's versions share a block.
  if (block_.size() >= kBlockRows && !same_key) {
    AddBlock(block_, desc_, forms_, &writer_);
    block_.clear();
  }
  info_->rows++;
  info_->max_epoch = std::max(info_->max_epoch, row.epoch);
  info_->min_ts = std::min(info_->min_ts, row.ts);
  info_->max_ts = std::max(info_->max_ts, row.ts);
  block_.push_back(std::move(row));
}

std::string RunFileBuilder::Finish() {
  if (!block_.empty()) AddBlock(block_, desc_, forms_, &writer_);
  block_.clear();
  if (info_->rows == 0) info_->min_ts = info_->max_ts = 0;
  std::string bytes = writer_.Finish();
  info_->bytes = bytes.size();
  return bytes;
}

std::string EncodeRunFile(const TimeSeriesMemtable& memtable, const StateTableDesc& desc, RunFileInfo* info) {
  RunFileBuilder builder(desc, info);
  memtable.ForEachVersion([&](TimeSeriesRow& row) { builder.Add(std::move(row)); });
  return builder.Finish();
}

Status WriteRunFile(const std::string& path, std::string_view bytes) {
  const std::string tmp = path + ".tmp";
  auto fail = [&](const std::string& what) {
    Status s = Status::IoError(fmt::format("cannot {} {}: {}", what, tmp, std::strerror(errno)));
    unlink(tmp.c_str());
    return s;
  };
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail("create");
  if (!PwriteAll(fd, bytes.data(), bytes.size(), 0)) {
    close(fd);
    return fail("write");
  }
  if (fdatasync(fd) != 0) {
    close(fd);
    return fail("sync");
  }
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) return fail("rename");
  const std::string dir = path.substr(0, path.rfind('/'));
  if (!SyncDirectory(dir)) return Status::IoError(ErrnoMessage("cannot sync " + dir));
  return Status::OK();
}

Result<std::shared_ptr<RunFile>> RunFile::Open(const std::string& path, RunFileInfo info) {
  std::shared_ptr<RunFile> file(new RunFile(path, std::move(info)));
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return Status::IoError(fmt::format("cannot stat {}: {}", path, std::strerror(errno)));
  }
  file->size_ = static_cast<size_t>(st.st_size);
  if (file->size_ > 0) {
    file->map_ = mmap(nullptr, file->size_, PROT_READ, MAP_SHARED, fd, 0);
    if (file->map_ == MAP_FAILED) {
      file->map_ = nullptr;
      close(fd);
      return Status::IoError(fmt::format("cannot map {}: {}", path, std::strerror(errno)));
    }
  }
  close(fd);
  try {
    file->reader_ = std::make_unique<ColumnFileReader>(
        std::string_view(static_cast<const char*>(file->map_), file->size_));
  } catch (const SqlError& e) {
    return Status::Corruption(fmt::format("{}: {}", path, e.message()));
  }
  return file;
}

RunFile::~RunFile() {
  if (map_) munmap(map_, size_);
  if (obsolete_) unlink(path_.c_str());
}

void RunFile::CheckBlockColumns(const ColumnBlockView& block, size_t b) const {
  const std::string& forms = info_.columns;
  if (block.kinds.size() != kSystemColumns + forms.size())
    throw SqlError(sqlstate::kDataCorrupted, fmt::format("{}: block {} has {} columns, not {}", path_, b,
                                                         block.kinds.size(), kSystemColumns + forms.size()));
  static const BlockColumn::Kind kSystemKinds[kSystemColumns] = {
      BlockColumn::Kind::kString, BlockColumn::Kind::kTimestamp, BlockColumn::Kind::kString,
      BlockColumn::Kind::kInteger, BlockColumn::Kind::kInteger};
  for (size_t c = 0; c < block.kinds.size(); c++)
    if (block.kinds[c] != (c < kSystemColumns ? kSystemKinds[c] : KindOf(forms[c - kSystemColumns])))
      throw SqlError(sqlstate::kDataCorrupted, fmt::format("{}: block {} column {} is of another kind", path_, b, c));
}

std::optional<TimeSeriesRow> RunFile::PointReader::Get(const TimeSeriesKey& key, uint64_t visible) {
  const std::vector<ColumnFileBlock>& blocks = file_->reader_->blocks();
  const std::string& series = std::get<0>(key);
  const int64_t ts = std::get<1>(key);
  // Blocks are in key order: the first whose largest series is not below
  // the key's, then those after it that start at or before it.
  size_t b = static_cast<size_t>(
      std::partition_point(blocks.begin(), blocks.end(), [&](const ColumnFileBlock& k) { return k.max_series < series; }) -
      blocks.begin());
  std::optional<TimeSeriesRow> best;
  bounds_.resize(blocks.size());
  const TimeSeriesKey wanted{series, ts, std::get<2>(key), 0};
  for (; b < blocks.size() && blocks[b].min_series <= series; b++) {
    if (ts < blocks[b].min_ts || ts > blocks[b].max_ts) continue;
    if (const auto& known = bounds_[b]) {
      if (known->second < wanted) continue;  // the block ends before the key
      if (wanted < known->first) break;      // and this one starts after it
    }
    if (b != block_index_) {
      block_index_ = SIZE_MAX;
      block_ = file_->reader_->ReadBlock(b, std::nullopt);
      file_->CheckBlockColumns(block_, b);
      for (size_t c = 0; c < kSystemColumns; c++)
        if (block_.columns[c]->num_values() != block_.rows)
          throw SqlError(sqlstate::kDataCorrupted, fmt::format("{}: block {} has NULL key columns", file_->path_, b));
      value_index_ = ValueIndexOf(block_, file_->info_.columns.size());
      block_index_ = b;
      if (block_.rows > 0) {
        const size_t last = block_.rows - 1;
        bounds_[b] = {TimeSeriesKey{block_.columns[0]->strings[0], block_.columns[1]->ints[0], block_.columns[2]->strings[0], 0},
                      TimeSeriesKey{block_.columns[0]->strings[last], block_.columns[1]->ints[last],
                                    block_.columns[2]->strings[last], 0}};
      }
    }
    const auto& keys = block_.columns[0]->strings;
    const auto& times = block_.columns[1]->ints;
    const auto& tails = block_.columns[2]->strings;
    const auto& epochs = block_.columns[3]->ints;
    auto before = [&](size_t r) {
      return std::tie(keys[r], times[r], tails[r]) < std::tie(series, ts, std::get<2>(key));
    };
    size_t lo = 0, hi = block_.rows;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (before(mid)) lo = mid + 1;
      else hi = mid;
    }
    // The key's versions, oldest first: the newest visible one (a later
    // block's, when they go on there, is newer).
    std::optional<size_t> newest;
    size_t r = lo;
    for (; r < block_.rows && keys[r] == series && times[r] == ts && tails[r] == std::get<2>(key); r++)
      if (static_cast<uint64_t>(epochs[r]) <= visible) newest = r;
    if (newest) {
      best.emplace();
      best->series = series;
      best->ts = ts;
      best->tail = std::get<2>(key);
      best->epoch = static_cast<uint64_t>(epochs[*newest]);
      best->deleted = block_.columns[4]->ints[*newest] != 0;
      if (!best->deleted) EncodeRowFrom(block_, file_->info_.columns, *newest, value_index_, &best->fields);
    }
    if (r < block_.rows) break;  // the key's versions end here: no later block holds it
  }
  return best;
}

std::optional<TimeSeriesRow> RunFile::Get(const TimeSeriesKey& key, uint64_t visible) const {
  return PointReader(shared_from_this()).Get(key, visible);
}

bool RunFile::VersionCursor::Next(TimeSeriesRow* out) {
  const std::vector<ColumnFileBlock>& blocks = file_->reader_->blocks();
  while (row_ == block_.rows) {
    if (next_block_ == blocks.size()) return false;
    block_ = file_->reader_->ReadBlock(next_block_, std::nullopt);
    file_->CheckBlockColumns(block_, next_block_);
    for (size_t c = 0; c < kSystemColumns; c++)
      if (block_.columns[c]->num_values() != block_.rows)
        throw SqlError(sqlstate::kDataCorrupted, fmt::format("{}: block {} has NULL key columns", file_->path_, next_block_));
    next_block_++;
    row_ = 0;
    value_index_ = ValueIndexOf(block_, file_->info_.columns.size());
  }
  const size_t r = row_++;
  out->series = block_.columns[0]->strings[r];
  out->ts = block_.columns[1]->ints[r];
  out->tail = block_.columns[2]->strings[r];
  out->epoch = static_cast<uint64_t>(block_.columns[3]->ints[r]);
  out->deleted = block_.columns[4]->ints[r] != 0;
  out->fields.clear();
  if (!out->deleted) EncodeRowFrom(block_, file_->info_.columns, r, value_index_, &out->fields);
  return true;
}

bool RunFile::Read(const TimeSeriesKey& from, bool after, uint64_t visible, size_t max,
                   std::vector<std::pair<TimeSeriesKey, TimeSeriesRow>>* out) const {
  const auto& blocks = reader_->blocks();
  const std::string& forms = info_.columns;
  // The first block whose largest series is not below the start's.
  size_t b = 0;
  while (b < blocks.size() && blocks[b].max_series < std::get<0>(from)) b++;
  size_t emitted = 0;
  for (; b < blocks.size(); b++) {
    ColumnBlockView block = reader_->ReadBlock(b, std::nullopt);
    CheckBlockColumns(block, b);
    const auto& series = block.columns[0]->strings;
    const auto& times = block.columns[1]->ints;
    const auto& tails = block.columns[2]->strings;
    const auto& epochs = block.columns[3]->ints;
    const auto& deleted = block.columns[4]->ints;
    if (series.size() != block.rows || times.size() != block.rows || tails.size() != block.rows ||
        epochs.size() != block.rows || deleted.size() != block.rows)
      throw SqlError(sqlstate::kDataCorrupted, fmt::format("{}: block {} has NULL key columns", path_, b));
    const std::vector<size_t> value_index = ValueIndexOf(block, forms.size());
    for (size_t r = 0; r < block.rows;) {
      // The key's versions: rows r .. end-1.
      size_t end = r + 1;
      while (end < block.rows && series[end] == series[r] && times[end] == times[r] && tails[end] == tails[r]) end++;
      TimeSeriesKey key{series[r], times[r], tails[r], 0};
      const bool wanted = after ? key > from : key >= from;
      size_t newest = end;
      if (wanted)
        for (size_t v = r; v < end; v++)
          if (static_cast<uint64_t>(epochs[v]) <= visible) newest = v;
      if (newest != end) {
        if (emitted == max) return true;
        TimeSeriesRow row;
        row.series = series[newest];
        row.ts = times[newest];
        row.tail = tails[newest];
        row.epoch = static_cast<uint64_t>(epochs[newest]);
        row.deleted = deleted[newest] != 0;
        if (!row.deleted) EncodeRowFrom(block, forms, newest, value_index, &row.fields);
        out->emplace_back(std::move(key), std::move(row));
        emitted++;
      }
      r = end;
    }
  }
  return false;
}

}  // namespace freshet
