// get_kernel on a hit of the in-process memo: what every call after the
// first costs (target: <= 100 ns). Needs a GPU, since get_kernel loads the
// kernel on one; without a GPU each benchmark reports why and is skipped.
//
//   bench/get_kernel_bench [--benchmark_filter=HotHit]
#include <string>

#include "benchmark/benchmark.h"
#include "jitk/jitk.h"

namespace {

// Loads the kernel once (compile + load, outside the timing); false and
// SkipWithError when there is no GPU or the kernel cannot be built.
bool Warm(benchmark::State& state, const jitk::Shape& shape,
          const jitk::GetKernelOptions& options = {}) {
  absl::StatusOr<jitk::Kernel> kernel = jitk::get_kernel("scaled_add", shape, options);
  if (!kernel.ok()) {
    state.SkipWithError(std::string(kernel.status().ToString()).c_str());
    return false;
  }
  return true;
}

void BM_GetKernelHotHit(benchmark::State& state) {
  const jitk::Shape shape = jitk::Shape(jitk::DType::kF16).Set("n", int64_t{1} << 24);
  if (!Warm(state, shape)) return;
  for (auto _ : state) {
    absl::StatusOr<jitk::Kernel> kernel = jitk::get_kernel("scaled_add", shape);
    benchmark::DoNotOptimize(kernel);
  }
}
BENCHMARK(BM_GetKernelHotHit);

// An explicit config is part of the memo key: one more map to hash and compare.
void BM_GetKernelHotHitExplicitConfig(benchmark::State& state) {
  const jitk::Shape shape = jitk::Shape(jitk::DType::kF32).Set("n", int64_t{1} << 20);
  jitk::GetKernelOptions options;
  options.config = jitk::KernelConfig{{"BLOCK", 256}, {"EPT", 4}, {"VEC", 4}};
  if (!Warm(state, shape, options)) return;
  for (auto _ : state) {
    absl::StatusOr<jitk::Kernel> kernel = jitk::get_kernel("scaled_add", shape, options);
    benchmark::DoNotOptimize(kernel);
  }
}
BENCHMARK(BM_GetKernelHotHitExplicitConfig);

// Many threads hitting the memo at once (a reader lock): time per call per thread.
void BM_GetKernelHotHitThreads(benchmark::State& state) {
  const jitk::Shape shape = jitk::Shape(jitk::DType::kBF16).Set("n", int64_t{1} << 22);
  if (!Warm(state, shape)) return;
  for (auto _ : state) {
    absl::StatusOr<jitk::Kernel> kernel = jitk::get_kernel("scaled_add", shape);
    benchmark::DoNotOptimize(kernel);
  }
}
BENCHMARK(BM_GetKernelHotHitThreads)->ThreadRange(1, 8)->UseRealTime();

// What a caller building its Shape per call pays on top of the lookup.
void BM_GetKernelHotHitWithShape(benchmark::State& state) {
  const int64_t n = int64_t{1} << 24;
  if (!Warm(state, jitk::Shape(jitk::DType::kF16).Set("n", n))) return;
  for (auto _ : state) {
    absl::StatusOr<jitk::Kernel> kernel =
        jitk::get_kernel("scaled_add", jitk::Shape(jitk::DType::kF16).Set("n", n));
    benchmark::DoNotOptimize(kernel);
  }
}
BENCHMARK(BM_GetKernelHotHitWithShape);

}  // namespace

BENCHMARK_MAIN();
