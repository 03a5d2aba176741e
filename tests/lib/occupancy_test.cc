#include "lib/occupancy.h"

#include "gtest/gtest.h"

namespace jitk::internal {
namespace {

ResourceUsage Usage(int registers, int lds_bytes = 0) {
  ResourceUsage u;
  u.registers = registers;
  u.lds_bytes = lds_bytes;
  return u;
}

TEST(OccupancyTest, RegisterFileLimitsResidentBlocks) {
  // gfx90a: 128 VGPRs x 64 lanes: 16 waves of the CU's 32 fit.
  Occupancy occ = EstimateOccupancy(Usage(128), 256, *LookupArch("gfx90a"));
  EXPECT_EQ(occ.waves_per_block, 4);
  EXPECT_EQ(occ.blocks_per_cu, 4);
  EXPECT_STREQ(occ.limiter, "registers");
  EXPECT_DOUBLE_EQ(occ.fraction(), 0.5);
  // sm_90: 255 registers round up to 256; 128 threads take 32 Ki of the 64 Ki.
  occ = EstimateOccupancy(Usage(255), 128, *LookupArch("sm_90"));
  EXPECT_EQ(occ.blocks_per_cu, 2);
  EXPECT_STREQ(occ.limiter, "registers");
  EXPECT_EQ(EstimateOccupancy(Usage(255), 1024, *LookupArch("sm_90")).blocks_per_cu, 0);
}

// 100 VGPRs and 32 AGPRs per lane, blocks of four waves (one per SIMD):
// gfx90a pools them (132 of 512: three waves per SIMD); gfx908 holds them in
// two files of 256 (100 of 256: two).
TEST(OccupancyTest, AccumulationRegistersByRegisterFile) {
  ResourceUsage usage = Usage(100);
  usage.accum_registers = 32;
  EXPECT_EQ(EstimateOccupancy(usage, 256, *LookupArch("gfx90a")).blocks_per_cu, 3);
  EXPECT_EQ(EstimateOccupancy(usage, 256, *LookupArch("gfx908")).blocks_per_cu, 2);
}

// A wave takes its registers from one SIMD's file: 320 per lane leave one
// wave per SIMD (192 of 512 unused), so blocks of two waves fit twice, not
// three times as a pooled count of the CU's file would have it.
TEST(OccupancyTest, AmdWavesDoNotSplitAcrossSimds) {
  ResourceUsage usage = Usage(256);
  usage.accum_registers = 64;
  Occupancy occ = EstimateOccupancy(usage, 128, *LookupArch("gfx90a"));
  EXPECT_EQ(occ.blocks_per_cu, 2);
  EXPECT_STREQ(occ.limiter, "registers");
  EXPECT_EQ(EstimateOccupancy(Usage(168), 128, *LookupArch("gfx942")).blocks_per_cu, 6);
  EXPECT_EQ(EstimateOccupancy(Usage(176), 128, *LookupArch("gfx942")).blocks_per_cu, 4);
}

TEST(OccupancyTest, LdsLimitsResidentBlocks) {
  Occupancy occ = EstimateOccupancy(Usage(32, 40 * 1024), 256, *LookupArch("sm_90"));
  EXPECT_EQ(occ.blocks_per_cu, 5);  // 228 KiB / (40 + 1 reserved) KiB
  EXPECT_STREQ(occ.limiter, "lds");
  // 3 x 76 KiB fill 228 KiB exactly; with the reserve, 2 fit.
  EXPECT_EQ(EstimateOccupancy(Usage(32, 76 * 1024), 256, *LookupArch("sm_90")).blocks_per_cu, 2);
}

TEST(OccupancyTest, ThreadsAndBlocksLimitResidentBlocks) {
  Occupancy occ = EstimateOccupancy(Usage(16), 1024, *LookupArch("sm_90"));
  EXPECT_EQ(occ.blocks_per_cu, 2);  // 2048 threads per SM
  EXPECT_STREQ(occ.limiter, "threads");
  // RDNA: 1024 threads per CU in wave32.
  EXPECT_EQ(EstimateOccupancy(Usage(16), 512, *LookupArch("gfx1100")).blocks_per_cu, 2);
  occ = EstimateOccupancy(Usage(16), 32, *LookupArch("sm_90"));
  EXPECT_EQ(occ.blocks_per_cu, 32);
  EXPECT_STREQ(occ.limiter, "blocks");
}

}  // namespace
}  // namespace jitk::internal
