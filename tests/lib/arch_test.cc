#include "jitk/arch.h"

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace jitk {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;

TEST(ArchTableTest, HasEveryArchitectureTuningNeeds) {
  for (const char* name :
       {"gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "sm_80", "sm_90"}) {
    absl::StatusOr<ArchInfo> arch = LookupArch(name);
    ASSERT_THAT(arch, IsOk()) << name;
    EXPECT_GT(arch->compute_units, 0) << name;
    EXPECT_GT(arch->lds_bytes_per_block, 0) << name;
  }
}

TEST(ArchTableTest, WaveSizesDifferByVendorAndFamily) {
  EXPECT_EQ(LookupArch("gfx942")->wave_size, 64);
  EXPECT_EQ(LookupArch("gfx1100")->wave_size, 32);
  EXPECT_EQ(LookupArch("sm_90")->wave_size, 32);
  EXPECT_EQ(LookupArch("gfx942")->compute_units, 304);
  EXPECT_TRUE(LookupArch("gfx90a")->matrix_cores);
  EXPECT_FALSE(LookupArch("gfx1030")->matrix_cores);
}

TEST(ArchTableTest, FullTargetsAndAcceleratedNamesResolve) {
  EXPECT_EQ(LookupArch("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-")->name, "gfx942");
}

// sm_90a code may use wgmma, which plain sm_90 code may not; both have the
// same resources. Other "a" targets resolve to their base.
TEST(ArchTableTest, ArchSpecificTargetsKeepTheirNameAndInstructions) {
  absl::StatusOr<ArchInfo> specific = LookupArch("sm_90a");
  absl::StatusOr<ArchInfo> base = LookupArch("sm_90");
  ASSERT_TRUE(specific.ok() && base.ok());
  EXPECT_EQ(specific->name, "sm_90a");
  EXPECT_EQ(specific->matrix_isa, "wgmma");
  EXPECT_EQ(base->matrix_isa, "mma.sync");
  EXPECT_EQ(specific->lds_bytes_per_block, base->lds_bytes_per_block);
  EXPECT_EQ(specific->register_file_per_cu, base->register_file_per_cu);
  EXPECT_EQ(LookupArch("sm_100a").status().code(), absl::StatusCode::kNotFound);
}

TEST(ArchTableTest, UnknownArchitectureListsKnownOnes) {
  EXPECT_THAT(LookupArch("gfx1201"), StatusIs(absl::StatusCode::kNotFound, "gfx942"));
  EXPECT_THAT(LookupArch("tpu7"), StatusIs(absl::StatusCode::kInvalidArgument, "tpu7"));
}

TEST(ParseTargetTest, ParsesAmdFeatures) {
  absl::StatusOr<Target> t = ParseTarget("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-");
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(t->arch, "gfx90a");
  EXPECT_EQ(t->features, ":sramecc+:xnack-");
  EXPECT_EQ(t->vendor, Vendor::kAmd);
  EXPECT_EQ(t->ToString(), "gfx90a:sramecc+:xnack-");
}

TEST(ParseTargetTest, RejectsBadInput) {
  EXPECT_THAT(ParseTarget("gfx90a:turbo+"),
              StatusIs(absl::StatusCode::kInvalidArgument, "turbo+"));
  EXPECT_THAT(ParseTarget("gfxzz"), StatusIs(absl::StatusCode::kInvalidArgument, "gfxzz"));
  EXPECT_THAT(ParseTarget("sm_"), StatusIs(absl::StatusCode::kInvalidArgument, "sm_"));
  EXPECT_THAT(ParseTarget(""), StatusIs(absl::StatusCode::kInvalidArgument, "not a GPU target"));
}

Target T(const char* text) { return *ParseTarget(text); }

TEST(CheckTargetCompatibleTest, AmdArchitectureMustMatch) {
  EXPECT_THAT(CheckTargetCompatible(T("gfx942"), T("gfx942:sramecc+:xnack-")), IsOk());
  absl::Status wrong = CheckTargetCompatible(T("gfx90a"), T("gfx942:sramecc+:xnack-"));
  EXPECT_THAT(wrong, StatusIs(absl::StatusCode::kFailedPrecondition, "gfx90a"));
  EXPECT_THAT(wrong, StatusIs(absl::StatusCode::kFailedPrecondition, "gfx942:sramecc+:xnack-"));
  EXPECT_THAT(wrong, StatusIs(absl::StatusCode::kFailedPrecondition, "recompile for gfx942"));
}

TEST(CheckTargetCompatibleTest, AmdFeaturesMustAgreeWhenSet) {
  EXPECT_THAT(CheckTargetCompatible(T("gfx90a:xnack-"), T("gfx90a:sramecc+:xnack-")), IsOk());
  EXPECT_THAT(CheckTargetCompatible(T("gfx90a:xnack+"), T("gfx90a:sramecc+:xnack-")),
              StatusIs(absl::StatusCode::kFailedPrecondition, "xnack+ code on a xnack- device"));
}

TEST(CheckTargetCompatibleTest, NvidiaRules) {
  EXPECT_THAT(CheckTargetCompatible(T("sm_90"), T("sm_90")), IsOk());
  EXPECT_THAT(CheckTargetCompatible(T("sm_80"), T("sm_86")), IsOk());
  EXPECT_THAT(CheckTargetCompatible(T("sm_90a"), T("sm_90")), IsOk());
  EXPECT_THAT(CheckTargetCompatible(T("sm_86"), T("sm_80")),
              StatusIs(absl::StatusCode::kFailedPrecondition, "newer minor"));
  EXPECT_THAT(CheckTargetCompatible(T("sm_80"), T("sm_90")),
              StatusIs(absl::StatusCode::kFailedPrecondition, "major"));
  EXPECT_THAT(CheckTargetCompatible(T("gfx942"), T("sm_90")),
              StatusIs(absl::StatusCode::kFailedPrecondition, "vendor"));
}

}  // namespace
}  // namespace jitk
