#include "tuner/progress.h"

#include <cstdio>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace jitk::tuner {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TuneResult Timed() {
  TuneResult r;
  r.key = {"sm_90", "scaled_add", "f32;n=1048576", "NVIDIA H200", 132, "nvrtc 13.0"};
  r.space_size = 72;
  r.bytes_moved = 12.0 * (1 << 20);
  r.wall_s = 2.5;
  CandidateResult best, def;
  best.config = {{"BLOCK", 256}, {"EPT", 2}, {"VEC", 4}};
  best.outcome = def.outcome = Outcome::kOk;
  best.timing.median_ms = 0.004;
  def.config = {{"BLOCK", 128}, {"EPT", 4}, {"VEC", 4}};
  def.timing.median_ms = 0.005;
  r.candidates = {def, best};
  r.best = best;
  r.default_result = def;
  return r;
}

TuneResult CompileOnly() {
  TuneResult r;
  r.key = {"gfx90a", "scaled_add", "f16;n=1048576", "", 0, "hiprtc 5.2"};
  r.compile_only = true;
  r.space_size = 80;
  CandidateResult fit, pruned;
  fit.outcome = Outcome::kCompiledOnly;
  fit.code_reused = true;
  pruned.outcome = Outcome::kOutOfResources;
  r.candidates = {fit, fit, pruned};
  return r;
}

std::string Capture(bool tty, const std::function<void(ProgressPrinter&)>& body) {
  std::FILE* f = std::tmpfile();
  {
    ProgressPrinter p(f, tty, 2);
    body(p);
    p.Finish();
  }
  std::rewind(f);
  std::string out;
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

TEST(ProgressTest, PlainLinesWithoutATerminal) {
  const TuneResult r = Timed();
  std::string out = Capture(false, [&](ProgressPrinter& p) {
    p.OnRunStart(r.key, 10, false);
    p.OnCandidate(r.key, r.candidates[0], 1, 10);
    p.OnRunEnd(r);
    p.OnRunError("scaled_add f16;n=7", absl::UnavailableError("no NVRTC"));
  });
  EXPECT_THAT(out, Not(HasSubstr("\r")));
  EXPECT_THAT(out, Not(HasSubstr("ETA")));
  EXPECT_THAT(out,
              HasSubstr("[1/2] scaled_add f32;n=1048576: best BLOCK=256,EPT=2,VEC=4 0.004 ms"));
  EXPECT_THAT(out, HasSubstr("(3.15 TB/s), 1.25x over default, 2/72 candidates, 2.5 s\n"));
  EXPECT_THAT(out, HasSubstr("[2/2] scaled_add f16;n=7: error: UNAVAILABLE: no NVRTC\n"));
}

TEST(ProgressTest, ABarWithAnEtaOnATerminal) {
  const TuneResult r = Timed();
  std::string out = Capture(true, [&](ProgressPrinter& p) {
    p.OnRunStart(r.key, 4, false);
    p.OnRunEnd(r);
  });
  EXPECT_THAT(out, HasSubstr("\r\033[2K["));
  EXPECT_THAT(out, HasSubstr("ETA"));
  EXPECT_THAT(out, HasSubstr("scaled_add f32;n=1048576  0/4"));
  EXPECT_THAT(out, HasSubstr("[1/2] scaled_add f32;n=1048576: best"));
  EXPECT_EQ(FormatEta(75), "1:15");
  EXPECT_EQ(FormatEta(3725), "1:02:05");
  EXPECT_EQ(FormatEta(NAN), "?");
}

TEST(ProgressTest, TheSummaryHasOneRowPerShape) {
  std::string table = FormatSummary({Timed(), CompileOnly()});
  EXPECT_THAT(table, HasSubstr("best config"));
  EXPECT_THAT(table, HasSubstr("speed-up"));
  EXPECT_THAT(table, HasSubstr("BLOCK=256,EPT=2,VEC=4"));
  EXPECT_THAT(table, HasSubstr("1.25x"));
  EXPECT_THAT(table, HasSubstr("3.15"));
  // Compile-only rows: what fit, what was pruned, what came from the DB.
  EXPECT_THAT(table, HasSubstr("fit  pruned  failed  from DB"));
  EXPECT_THAT(table,
              HasSubstr("scaled_add  f16;n=1048576  gfx90a  3/80     2    1       0       2"));
  EXPECT_THAT(ResultLine(CompileOnly()), HasSubstr("3 of 80 compiled: 2 fit, 1 out of resources"));
}

}  // namespace
}  // namespace jitk::tuner
