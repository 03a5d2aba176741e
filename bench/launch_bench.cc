// Launch overhead: Kernel::Launch against a raw backend launch of the same
// loaded function (Backend::Launch with pre-packed arguments, no name lookup,
// no checks). Target: Kernel::Launch <= 1.1x raw. Needs a GPU; without one
// each launch benchmark reports why and is skipped (BM_PlanSparseAttn* time
// the host's planning alone and run anywhere).
//
// The kernel is scaled_add on 4096 elements (one block), so the GPU keeps up
// with the launches; the stream is drained every kDrainEvery launches
// outside the timing, so the launch queue never fills. The sparse_attn rows
// launch one causal query tile (B=H=1, L=128, d=128, f16): on Hopper its
// warp-specialized engine takes three TMA tensor maps, which Kernel::Launch
// encodes on the host; BM_EncodeSparseAttnTensorMaps times that part alone,
// and the EncodeEachTime / PlanEachTime rows add Kernel::Launch's steps to
// the raw launch one at a time.
//
//   bench/launch_bench --benchmark_format=json   (bench/device/run.sh reads this)
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "jitk/block_mask.h"
#include "jitk/jitk.h"
#include "lib/attention/sparse_attn_template.h"
#include "lib/internal/kernel_impl.h"
#include "lib/internal/status_macros.h"
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

// One causal query tile of sparse_attn, loaded with its buffers and
// arguments, or the reason there is none.
struct AttnSetup {
  std::optional<jitk::Device> device;
  std::optional<jitk::Kernel> kernel;
  std::optional<jitk::DeviceBlockMask> mask;
  jitk::DeviceBuffer q, k, v, o, lse;
  jitk::LaunchArgs args;
  std::string error;
  static constexpr int kLen = 128, kHeadDim = 128;

  static const AttnSetup& Get() {
    static const AttnSetup* const kSetup = new AttnSetup(Make());
    return *kSetup;
  }

 private:
  static AttnSetup Make() {
    AttnSetup s;
    absl::Status status = Fill(s);
    if (!status.ok()) s.error = status.ToString();
    return s;
  }
  static absl::Status Fill(AttnSetup& s) {
    JITK_ASSIGN_OR_RETURN(jitk::Device device, jitk::Device::Open());
    JITK_ASSIGN_OR_RETURN(jitk::BlockMask mask, jitk::BlockMask::Causal(kLen, kLen));
    const jitk::Shape shape = mask.AttentionShape(jitk::DType::kF16, 1, 1, 1, kHeadDim);
    JITK_ASSIGN_OR_RETURN(s.kernel, jitk::get_kernel("sparse_attn", shape));
    JITK_ASSIGN_OR_RETURN(s.mask, mask.Upload(device));
    for (jitk::DeviceBuffer* b : {&s.q, &s.k, &s.v, &s.o}) {
      JITK_ASSIGN_OR_RETURN(*b, device.Allocate(kLen * kHeadDim * 2));
    }
    JITK_ASSIGN_OR_RETURN(s.lse, device.Allocate(kLen * 4));
    s.args.Ptr("q", s.q.data()).Ptr("k", s.k.data()).Ptr("v", s.v.data());
    s.args.Ptr("o", s.o.data()).Ptr("lse", s.lse.data());
    s.mask->AddLaunchArgs(s.args);
    s.device = device;
    return absl::OkStatus();
  }
};

// Drains the stream every kDrainEvery iterations, outside the timing, and
// reports the drain's wall time per launch (sync_ns): near zero when the
// GPU keeps up with the launches, so that the time per launch is the host's.
class Drain {
 public:
  Drain(benchmark::State& state, const jitk::Device& device) : state_(state), device_(device) {}
  bool Tick() {
    if (++count_ % kDrainEvery != 0) return true;
    state_.PauseTiming();
    const auto start = std::chrono::steady_clock::now();
    absl::Status status = device_.Synchronize();
    sync_ns_ += std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
                    .count();
    state_.ResumeTiming();
    if (!status.ok()) state_.SkipWithError(std::string(status.ToString()).c_str());
    return status.ok();
  }
  ~Drain() {
    (void)device_.Synchronize();
    if (count_ >= kDrainEvery) state_.counters["sync_ns"] = sync_ns_ / double(count_);
  }

 private:
  benchmark::State& state_;
  const jitk::Device& device_;
  int64_t count_ = 0;
  double sync_ns_ = 0;
};

// The backend's launch of the kernel's function, with the template's
// planning (PlanLaunch) and tensor-map encoding done once (the raw launch)
// or per launch: each step of Kernel::Launch timed on its own.
enum class PerLaunch { kNothing, kEncode, kPlanAndEncode };
void LaunchRaw(benchmark::State& state, const jitk::Device& device_handle,
               const jitk::Kernel& kernel, const jitk::LaunchArgs& args,
               PerLaunch per_launch = PerLaunch::kNothing) {
  const jitk::Kernel::Impl& impl = *kernel.impl();
  auto plan_launch = [&](jitk::internal::LaunchPlan& plan) {
    return impl.planner->Plan(args, plan);
  };
  jitk::internal::LaunchPlan plan;
  absl::Status planned = plan_launch(plan);
  if (planned.ok() && plan.scratch_bytes > 0) {
    planned = absl::FailedPreconditionError("a split launch (two passes and scratch): not raw");
  }
  const auto requests = plan.tensor_maps;
  if (planned.ok()) planned = jitk::internal::EncodeTensorMaps(*impl.backend, plan);
  if (!planned.ok()) return state.SkipWithError(std::string(planned.ToString()).c_str());
  const int device = impl.device.backend_ordinal;
  Drain drain(state, device_handle);
  for (auto _ : state) {
    absl::Status status;
    if (per_launch == PerLaunch::kNothing) {
      status = impl.backend->Launch(device, impl.function, plan.grid, plan.block,
                                    plan.dynamic_shared_bytes, nullptr, plan.args.pointers());
    } else {
      // What Kernel::Launch does after (or, kEncode, without) planning.
      if (per_launch == PerLaunch::kPlanAndEncode) status = plan_launch(plan);
      if (per_launch == PerLaunch::kEncode) plan.tensor_maps = requests;
      if (status.ok()) {
        status = jitk::internal::LaunchPlanned(*impl.backend, device, impl.function, plan, nullptr);
      }
    }
    if (!status.ok()) return state.SkipWithError(std::string(status.ToString()).c_str());
    if (!drain.Tick()) return;
  }
}

void LaunchKernel(benchmark::State& state, const jitk::Device& device,
                  const jitk::Kernel& kernel, const jitk::LaunchArgs& args) {
  Drain drain(state, device);
  for (auto _ : state) {
    absl::Status status = kernel.Launch(args);
    if (!status.ok()) return state.SkipWithError(std::string(status.ToString()).c_str());
    if (!drain.Tick()) return;
  }
}

void BM_LaunchRawBackend(benchmark::State& state) {
  const Setup& s = Setup::Get();
  if (!s.kernel) return state.SkipWithError(s.error.c_str());
  LaunchRaw(state, *s.device, *s.kernel, s.Args());
}
BENCHMARK(BM_LaunchRawBackend);

// Kernel::Launch with arguments built once: name lookup, checks, packing, launch.
void BM_LaunchKernel(benchmark::State& state) {
  const Setup& s = Setup::Get();
  if (!s.kernel) return state.SkipWithError(s.error.c_str());
  LaunchKernel(state, *s.device, *s.kernel, s.Args());
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

void BM_LaunchSparseAttnRawBackend(benchmark::State& state) {
  const AttnSetup& s = AttnSetup::Get();
  if (!s.kernel) return state.SkipWithError(s.error.c_str());
  LaunchRaw(state, *s.device, *s.kernel, s.args);
}
BENCHMARK(BM_LaunchSparseAttnRawBackend);

void BM_LaunchSparseAttnEncodeEachTime(benchmark::State& state) {
  const AttnSetup& s = AttnSetup::Get();
  if (!s.kernel) return state.SkipWithError(s.error.c_str());
  LaunchRaw(state, *s.device, *s.kernel, s.args, PerLaunch::kEncode);
}
BENCHMARK(BM_LaunchSparseAttnEncodeEachTime);

void BM_LaunchSparseAttnPlanEachTime(benchmark::State& state) {
  const AttnSetup& s = AttnSetup::Get();
  if (!s.kernel) return state.SkipWithError(s.error.c_str());
  LaunchRaw(state, *s.device, *s.kernel, s.args, PerLaunch::kPlanAndEncode);
}
BENCHMARK(BM_LaunchSparseAttnPlanEachTime);

void BM_LaunchSparseAttnKernel(benchmark::State& state) {
  const AttnSetup& s = AttnSetup::Get();
  if (!s.kernel) return state.SkipWithError(s.error.c_str());
  LaunchKernel(state, *s.device, *s.kernel, s.args);
}
BENCHMARK(BM_LaunchSparseAttnKernel);

// The host's part of a warp-specialized launch that is not packing: the
// tensor maps of q, k and v. Reports the map count per launch.
void BM_EncodeSparseAttnTensorMaps(benchmark::State& state) {
  const AttnSetup& s = AttnSetup::Get();
  if (!s.kernel) return state.SkipWithError(s.error.c_str());
  const jitk::Kernel::Impl& impl = *s.kernel->impl();
  jitk::internal::LaunchPlan plan;
  absl::Status planned = impl.planner->Plan(s.args, plan);
  if (!planned.ok()) return state.SkipWithError(std::string(planned.ToString()).c_str());
  if (plan.tensor_maps.empty()) {
    return state.SkipWithError(
        absl::StrCat("config ", jitk::KernelConfigToString(s.kernel->config()),
                     " takes no tensor maps").c_str());
  }
  const auto requests = plan.tensor_maps;
  for (auto _ : state) {
    plan.tensor_maps = requests;
    absl::Status status = jitk::internal::EncodeTensorMaps(*impl.backend, plan);
    if (!status.ok()) return state.SkipWithError(std::string(status.ToString()).c_str());
  }
  state.counters["maps"] = double(requests.size());
}
BENCHMARK(BM_EncodeSparseAttnTensorMaps);

// The host's planning alone, no GPU: what Kernel::Launch plans with the
// kernel's LaunchPlanner (made once, as get_kernel does: argument checks,
// SparseAttnParams, the tensor-map requests) for one causal query tile at an
// arch's default config, on aligned fake device addresses.
void PlanSparseAttn(benchmark::State& state, const char* arch_name) {
  const jitk::internal::KernelTemplate& t = jitk::internal::SparseAttnKernelTemplate();
  absl::StatusOr<jitk::ArchInfo> arch = jitk::LookupArch(arch_name);
  constexpr int kLen = AttnSetup::kLen, kHeadDim = AttnSetup::kHeadDim;
  absl::StatusOr<jitk::BlockMask> mask = jitk::BlockMask::Causal(kLen, kLen);
  if (!arch.ok() || !mask.ok()) return state.SkipWithError("no arch or mask");
  const jitk::Shape shape = mask->AttentionShape(jitk::DType::kF16, 1, 1, 1, kHeadDim);
  const jitk::KernelConfig config = t.DefaultConfig(shape, *arch);
  auto addr = [](uintptr_t a) { return reinterpret_cast<const void*>(a); };
  jitk::LaunchArgs args;
  args.Ptr("q", addr(0x10000)).Ptr("k", addr(0x20000)).Ptr("v", addr(0x30000));
  args.Ptr("o", addr(0x40000)).Ptr("lse", addr(0x50000));
  args.Ptr("kv_num_blocks", addr(0x60000)).Ptr("kv_indices", addr(0x70000));
  args.Ptr("full_kv_num_blocks", addr(0x80000)).Ptr("full_kv_indices", addr(0x90000));
  args.Int("mask_batch", 1).Int("mask_heads", 1);
  absl::StatusOr<std::unique_ptr<const jitk::internal::LaunchPlanner>> planner =
      t.NewLaunchPlanner(config, shape, *arch);
  if (!planner.ok()) return state.SkipWithError(std::string(planner.status().message()).c_str());
  jitk::internal::LaunchPlan plan;
  for (auto _ : state) {
    absl::Status status = (*planner)->Plan(args, plan);
    if (!status.ok()) return state.SkipWithError(std::string(status.ToString()).c_str());
    benchmark::DoNotOptimize(plan);
  }
}
void BM_PlanSparseAttnLaunchSm90a(benchmark::State& state) { PlanSparseAttn(state, "sm_90a"); }
BENCHMARK(BM_PlanSparseAttnLaunchSm90a);
void BM_PlanSparseAttnLaunchSm90(benchmark::State& state) { PlanSparseAttn(state, "sm_90"); }
BENCHMARK(BM_PlanSparseAttnLaunchSm90);

}  // namespace

BENCHMARK_MAIN();
