// Warm start vs cold compile: the time from "I want this kernel" to "it is
// loaded and launchable" in a fresh process, with the code object in the
// SQLite cache (warm) and without it (cold, JITK_DISABLE_CACHE=1).
//
// Each iteration starts a child process (this binary, --child=MODE) so the
// in-process memo cannot help; the child opens the device first (driver
// and context start-up are not jitk's to save), then times get_kernel alone
// and writes the nanoseconds to stdout.
//
// Needs a GPU; without one every benchmark reports the reason and skips.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "benchmark/benchmark.h"
#include "jitk/jitk.h"

namespace {

// The kernels measured: the smallest template and the one users came for.
jitk::Shape KernelShape(const std::string& kernel) {
  if (kernel == "scaled_add") return jitk::Shape(jitk::DType::kF16).Set("n", 1 << 24);
  return jitk::Shape(jitk::DType::kF16)
      .Set("b", 4).Set("hq", 32).Set("hkv", 32).Set("lq", 4096).Set("lk", 4096)
      .Set("d", 128).Set("block", 128).Set("layout", 1);
}

// Child: prints nanoseconds spent in get_kernel, or "error: ..." and exits 1.
int RunChild(const std::string& kernel) {
  absl::StatusOr<jitk::Device> gpu = jitk::Device::Open();
  if (!gpu.ok()) {
    printf("error: %s\n", std::string(gpu.status().message()).c_str());
    return 1;
  }
  // Start the driver context before the clock: that cost is the same with or
  // without jitk.
  absl::StatusOr<jitk::DeviceBuffer> warm_context = gpu->Allocate(256);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<jitk::Kernel> loaded = jitk::get_kernel(kernel, KernelShape(kernel));
  const auto stop = std::chrono::steady_clock::now();
  if (!loaded.ok() || !warm_context.ok()) {
    printf("error: %s\n", std::string(loaded.status().message()).c_str());
    return 1;
  }
  printf("%lld\n", static_cast<long long>(
                       std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start).count()));
  return 0;
}

std::string SelfPath() {
  char path[4096] = {};
  ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  return n > 0 ? std::string(path, n) : std::string();
}

// Runs the child for `kernel` with `env` added; returns its nanoseconds, or
// -1 with `error`.
long long ChildNanoseconds(const std::string& env, const std::string& kernel,
                           std::string& error) {
  // The child reports errors on stdout too; its stderr carries only warnings.
  const std::string command = env + " " + SelfPath() + " --child " + kernel + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    error = "popen failed";
    return -1;
  }
  char line[4096] = {};
  const bool got = fgets(line, sizeof(line), pipe) != nullptr;
  const int status = pclose(pipe);
  if (!got || status != 0) {
    error = got ? line : "child printed nothing";
    return -1;
  }
  return atoll(line);
}

std::string CacheDir() {
  static const std::string dir =
      (std::filesystem::temp_directory_path() / ("jitk_warm_start_" + std::to_string(getpid())))
          .string();
  return dir;
}

void BM_ColdCompile(benchmark::State& state, const std::string& kernel) {
  for (auto _ : state) {
    std::string error;
    long long ns = ChildNanoseconds("JITK_DISABLE_CACHE=1", kernel, error);
    if (ns < 0) {
      state.SkipWithError(error.c_str());
      return;
    }
    state.SetIterationTime(ns * 1e-9);
  }
}

void BM_WarmStartFromDb(benchmark::State& state, const std::string& kernel) {
  const std::string env = "JITK_CACHE_DIR=" + CacheDir();
  std::string error;
  if (ChildNanoseconds(env, kernel, error) < 0) {  // fills the DB
    state.SkipWithError(error.c_str());
    return;
  }
  for (auto _ : state) {
    long long ns = ChildNanoseconds(env, kernel, error);
    if (ns < 0) {
      state.SkipWithError(error.c_str());
      return;
    }
    state.SetIterationTime(ns * 1e-9);
  }
}

BENCHMARK_CAPTURE(BM_ColdCompile, scaled_add, std::string("scaled_add"))
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK_CAPTURE(BM_WarmStartFromDb, scaled_add, std::string("scaled_add"))
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(20);
BENCHMARK_CAPTURE(BM_ColdCompile, sparse_attn, std::string("sparse_attn"))
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_WarmStartFromDb, sparse_attn, std::string("sparse_attn"))
    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(20);

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && !strcmp(argv[1], "--child")) return RunChild(argv[2]);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::filesystem::remove_all(CacheDir());
  return 0;
}
