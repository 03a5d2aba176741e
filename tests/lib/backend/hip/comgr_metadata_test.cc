// Kernel resources from code object metadata (plain values, no comgr).
#include "lib/backend/hip/comgr_metadata.h"

#include <string>

#include "gtest/gtest.h"

namespace jitk::internal {
namespace {

MetadataValue Number(int value) {
  MetadataValue v;
  v.kind = MetadataValue::Kind::kString;
  v.string = std::to_string(value);
  return v;
}

MetadataValue Kernel(int vgpr_count, int agpr_count) {
  MetadataValue k;
  k.kind = MetadataValue::Kind::kMap;
  k.map = {{".vgpr_count", Number(vgpr_count)},
           {".agpr_count", Number(agpr_count)},
           {".sgpr_count", Number(86)}};
  return k;
}

TEST(ComgrMetadataTest, UnifiedRegisterFileIsCdna2AndLater) {
  EXPECT_TRUE(UnifiedRegisterFile("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"));
  EXPECT_TRUE(UnifiedRegisterFile("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"));
  EXPECT_TRUE(UnifiedRegisterFile("amdgcn-amd-amdhsa--gfx950"));
  EXPECT_TRUE(UnifiedRegisterFile("amdgcn-amd-amdhsa--gfx9-4-generic:sramecc+"));
  EXPECT_FALSE(UnifiedRegisterFile("amdgcn-amd-amdhsa--gfx908:sramecc+:xnack-"));
  EXPECT_FALSE(UnifiedRegisterFile("amdgcn-amd-amdhsa--gfx1100"));
}

// A gfx90a kernel using v0-v198 and a0-a63 reports .vgpr_count 264 (199
// VGPRs rounded up to 4, then the AGPRs): 200 VGPRs. gfx908 reports the
// larger of its two files' counts, which stays.
TEST(ComgrMetadataTest, RegistersCountVgprsAlone) {
  const ResourceUsage unified = KernelResources(Kernel(264, 64), /*unified_registers=*/true);
  EXPECT_EQ(unified.registers, 200);
  EXPECT_EQ(unified.accum_registers, 64);
  EXPECT_EQ(unified.scalar_registers, 86);
  const ResourceUsage apart = KernelResources(Kernel(32, 32), /*unified_registers=*/false);
  EXPECT_EQ(apart.registers, 32);
  EXPECT_EQ(apart.accum_registers, 32);
}

}  // namespace
}  // namespace jitk::internal
