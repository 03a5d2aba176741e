// The C ABI's per-call costs (what Python's ctypes calls pay, minus Python):
// jitk_get_kernel on a memo hit, and jitk_kernel_launch against a raw backend
// launch (bench/launch_bench.cc has that one). Needs a GPU; skipped with the
// reason without one. Linked against libjitk_c.so (lib/c_api/CMakeLists.txt).
#include <cstdint>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "jitk/jitk_c.h"

namespace {

constexpr int64_t kN = 4096;
constexpr int kDrainEvery = 256;

std::string LastError() { return jitk_last_error_message(); }

struct Buffers {
  void* x = nullptr;
  void* y = nullptr;
  void* out = nullptr;
  std::string error;

  static const Buffers& Get() {
    static const Buffers* const kBuffers = [] {
      auto* b = new Buffers;
      for (void** p : {&b->x, &b->y, &b->out}) {
        if (jitk_malloc(0, kN * sizeof(float), p) != JITK_OK) {
          b->error = LastError();
          break;
        }
      }
      return b;
    }();
    return *kBuffers;
  }
};

std::vector<jitk_arg> Args(const Buffers& b) {
  std::vector<jitk_arg> args(5);
  args[0] = {.name = "out", .kind = JITK_ARG_POINTER, .pointer = b.out};
  args[1] = {.name = "x", .kind = JITK_ARG_POINTER, .pointer = b.x};
  args[2] = {.name = "y", .kind = JITK_ARG_POINTER, .pointer = b.y};
  args[3] = {.name = "n", .kind = JITK_ARG_INT, .integer = kN};
  args[4] = {.name = "scale", .kind = JITK_ARG_FLOAT, .real = 0.5};
  return args;
}

void BM_CApiGetKernelHotHit(benchmark::State& state) {
  jitk_kernel* kernel = nullptr;
  if (jitk_get_kernel("scaled_add", "f32;n=4096", nullptr, 0, &kernel) != JITK_OK) {
    return state.SkipWithError(LastError().c_str());
  }
  jitk_kernel_release(kernel);
  for (auto _ : state) {
    jitk_get_kernel("scaled_add", "f32;n=4096", nullptr, 0, &kernel);
    benchmark::DoNotOptimize(kernel);
    jitk_kernel_release(kernel);
  }
}
BENCHMARK(BM_CApiGetKernelHotHit);

void BM_CApiLaunch(benchmark::State& state) {
  const Buffers& b = Buffers::Get();
  if (!b.error.empty()) return state.SkipWithError(b.error.c_str());
  jitk_kernel* kernel = nullptr;
  if (jitk_get_kernel("scaled_add", "f32;n=4096", nullptr, 0, &kernel) != JITK_OK) {
    return state.SkipWithError(LastError().c_str());
  }
  const std::vector<jitk_arg> args = Args(b);
  int64_t count = 0;
  for (auto _ : state) {
    if (jitk_kernel_launch(kernel, args.data(), args.size(), nullptr) != JITK_OK) {
      state.SkipWithError(LastError().c_str());
      break;
    }
    if (++count % kDrainEvery == 0) {
      state.PauseTiming();
      jitk_synchronize(0, nullptr);
      state.ResumeTiming();
    }
  }
  jitk_synchronize(0, nullptr);
  jitk_kernel_release(kernel);
}
BENCHMARK(BM_CApiLaunch);

}  // namespace

BENCHMARK_MAIN();
