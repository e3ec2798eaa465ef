// Procedures (procedures.h): states, polled outcomes, forgetting, and the
// bound on finished procedures kept (running ones always stay).
#include "common/procedures.h"

#include <gtest/gtest.h>

#include "common/uuid.h"

namespace freshet {
namespace {

TEST(ProceduresTest, StatesPollsAndTheBoundOnFinishedOnes) {
  Procedures p;
  const std::string flush = p.Start("FlushTable", "d.public.t");
  EXPECT_TRUE(ParseUuid(flush).has_value());
  EXPECT_EQ(p.Find(flush)->state, ProcedureInfo::State::kRunning);
  EXPECT_EQ(p.Find(flush)->end_micros, 0);
  p.Finish(flush, {false, "disk full"});
  EXPECT_EQ(p.Find(flush)->state, ProcedureInfo::State::kFailed);
  EXPECT_EQ(p.Find(flush)->error, "disk full");
  EXPECT_GE(p.Find(flush)->end_micros, p.Find(flush)->start_micros);
  p.Finish(flush, {});  // a finished procedure stays as it ended
  EXPECT_EQ(p.Find(flush)->state, ProcedureInfo::State::kFailed);

  // A polled one finishes when a read finds its outcome.
  bool created = false;
  const std::string job = p.Start("CreateStreamJob", "d.public.mv", [&]() -> std::optional<Procedures::Outcome> {
    if (!created) return std::nullopt;
    return Procedures::Outcome{};
  });
  EXPECT_EQ(p.Find(job)->state, ProcedureInfo::State::kRunning);
  created = true;
  EXPECT_EQ(p.List().back().state, ProcedureInfo::State::kDone);

  const std::string nothing = p.Start("CompactTable", "d.public.t");
  p.Forget(nothing);
  EXPECT_FALSE(p.Find(nothing).has_value());
  EXPECT_FALSE(p.Find("not an id").has_value());

  // Past kKeptFinished finished ones the oldest finished go; a running one
  // started first stays.
  const std::string running = p.Start("FlushTable", "d.public.slow");
  for (size_t i = 0; i < Procedures::kKeptFinished + 10; i++) p.Finish(p.Start("FlushTable", "d.public.t"), {});
  EXPECT_FALSE(p.Find(flush).has_value());
  EXPECT_FALSE(p.Find(job).has_value());
  EXPECT_EQ(p.Find(running)->state, ProcedureInfo::State::kRunning);
  EXPECT_EQ(p.List().size(), Procedures::kKeptFinished + 1);
}

}  // namespace
}  // namespace freshet
