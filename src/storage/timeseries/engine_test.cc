// TimeSeriesEngine (engine.h) through the store's two-phase epoch commit:
// an epoch's rows visible exactly from its commit (and an older snapshot
// still reading the rows as they were), a failed commit leaving nothing,
// the log replayed up to the committed marker at restart and what follows
// discarded, scans in key order by vnode range and resumable, overlays,
// point reads; and a random run against a model across restarts.
#include "storage/timeseries/engine.h"
#include "storage/timeseries/memtable.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>

#include "common/encoding.h"
#include "storage/state_table.h"
#include "storage/table_engines.h"
#include "storage/test_dir.h"
#include "storage/test_store.h"

namespace freshet {
namespace {

constexpr TableId kTable = 42;
constexpr uint32_t kDatabase = 1;

StateTableDesc Desc(bool append_mode) {
  StateTableDesc d;
  d.table_id = kTable;
  // (host varchar, ts timestamp, v bigint[, row id bigint])
  d.column_types = {DataType::Varchar(), DataType::Timestamp(), DataType::Int64()};
  d.pk_indices = {0, 1};
  if (append_mode) {
    d.column_types.push_back(DataType::Int64());
    d.pk_indices.push_back(3);
  }
  d.dist_key_indices = {0};
  return d;
}

// A Row's v that stands for NULL.
constexpr int64_t kNullValue = INT64_MIN;

struct Row {
  std::string host;
  int64_t ts;
  int64_t v;
  int64_t row_id = 0;
};

DataChunk ChunkOf(const Row& r, bool append_mode) {
  DataChunk c(Desc(append_mode).column_types);
  c.column(0).AppendString(r.host);
  c.column(1).Append(Value::Timestamp(r.ts));
  if (r.v == kNullValue) c.column(2).AppendNull();
  else c.column(2).AppendInt(r.v);
  if (append_mode) c.column(3).AppendInt(r.row_id);
  c.set_cardinality(1);
  return c;
}

std::string KeyOf(const Row& r, bool append_mode = false) {
  StateTableDesc d = Desc(append_mode);
  return RowKey(kTable, d.dist_key_indices, d.pk_indices, ChunkOf(r, append_mode), 0);
}

std::string ValueOf(const Row& r, bool append_mode = false) {
  std::string v;
  EncodeRow(ChunkOf(r, append_mode), 0, &v);
  return v;
}

// A store in `dir` with the engine joined and the table registered.
struct Instance {
  std::unique_ptr<StateStore> store;
  std::shared_ptr<TimeSeriesEngine> engine;
  bool append_mode = false;

  Instance(const std::string& dir, bool append = false, TimeSeriesConfig config = {}, RegionRules regions = {})
      : append_mode(append) {
    store = OpenTestStore(dir);
    engine = std::make_shared<TimeSeriesEngine>(store.get(), dir.empty() ? "" : dir + "/timeseries", config);
    TimeSeriesTableOptions o;
    o.database_id = kDatabase;
    o.desc = Desc(append);
    o.time_index = 1;
    o.unit = TimeUnit::kMicrosecond;
    o.window_seconds = 3600;
    o.append_mode = append;
    o.regions = std::move(regions);
    engine->AddTable(kTable, o);
    EXPECT_TRUE(store->engines().Add(engine).ok());
    store->engines().Assign(kTable, engine.get());
  }

  Status Commit(Epoch epoch, const WriteLog& log) {
    CommitWrites writes;
    writes.ops.push_back(&log);
    return store->engines().CommitEpoch(writes, StateStore::EpochCommit{kDatabase, epoch, {}, 0});
  }

  // Every row visible at the snapshot, "host|ts|v" in scan order (a
  // resumable scan's: key order), or sorted (any other scan: its order is
  // the engine's).
  std::vector<std::string> Read(std::shared_ptr<const Snapshot> snapshot, ScanSpec spec = {}) const {
    if (spec.table.table_id == 0) spec.table = Desc(append_mode);
    const bool ordered = spec.resumable;
    auto scan = store->engines().For(kTable).Scan(std::move(snapshot), std::move(spec));
    std::vector<std::string> out;
    DataChunk chunk;
    while (scan->Next(&chunk, 7))
      for (size_t r = 0; r < chunk.num_rows(); r++)
        out.push_back(chunk.column(0).GetValue(r).ToString() + "|" + std::to_string(chunk.column(1).GetValue(r).int_value()) +
                      "|" + chunk.column(2).GetValue(r).ToString());
    if (!ordered) std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> Read() const { return Read(store->GetSnapshot()); }
};

std::string Text(const Row& r) { return r.host + "|" + std::to_string(r.ts) + "|" + std::to_string(r.v); }

TEST(TimeSeriesEngineTest, AnEpochIsVisibleFromItsCommitAndOlderSnapshotsKeepTheirRows) {
  TestDir dir("ts_engine");
  Instance db(dir.path());
  WriteLog e1;
  Row a{"h1", 1'000'000, 1}, b{"h2", 2'000'000, 2};
  e1.Put(KeyOf(a), ValueOf(a), 1);
  e1.Put(KeyOf(b), ValueOf(b), 1);
  std::shared_ptr<const Snapshot> before = db.store->GetSnapshot();
  ASSERT_TRUE(db.Commit(1, e1).ok());
  EXPECT_TRUE(db.Read(before).empty());
  std::shared_ptr<const Snapshot> at1 = db.store->GetSnapshot();
  EXPECT_EQ(db.Read(at1).size(), 2u);

  // Epoch 2 updates a and deletes b: the snapshot at 1 still reads both as
  // they were, the latest reads the change.
  WriteLog e2;
  Row a2{"h1", 1'000'000, 10};
  e2.Put(KeyOf(a2), ValueOf(a2));
  e2.Delete(KeyOf(b), -1);
  ASSERT_TRUE(db.Commit(2, e2).ok());
  std::vector<std::string> old = db.Read(at1);
  std::sort(old.begin(), old.end());
  EXPECT_EQ(old, (std::vector<std::string>{Text(a), Text(b)}));
  EXPECT_EQ(db.Read(), (std::vector<std::string>{Text(a2)}));
  std::string value;
  ASSERT_TRUE(db.engine->GetCommitted(KeyOf(a), &value).ok());
  EXPECT_EQ(value, ValueOf(a2));
  EXPECT_TRUE(db.engine->GetCommitted(KeyOf(b), &value).IsNotFound());
}

TEST(TimeSeriesEngineTest, AFailedCommitLeavesNothingAndTheEpochCanBeCommittedAgain) {
  TestDir dir("ts_engine");
  Instance db(dir.path());
  Row a{"h1", 5, 1};
  WriteLog e1;
  e1.Put(KeyOf(a), ValueOf(a), 1);
  CommitWrites writes;
  writes.ops.push_back(&e1);
  EngineEpochWrites part{kDatabase, 1, writes};
  EpochCommitBatch batch;
  ASSERT_TRUE(db.engine->PrepareEpoch(part, &batch).ok());
  ASSERT_EQ(batch.markers.size(), 1u);
  db.engine->FinishEpoch(kDatabase, 1, false);  // the store's write failed
  EXPECT_TRUE(db.Read().empty());
  std::string value;
  EXPECT_TRUE(db.engine->GetCommitted(KeyOf(a), &value).IsNotFound());
  EXPECT_EQ(db.engine->MemtableRows(kTable), 0u);
  // The same epoch again, with another row: only it is there, also after a restart.
  Row b{"h2", 6, 2};
  WriteLog again;
  again.Put(KeyOf(b), ValueOf(b), 1);
  ASSERT_TRUE(db.Commit(1, again).ok());
  EXPECT_EQ(db.Read(), (std::vector<std::string>{Text(b)}));
  db = Instance("", false);  // close the store before reopening it
  Instance reopened(dir.path());
  EXPECT_EQ(reopened.Read(), (std::vector<std::string>{Text(b)}));
}

TEST(TimeSeriesEngineTest, RestartReplaysTheCommittedLogAndDiscardsWhatFollows) {
  TestDir dir("ts_engine");
  {
    Instance db(dir.path());
    for (Epoch e = 1; e <= 3; e++) {
      WriteLog log;
      Row r{"h" + std::to_string(e), int64_t(e) * 1'000'000, int64_t(e)};
      log.Put(KeyOf(r), ValueOf(r), 1);
      ASSERT_TRUE(db.Commit(e, log).ok());
    }
    // Epoch 4 is logged, but the store's write never happens (a crash).
    WriteLog log;
    Row r{"h4", 4'000'000, 4};
    log.Put(KeyOf(r), ValueOf(r), 1);
    CommitWrites writes;
    writes.ops.push_back(&log);
    EpochCommitBatch batch;
    ASSERT_TRUE(db.engine->PrepareEpoch(EngineEpochWrites{kDatabase, 4, writes}, &batch).ok());
    db.engine->FinishEpoch(kDatabase, 4, false);
  }
  {
    Instance db(dir.path());
    std::vector<std::string> rows = db.Read();
    std::sort(rows.begin(), rows.end());
    EXPECT_EQ(rows, (std::vector<std::string>{"h1|1000000|1", "h2|2000000|2", "h3|3000000|3"}));
    // Epoch 4 again with other rows: the discarded record never comes back.
    WriteLog log;
    Row r{"h5", 5'000'000, 5};
    log.Put(KeyOf(r), ValueOf(r), 1);
    ASSERT_TRUE(db.Commit(4, log).ok());
  }
  Instance db(dir.path());
  std::vector<std::string> rows = db.Read();
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(rows, (std::vector<std::string>{"h1|1000000|1", "h2|2000000|2", "h3|3000000|3", "h5|5000000|5"}));
}

TEST(TimeSeriesEngineTest, ScansReadVnodeRangesInKeyOrderResumablyWithOverlays) {
  Instance db("");
  WriteLog log;
  std::map<std::string, std::string> model;  // storage key -> text
  for (int h = 0; h < 20; h++)
    for (int t = 0; t < 30; t++) {
      Row r{"host" + std::to_string(h), int64_t(t) * 7'200'000'000 - 50'000'000'000, h * 100 + t};
      log.Put(KeyOf(r), ValueOf(r), 1);
      model[KeyOf(r)] = Text(r);
    }
  ASSERT_TRUE(db.Commit(1, log).ok());
  auto snapshot = db.store->GetSnapshot();
  // Each vnode alone, read 7 rows at a time and resumed after each chunk.
  std::vector<std::string> all;
  for (int vnode = 0; vnode < kVnodeCount; vnode++) {
    std::string after;
    for (;;) {
      ScanSpec spec;
      spec.table = Desc(false);
      spec.vnode_begin = vnode;
      spec.vnode_end = vnode + 1;
      spec.start_after = after;
      spec.resumable = true;
      auto scan = db.store->engines().For(kTable).Scan(snapshot, spec);
      DataChunk chunk;
      if (!scan->Next(&chunk, 7)) break;
      for (size_t r = 0; r < chunk.num_rows(); r++)
        all.push_back(chunk.column(0).GetValue(r).ToString() + "|" + std::to_string(chunk.column(1).GetValue(r).int_value()) +
                      "|" + chunk.column(2).GetValue(r).ToString());
      after = scan->last_key();
      EXPECT_EQ(VnodeOfKey(after), vnode);
    }
  }
  std::vector<std::string> expected;
  for (const auto& [k, text] : model) expected.push_back(text);
  EXPECT_EQ(all, expected);  // key order over the vnodes
  // An overlay: a deleted row, a changed one and a new one.
  auto it = model.begin();
  ScanSpec spec;
  spec.table = Desc(false);
  spec.overlay[it->first] = std::nullopt;
  ++it;
  Row changed{"zz", 0, 0};
  spec.overlay[it->first] = ValueOf(Row{it->second.substr(0, it->second.find('|')),
                                       std::stoll(it->second.substr(it->second.find('|') + 1)), -1});
  Row added{"new", 1, 1};
  spec.overlay[KeyOf(added)] = ValueOf(added);
  std::vector<std::string> read = db.Read(db.store->GetSnapshot(), spec);
  EXPECT_EQ(read.size(), model.size());
  std::sort(read.begin(), read.end());
  EXPECT_TRUE(std::binary_search(read.begin(), read.end(), Text(added)));
  EXPECT_FALSE(std::binary_search(read.begin(), read.end(), model.begin()->second));
  (void)changed;
}

// Random epochs of puts and deletes (append mode: row ids in the key), a
// failed commit now and then, restarts; after each step the engine reads
// what a model says, and a snapshot taken before a step reads the model
// as it was.
void RandomRun(bool append_mode, uint32_t seed) {
  TestDir dir("ts_engine");
  std::mt19937 rng(seed);
  auto db = std::make_unique<Instance>(dir.path(), append_mode);
  std::map<std::string, std::string> model;
  int64_t next_row_id = 1;
  std::shared_ptr<const Snapshot> ancient;
  std::map<std::string, std::string> ancient_model;
  for (Epoch epoch = 1; epoch <= 60; epoch++) {
    auto before = db->store->GetSnapshot();
    std::map<std::string, std::string> old_model = model;
    WriteLog log;
    std::map<std::string, std::string> next = model;
    int n = int(rng() % 40);
    for (int i = 0; i < n; i++) {
      Row r{"h" + std::to_string(rng() % 6), int64_t(rng() % 50) * 1'000'000'000 - 10'000'000'000, int64_t(rng() % 1000),
            append_mode ? next_row_id++ : 0};
      std::string key = KeyOf(r, append_mode);
      if (rng() % 4 == 0 && !next.empty()) {
        auto victim = next.begin();
        std::advance(victim, rng() % next.size());
        log.Delete(victim->first, -1);
        next.erase(victim);
        continue;
      }
      log.Put(key, ValueOf(r, append_mode), 1);
      next[key] = Text(r);
    }
    if (rng() % 10 == 0) {  // a failed commit: nothing changes
      CommitWrites writes;
      writes.ops.push_back(&log);
      EpochCommitBatch batch;
      ASSERT_TRUE(db->engine->PrepareEpoch(EngineEpochWrites{kDatabase, epoch, writes}, &batch).ok());
      db->engine->FinishEpoch(kDatabase, epoch, false);
    } else {
      ASSERT_TRUE(db->Commit(epoch, log).ok());
      model = std::move(next);
    }
    std::vector<std::string> expected;
    for (const auto& [k, text] : model) expected.push_back(text);
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(db->Read(), expected) << "epoch " << epoch;
    std::vector<std::string> expected_old;
    for (const auto& [k, text] : old_model) expected_old.push_back(text);
    std::sort(expected_old.begin(), expected_old.end());
    ASSERT_EQ(db->Read(before), expected_old) << "epoch " << epoch;
    for (const auto& [k, text] : model) {
      std::string value;
      ASSERT_TRUE(db->engine->GetCommitted(k, &value).ok());
    }
    if (rng() % 4 == 0) {
      // A flush: the rows move to files; the snapshot from before still
      // reads the rows as they were.
      ASSERT_TRUE(db->engine->FlushTable(kTable).ok());
      ASSERT_EQ(db->Read(), expected) << "after a flush at epoch " << epoch;
      ASSERT_EQ(db->Read(before), expected_old) << "after a flush at epoch " << epoch;
    }
    if (epoch == 15) {  // a snapshot held over many compactions
      ancient = db->store->GetSnapshot();
      ancient_model = model;
    }
    if (epoch == 45) ancient.reset();
    if (rng() % 5 == 0) {
      // A compaction merges files and resolves versions: every snapshot
      // still reads its rows, in key order too.
      ASSERT_TRUE(db->engine->CompactTable(kTable, rng() % 2 == 0).ok());
      ASSERT_EQ(db->Read(), expected) << "after a compaction at epoch " << epoch;
      ASSERT_EQ(db->Read(before), expected_old) << "after a compaction at epoch " << epoch;
      ScanSpec in_key_order;
      in_key_order.table = Desc(append_mode);
      in_key_order.resumable = true;
      std::vector<std::string> keyed;
      for (const auto& [k, text] : old_model) keyed.push_back(text);
      ASSERT_EQ(db->Read(before, in_key_order), keyed) << "after a compaction at epoch " << epoch;
      if (ancient) {
        std::vector<std::string> then;
        for (const auto& [k, text] : ancient_model) then.push_back(text);
        std::sort(then.begin(), then.end());
        ASSERT_EQ(db->Read(ancient), then) << "the snapshot of epoch 15 after a compaction at epoch " << epoch;
      }
    }
    if (rng() % 8 == 0) {
      before.reset();
      ancient.reset();
      db.reset();
      db = std::make_unique<Instance>(dir.path(), append_mode);
      ASSERT_EQ(db->Read(), expected) << "after a restart at epoch " << epoch;
    }
  }
}

TEST(TimeSeriesEngineTest, FlushedFilesAreReadAfterARestartAndOnlyLaterLogRecordsReplayed) {
  TestDir dir("ts_engine");
  std::vector<std::string> expected;
  {
    Instance db(dir.path());
    WriteLog e1;
    for (int i = 0; i < 5000; i++) {
      Row r{"h" + std::to_string(i % 7), int64_t(i) * 60'000'000, i};
      e1.Put(KeyOf(r), ValueOf(r), 1);
    }
    ASSERT_TRUE(db.Commit(1, e1).ok());
    Result<size_t> flushed = db.engine->FlushTable(kTable);
    ASSERT_TRUE(flushed.ok());
    EXPECT_EQ(*flushed, 5000u);
    // The log's segment with epoch 1 is gone: the files hold it.
    size_t segments = 0;
    for (const auto& f : std::filesystem::directory_iterator(dir.path() + "/timeseries/wal/1")) segments += f.path().extension() == ".wal";
    EXPECT_EQ(segments, 1u);
    EXPECT_EQ(db.engine->MemtableRows(kTable), 0u);
    EXPECT_GE(db.engine->FileCount(kTable), 80u);  // one per hour window
    // Epoch 2 changes flushed rows: a later version in a memtable wins.
    WriteLog e2;
    Row changed{"h0", 0, -1};
    e2.Put(KeyOf(changed), ValueOf(changed));
    e2.Delete(KeyOf(Row{"h1", 60'000'000, 1}), -1);
    ASSERT_TRUE(db.Commit(2, e2).ok());
    expected = db.Read();
    EXPECT_EQ(expected.size(), 4999u);
    EXPECT_TRUE(std::find(expected.begin(), expected.end(), "h0|0|-1") != expected.end());
  }
  Instance db(dir.path());
  EXPECT_EQ(db.Read(), expected);
  EXPECT_EQ(db.engine->MemtableRows(kTable), 2u);  // only epoch 2 replayed
}

// Point reads of many keys at once (a COPY's conflict checks): each key's
// newest version found in files of many blocks, in memtables over them,
// deletes and absent keys, whatever order the keys come in.
TEST(TimeSeriesEngineTest, PointReadsOfManyKeysFindEachInItsBlock) {
  TestDir dir("ts_engine");
  Instance db(dir.path());
  std::mt19937 rng(4711);
  std::map<std::string, std::optional<std::string>> model;  // nullopt: deleted
  for (Epoch epoch = 1; epoch <= 4; epoch++) {
    WriteLog log;
    for (int i = 0; i < 12000; i++) {
      Row r{"h" + std::to_string(rng() % 9), int64_t(rng() % 3000) * 1'000'000, int64_t(rng() % 1000)};
      if (epoch > 1 && rng() % 5 == 0) {
        log.Delete(KeyOf(r), -1);
        model[KeyOf(r)] = std::nullopt;
      } else {
        log.Put(KeyOf(r), ValueOf(r), 1);
        model[KeyOf(r)] = ValueOf(r);
      }
    }
    ASSERT_TRUE(db.Commit(epoch, log).ok());
    if (epoch < 4) ASSERT_TRUE(db.engine->FlushTable(kTable).ok());  // the last epoch stays in memtables
  }
  std::vector<std::string> keys;
  for (const auto& [k, v] : model) keys.push_back(k);
  for (int i = 0; i < 500; i++) keys.push_back(KeyOf(Row{"h" + std::to_string(rng() % 12), int64_t(rng() % 4000) * 1'000'000 + 1, 0}));
  std::shuffle(keys.begin(), keys.end(), rng);
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<std::optional<std::string>> values;
  ASSERT_TRUE(db.engine->GetCommittedMany(views, &values).ok());
  for (size_t i = 0; i < keys.size(); i++) {
    auto it = model.find(keys[i]);
    const std::optional<std::string> expected = it == model.end() ? std::nullopt : it->second;
    ASSERT_EQ(values[i], expected) << i;
    if (i % 50 != 0) continue;  // one key alone decodes its blocks: a sample
    std::string one;
    ASSERT_EQ(db.engine->GetCommitted(keys[i], &one).ok(), expected.has_value()) << i;
    if (expected) ASSERT_EQ(one, *expected);
  }
}

// Regions (regions.h): a flush writes a file per window and region, and
// flush_region counts its region's rows; files written before regions
// (their meta entries name none) are read as holding any region's rows and
// split by region when compacted.
TEST(TimeSeriesEngineTest, FlushesWriteAFilePerRegionAndCompactionSplitsFilesOfNoRegion) {
  TestDir dir("ts_engine");
  auto regions = [] {  // host < 'm' is region 0, the rest the default region 1
    std::string m;
    EncodeKeyValue(Value::FromString(DataType::Varchar(), "m"), &m);
    return RegionRules({{{0, RegionCondition::Op::kLt, m}}}, {DataType::Varchar()}, {0});
  };
  auto files_per_region = [](const TimeSeriesEngine& engine) {
    std::vector<uint64_t> out;
    for (const auto& s : engine.RegionStatisticsOf(kTable)) out.push_back(s.files);
    return out;
  };
  std::vector<std::string> expected;
  {
    Instance db(dir.path(), false, {}, regions());
    WriteLog e1;
    for (int i = 0; i < 240; i++) {  // four hour windows, 3 hosts below 'm' and 2 above
      Row r{std::string(1, "abczy"[i % 5]) + "1", int64_t(i) * 60'000'000, i};
      e1.Put(KeyOf(r), ValueOf(r), 1);
    }
    ASSERT_TRUE(db.Commit(1, e1).ok());
    Result<size_t> flushed = db.engine->FlushTable(kTable, false, 1);
    ASSERT_TRUE(flushed.ok());
    EXPECT_EQ(*flushed, 96u);  // region 1's rows; the table's were all flushed
    EXPECT_EQ(db.engine->MemtableRows(kTable), 0u);
    EXPECT_EQ(files_per_region(*db.engine), (std::vector<uint64_t>{4, 4}));
    expected = db.Read();
    ASSERT_EQ(expected.size(), 240u);
    // The entries as files written before regions wrote them.
    MetaWrite w;
    db.store->ScanMeta("tsfile/", [&](const std::string& key, const std::string& value) {
      std::optional<RunFileInfo> info = RunFileInfo::FromJson(value);
      ASSERT_TRUE(info);
      std::string json = value;
      const std::string field = ",\"region\":" + std::to_string(info->region);
      ASSERT_NE(json.find(field), std::string::npos) << json;
      json.erase(json.find(field), field.size());
      w.Put(key, json);
    });
    ASSERT_TRUE(db.store->CommitMeta(w).ok());
  }
  Instance db(dir.path(), false, {}, regions());
  EXPECT_EQ(db.Read(), expected);
  ScanSpec spec;
  spec.table = Desc(false);
  ColumnPredicate host;
  host.column = 0;
  host.value = Value::FromString(DataType::Varchar(), "z1");
  spec.predicates = {host};
  std::vector<std::string> z1 = db.Read(db.store->GetSnapshot(), spec);
  std::erase_if(z1, [](const std::string& r) { return r.rfind("z1|", 0) != 0; });  // the caller's filter
  EXPECT_EQ(z1.size(), 48u);
  EXPECT_EQ(files_per_region(*db.engine), (std::vector<uint64_t>{8, 0}));  // counted in region 0
  ASSERT_TRUE(db.engine->CompactTable(kTable, true).ok());
  EXPECT_EQ(files_per_region(*db.engine), (std::vector<uint64_t>{4, 4}));
  EXPECT_EQ(db.Read(), expected);
  z1 = db.Read(db.store->GetSnapshot(), spec);
  std::erase_if(z1, [](const std::string& r) { return r.rfind("z1|", 0) != 0; });
  EXPECT_EQ(z1.size(), 48u);
}

// The columnar reads of scans that need no key order (scan.h) against the
// merged reads of resumable scans: plain files read by their columns,
// files with several versions of a key and memtables overlapping them
// merged, with vnode ranges, projections, time and tag predicates (which
// may only skip rows that fail them), NULLs and older snapshots.
TEST(TimeSeriesEngineTest, ColumnarScansReturnTheRowsOfMergedScans) {
  TestDir dir("ts_engine");
  Instance db(dir.path());
  std::mt19937_64 rng(2112);
  constexpr int64_t kHour = 3'600'000'000;
  auto random_row = [&](int64_t ts_from, int64_t ts_to) {
    Row r{"h" + std::to_string(rng() % 40), ts_from + int64_t(rng() % uint64_t((ts_to - ts_from) / 1'000'000)) * 1'000'000,
          rng() % 9 == 0 ? kNullValue : int64_t(rng() % 1000)};
    return r;
  };
  // Every row in (host, ts, v) form, with the predicates' test.
  struct Filter {
    int vnode_begin = 0, vnode_end = kVnodeCount;
    std::optional<int64_t> ts_ge, ts_lt, ts_le;  // ts_le: a bound rows may sit on
    std::vector<std::string> hosts;  // IN; empty: any
    bool project_v = true;
  };
  auto read = [&](std::shared_ptr<const Snapshot> snapshot, const Filter& f, bool resumable) {
    ScanSpec spec;
    spec.table = Desc(false);
    spec.vnode_begin = f.vnode_begin;
    spec.vnode_end = f.vnode_end;
    spec.resumable = resumable;
    if (!resumable) {
      if (f.ts_ge) spec.predicates.push_back({1, ColumnPredicate::Op::kGe, Value::Timestamp(*f.ts_ge), {}});
      if (f.ts_lt) spec.predicates.push_back({1, ColumnPredicate::Op::kLt, Value::Timestamp(*f.ts_lt), {}});
      if (f.ts_le) spec.predicates.push_back({1, ColumnPredicate::Op::kLe, Value::Timestamp(*f.ts_le), {}});
      if (f.hosts.size() == 1) spec.predicates.push_back({0, ColumnPredicate::Op::kEq, Value::Varchar(f.hosts[0]), {}});
      if (f.hosts.size() > 1) {
        ColumnPredicate in{0, ColumnPredicate::Op::kIn, Value(), {}};
        for (const auto& h : f.hosts) in.values.push_back(Value::Varchar(h));
        spec.predicates.push_back(in);
      }
      if (!f.project_v) spec.projection = {true, true, false};
    }
    auto scan = db.store->engines().For(kTable).Scan(std::move(snapshot), std::move(spec));
    std::vector<std::string> out;
    DataChunk chunk;
    while (scan->Next(&chunk, 100))
      for (size_t r = 0; r < chunk.num_rows(); r++) {
        const std::string host = chunk.column(0).GetString(r);
        const int64_t ts = chunk.column(1).GetInt(r);
        if ((f.ts_ge && ts < *f.ts_ge) || (f.ts_lt && ts >= *f.ts_lt) || (f.ts_le && ts > *f.ts_le)) continue;
        if (!f.hosts.empty() && std::find(f.hosts.begin(), f.hosts.end(), host) == f.hosts.end()) continue;
        const bool v_null = chunk.column(2).IsNull(r);
        if (!f.project_v && !resumable) {
          EXPECT_TRUE(v_null);  // outside the projection
        }
        out.push_back(host + "|" + std::to_string(ts) + "|" +
                      (!f.project_v ? "-" : v_null ? "NULL" : std::to_string(chunk.column(2).GetInt(r))));
      }
    std::sort(out.begin(), out.end());
    return out;
  };
  // The merged scan's rows (all columns) with their vnodes.
  struct Merged {
    Row row;
    int vnode;
    std::string text;
  };
  auto merged_rows = [&](std::shared_ptr<const Snapshot> snapshot) {
    std::vector<Merged> out;
    for (const std::string& text : read(snapshot, Filter{}, true)) {
      const size_t bar = text.find('|'), bar2 = text.find('|', bar + 1);
      Row r{text.substr(0, bar), std::stoll(text.substr(bar + 1, bar2 - bar - 1)), 0};
      out.push_back(Merged{r, VnodeOfKey(KeyOf(r)), text});
    }
    return out;
  };
  // The filter applied to the merged scan's rows.
  auto expected = [&](const std::vector<Merged>& merged, const Filter& f) {
    std::vector<std::string> out;
    for (const auto& [r, vnode, text] : merged) {
      const size_t bar2 = text.find('|', text.find('|') + 1);
      if (vnode < f.vnode_begin || vnode >= f.vnode_end) continue;
      if ((f.ts_ge && r.ts < *f.ts_ge) || (f.ts_lt && r.ts >= *f.ts_lt) || (f.ts_le && r.ts > *f.ts_le)) continue;
      if (!f.hosts.empty() && std::find(f.hosts.begin(), f.hosts.end(), r.host) == f.hosts.end()) continue;
      out.push_back(f.project_v ? text : text.substr(0, bar2) + "|-");
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  auto check = [&](std::shared_ptr<const Snapshot> snapshot, const std::string& when) {
    const std::vector<Merged> merged = merged_rows(snapshot);
    for (int i = 0; i < 40; i++) {
      Filter f;
      if (rng() % 2) {
        f.vnode_begin = static_cast<int>(rng() % kVnodeCount);
        f.vnode_end = f.vnode_begin + 1 + static_cast<int>(rng() % (kVnodeCount - f.vnode_begin));
      }
      if (rng() % 2) f.ts_ge = int64_t(rng() % 12) * kHour + int64_t(rng() % 3600) * 1'000'000;
      if (rng() % 2) f.ts_lt = int64_t(rng() % 12) * kHour + int64_t(rng() % 3600) * 1'000'000;
      else if (rng() % 2) f.ts_le = int64_t(rng() % 12) * kHour + int64_t(rng() % 3600) * 1'000'000;
      for (size_t n = rng() % 4 == 0 ? 1 + rng() % 3 : 0; n > 0; n--) f.hosts.push_back("h" + std::to_string(rng() % 40));
      f.project_v = rng() % 3 != 0;
      ASSERT_EQ(read(snapshot, f, false), expected(merged, f)) << when << ", filter " << i;
    }
    for (int h = 0; h < 40; h++) {  // each series alone (first or last of its blocks too)
      Filter f;
      f.hosts = {"h" + std::to_string(h)};
      ASSERT_EQ(read(snapshot, f, false), expected(merged, f)) << when << ", host " << h;
    }
  };
  // Epoch 1: rows over hours 0-5, flushed (plain files, one per hour).
  WriteLog e1;
  for (int i = 0; i < 30000; i++) {  // several blocks per hour
    Row r = random_row(0, 6 * kHour);
    e1.Put(KeyOf(r), ValueOf(r));
  }
  ASSERT_TRUE(db.Commit(1, e1).ok());
  ASSERT_TRUE(db.engine->FlushTable(kTable).ok());
  check(db.store->GetSnapshot(), "plain files");
  // Epoch 2: hours 6-9 in memtables beside the files.
  WriteLog e2;
  for (int i = 0; i < 3000; i++) {
    Row r = random_row(6 * kHour, 10 * kHour);
    e2.Put(KeyOf(r), ValueOf(r));
  }
  ASSERT_TRUE(db.Commit(2, e2).ok());
  auto before = db.store->GetSnapshot();
  check(before, "files and memtables");
  // Epoch 3 rewrites and deletes rows of the flushed hours: the memtables
  // overlap files, and the next flush writes files with several versions.
  WriteLog e3;
  for (int i = 0; i < 1500; i++) {
    Row r = random_row(0, 10 * kHour);
    if (i % 5 == 0) e3.Delete(KeyOf(r), -1);
    else e3.Put(KeyOf(r), ValueOf(r));
  }
  ASSERT_TRUE(db.Commit(3, e3).ok());
  check(db.store->GetSnapshot(), "overlapping memtables");
  ASSERT_TRUE(db.engine->FlushTable(kTable).ok());
  check(db.store->GetSnapshot(), "files with versions");
  check(before, "an older snapshot after the flush");
  // Compacted with no older snapshot left: one plain file per hour (the
  // windows do not overlap), holding exactly the rows (no older version,
  // no delete).
  before.reset();
  const size_t visible_rows = read(db.store->GetSnapshot(), Filter{}, true).size();
  Result<size_t> merged = db.engine->CompactTable(kTable, true);
  ASSERT_TRUE(merged.ok());
  EXPECT_GT(*merged, visible_rows);
  check(db.store->GetSnapshot(), "compacted");
  EXPECT_EQ(db.engine->FileCount(kTable), 10u);
  EXPECT_EQ(db.engine->Statistics(kTable, nullptr).rows, static_cast<int64_t>(visible_rows));
}

TEST(TimeSeriesEngineTest, ARestartRightAfterAFlushTrimmedTheLogReadsEverything) {
  TestDir dir("ts_engine");
  {
    Instance db(dir.path());
    for (Epoch e = 1; e <= 3; e++) {
      WriteLog log;
      Row r{"h", int64_t(e) * 1'000'000, int64_t(e)};
      log.Put(KeyOf(r), ValueOf(r), 1);
      ASSERT_TRUE(db.Commit(e, log).ok());
    }
    ASSERT_TRUE(db.engine->FlushTable(kTable).ok());  // no commit after it: the marker names a removed segment
  }
  Instance db(dir.path());
  EXPECT_EQ(db.Read(), (std::vector<std::string>{"h|1000000|1", "h|2000000|2", "h|3000000|3"}));
  WriteLog log;
  Row r{"h", 4'000'000, 4};
  log.Put(KeyOf(r), ValueOf(r), 1);
  ASSERT_TRUE(db.Commit(4, log).ok());
  EXPECT_EQ(db.Read().size(), 4u);
}

TEST(TimeSeriesEngineTest, TheFlusherKeepsMemtablesWithinTheirLimits) {
  TestDir dir("ts_engine");
  TimeSeriesConfig config;
  config.table_write_buffer_bytes = 64 << 10;
  config.write_buffer_bytes = 1 << 20;
  Instance db(dir.path(), false, config);
  db.engine->StartFlusher();
  size_t rows = 0;
  for (Epoch e = 1; e <= 40; e++) {
    WriteLog log;
    for (int i = 0; i < 200; i++, rows++) {
      Row r{"host" + std::to_string(i % 9), int64_t(rows) * 1'000'000, int64_t(rows)};
      log.Put(KeyOf(r), ValueOf(r), 1);
    }
    ASSERT_TRUE(db.Commit(e, log).ok());
    db.engine->WaitFlusherIdle();
    EXPECT_LT(db.engine->MemtableBytes(), config.table_write_buffer_bytes) << "epoch " << e;
  }
  EXPECT_GT(db.engine->FileCount(kTable), 0u);
  EXPECT_EQ(db.Read().size(), rows);
  db.engine->StopFlusher();
}

TEST(TimeSeriesEngineTest, TimeToLiveDropsWholeExpiredWindowsAlsoFromMemtables) {
  TestDir dir("ts_engine");
  Instance db(dir.path());
  TimeSeriesTableOptions o;
  o.database_id = kDatabase;
  o.desc = Desc(false);
  o.time_index = 1;
  o.window_seconds = 3600;
  o.ttl_seconds = 7200;  // two hours
  db.engine->UpdateTable(kTable, o);
  // Rows in hours 0..9 (one per 10 minutes); hours 0-4 flushed to files,
  // 5-9 still in memtables.
  WriteLog early, late;
  for (int m = 0; m < 600; m += 10) {
    Row r{"h", int64_t(m) * 60'000'000, m};
    (m < 300 ? early : late).Put(KeyOf(r), ValueOf(r), 1);
  }
  ASSERT_TRUE(db.Commit(1, early).ok());
  ASSERT_TRUE(db.engine->FlushTable(kTable).ok());
  ASSERT_TRUE(db.Commit(2, late).ok());
  // At 8:30 the bound is 6:30: windows 0-5 are wholly expired, 6 only in part.
  Result<size_t> dropped = db.engine->ExpireTable(kTable, int64_t(8 * 60 + 30) * 60'000'000);
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(*dropped, 36u);
  std::vector<std::string> rows = db.Read();
  ASSERT_EQ(rows.size(), 24u);
  EXPECT_EQ(rows.front(), "h|21600000000|360");  // 6:00, kept with its window
  // Nothing left to expire at the same time; a restart reads the same.
  EXPECT_EQ(*db.engine->ExpireTable(kTable, int64_t(8 * 60 + 30) * 60'000'000), 0u);
  db = Instance("", false);
  Instance reopened(dir.path());
  EXPECT_EQ(reopened.Read().size(), 24u);
}

TEST(TimeSeriesEngineTest, RandomEpochsMatchAModelAcrossFailuresAndRestarts) {
  for (uint32_t seed = 1; seed <= 4; seed++) RandomRun(false, seed);
}

TEST(TimeSeriesEngineTest, RandomEpochsInAppendModeMatchAModel) {
  for (uint32_t seed = 11; seed <= 13; seed++) RandomRun(true, seed);
}

}  // namespace
}  // namespace freshet

namespace freshet {
namespace {

// A memtable's point read finds exactly its key at the epoch asked for,
// with newer (uncommitted) versions of it and of the following keys in
// the way (Get looks the key up; Read would step over them).
TEST(TimeSeriesMemtableTest, APointReadFindsExactlyItsKeyAtItsEpoch) {
  TimeSeriesMemtable m(1, /*append_mode=*/false);
  m.Write(TimeSeriesRow{"a", 10, "a10@1", "", 1, false});
  m.Write(TimeSeriesRow{"a", 10, "a10@7", "", 7, false});
  std::vector<TimeSeriesRow> later;
  for (int64_t ts = 0; ts < 1000; ts++) later.push_back(TimeSeriesRow{"b", ts, "b@5", "", 5, false});
  m.Write(later);
  m.Write(TimeSeriesRow{"c", 3, "", "", 2, true});
  EXPECT_EQ(m.Get({"a", 10, "", 0}, 1)->fields, "a10@1");
  EXPECT_EQ(m.Get({"a", 10, "", 0}, 9)->fields, "a10@7");
  EXPECT_FALSE(m.Get({"a", 10, "", 0}, 0).has_value());
  EXPECT_FALSE(m.Get({"a", 11, "", 0}, 9).has_value());  // between keys
  EXPECT_FALSE(m.Get({"b", 500, "", 0}, 4).has_value());  // only a newer version
  EXPECT_EQ(m.Get({"b", 500, "", 0}, 5)->fields, "b@5");
  EXPECT_TRUE(m.Get({"c", 3, "", 0}, 2)->deleted);
  // The same answers as the Read-based default of every other run.
  const TimeSeriesRowSource& base = m;
  for (const TimeSeriesKey& k : {TimeSeriesKey{"a", 10, "", 0}, TimeSeriesKey{"a", 11, "", 0},
                                 TimeSeriesKey{"b", 500, "", 0}, TimeSeriesKey{"c", 3, "", 0}})
    for (uint64_t visible : {0, 1, 2, 4, 5, 9}) {
      std::vector<std::pair<TimeSeriesKey, TimeSeriesRow>> found;
      base.Read(k, false, visible, 1, &found);
      const bool read_has = !found.empty() && found[0].first == k;
      const std::optional<TimeSeriesRow> got = m.Get(k, visible);
      ASSERT_EQ(read_has, got.has_value()) << std::get<0>(k) << std::get<1>(k) << "@" << visible;
      if (got) EXPECT_EQ(got->fields, found[0].second.fields);
    }
}

}  // namespace
}  // namespace freshet
