// A Backend without a GPU: deterministic synthetic compiles and timings.
//
// FakeBackend implements the whole Backend interface in host memory:
//   * Compile parses the name expression ("jitk::scaled_add<256, 4, 4,
//     float>"), checks the target like the real compilers do, and reports
//     the resources the kernel's model computes; the "code object" is a
//     small text blob that Load parses back.
//   * Device memory is host memory; copies and memsets check their ranges
//     against the allocations (an out-of-range copy is an error, not a
//     crash).
//   * Launch runs the model's host implementation of the kernel, so outputs
//     can be validated; launches inside TimeMs are only accounted (the host
//     is not a GPU) and TimeMs returns the model's device time for them,
//     with optional deterministic noise.
// Per kernel, a FakeKernelModel says what the compiler reports, how long a
// launch takes and what it computes; scaled_add's is built in (a roofline
// with access-width, memory-parallelism, occupancy and scheduling effects),
// other kernels can be added with SetModel.
//
// FaultInjectingBackend wraps any Backend (fake or real) and makes chosen
// compiles, loads, launches or timings fail, inflates reported resources,
// or corrupts an output after a launch — for tests of the paths that must
// survive a misbehaving toolchain or kernel.
//
// Example:
//   jitk::testing::FakeBackend fake;                   // one H200-like GPU
//   jitk::Device gpu = fake.OpenDevice();
//   jitk::testing::FaultInjectingBackend faults(&fake);
//   faults.CorruptOutput("scaled_add<128, 2,", /*pointer_arg=*/0, 64);
#ifndef JITK_TESTS_TESTING_FAKE_BACKEND_H_
#define JITK_TESTS_TESTING_FAKE_BACKEND_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "jitk/arch.h"
#include "jitk/device.h"
#include "jitk/kernel.h"
#include "lib/backend/backend.h"

namespace jitk::testing {

// One instantiation, as the fake compiler parsed it.
struct FakeInstance {
  std::string name_expression;             // "jitk::scaled_add<256, 4, 4, float>"
  std::string kernel;                      // "scaled_add"
  std::vector<std::string> template_args;  // {"256", "4", "4", "float"}
  Target target;
  ArchInfo arch;                     // the table's entry for the target
  std::vector<std::string> options;  // the request's compile options

  // Template argument `i` as an integer (0 when it is not one).
  int64_t IntArg(size_t i) const;
};

// A GPU of the fake backend.
struct FakeGpu {
  DeviceInfo info;
  double bandwidth_gbps = 4000;  // DRAM bandwidth
  double launch_overhead_us = 2.5;
  double memory_latency_ns = 1300;  // loaded latency: in-flight bytes needed per CU
};

// A launch as the model sees it.
struct FakeLaunch {
  jitk::internal::Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
  void** args = nullptr;  // argument values, as PackedArgs lays them out
};

struct FakeKernelModel {
  // What the compiler reports; null: 32 registers and nothing else.
  // An error here is returned by Compile (e.g. kInvalidArgument "error: ...").
  std::function<absl::StatusOr<ResourceUsage>(const FakeInstance&)> resources;
  // Device time of one launch in ms; null: 0.01 ms.
  std::function<double(const FakeInstance&, const FakeLaunch&, const FakeGpu&)> time_ms;
  // Runs the launch on host memory; null: the launch writes nothing.
  std::function<absl::Status(const FakeInstance&, const FakeLaunch&)> execute;
};

// scaled_add: resources from EPT × VEC × sizeof(T) (NVIDIA: capped by the
// launch bounds, the excess spilled), the cost model described above, and
// an exact host implementation (fp32 math, rounded to the storage type).
FakeKernelModel ScaledAddFakeModel();

// An H200-like sm_90 GPU and an MI250X-GCD-like gfx90a GPU.
FakeGpu FakeH200();
FakeGpu FakeMi250x();

struct FakeBackendOptions {
  Vendor vendor = Vendor::kNvidia;
  std::vector<FakeGpu> gpus;                 // empty: FakeH200() or FakeMi250x() by vendor
  std::vector<std::string> compile_targets;  // empty: every table arch of the vendor (+ sm_90a)
  absl::Duration compile_delay = absl::ZeroDuration();  // each Compile sleeps this long
  // Each TimeMs result is scaled by 1 + timing_noise * u, u uniform in
  // [-1, 1) from (seed, call number): deterministic per call sequence.
  double timing_noise = 0;
  uint64_t seed = 1;
};

class FakeBackend final : public jitk::internal::Backend {
 public:
  explicit FakeBackend(FakeBackendOptions options = {});
  ~FakeBackend() override;

  // Adds or replaces the model of template `kernel` ("scaled_add").
  void SetModel(const std::string& kernel, FakeKernelModel model) ABSL_LOCKS_EXCLUDED(mu_);

  // A jitk::Device whose calls go to this backend. REQUIRES: ordinal valid.
  // The backend must outlive the device and everything loaded on it.
  Device OpenDevice(int ordinal = 0);
  const FakeGpu& gpu(int ordinal = 0) const { return options_.gpus[ordinal]; }

  // Counters.
  int compiles() const { return compiles_.load(); }
  int launches() const { return launches_.load(); }  // all launches
  int executed() const { return executed_.load(); }  // launches outside TimeMs
  // Of launches(), those made through LaunchDependent.
  int dependent_launches() const { return dependent_launches_.load(); }
  int timed_calls() const { return timed_calls_.load(); }
  size_t live_allocations() const ABSL_LOCKS_EXCLUDED(mu_);

  // --- Backend
  absl::string_view name() const override { return "fake"; }
  Vendor vendor() const override { return options_.vendor; }
  absl::StatusOr<jitk::internal::CompilerInfo> Compiler() override;
  absl::StatusOr<std::vector<std::string>> CompileTargets() override;
  absl::StatusOr<jitk::internal::CodeObject> Compile(
      const jitk::internal::CompileRequest& request) override;
  BackendReport Report() override;
  absl::StatusOr<std::vector<DeviceInfo>> Devices() override;
  absl::StatusOr<std::unique_ptr<jitk::internal::Module>> Load(
      int device, const jitk::internal::CodeObject& code) override;
  absl::Status Launch(int device, jitk::internal::FunctionHandle function,
                      jitk::internal::Dim3 grid, jitk::internal::Dim3 block,
                      uint32_t dynamic_shared_bytes, Stream stream, void** args) override;
  absl::Status LaunchDependent(int device, jitk::internal::FunctionHandle function,
                               jitk::internal::Dim3 grid, jitk::internal::Dim3 block,
                               uint32_t dynamic_shared_bytes, Stream stream, void** args) override;
  absl::StatusOr<void*> Allocate(int device, size_t bytes) override;
  absl::Status Free(int device, void* pointer) override;
  absl::Status CopyToDevice(int device, void* dst, const void* src, size_t bytes) override;
  absl::Status CopyToHost(int device, void* dst, const void* src, size_t bytes) override;
  absl::Status Memset(int device, void* dst, uint8_t value, size_t bytes) override;
  absl::Status Synchronize(int device, Stream stream) override;
  absl::StatusOr<double> TimeMs(int device, Stream stream,
                                absl::FunctionRef<absl::Status()> work) override;

  struct Function;  // what a FunctionHandle points at

 private:
  absl::Status CheckDevice(int device) const;
  absl::Status CheckRange(const void* pointer, size_t bytes, absl::string_view what) const
      ABSL_LOCKS_EXCLUDED(mu_);
  FakeKernelModel ModelFor(const std::string& kernel) const ABSL_LOCKS_EXCLUDED(mu_);

  FakeBackendOptions options_;
  mutable absl::Mutex mu_;
  std::map<std::string, FakeKernelModel> models_ ABSL_GUARDED_BY(mu_);
  std::map<uintptr_t, size_t> allocations_ ABSL_GUARDED_BY(mu_);  // address → bytes
  std::atomic<int> compiles_{0}, launches_{0}, dependent_launches_{0}, executed_{0},
      timed_calls_{0};
};

// Wraps `base` (not owned). Rules match a substring of the name expression
// (compile) or of the name expression behind a function (load, launch); an
// empty match string matches everything. Thread-safe.
class FaultInjectingBackend final : public jitk::internal::Backend {
 public:
  explicit FaultInjectingBackend(jitk::internal::Backend* base);
  ~FaultInjectingBackend() override;

  void FailCompile(std::string match, absl::Status status) ABSL_LOCKS_EXCLUDED(mu_);
  // Applied to the resources the base compiler reports.
  void EditResources(std::string match, std::function<void(ResourceUsage&)> edit)
      ABSL_LOCKS_EXCLUDED(mu_);
  void FailLoad(std::string match, absl::Status status) ABSL_LOCKS_EXCLUDED(mu_);
  void FailLaunch(std::string match, absl::Status status) ABSL_LOCKS_EXCLUDED(mu_);
  // After each matching launch, the first `bytes` bytes behind pointer
  // argument `pointer_arg` are overwritten with 0x3c.
  void CorruptOutput(std::string match, int pointer_arg, size_t bytes) ABSL_LOCKS_EXCLUDED(mu_);
  // Every TimeMs fails with `status`.
  void FailTiming(absl::Status status) ABSL_LOCKS_EXCLUDED(mu_);
  // Every Synchronize fails with `status` (as inside a stream capture).
  void FailSynchronize(absl::Status status) ABSL_LOCKS_EXCLUDED(mu_);

  // How many faults were injected so far.
  int injected() const { return injected_.load(); }

  // A device handle whose calls go through the wrapper.
  Device OpenDevice(const Device& base_device);

  // --- Backend (forwarding, with the rules applied)
  absl::string_view name() const override { return base_->name(); }
  Vendor vendor() const override { return base_->vendor(); }
  absl::StatusOr<jitk::internal::CompilerInfo> Compiler() override { return base_->Compiler(); }
  absl::StatusOr<std::vector<std::string>> CompileTargets() override {
    return base_->CompileTargets();
  }
  absl::StatusOr<jitk::internal::CodeObject> Compile(
      const jitk::internal::CompileRequest& request) override;
  BackendReport Report() override { return base_->Report(); }
  absl::StatusOr<std::vector<DeviceInfo>> Devices() override { return base_->Devices(); }
  absl::StatusOr<std::unique_ptr<jitk::internal::Module>> Load(
      int device, const jitk::internal::CodeObject& code) override;
  absl::Status EncodeTensorMap(const jitk::internal::TensorMapRequest& request,
                               void* map) override {
    return base_->EncodeTensorMap(request, map);
  }
  absl::Status Launch(int device, jitk::internal::FunctionHandle function,
                      jitk::internal::Dim3 grid, jitk::internal::Dim3 block,
                      uint32_t dynamic_shared_bytes, Stream stream, void** args) override;
  absl::StatusOr<void*> Allocate(int device, size_t bytes) override {
    return base_->Allocate(device, bytes);
  }
  absl::Status Free(int device, void* pointer) override { return base_->Free(device, pointer); }
  absl::Status CopyToDevice(int device, void* dst, const void* src, size_t bytes) override {
    return base_->CopyToDevice(device, dst, src, bytes);
  }
  absl::Status CopyToHost(int device, void* dst, const void* src, size_t bytes) override {
    return base_->CopyToHost(device, dst, src, bytes);
  }
  absl::Status Memset(int device, void* dst, uint8_t value, size_t bytes) override {
    return base_->Memset(device, dst, value, bytes);
  }
  absl::Status Synchronize(int device, Stream stream) override;
  absl::StatusOr<double> TimeMs(int device, Stream stream,
                                absl::FunctionRef<absl::Status()> work) override;

 private:
  struct Rule {
    std::string match;
    absl::Status status;
    std::function<void(ResourceUsage&)> edit;
    int pointer_arg = 0;
    size_t bytes = 0;
  };
  static const Rule* Find(const std::vector<Rule>& rules, absl::string_view name);
  class WrappedModule;

  jitk::internal::Backend* base_;
  mutable absl::Mutex mu_;
  std::vector<Rule> compile_ ABSL_GUARDED_BY(mu_), resources_ ABSL_GUARDED_BY(mu_),
      load_ ABSL_GUARDED_BY(mu_), launch_ ABSL_GUARDED_BY(mu_), corrupt_ ABSL_GUARDED_BY(mu_);
  absl::Status timing_ ABSL_GUARDED_BY(mu_);
  absl::Status synchronize_ ABSL_GUARDED_BY(mu_);
  // lowered name → name expression, learnt from Compile.
  std::map<std::string, std::string, std::less<>> expressions_ ABSL_GUARDED_BY(mu_);
  // function handle → name expression, learnt from GetFunction.
  std::map<jitk::internal::FunctionHandle, std::string> functions_ ABSL_GUARDED_BY(mu_);
  std::atomic<int> injected_{0};
};

}  // namespace jitk::testing

#endif  // JITK_TESTS_TESTING_FAKE_BACKEND_H_
