// HipBackend's library loading, device discovery and runtime side. The
// device tests run on an AMD GPU and skip with the reason elsewhere.
#include "lib/backend/hip/hip_backend.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace jitk::internal {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kScale[] = R"(
__global__ void scale(float* data, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}
)";

Backend& Hip() {
  static Backend* const backend = NewHipBackend().release();
  return *backend;
}

// The first HIP device, or nullopt (with the reason in `why`).
std::optional<DeviceInfo> FirstDevice(std::string* why) {
  absl::StatusOr<std::vector<DeviceInfo>> devices = Hip().Devices();
  if (devices.ok() && !devices->empty()) return devices->front();
  *why = devices.ok() ? Hip().Report().runtime_status : std::string(devices.status().message());
  return std::nullopt;
}

#define JITK_HIP_DEVICE_OR_SKIP(device)                          \
  std::string device##_why;                                      \
  std::optional<DeviceInfo> device = FirstDevice(&device##_why); \
  if (!device.has_value()) GTEST_SKIP() << "needs an AMD GPU: " << device##_why

TEST(HipBackendTest, NamesItself) {
  EXPECT_EQ(Hip().name(), "hip");
  EXPECT_EQ(Hip().vendor(), Vendor::kAmd);
}

TEST(HipBackendTest, MissingHiprtcIsUnavailableNamingTheFile) {
  HipLibraryNames names;
  names.hiprtc = {"libjitk-no-such-hiprtc.so"};
  std::unique_ptr<Backend> hip = NewHipBackend(names);
  EXPECT_THAT(hip->Compiler(),
              StatusIs(absl::StatusCode::kUnavailable, "libjitk-no-such-hiprtc.so"));
  EXPECT_THAT(hip->Compiler(), StatusIs(absl::StatusCode::kUnavailable, "libamdhip64-5"));
  CompileRequest request;
  request.target = Target{"gfx90a", "", Vendor::kAmd};
  request.source = kScale;
  EXPECT_THAT(hip->Compile(request),
              StatusIs(absl::StatusCode::kUnavailable, "libjitk-no-such-hiprtc.so"));
  BackendReport report = hip->Report();
  EXPECT_FALSE(report.compiler_available);
  EXPECT_THAT(report.compiler_status, HasSubstr("libjitk-no-such-hiprtc.so"));
  EXPECT_THAT(report.compile_targets, IsEmpty());
}

TEST(HipBackendTest, LibraryWithoutTheSymbolsIsSkipped) {
  HipLibraryNames names;
  names.hiprtc = {"libm.so.6"};
  EXPECT_THAT(NewHipBackend(names)->Compiler(),
              StatusIs(absl::StatusCode::kUnavailable, "libm.so.6 loaded without it"));
  const std::vector<std::string> defaults = HipLibraryNames().hiprtc;
  names.hiprtc.insert(names.hiprtc.end(), defaults.begin(), defaults.end());
  EXPECT_THAT(NewHipBackend(names)->Compiler(), IsOk());
}

TEST(HipBackendTest, MissingComgrIsUnavailableNamingTheFile) {
  HipLibraryNames names;
  names.comgr = {"libjitk-no-such-comgr.so.2"};
  std::unique_ptr<Backend> hip = NewHipBackend(names);
  EXPECT_THAT(hip->CompileTargets(),
              StatusIs(absl::StatusCode::kUnavailable, "libjitk-no-such-comgr.so.2"));
  EXPECT_THAT(hip->CompileTargets(), StatusIs(absl::StatusCode::kUnavailable, "libamd-comgr2"));
}

TEST(HipBackendTest, MissingRuntimeIsUnavailableNamingTheFile) {
  HipLibraryNames names;
  names.hip = {"libjitk-no-such-amdhip64.so.5"};
  std::unique_ptr<Backend> hip = NewHipBackend(names);
  EXPECT_THAT(hip->Devices(),
              StatusIs(absl::StatusCode::kUnavailable, "libjitk-no-such-amdhip64.so.5"));
  EXPECT_THAT(hip->Devices(), StatusIs(absl::StatusCode::kUnavailable, "libamdhip64-5"));
  EXPECT_THAT(hip->Allocate(0, 256),
              StatusIs(absl::StatusCode::kUnavailable, "libjitk-no-such-amdhip64.so.5"));
  BackendReport report = hip->Report();
  EXPECT_FALSE(report.runtime_available);
  EXPECT_THAT(report.runtime_status, HasSubstr("libjitk-no-such-amdhip64.so.5"));
  EXPECT_TRUE(report.compiler_available);  // compiling needs no runtime
}

TEST(HipBackendTest, ReportListsCompilerAndTargets) {
  BackendReport report = Hip().Report();
  EXPECT_EQ(report.backend, "hip");
  EXPECT_TRUE(report.compiler_available) << report.compiler_status;
  EXPECT_EQ(report.compiler_status, "ok");
  EXPECT_TRUE(absl::StartsWith(report.compiler_version, "hiprtc ")) << report.compiler_version;
  EXPECT_THAT(report.compile_targets, Contains("gfx90a"));
  EXPECT_TRUE(report.runtime_available) << report.runtime_status;
}

TEST(HipBackendTest, WithoutAGpuReportSaysWhyAndDevicesIsEmpty) {
  absl::StatusOr<std::vector<DeviceInfo>> devices = Hip().Devices();
  ASSERT_THAT(devices, IsOk());
  if (!devices->empty()) GTEST_SKIP() << "this machine has an AMD GPU";
  BackendReport report = Hip().Report();
  EXPECT_THAT(report.devices, IsEmpty());
  EXPECT_THAT(report.runtime_status, HasSubstr("no AMD GPU found"));
  EXPECT_THAT(report.runtime_status, HasSubstr("hipErrorNoDevice"));
}

TEST(HipBackendTest, WithoutAGpuDeviceCallsAreNotFound) {
  absl::StatusOr<std::vector<DeviceInfo>> devices = Hip().Devices();
  ASSERT_THAT(devices, IsOk());
  if (!devices->empty()) GTEST_SKIP() << "this machine has an AMD GPU";
  CodeObject code;
  code.target = "gfx90a";
  code.binary =
      "\x7f"
      "ELF";
  EXPECT_THAT(Hip().Load(0, code), StatusIs(absl::StatusCode::kNotFound, "no AMD GPU"));
  EXPECT_THAT(Hip().Allocate(0, 1024), StatusIs(absl::StatusCode::kNotFound, "no AMD GPU"));
  EXPECT_THAT(Hip().Synchronize(0, nullptr), StatusIs(absl::StatusCode::kNotFound, "no AMD GPU"));
}

TEST(HipBackendTest, MissingHsaIsNamedWhenThereIsNoGpu) {
  absl::StatusOr<std::vector<DeviceInfo>> devices = Hip().Devices();
  ASSERT_THAT(devices, IsOk());
  if (!devices->empty()) GTEST_SKIP() << "this machine has an AMD GPU";
  HipLibraryNames names;
  names.hsa = {"libjitk-no-such-hsa-runtime64.so.1"};
  BackendReport report = NewHipBackend(names)->Report();
  EXPECT_THAT(report.runtime_status, HasSubstr("libjitk-no-such-hsa-runtime64.so.1"));
  EXPECT_THAT(report.runtime_status, HasSubstr("libhsa-runtime64-1"));
}

TEST(HipBackendTest, GfxOverrideIsReportedForTheWholeProcess) {
  Hip().Report();  // discovery (and hsa_init) happen before the variable is set
  const char* previous = std::getenv("HSA_OVERRIDE_GFX_VERSION");
  const std::string saved = previous != nullptr ? previous : "";
  setenv("HSA_OVERRIDE_GFX_VERSION", "10.3.0", 1);
  BackendReport report = Hip().Report();
  if (previous != nullptr) {
    setenv("HSA_OVERRIDE_GFX_VERSION", saved.c_str(), 1);
  } else {
    unsetenv("HSA_OVERRIDE_GFX_VERSION");
  }
  EXPECT_EQ(report.gfx_override, "10.3.0");
  EXPECT_THAT(report.runtime_status, HasSubstr("HSA_OVERRIDE_GFX_VERSION=10.3.0"));
  EXPECT_THAT(report.runtime_status, HasSubstr("every AMD GPU in this process"));
  if (previous == nullptr) {
    EXPECT_EQ(Hip().Report().gfx_override, "");
  }
}

TEST(HipBackendTest, DevicesDescribeTheGpu) {
  JITK_HIP_DEVICE_OR_SKIP(device);
  EXPECT_EQ(device->backend, "hip");
  EXPECT_EQ(device->backend_ordinal, 0);
  EXPECT_TRUE(absl::StartsWith(device->arch, "gfx")) << device->arch;
  EXPECT_TRUE(absl::StartsWith(device->target, device->arch)) << device->target;
  EXPECT_TRUE(device->wave_size == 32 || device->wave_size == 64) << device->wave_size;
  EXPECT_GT(device->compute_units, 0);
  EXPECT_GE(device->max_threads_per_block, 256);
  EXPECT_GE(device->lds_bytes_per_block, 32 * 1024);
  EXPECT_GT(device->memory_bytes, uint64_t{1} << 30);
  EXPECT_GT(device->clock_mhz, 0);
  EXPECT_FALSE(device->name.empty());
}

TEST(HipBackendTest, LoadRefusesCodeForAnotherTarget) {
  JITK_HIP_DEVICE_OR_SKIP(device);
  CodeObject code;
  code.target = device->arch == "gfx90a" ? "gfx1030" : "gfx90a";
  code.binary =
      "\x7f"
      "ELF";
  absl::StatusOr<std::unique_ptr<Module>> module = Hip().Load(0, code);
  EXPECT_THAT(module, StatusIs(absl::StatusCode::kFailedPrecondition, code.target));
  EXPECT_THAT(module, StatusIs(absl::StatusCode::kFailedPrecondition, device->arch));
}

TEST(HipBackendTest, LoadsLaunchesAndTimesAKernel) {
  JITK_HIP_DEVICE_OR_SKIP(device);
  absl::StatusOr<Target> target = ParseTarget(device->target);
  ASSERT_THAT(target, IsOk());
  if (!Hip().CompileTargets().ok() ||
      !absl::c_linear_search(*Hip().CompileTargets(), target->arch)) {
    GTEST_SKIP() << "this hiprtc cannot compile for " << target->arch;
  }
  CompileRequest request;
  request.target = *target;
  request.program_name = "scale.hip";
  request.source = kScale;
  request.name_expressions = {"scale"};
  absl::StatusOr<CodeObject> code = Hip().Compile(request);
  ASSERT_THAT(code, IsOk());
  absl::StatusOr<std::unique_ptr<Module>> module = Hip().Load(0, *code);
  ASSERT_THAT(module, IsOk());
  EXPECT_THAT((*module)->GetFunction("jitk_no_such_symbol"),
              StatusIs(absl::StatusCode::kNotFound, "jitk_no_such_symbol"));
  EXPECT_THAT((*module)->GetGlobal("jitk_no_such_variable"),
              StatusIs(absl::StatusCode::kNotFound, "jitk_no_such_variable"));
  absl::StatusOr<FunctionHandle> function = (*module)->GetFunction(code->symbols[0].lowered_name);
  ASSERT_THAT(function, IsOk());

  constexpr int kN = 1000;
  std::vector<float> host(kN);
  for (int i = 0; i < kN; ++i) host[i] = float(i);
  absl::StatusOr<void*> data = Hip().Allocate(0, kN * sizeof(float));
  ASSERT_THAT(data, IsOk());
  ASSERT_THAT(Hip().CopyToDevice(0, *data, host.data(), kN * sizeof(float)), IsOk());
  float factor = 2.5f;
  int n = kN;
  void* args[] = {&*data, &factor, &n};
  absl::StatusOr<double> ms = Hip().TimeMs(0, nullptr, [&] {
    return Hip().Launch(0, *function, Dim3{(kN + 255) / 256}, Dim3{256}, 0, nullptr, args);
  });
  ASSERT_THAT(ms, IsOk());
  EXPECT_GT(*ms, 0);
  ASSERT_THAT(Hip().Synchronize(0, nullptr), IsOk());
  ASSERT_THAT(Hip().CopyToHost(0, host.data(), *data, kN * sizeof(float)), IsOk());
  for (int i = 0; i < kN; ++i) ASSERT_EQ(host[i], 2.5f * float(i)) << i;

  ASSERT_THAT(Hip().Memset(0, *data, 0, kN * sizeof(float)), IsOk());
  ASSERT_THAT(Hip().CopyToHost(0, host.data(), *data, kN * sizeof(float)), IsOk());
  EXPECT_EQ(host[kN - 1], 0.0f);
  EXPECT_THAT(Hip().Free(0, *data), IsOk());
}

TEST(HipBackendTest, OutOfRangeDeviceIsInvalidArgument) {
  JITK_HIP_DEVICE_OR_SKIP(device);
  EXPECT_THAT(Hip().Allocate(1000, 16), StatusIs(absl::StatusCode::kInvalidArgument, "1000"));
}

}  // namespace
}  // namespace jitk::internal
