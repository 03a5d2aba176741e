#include "lib/internal/device_impl.h"

#include "gtest/gtest.h"

namespace jitk::internal {
namespace {

DeviceInfo Hopper() {
  DeviceInfo info;
  info.vendor = Vendor::kNvidia;
  info.arch = "sm_90";
  info.target = "sm_90a";
  info.compute_units = 132;
  return info;
}

TEST(ArchForDeviceTest, TheTargetDecidesTheInstructionsAndTheDeviceTheCounts) {
  DeviceInfo h200 = Hopper();
  ArchInfo arch = ArchForDevice(h200);
  EXPECT_EQ(arch.name, "sm_90");
  EXPECT_EQ(arch.matrix_isa, "wgmma");
  EXPECT_EQ(arch.compute_units, 132);
  h200.target.clear();
  EXPECT_EQ(ArchForDevice(h200).matrix_isa, "mma.sync");
}

// Plain sm_90 code on the same GPU has no wgmma: its launches must be planned
// for the mma.sync engine it was built with.
TEST(ArchForCodeTest, CodeForThePlainTargetKeepsItsOwnInstructions) {
  const DeviceInfo h200 = Hopper();
  EXPECT_EQ(ArchForCode(h200, "sm_90").matrix_isa, "mma.sync");
  EXPECT_EQ(ArchForCode(h200, "sm_90a").matrix_isa, "wgmma");
  EXPECT_EQ(ArchForCode(h200, "sm_90").compute_units, 132);
  EXPECT_EQ(ArchForCode(h200, "not-a-target").matrix_isa, "wgmma");  // the device's
}

}  // namespace
}  // namespace jitk::internal
