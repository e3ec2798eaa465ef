// The stream plan codec (planner/stream_plan_codec.h) over every stream job
// the stream_*.slt files create: each statement of a file runs on a real
// instance (so views on views find their upstreams), and each CREATE
// MATERIALIZED VIEW / SINK / INDEX is first planned as CREATE plans it,
// encoded, decoded and encoded again: the two encodings and the EXPLAIN
// of the original and the decoded plan must be equal.
#include "planner/stream_plan_codec.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"
#include "frontend/session.h"
#include "frontend/stream_job_planner.h"
#include "sql/slt_records.h"
#include "storage/test_dir.h"

namespace freshet {
namespace {

class DiscardSink : public ResultSink {
 public:
  void Describe(const std::vector<ColumnDesc>&) override {}
  void Rows(const DataChunk&) override {}
  void Notice(const std::string&) override {}
  void BeginCopyIn(size_t, bool) override {}
  bool ReadCopyData(std::string*) override { return false; }
  void BeginCopyOut(size_t, bool) override {}
  void CopyData(const std::string&) override {}
  void EndCopyOut() override {}
};

TEST(StreamPlanCodecTest, EveryJobOfTheStreamSltFilesRoundTrips) {
  TestDir dir("stream-plan-codec");
  ServerOptions options;
  options.data_dir = dir.path();
  options.barrier_interval_ms = 50;
  auto opened = Instance::Open(options);
  ASSERT_TRUE(opened.ok());
  std::unique_ptr<Instance> instance = std::move(opened).value();
  Catalog* catalog = instance->catalog();
  auto resolve = [catalog](ObjectId id) { return catalog->GetTable(id); };
  DiscardSink sink;
  size_t jobs = 0, files = 0;
  for (const auto& file : std::filesystem::directory_iterator(std::string(FRESHET_SOURCE_DIR) + "/tests/slt")) {
    const std::string name = file.path().filename().string();
    if (name.rfind("stream_", 0) != 0 || name.find(".slow.") != std::string::npos) continue;
    files++;
    // A database per file, as the slt runner isolates them.
    const std::string db = "codec_" + std::to_string(files);
    {
      Session admin(instance.get(), "root", "dev");
      admin.ExecuteSimple("CREATE DATABASE " + db, &sink, [](const StatementOutcome&) {});
    }
    Session session(instance.get(), "root", db);
    for (const std::string& sql : SltRecords(file.path(), {.queries = false, .engine = "freshet"})) {
      std::vector<ParsedStatement> parsed;
      try {
        parsed = ParseSql(sql);
      } catch (const SqlError&) {
        continue;
      }
      for (const ParsedStatement& stmt : parsed) {
        JobDefinition def;
        if (!DescribeJobDefinition(stmt, &def)) continue;
        JobPlanContext ctx;
        ctx.catalog = catalog;
        ctx.database = session.database();
        ctx.search_path = session.SearchPath();
        StreamPlan plan;
        try {
          plan = PlanJob(ctx, stmt);
        } catch (const SqlError&) {
          continue;  // a statement the file expects to fail
        }
        jobs++;
        const std::string first = EncodeStreamPlan(plan);
        StreamPlan decoded = DecodeStreamPlan(first, resolve);
        EXPECT_EQ(EncodeStreamPlan(decoded), first) << name << ": " << stmt.text;
        EXPECT_EQ(ExplainStreamPlan(decoded), ExplainStreamPlan(plan)) << name << ": " << stmt.text;
        EXPECT_EQ(decoded.internal_tables.size(), plan.internal_tables.size());
      }
      try {
        session.ExecuteSimple(sql, &sink, [](const StatementOutcome&) {});
      } catch (const SqlError&) {
        session.OnError();
      }
    }
  }
  std::printf("%zu stream jobs of %zu files round-tripped\n", jobs, files);
  EXPECT_GT(files, 15u);
  EXPECT_GT(jobs, 150u);
  instance->Shutdown();
}

TEST(StreamPlanCodecTest, OtherVersionsAndBrokenDocumentsAreRefused) {
  auto resolve = [](ObjectId) { return TableRef(); };
  for (const std::string text : {"", "[]", "{\"version\": 99}", "{\"version\": 1}", "{\"version\": 1, \"root\": {}}"}) {
    try {
      DecodeStreamPlan(text, resolve);
      ADD_FAILURE() << "decoded: " << text;
    } catch (const SqlError& e) {
      EXPECT_EQ(e.code(), std::string(sqlstate::kDataCorrupted)) << text;
    }
  }
}

}  // namespace
}  // namespace freshet
