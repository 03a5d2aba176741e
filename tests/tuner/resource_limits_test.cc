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

TEST(ResourceLimitsTest, OccupancyFloorUsesTheRegisterFile) {
  const ArchInfo gfx90a = *LookupArch("gfx90a");
  // 128 VGPRs x 64 lanes: 16 waves of the CU's 32 fit.
  Occupancy occ = EstimateOccupancy(Regs(128), 256, gfx90a);
  EXPECT_EQ(occ.waves_per_block, 4);
  EXPECT_EQ(occ.blocks_per_cu, 4);
  EXPECT_STREQ(occ.limiter, "registers");
  EXPECT_DOUBLE_EQ(occ.fraction(), 0.5);
  EXPECT_THAT(CheckResources(Regs(128), 256, 0, gfx90a, {.min_occupancy = 0.75}),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       "occupancy 50% (16 of 32 waves per CU, limited by registers)"));
  // sm_90: 255 registers x 1024 threads do not fit in 64 Ki registers at all.
  EXPECT_THAT(CheckResources(Regs(255), 1024, 0, *LookupArch("sm_90"), {}),
              StatusIs(absl::StatusCode::kResourceExhausted, "not one block"));
}

TEST(ResourceLimitsTest, LdsLimitsResidentBlocks) {
  ResourceUsage lds = Regs(32);
  lds.lds_bytes = 40 * 1024;
  Occupancy occ = EstimateOccupancy(lds, 256, *LookupArch("sm_90"));
  EXPECT_EQ(occ.blocks_per_cu, 5);  // 228 KiB / (40 + 1 reserved) KiB
  EXPECT_STREQ(occ.limiter, "lds");
  lds.lds_bytes = 76 * 1024;  // 3 x 76 KiB fill 228 KiB exactly; with the reserve, 2 fit
  EXPECT_EQ(EstimateOccupancy(lds, 256, *LookupArch("sm_90")).blocks_per_cu, 2);
}

}  // namespace
}  // namespace jitk::tuner
