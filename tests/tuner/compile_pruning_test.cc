// Resource pruning with the real compilers, offline: NVRTC for sm_90 and
// hiprtc + comgr for gfx90a work here without a GPU.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/backend/backend.h"
#include "lib/kernel_template.h"
#include "tests/testing/status_matchers.h"
#include "tuner/candidate_compiler.h"
#include "tuner/problem.h"
#include "tuner/tuner.h"

namespace jitk::tuner {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;
using ::testing::HasSubstr;

// The compiler for `arch`, or skips.
#define COMPILER_OR_SKIP(backend, arch)                                                  \
  absl::StatusOr<jitk::internal::Backend*> backend##_or =                                \
      jitk::internal::BackendFor(ParseTarget(arch)->vendor);                             \
  if (!backend##_or.ok()) GTEST_SKIP() << backend##_or.status().message();               \
  if (absl::Status c = (*backend##_or)->Compiler().status(); !c.ok()) GTEST_SKIP() << c; \
  jitk::internal::Backend* backend = *backend##_or

std::optional<LaunchArgs> Placeholders(const Shape& shape) {
  std::unique_ptr<ProblemInstance> p = *(*FindProblem("scaled_add"))->Create(shape, 1);
  void* pointers[] = {reinterpret_cast<void*>(1 << 20), reinterpret_cast<void*>(1 << 21),
                      reinterpret_cast<void*>(1 << 22)};
  return p->Args(pointers);
}

TEST(CompilePruningTest, Sm90SpillingConfigurationsArePrunedByPtxasReports) {
  COMPILER_OR_SKIP(cuda, "sm_90");
  const Shape shape = Shape(DType::kF16).Set("n", 1 << 20);
  CandidateCompiler compiler(**jitk::internal::FindKernelTemplate("scaled_add"), shape,
                             *ParseTarget("sm_90"), *LookupArch("sm_90"), *cuda,
                             Placeholders(shape), {});
  // 1024 threads cap registers at 64; 8 x 16-byte loads of x and y need more.
  Prepared big = compiler.Prepare({{"BLOCK", 1024}, {"EPT", 8}, {"VEC", 8}});
  EXPECT_EQ(big.result.outcome, Outcome::kOutOfResources) << big.result.message;
  EXPECT_THAT(big.result.message, HasSubstr("spills"));
  EXPECT_GT(big.result.resources.spills, 0);
  EXPECT_LE(big.result.resources.registers, 64);
  EXPECT_FALSE(big.ready());

  Prepared fits = compiler.Prepare({{"BLOCK", 128}, {"EPT", 4}, {"VEC", 8}});
  EXPECT_EQ(fits.result.outcome, Outcome::kCompiledOnly) << fits.result.message;
  ASSERT_TRUE(fits.ready());
  EXPECT_GT(fits.result.resources.registers, 0);
  EXPECT_EQ(fits.result.resources.spills, 0);
  EXPECT_EQ(fits.result.threads_per_block, 128);
  EXPECT_EQ(fits.compiled->code_object.substr(0, 4),
            "\x7f"
            "ELF");
  EXPECT_GT(fits.result.compile_ms, 0);
}

// The default config is what runs untuned: it is timed even when it spills
// (sparse_attn's warp-specialized default on sm_90a at d=128), while another
// config that spills is pruned.
TEST(CompilePruningTest, TheDefaultIsNeverPrunedForSpills) {
  COMPILER_OR_SKIP(cuda, "sm_90a");
  const jitk::internal::KernelTemplate& t = **jitk::internal::FindKernelTemplate("sparse_attn");
  const Shape shape = Shape(DType::kF16)
                          .Set("b", 1)
                          .Set("hq", 4)
                          .Set("hkv", 4)
                          .Set("lq", 1024)
                          .Set("lk", 1024)
                          .Set("d", 128)
                          .Set("layout", 1);
  const ArchInfo arch = *LookupArch("sm_90a");
  CandidateCompiler compiler(t, shape, *ParseTarget("sm_90a"), arch, *cuda, std::nullopt, {});
  const KernelConfig default_config = t.DefaultConfig(shape, arch);
  Prepared d = compiler.Prepare(default_config);
  EXPECT_EQ(d.result.outcome, Outcome::kCompiledOnly) << d.result.message;
  const KernelConfig other = {{"BLOCK_M", 128}, {"BLOCK_N", 128}, {"WAVES", 12}, {"STAGES", 2}};
  ASSERT_NE(other, default_config);
  Prepared o = compiler.Prepare(other);
  if (o.result.resources.spills == 0) {
    GTEST_SKIP() << "this NVRTC does not spill " << KernelConfigToString(other);
  }
  if (d.result.resources.spills == 0) GTEST_SKIP() << "the default no longer spills";
  EXPECT_EQ(o.result.outcome, Outcome::kOutOfResources);
  EXPECT_THAT(o.result.message, HasSubstr("spills"));
}

TEST(CompilePruningTest, Gfx90aOccupancyFloorUsesComgrRegisterCounts) {
  COMPILER_OR_SKIP(hip, "gfx90a");
  const Shape shape = Shape(DType::kF32).Set("n", 1 << 20);
  // A demanding floor: only light configurations keep most of the CU busy.
  PruneOptions strict;
  strict.min_occupancy = 0.9;
  CandidateCompiler compiler(**jitk::internal::FindKernelTemplate("scaled_add"), shape,
                             *ParseTarget("gfx90a"), *LookupArch("gfx90a"), *hip,
                             Placeholders(shape), strict);
  Prepared heavy = compiler.Prepare({{"BLOCK", 256}, {"EPT", 8}, {"VEC", 4}});
  EXPECT_EQ(heavy.result.outcome, Outcome::kOutOfResources) << heavy.result.message;
  EXPECT_THAT(heavy.result.message, HasSubstr("limited by registers"));
  EXPECT_GT(heavy.result.resources.registers, 64);
  Prepared light = compiler.Prepare({{"BLOCK", 256}, {"EPT", 1}, {"VEC", 1}});
  EXPECT_EQ(light.result.outcome, Outcome::kCompiledOnly) << light.result.message;
  EXPECT_LT(light.result.resources.registers, 64);
  EXPECT_EQ(light.result.resources.wave_size, 64);
  EXPECT_GE(light.result.occupancy, 0.9);
}

TEST(CompilePruningTest, CompileOnlySweepForAnyArchWithoutAGpu) {
  for (const char* arch : {"gfx90a", "sm_90"}) {
    absl::StatusOr<jitk::internal::Backend*> backend =
        jitk::internal::BackendFor(ParseTarget(arch)->vendor);
    if (!backend.ok() || !(*backend)->Compiler().ok()) continue;
    TuneOptions options;
    options.budget.max_evaluations = 3;
    options.compile_threads = 2;
    absl::StatusOr<TuneResult> r =
        Tune("scaled_add", Shape(DType::kBF16).Set("n", 1 << 24), {.arch = arch}, options);
    ASSERT_THAT(r, IsOk()) << arch;
    EXPECT_TRUE(r->compile_only);
    EXPECT_EQ(r->evaluated(), 3u);
    EXPECT_THAT(r->status, StatusIs(absl::StatusCode::kDeadlineExceeded, "budget of 3"));
    EXPECT_EQ(r->candidates[0].config, r->default_config);
    for (const CandidateResult& c : r->candidates) {
      EXPECT_EQ(c.outcome, Outcome::kCompiledOnly) << arch << " " << c.message;
      EXPECT_GT(c.resources.registers, 0);
      EXPECT_GT(c.code_bytes, 0u);
    }
  }
}

}  // namespace
}  // namespace jitk::tuner
