#include "tuner/search_space.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/kernel_template.h"
#include "tests/testing/status_matchers.h"

namespace jitk::tuner {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;
using ::testing::ElementsAre;

TEST(SearchSpaceTest, RejectsMalformedParameterLists) {
  EXPECT_THAT(SearchSpace::Create({}),
              StatusIs(absl::StatusCode::kInvalidArgument, "needs a parameter"));
  EXPECT_THAT(SearchSpace::Create({{"A", {}}}),
              StatusIs(absl::StatusCode::kInvalidArgument, "A has no values"));
  EXPECT_THAT(SearchSpace::Create({{"A", {1}}, {"A", {2}}}),
              StatusIs(absl::StatusCode::kInvalidArgument, "A appears twice"));
  EXPECT_THAT(SearchSpace::Create({{"A", {1, 2, 1}}}),
              StatusIs(absl::StatusCode::kInvalidArgument, "A repeats a value"));
  std::vector<int64_t> many(2048);
  for (size_t i = 0; i < many.size(); ++i) many[i] = int64_t(i);
  EXPECT_THAT(SearchSpace::Create({{"A", many}, {"B", many}, {"C", {1, 2}}}),
              StatusIs(absl::StatusCode::kResourceExhausted, "narrow C"));
}

TEST(SearchSpaceTest, EnumeratesValidConfigurationsLastParameterFastest) {
  auto constraint = [](const KernelConfig& c) {
    return c.at("A") * c.at("B") <= 8 ? absl::OkStatus() : absl::InvalidArgumentError("A*B > 8");
  };
  absl::StatusOr<SearchSpace> space =
      SearchSpace::Create({{"A", {1, 2, 4}}, {"B", {1, 2, 4}}}, constraint);
  ASSERT_THAT(space, IsOk());
  EXPECT_EQ(space->combinations(), 9u);
  ASSERT_EQ(space->size(), 8u);  // (4, 4) is out
  EXPECT_EQ(space->config(0), (KernelConfig{{"A", 1}, {"B", 1}}));
  EXPECT_EQ(space->config(1), (KernelConfig{{"A", 1}, {"B", 2}}));
  EXPECT_EQ(space->config(7), (KernelConfig{{"A", 4}, {"B", 2}}));
  EXPECT_THAT(space->coordinates(7), ElementsAre(2, 1));
  EXPECT_EQ(space->IndexOf({{"A", 2}, {"B", 4}}), 5u);
  EXPECT_EQ(space->IndexOf({{"A", 4}, {"B", 4}}), std::nullopt);  // constraint
  EXPECT_EQ(space->IndexOf({{"A", 3}, {"B", 1}}), std::nullopt);  // not a listed value
  EXPECT_EQ(space->IndexOf({{"A", 1}}), std::nullopt);            // missing parameter
  EXPECT_EQ(space->IndexOf({{"A", 1}, {"B", 1}, {"C", 1}}), std::nullopt);
  EXPECT_THAT(space->Check({{"A", 4}, {"B", 4}}),
              StatusIs(absl::StatusCode::kInvalidArgument, "A*B > 8"));
}

TEST(SearchSpaceTest, NeighboursStayValid) {
  auto constraint = [](const KernelConfig& c) {
    return c.at("A") * c.at("B") <= 8 ? absl::OkStatus() : absl::InvalidArgumentError("A*B > 8");
  };
  SearchSpace space = *SearchSpace::Create({{"A", {1, 2, 4}}, {"B", {1, 2, 4}}}, constraint);
  const size_t center = *space.IndexOf({{"A", 2}, {"B", 2}});
  std::vector<KernelConfig> step, line, diagonal;
  for (size_t i : space.Neighbors(center)) step.push_back(space.config(i));
  for (size_t i : space.LineNeighbors(*space.IndexOf({{"A", 1}, {"B", 1}}))) {
    line.push_back(space.config(i));
  }
  for (size_t i : space.DiagonalNeighbors(center)) diagonal.push_back(space.config(i));
  EXPECT_THAT(step,
              ElementsAre(KernelConfig{{"A", 1}, {"B", 2}}, KernelConfig{{"A", 2}, {"B", 1}},
                          KernelConfig{{"A", 2}, {"B", 4}}, KernelConfig{{"A", 4}, {"B", 2}}));
  EXPECT_THAT(line,
              ElementsAre(KernelConfig{{"A", 1}, {"B", 2}}, KernelConfig{{"A", 1}, {"B", 4}},
                          KernelConfig{{"A", 2}, {"B", 1}}, KernelConfig{{"A", 4}, {"B", 1}}));
  // (4, 4) would break the constraint.
  EXPECT_THAT(diagonal,
              ElementsAre(KernelConfig{{"A", 1}, {"B", 1}}, KernelConfig{{"A", 1}, {"B", 4}},
                          KernelConfig{{"A", 4}, {"B", 1}}));
}

TEST(SearchSpaceTest, ScaledAddSpaceFollowsTheArchitecture) {
  const jitk::internal::KernelTemplate* t = *jitk::internal::FindKernelTemplate("scaled_add");
  const Shape f32 = Shape(DType::kF32).Set("n", 1 << 20);
  const Shape f16 = Shape(DType::kF16).Set("n", 1 << 20);
  absl::StatusOr<SearchSpace> sm90 = SearchSpace::ForTemplate(*t, f32, *LookupArch("sm_90"));
  absl::StatusOr<SearchSpace> gfx = SearchSpace::ForTemplate(*t, f16, *LookupArch("gfx90a"));
  ASSERT_THAT(sm90, IsOk());
  ASSERT_THAT(gfx, IsOk());
  EXPECT_EQ(sm90->size(), 6u * 4 * 3);  // BLOCK 32..1024, EPT 1..8, VEC 1..4
  EXPECT_EQ(gfx->size(), 5u * 4 * 4);   // BLOCK 64..1024 (wave64), VEC 1..8
  for (size_t i = 0; i < gfx->size(); ++i) EXPECT_EQ(gfx->config(i).at("BLOCK") % 64, 0);
  EXPECT_TRUE(sm90->IndexOf(t->DefaultConfig(f32, *LookupArch("sm_90"))).has_value());
}

}  // namespace
}  // namespace jitk::tuner
