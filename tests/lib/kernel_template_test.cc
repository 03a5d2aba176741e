#include "lib/kernel_template.h"

#include <cstdint>
#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fake_backend.h"
#include "tests/testing/status_matchers.h"

namespace jitk::internal {
namespace {

using ::jitk::testing::StatusIs;

TEST(PackedArgsTest, AddReturnsAlignedOffsetsAndClearStartsOver) {
  struct alignas(64) Wide {
    unsigned char bytes[128];
  };
  PackedArgs args;
  EXPECT_EQ(args.Add(int32_t{7}), 0u);
  const size_t wide = args.Add(Wide{});
  EXPECT_EQ(wide, 64u) << "aligned for its type";
  EXPECT_EQ(args.count(), 2u);
  EXPECT_EQ(static_cast<void*>(args.bytes(wide)), args.pointers()[1]);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(args.pointers()[1]) % 64, 0u);
  args.Clear();
  EXPECT_EQ(args.count(), 0u);
  EXPECT_EQ(args.Add(int64_t{1}), 0u);
}

// A backend without tensor maps refuses a plan that needs them by name, and
// launches nothing.
TEST(LaunchPlannedTest, TensorMapsNeedABackendThatHasThem) {
  jitk::testing::FakeBackend fake;
  LaunchPlan plan;
  plan.grid = {1, 1, 1};
  plan.block = {128, 1, 1};
  plan.args.Add(int32_t{0});
  plan.tensor_maps.push_back(TensorMapRequest{});
  EXPECT_THAT(LaunchPlanned(fake, 0, nullptr, plan, nullptr),
              StatusIs(absl::StatusCode::kUnimplemented, "need the CUDA backend"));
  EXPECT_EQ(plan.tensor_maps.size(), 1u) << "kept for a retry";
  plan.grid.x = 0;
  EXPECT_THAT(LaunchPlanned(fake, 0, nullptr, plan, nullptr), jitk::testing::IsOk())
      << "an empty grid launches (and encodes) nothing";
}

// A plan's launches go out in order; one whose kernel waits for the launch
// before it on the GPU goes through LaunchDependent.
TEST(LaunchPlannedTest, DependentLaunchesGoThroughLaunchDependent) {
  jitk::testing::FakeBackend fake;
  CompileRequest request;
  request.target = *ParseTarget("sm_90");
  request.name_expressions = {"pass<1>"};
  absl::StatusOr<CodeObject> code = fake.Compile(request);
  ASSERT_THAT(code, jitk::testing::IsOk());
  absl::StatusOr<std::unique_ptr<Module>> module = fake.Load(0, *code);
  ASSERT_THAT(module, jitk::testing::IsOk());
  absl::StatusOr<FunctionHandle> function = (*module)->GetFunction(code->symbols[0].lowered_name);
  ASSERT_THAT(function, jitk::testing::IsOk());

  LaunchPlan plan;
  plan.grid = plan.block = {1, 1, 1};
  LaunchPlan& second = *(plan.next = std::make_unique<LaunchPlan>());
  second.grid = second.block = {1, 1, 1};
  second.dependent = true;
  ASSERT_THAT(LaunchPlanned(fake, 0, *function, plan, nullptr), jitk::testing::IsOk());
  EXPECT_EQ(fake.launches(), 2);
  EXPECT_EQ(fake.dependent_launches(), 1);
  second.dependent = false;
  ASSERT_THAT(LaunchPlanned(fake, 0, *function, plan, nullptr), jitk::testing::IsOk());
  EXPECT_EQ(fake.launches(), 4);
  EXPECT_EQ(fake.dependent_launches(), 1);
}

}  // namespace
}  // namespace jitk::internal
