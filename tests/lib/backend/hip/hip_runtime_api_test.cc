// HipRuntimeApi's table and its errors, without an AMD GPU.
#include "lib/backend/hip/hip_runtime_api.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace jitk::internal {
namespace {

using ::jitk::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(HipRuntimeApiTest, ResolvesTheCaptureModeEntryPointWhereTheRuntimeHasIt) {
  absl::StatusOr<std::unique_ptr<HipRuntimeApi>> api =
      LoadHipRuntimeApi({"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"});
  if (!api.ok()) GTEST_SKIP() << "no HIP runtime here: " << api.status().message();
  // HIP 5.0 added it; every runtime jitk supports has it.
  EXPECT_NE((*api)->hipThreadExchangeStreamCaptureMode, nullptr);
}

TEST(HipRuntimeApiTest, ACaptureErrorSaysToCallTheKernelBeforeCapturing) {
  HipRuntimeApi api;  // no error-name entry points: codes by number
  EXPECT_THAT(api.Check(hipErrorStreamCaptureUnsupported, "hipMalloc(64)"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "hipMalloc(64): hipError 900; a graph is being captured"));
  EXPECT_THAT(api.Check(hipErrorStreamCaptureInvalidated, "hipModuleLaunchKernel").message(),
              HasSubstr("call the kernel (and tune it) once before capturing"));
  EXPECT_THAT(api.Check(hipErrorOutOfMemory, "hipMalloc(64)").message(),
              Not(HasSubstr("captured")));
}

}  // namespace
}  // namespace jitk::internal
