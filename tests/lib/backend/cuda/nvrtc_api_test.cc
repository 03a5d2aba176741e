// Needs the CUDA include directory (the table's types come from nvrtc.h).
#if __has_include(<nvrtc.h>)
#include "lib/backend/cuda/nvrtc_api.h"
#define JITK_TEST_HAS_NVRTC_H 1
#endif

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/lib/backend/cuda/cuda_test_util.h"

namespace jitk::internal {
namespace {

using ::jitk::internal::testing::IsOk;
using ::jitk::internal::testing::StatusIs;

#if !JITK_TEST_HAS_NVRTC_H
TEST(NvrtcApiTest, NeedsTheCudaIncludeDirectory) {
  GTEST_SKIP() << "nvrtc.h is not on this test's include path; add the CUDA include directory "
                  "to jitk_lib_backend_cuda_tests";
}
#else

TEST(NvrtcApiTest, ResolvesEveryEntryPoint) {
  absl::StatusOr<std::unique_ptr<NvrtcApi> > api =
      LoadNvrtcApi(DefaultNvrtcNames(), DefaultCudaLibraryDirs());
  ASSERT_THAT(api, IsOk());
#define JITK_EXPECT_RESOLVED_(name) EXPECT_NE((*api)->name, nullptr) << #name;
  JITK_NVRTC_FUNCTIONS(JITK_EXPECT_RESOLVED_)
#undef JITK_EXPECT_RESOLVED_
  EXPECT_GE((*api)->major, 12);
  EXPECT_STREQ((*api)->nvrtcGetErrorString(NVRTC_ERROR_COMPILATION), "NVRTC_ERROR_COMPILATION");
}

TEST(NvrtcApiTest, AMissingLibraryNamesTheFilesAndThePackage) {
  EXPECT_THAT(LoadNvrtcApi({"libnvrtc-nope.so.1", "libnvrtc-nope.so.2"}, {"/nonexistent"}),
              StatusIs(absl::StatusCode::kUnavailable, "libnvrtc-nope.so.1 or libnvrtc-nope.so.2"));
  EXPECT_THAT(LoadNvrtcApi({"libnvrtc-nope.so.1"}, {}),
              StatusIs(absl::StatusCode::kUnavailable, "CUDA toolkit"));
}

TEST(NvrtcApiTest, ALibraryWithoutTheEntryPointsIsUnavailable) {
  EXPECT_THAT(LoadNvrtcApi({"libm.so.6"}, {}),
              StatusIs(absl::StatusCode::kUnavailable, "has no symbol nvrtcGetErrorString"));
}

#endif  // JITK_TEST_HAS_NVRTC_H

}  // namespace
}  // namespace jitk::internal
