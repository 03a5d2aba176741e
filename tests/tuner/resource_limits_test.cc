#include "tuner/resource_limits.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace jitk::tuner {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;

ResourceUsage Regs(int registers) {
  ResourceUsage u;
  u.registers = registers;
  return u;
}

TEST(ResourceLimitsTest, SmallKernelsFit) {
  EXPECT_THAT(CheckResources(Regs(32), 256, 0, *LookupArch("sm_90"), {}), IsOk());
  EXPECT_THAT(CheckResources(Regs(32), 256, 0, *LookupArch("gfx90a"), {}), IsOk());
}

TEST(ResourceLimitsTest, EachLimitIsNamed) {
  const ArchInfo gfx90a = *LookupArch("gfx90a");
  const ArchInfo sm90 = *LookupArch("sm_90");
  EXPECT_THAT(CheckResources(Regs(300), 64, 0, gfx90a, {}),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       "needs 300 registers per thread; gfx90a allows 256"));
  ResourceUsage agprs = Regs(200);
  agprs.accum_registers = 400;
  EXPECT_THAT(CheckResources(agprs, 64, 0, gfx90a, {}),
              StatusIs(absl::StatusCode::kResourceExhausted, "accumulation registers"));
  ResourceUsage lds = Regs(32);
  lds.lds_bytes = 48 * 1024;
  EXPECT_THAT(CheckResources(lds, 256, 32 * 1024, gfx90a, {}),
              StatusIs(absl::StatusCode::kResourceExhausted, "81920 bytes of LDS"));
  ResourceUsage spills = Regs(64);
  spills.spills = 12;
  EXPECT_THAT(CheckResources(spills, 256, 0, sm90, {}),
              StatusIs(absl::StatusCode::kResourceExhausted, "spills 12 bytes"));
  EXPECT_THAT(CheckResources(spills, 256, 0, sm90, {.max_spills = 16}), IsOk());
  EXPECT_THAT(CheckResources(Regs(32), 2048, 0, sm90, {}),
              StatusIs(absl::StatusCode::kResourceExhausted, "2048 threads per block"));
  ResourceUsage bounded = Regs(128);
  bounded.max_threads_per_block = 512;
  EXPECT_THAT(CheckResources(bounded, 1024, 0, sm90, {}),
              StatusIs(absl::StatusCode::kResourceExhausted, "allows at most 512"));
}

// EstimateOccupancy itself: tests/lib/occupancy_test.cc.
TEST(ResourceLimitsTest, OccupancyFloorUsesTheRegisterFile) {
  const ArchInfo gfx90a = *LookupArch("gfx90a");
  // 128 VGPRs x 64 lanes: 16 waves of the CU's 32 fit.
  EXPECT_THAT(CheckResources(Regs(128), 256, 0, gfx90a, {.min_occupancy = 0.5}), IsOk());
  EXPECT_THAT(CheckResources(Regs(128), 256, 0, gfx90a, {.min_occupancy = 0.75}),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       "occupancy 50% (16 of 32 waves per CU, limited by registers)"));
  // sm_90: 255 registers x 1024 threads do not fit in 64 Ki registers at all.
  EXPECT_THAT(CheckResources(Regs(255), 1024, 0, *LookupArch("sm_90"), {}),
              StatusIs(absl::StatusCode::kResourceExhausted, "not one block"));
}

}  // namespace
}  // namespace jitk::tuner
