// Helpers shared by the CUDA backend tests: status matchers and small kernels.
#ifndef JITK_TESTS_LIB_BACKEND_CUDA_CUDA_TEST_UTIL_H_
#define JITK_TESTS_LIB_BACKEND_CUDA_CUDA_TEST_UTIL_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/backend/backend.h"

namespace jitk::internal::testing {

inline const absl::Status& StatusOf(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

// Matches a Status or StatusOr with code `code` whose message contains `text`.
MATCHER_P2(StatusIs, code, text,
           std::string("has code ") + absl::StatusCodeToString(code) + " and a message with \"" +
               text + "\"") {
  const absl::Status& status = StatusOf(arg);
  *result_listener << "status is " << status.ToString();
  return status.code() == code && absl::StrContains(status.message(), text);
}

MATCHER(IsOk, "is OK") {
  const absl::Status& status = StatusOf(arg);
  *result_listener << "status is " << status.ToString();
  return status.ok();
}

// y[i] = a * x[i] + y[i], read through shared memory in reverse block order
// so the static shared memory size (N floats) shows in the resources.
inline constexpr char kAxpySource[] = R"(
template <int N, typename T>
__global__ void axpy(T* y, const T* x, T a, int n) {
  __shared__ T tile[N];
  int i = blockIdx.x * N + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : T(0);
  __syncthreads();
  int j = blockIdx.x * N + (N - 1 - threadIdx.x);
  if (j < n) y[j] = a * tile[N - 1 - threadIdx.x] + y[j];
}
)";
inline constexpr char kAxpyFloat128[] = "axpy<128, float>";
inline constexpr char kAxpyFloat128Lowered[] = "_Z4axpyILi128EfEvPT0_PKS0_S0_i";

// Ninety-six values live across a barrier: `wide` needs ~128 registers,
// `spilled` is held to 32 by its launch bounds and spills; `bounded`
// declares 384 threads.
inline constexpr char kRegisterSource[] = R"(
#define JITK_LIVE_VALUES(body)                                            \
  float v[96];                                                            \
  _Pragma("unroll") for (int i = 0; i < 96; ++i) v[i] = in[threadIdx.x + i * stride]; \
  asm volatile("" ::: "memory");                                          \
  float s = 0;                                                            \
  _Pragma("unroll") for (int i = 0; i < 96; ++i) s = s * v[i] + v[95 - i]; \
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
extern "C" __global__ void wide(float* out, const float* in, int stride) { JITK_LIVE_VALUES() }
extern "C" __global__ void __launch_bounds__(1024, 2)
    spilled(float* out, const float* in, int stride) { JITK_LIVE_VALUES() }
extern "C" __global__ void __launch_bounds__(384)
    bounded(float* out, const float* in, int stride) { out[threadIdx.x] = in[threadIdx.x * stride]; }
)";

inline CompileRequest Request(std::string arch, std::string source,
                              std::vector<std::string> name_expressions) {
  CompileRequest request;
  request.target = Target{std::move(arch), "", Vendor::kNvidia};
  request.program_name = "test_kernel.cu";
  request.source = std::move(source);
  request.name_expressions = std::move(name_expressions);
  return request;
}

}  // namespace jitk::internal::testing

#endif  // JITK_TESTS_LIB_BACKEND_CUDA_CUDA_TEST_UTIL_H_
