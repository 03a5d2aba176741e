// Launch overhead: Kernel::Launch against a raw backend launch of the same
// loaded function (Backend::Launch with pre-packed arguments, no name lookup,
// no checks). Target: Kernel::Launch <= 1.1x raw. Needs a GPU; without one
// each benchmark reports why and is skipped.
//
// The kernel is scaled_add on 4096 elements (one block), so the GPU keeps up
// with the launches; the stream is drained every kDrainEvery launches
// outside the timing, so the launch queue never fills.
//
//   bench/launch_bench --benchmark_format=json   (bench/device/run.sh reads this)
#include <cstdint>
#include <optional>
#include <string>

#include "benchmark/benchmark.h"
#include "jitk/jitk.h"
#include "lib/internal/kernel_impl.h"
#include "lib/kernel_template.h"

namespace {

constexpr int64_t kN = 4096;
constexpr int kDrainEvery = 256;

// A loaded scaled_add with its buffers, or the reason there is none.
struct Setup {
  std::optional<jitk::Device> device;
  std::optional<jitk::Kernel> kernel;
  jitk::DeviceBuffer x, y, out;
  std::string error;

  static const Setup& Get() {
    static const Setup* const kSetup = new Setup(Make());
    return *kSetup;
  }

  jitk::LaunchArgs Args() const {
    return jitk::LaunchArgs()
        .Ptr("out", out.data())
        .Ptr("x", x.data())
        .Ptr("y", y.data())
        .Int("n", kN)
        .Float("scale", 0.5f);
  }

 private:
  static Setup Make() {
    Setup s;
    absl::StatusOr<jitk::Device> device = jitk::Device::Open();
    if (!device.ok()) {
      s.error = device.status().ToString();
      return s;
    }
    absl::StatusOr<jitk::Kernel> kernel =
        jitk::get_kernel("scaled_add", jitk::Shape(jitk::DType::kF32).Set("n", kN));
    if (!kernel.ok()) {
      s.error = kernel.status().ToString();
      return s;
    }
    for (jitk::DeviceBuffer* b : {&s.x, &s.y, &s.out}) {
      absl::StatusOr<jitk::DeviceBuffer> buffer = device->Allocate(kN * sizeof(float));
      if (!buffer.ok()) {
        s.error = buffer.status().ToString();
        return s;
      }
      *b = *std::move(buffer);
    }
    s.device = *device;
    s.kernel = *kernel;
    return s;
  }
};

// Drains the stream every kDrainEvery iterations, outside the timing.
class Drain {
 public:
  Drain(benchmark::State& state, const jitk::Device& device) : state_(state), device_(device) {}
  bool Tick() {
    if (++count_ % kDrainEvery != 0) return true;
    state_.PauseTiming();
    absl::Status status = device_.Synchronize();
    state_.ResumeTiming();
    if (!status.ok()) state_.SkipWithError(std::string(status.ToString()).c_str());
    return status.ok();
  }
  ~Drain() { (void)device_.Synchronize(); }

 private:
  benchmark::State& state_;
  const jitk::Device& device_;
  int64_t count_ = 0;
};

void BM_LaunchRawBackend(benchmark::State& state) {
  const Setup& s = Setup::Get();
  if (!s.kernel) return state.SkipWithError(s.error.c_str());
  const jitk::Kernel::Impl& impl = *s.kernel->impl();
  // The template's own packing, done once: the raw launch does only the
  // backend call.
  jitk::internal::LaunchPlan plan;
  absl::Status planned = impl.kernel_template->PlanLaunch(impl.compiled.config, impl.shape,
                                                          impl.arch, s.Args(), plan);
  if (!planned.ok()) return state.SkipWithError(std::string(planned.ToString()).c_str());
  const int device = impl.device.backend_ordinal;
  Drain drain(state, *s.device);
  for (auto _ : state) {
    absl::Status status = impl.backend->Launch(device, impl.function, plan.grid, plan.block,
                                               plan.dynamic_shared_bytes, nullptr,
                                               plan.args.pointers());
    if (!status.ok()) return state.SkipWithError(std::string(status.ToString()).c_str());
    if (!drain.Tick()) return;
  }
}
BENCHMARK(BM_LaunchRawBackend);

// Kernel::Launch with arguments built once: name lookup, checks, packing, launch.
void BM_LaunchKernel(benchmark::State& state) {
  const Setup& s = Setup::Get();
  if (!s.kernel) return state.SkipWithError(s.error.c_str());
  const jitk::LaunchArgs args = s.Args();
  Drain drain(state, *s.device);
  for (auto _ : state) {
    absl::Status status = s.kernel->Launch(args);
    if (!status.ok()) return state.SkipWithError(std::string(status.ToString()).c_str());
    if (!drain.Tick()) return;
  }
}
BENCHMARK(BM_LaunchKernel);

// As most callers write it: LaunchArgs built for every launch.
void BM_LaunchKernelBuildingArgs(benchmark::State& state) {
  const Setup& s = Setup::Get();
  if (!s.kernel) return state.SkipWithError(s.error.c_str());
  Drain drain(state, *s.device);
  for (auto _ : state) {
    absl::Status status = s.kernel->Launch(s.Args());
    if (!status.ok()) return state.SkipWithError(std::string(status.ToString()).c_str());
    if (!drain.Tick()) return;
  }
}
BENCHMARK(BM_LaunchKernelBuildingArgs);

// get_kernel (memo hit) + Launch per call: the whole per-call cost of the C++ API.
void BM_GetKernelAndLaunch(benchmark::State& state) {
  const Setup& s = Setup::Get();
  if (!s.kernel) return state.SkipWithError(s.error.c_str());
  const jitk::Shape shape = jitk::Shape(jitk::DType::kF32).Set("n", kN);
  const jitk::LaunchArgs args = s.Args();
  Drain drain(state, *s.device);
  for (auto _ : state) {
    absl::StatusOr<jitk::Kernel> kernel = jitk::get_kernel("scaled_add", shape);
    absl::Status status = kernel.ok() ? kernel->Launch(args) : kernel.status();
    if (!status.ok()) return state.SkipWithError(std::string(status.ToString()).c_str());
    if (!drain.Tick()) return;
  }
}
BENCHMARK(BM_GetKernelAndLaunch);

}  // namespace

BENCHMARK_MAIN();
