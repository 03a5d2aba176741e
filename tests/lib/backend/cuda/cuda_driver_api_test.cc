// Needs the CUDA include directory (the table's types come from cuda.h).
#if __has_include(<cuda.h>)
#include "lib/backend/cuda/cuda_driver_api.h"
#define JITK_TEST_HAS_CUDA_H 1
#endif

#include <unistd.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/lib/backend/cuda/cuda_test_util.h"

namespace jitk::internal {
namespace {

using ::jitk::internal::testing::IsOk;
using ::jitk::internal::testing::StatusIs;

#if !JITK_TEST_HAS_CUDA_H
TEST(CudaDriverApiTest, NeedsTheCudaIncludeDirectory) {
  GTEST_SKIP() << "cuda.h is not on this test's include path; add the CUDA include directory "
                  "to jitk_lib_backend_cuda_tests";
}
#else

constexpr char kStub[] = "/usr/local/cuda/lib64/stubs/libcuda.so";

TEST(CudaDriverApiTest, AMissingDriverSaysItComesWithTheNvidiaDriver) {
  absl::StatusOr<std::unique_ptr<CudaDriverApi> > api = LoadCudaDriverApi({"libcuda-nope.so.1"});
  EXPECT_THAT(api, StatusIs(absl::StatusCode::kUnavailable, "libcuda-nope.so.1"));
  EXPECT_THAT(api, StatusIs(absl::StatusCode::kUnavailable, "comes with the NVIDIA driver"));
}

// The toolkit's link stub exports every driver entry point, so it checks the
// symbol names (including the _v2 ones) without a driver.
TEST(CudaDriverApiTest, ResolvesEveryEntryPointOfTheStub) {
  if (access(kStub, R_OK) != 0) GTEST_SKIP() << "no " << kStub;
  absl::StatusOr<std::unique_ptr<CudaDriverApi> > api = LoadCudaDriverApi({kStub});
  ASSERT_THAT(api, IsOk());
#define JITK_EXPECT_RESOLVED_(name) EXPECT_NE((*api)->name, nullptr) << #name;
  JITK_CUDA_DRIVER_FUNCTIONS(JITK_EXPECT_RESOLVED_)
#undef JITK_EXPECT_RESOLVED_
  EXPECT_NE((*api)->cuEventElapsedTime_v2, nullptr);
  EXPECT_NE((*api)->cuTensorMapEncodeTiled, nullptr);
  EXPECT_EQ((*api)->library->path(), kStub);
}

// A table whose error-name entry points are fakes.
CudaDriverApi FakeApi() {
  CudaDriverApi api;
  api.cuGetErrorName = [](CUresult result, const char** name) {
    *name = result == CUDA_ERROR_OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA_ERROR_OTHER";
    return CUDA_SUCCESS;
  };
  api.cuGetErrorString = [](CUresult result, const char** text) {
    if (result == CUDA_ERROR_UNKNOWN) return CUDA_ERROR_INVALID_VALUE;
    *text = "what went wrong";
    return CUDA_SUCCESS;
  };
  return api;
}

TEST(CudaErrorTest, NamesTheCallAndTheError) {
  CudaDriverApi api = FakeApi();
  absl::Status status = CudaError(api, CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc(64 bytes)");
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(), "cuMemAlloc(64 bytes): CUDA_ERROR_OUT_OF_MEMORY (what went wrong)");
  // No description available: the name alone.
  EXPECT_EQ(CudaError(api, CUDA_ERROR_UNKNOWN, "cuInit").message(), "cuInit: CUDA_ERROR_OTHER");
}

TEST(CudaErrorTest, NamesErrorsTheDriverCannotName) {
  CudaDriverApi api = FakeApi();
  api.cuGetErrorName = [](CUresult, const char**) { return CUDA_ERROR_STUB_LIBRARY; };
  api.cuGetErrorString = [](CUresult, const char**) { return CUDA_ERROR_STUB_LIBRARY; };
  EXPECT_EQ(CudaError(api, CUDA_ERROR_NO_DEVICE, "cuInit").message(),
            "cuInit: CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(CudaError(api, static_cast<CUresult>(12345), "cuInit").message(),
            "cuInit: CUresult 12345");
  EXPECT_THAT(CudaError(api, CUDA_ERROR_STUB_LIBRARY, "cuInit"),
              StatusIs(absl::StatusCode::kUnavailable,
                       "CUDA_ERROR_STUB_LIBRARY (this libcuda is "
                       "the CUDA toolkit's link stub"));
}

TEST(CudaErrorTest, ChoosesCodesOnPurpose) {
  CudaDriverApi api = FakeApi();
  auto code = [&](CUresult result) { return CudaError(api, result, "x").code(); };
  EXPECT_EQ(code(CUDA_ERROR_OUT_OF_MEMORY), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(code(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(code(CUDA_ERROR_INVALID_VALUE), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(CUDA_ERROR_INVALID_IMAGE), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(CUDA_ERROR_NOT_FOUND), absl::StatusCode::kNotFound);
  EXPECT_EQ(code(CUDA_ERROR_NO_BINARY_FOR_GPU), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(code(CUDA_ERROR_NO_DEVICE), absl::StatusCode::kUnavailable);
  EXPECT_EQ(code(CUDA_ERROR_STUB_LIBRARY), absl::StatusCode::kUnavailable);
  EXPECT_EQ(code(CUDA_ERROR_ILLEGAL_ADDRESS), absl::StatusCode::kInternal);
  EXPECT_EQ(code(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED), absl::StatusCode::kFailedPrecondition);
}

TEST(CudaErrorTest, ACaptureErrorSaysToCallTheKernelBeforeCapturing) {
  CudaDriverApi api = FakeApi();
  EXPECT_THAT(
      CudaError(api, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "cuEventRecord"),
      StatusIs(
          absl::StatusCode::kFailedPrecondition,
          "a graph is being captured (torch.cuda.graph), and timing, copies and synchronization "
          "cannot run inside a capture: call the kernel (and tune it) once before "
          "capturing"));
  EXPECT_THAT(CudaError(api, CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc").message(),
              ::testing::Not(::testing::HasSubstr("captured")));
}

#endif  // JITK_TEST_HAS_CUDA_H

}  // namespace
}  // namespace jitk::internal
