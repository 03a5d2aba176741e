// GPU test helpers: tests that need a device skip with the reason when there
// is none, and run for real when there is.
#ifndef JITK_TESTS_TESTING_GPU_H_
#define JITK_TESTS_TESTING_GPU_H_

#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "jitk/device.h"

// Declares `jitk::Device device` or skips the test.
#define JITK_GPU_OR_SKIP(device)                                          \
  absl::StatusOr<jitk::Device> device##_or = jitk::Device::Open();        \
  if (!device##_or.ok()) {                                                \
    GTEST_SKIP() << "needs a GPU: " << device##_or.status().message();    \
  }                                                                       \
  jitk::Device device = *device##_or

namespace jitk::testing {

// Uniform values in [lo, hi), never all zero, from a fixed-seed generator so
// a failure reproduces; callers pass distinct seeds per input.
std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo = -2.0f, float hi = 2.0f);

// fp32 ↔ 16-bit storage on the host (round to nearest even).
uint16_t FloatToHalf(float value);
float HalfToFloat(uint16_t bits);
uint16_t FloatToBFloat16(float value);
float BFloat16ToFloat(uint16_t bits);

}  // namespace jitk::testing

#endif  // JITK_TESTS_TESTING_GPU_H_
