// compile_kernel from scratch (run-time compiler, no cache): what the first
// get_kernel of a new shape costs before the cache has the code object.
// Works without a GPU; an architecture whose backend is not built in or whose
// compiler library is missing is skipped with the reason.
//
//   bench/compile_bench [--benchmark_filter=sm_90]
#include <cstdlib>
#include <string>

#include "benchmark/benchmark.h"
#include "jitk/jitk.h"

namespace {

void BM_CompileKernelCold(benchmark::State& state, const char* arch, jitk::DType dtype) {
  const jitk::Shape shape = jitk::Shape(dtype).Set("n", int64_t{1} << 24);
  const jitk::CompileOptions options{.arch = arch};
  double code_bytes = 0, registers = 0;
  for (auto _ : state) {
    absl::StatusOr<jitk::CompiledKernel> compiled =
        jitk::compile_kernel("scaled_add", shape, options);
    if (!compiled.ok()) {
      state.SkipWithError(std::string(compiled.status().ToString()).c_str());
      return;
    }
    code_bytes = double(compiled->code_object.size());
    registers = compiled->resources.registers;
    benchmark::DoNotOptimize(compiled);
  }
  state.counters["code_bytes"] = code_bytes;
  state.counters["registers"] = registers;
}

// A few iterations are enough for a ~100 ms operation, and keep the run short.
#define JITK_COMPILE_BENCH(arch, dtype, label)                                          \
  BENCHMARK_CAPTURE(BM_CompileKernelCold, label, arch, jitk::DType::dtype)              \
      ->Unit(benchmark::kMillisecond)                                                   \
      ->Iterations(5)                                                                   \
      ->UseRealTime()

JITK_COMPILE_BENCH("gfx90a", kF32, gfx90a_f32);
JITK_COMPILE_BENCH("gfx90a", kF16, gfx90a_f16);
JITK_COMPILE_BENCH("gfx90a", kBF16, gfx90a_bf16);
JITK_COMPILE_BENCH("sm_90", kF32, sm_90_f32);
JITK_COMPILE_BENCH("sm_90", kF16, sm_90_f16);
JITK_COMPILE_BENCH("sm_90", kBF16, sm_90_bf16);

}  // namespace

int main(int argc, char** argv) {
  // Cold means cold: no code object from the user or system DB. An explicit
  // JITK_DISABLE_CACHE in the environment wins.
  setenv("JITK_DISABLE_CACHE", "1", /*overwrite=*/0);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
