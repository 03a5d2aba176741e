#include "lib/backend/cuda/cuda_backend.h"

#include <elf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/backend/cuda/cubin.h"
#include "lib/backend/cuda/cuda_driver_api.h"
#include "tests/lib/backend/cuda/cuda_test_util.h"

namespace jitk::internal {
namespace {

using ::jitk::internal::testing::IsOk;
using ::jitk::internal::testing::kAxpyFloat128;
using ::jitk::internal::testing::kAxpyFloat128Lowered;
using ::jitk::internal::testing::kAxpySource;
using ::jitk::internal::testing::kRegisterSource;
using ::jitk::internal::testing::Request;
using ::jitk::internal::testing::StatusIs;
using ::testing::HasSubstr;

// --- without a GPU ---

TEST(CudaBackendTest, NamesItself) {
  std::unique_ptr<Backend> cuda = NewCudaBackend();
  EXPECT_EQ(cuda->name(), "cuda");
  EXPECT_EQ(cuda->vendor(), Vendor::kNvidia);
}

TEST(CudaBackendTest, AMissingDriverMeansNoDevicesAndAPlainReason) {
  CudaLibraryNames names;
  names.driver = {"libcuda-does-not-exist.so.1"};
  std::unique_ptr<Backend> cuda = NewCudaBackend(names);
  absl::StatusOr<std::vector<DeviceInfo>> devices = cuda->Devices();
  ASSERT_THAT(devices, IsOk());
  EXPECT_TRUE(devices->empty());

  BackendReport report = cuda->Report();
  EXPECT_EQ(report.backend, "cuda");
  EXPECT_FALSE(report.runtime_available);
  EXPECT_THAT(report.runtime_status, HasSubstr("libcuda-does-not-exist.so.1"));
  EXPECT_THAT(report.runtime_status, HasSubstr("comes with the NVIDIA driver"));
  EXPECT_TRUE(report.devices.empty());
  // Compiling needs no driver.
  EXPECT_TRUE(report.compiler_available) << report.compiler_status;
  EXPECT_EQ(report.compiler_status, "ok");
  EXPECT_THAT(report.compiler_version, HasSubstr("nvrtc "));
  EXPECT_THAT(report.compile_targets, ::testing::Contains("sm_90"));

  EXPECT_THAT(cuda->Allocate(0, 1024),
              StatusIs(absl::StatusCode::kUnavailable, "libcuda-does-not-exist.so.1"));
  EXPECT_THAT(cuda->Synchronize(0, nullptr),
              StatusIs(absl::StatusCode::kUnavailable, "libcuda-does-not-exist.so.1"));
  absl::StatusOr<CodeObject> code = cuda->Compile(Request("sm_90", kAxpySource, {kAxpyFloat128}));
  ASSERT_THAT(code, IsOk());
  EXPECT_THAT(cuda->Load(0, *code),
              StatusIs(absl::StatusCode::kUnavailable, "libcuda-does-not-exist.so.1"));
  EXPECT_THAT(cuda->TimeMs(0, nullptr, [] { return absl::OkStatus(); }),
              StatusIs(absl::StatusCode::kUnavailable, "libcuda-does-not-exist.so.1"));
  alignas(64) unsigned char map[kTensorMapBytes];
  EXPECT_THAT(cuda->EncodeTensorMap(TensorMapRequest{}, map),
              StatusIs(absl::StatusCode::kUnavailable, "libcuda-does-not-exist.so.1"));
}

TEST(CudaBackendTest, WithoutTheDriverReportNamesLibcuda) {
  std::unique_ptr<Backend> cuda = NewCudaBackend();
  BackendReport report = cuda->Report();
  if (report.runtime_available) GTEST_SKIP() << "libcuda.so.1 is installed here";
  EXPECT_THAT(report.runtime_status, HasSubstr("libcuda.so.1"));
  EXPECT_THAT(report.runtime_status, HasSubstr("NVIDIA driver"));
  absl::StatusOr<std::vector<DeviceInfo>> devices = cuda->Devices();
  ASSERT_THAT(devices, IsOk());
  EXPECT_TRUE(devices->empty());
}

// The toolkit's link stub loads but its cuInit fails: the library counts as
// found, there are no devices, and the reason is the driver's own words.
TEST(CudaBackendTest, TheLinkStubIsNotADriver) {
  constexpr char kStub[] = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (access(kStub, R_OK) != 0) GTEST_SKIP() << "no " << kStub;
  CudaLibraryNames names;
  names.driver = {kStub};
  std::unique_ptr<Backend> cuda = NewCudaBackend(names);
  absl::StatusOr<std::vector<DeviceInfo>> devices = cuda->Devices();
  ASSERT_THAT(devices, IsOk());
  EXPECT_TRUE(devices->empty());
  BackendReport report = cuda->Report();
  EXPECT_TRUE(report.runtime_available);
  EXPECT_THAT(report.runtime_status, HasSubstr("cuInit: CUDA_ERROR_STUB_LIBRARY"));
  EXPECT_THAT(cuda->Allocate(0, 16),
              StatusIs(absl::StatusCode::kUnavailable, "CUDA_ERROR_STUB_LIBRARY"));
}

TEST(CudaBackendTest, AMissingCompilerIsUnavailableNamingTheFile) {
  CudaLibraryNames names;
  names.nvrtc = {"libnvrtc-does-not-exist.so.7"};
  std::unique_ptr<Backend> cuda = NewCudaBackend(names);
  EXPECT_THAT(cuda->Compiler(),
              StatusIs(absl::StatusCode::kUnavailable, "libnvrtc-does-not-exist.so.7"));
  EXPECT_THAT(cuda->CompileTargets(),
              StatusIs(absl::StatusCode::kUnavailable, "libnvrtc-does-not-exist.so.7"));
  EXPECT_THAT(cuda->Compile(Request("sm_90", kAxpySource, {kAxpyFloat128})),
              StatusIs(absl::StatusCode::kUnavailable, "libnvrtc-does-not-exist.so.7"));
  BackendReport report = cuda->Report();
  EXPECT_FALSE(report.compiler_available);
  EXPECT_THAT(report.compiler_status, HasSubstr("libnvrtc-does-not-exist.so.7"));
  EXPECT_TRUE(report.compile_targets.empty());
}

TEST(CudaBackendTest, CompilesWithoutAGpu) {
  std::unique_ptr<Backend> cuda = NewCudaBackend();
  absl::StatusOr<CompilerInfo> compiler = cuda->Compiler();
  ASSERT_THAT(compiler, IsOk());
  EXPECT_EQ(compiler->name, "nvrtc");
  absl::StatusOr<CodeObject> code = cuda->Compile(Request("sm_90", kAxpySource, {kAxpyFloat128}));
  ASSERT_THAT(code, IsOk());
  EXPECT_EQ(code->target, "sm_90");
  ASSERT_EQ(code->symbols.size(), 1u);
  EXPECT_EQ(code->symbols[0].lowered_name, kAxpyFloat128Lowered);
  if (code->log.find("ptxas") == std::string::npos) {
    GTEST_SKIP() << "this NVRTC wrote no ptxas report into the program log";
  }
  EXPECT_GT(code->symbols[0].resources.registers, 0) << code->log;
}

// --- on a GPU (skipped without one) ---

class CudaGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cuda_ = NewCudaBackend();
    absl::StatusOr<std::vector<DeviceInfo>> devices = cuda_->Devices();
    ASSERT_THAT(devices, IsOk());
    if (devices->empty()) {
      GTEST_SKIP() << "no CUDA device: " << cuda_->Report().runtime_status;
    }
    device_ = devices->front();
  }

  CodeObject CompileForDevice(const std::string& source, std::vector<std::string> names,
                              std::string arch = "") {
    absl::StatusOr<CodeObject> code =
        cuda_->Compile(Request(arch.empty() ? device_.arch : arch, source, std::move(names)));
    EXPECT_THAT(code, IsOk());
    return code.ok() ? *std::move(code) : CodeObject{};
  }

  // Device buffer freed at the end of the test.
  void* Buffer(size_t bytes) {
    absl::StatusOr<void*> pointer = cuda_->Allocate(0, bytes);
    EXPECT_THAT(pointer, IsOk());
    if (!pointer.ok()) return nullptr;
    buffers_.push_back(*pointer);
    return *pointer;
  }

  void TearDown() override {
    for (void* buffer : buffers_) EXPECT_THAT(cuda_->Free(0, buffer), IsOk());
  }

  std::unique_ptr<Backend> cuda_;
  DeviceInfo device_;
  std::vector<void*> buffers_;
};

// A tensor map of a [4][64][128] tensor of 16-bit elements, in 64 x 32 boxes:
// encoded into unaligned bytes; strides the copy engine cannot take are an
// error naming the call and the strides.
TEST_F(CudaGpuTest, EncodesTensorMapsAndNamesBadStrides) {
  if (device_.arch.rfind("sm_9", 0) != 0 && device_.arch.rfind("sm_1", 0) != 0) {
    GTEST_SKIP() << device_.arch << " has no tensor memory access";
  }
  TensorMapRequest request;
  request.base = Buffer(4 * 64 * 128 * 2);
  request.rank = 3;
  const uint64_t dims[3] = {128, 64, 4}, strides[2] = {256, 64 * 256};
  const uint32_t box[3] = {64, 32, 1};
  std::copy(dims, dims + 3, request.dims);
  std::copy(strides, strides + 2, request.strides);
  std::copy(box, box + 3, request.box);
  alignas(64) unsigned char bytes[kTensorMapBytes + 8] = {};
  ASSERT_THAT(cuda_->EncodeTensorMap(request, bytes + 8), IsOk());
  EXPECT_NE(std::vector<unsigned char>(bytes + 8, bytes + 8 + kTensorMapBytes),
            std::vector<unsigned char>(kTensorMapBytes, 0));
  request.strides[0] = 200;  // not a multiple of 16
  EXPECT_THAT(cuda_->EncodeTensorMap(request, bytes + 8),
              StatusIs(absl::StatusCode::kInvalidArgument, "cuTensorMapEncodeTiled"));
  // A tensor broadcast over its outer dimension (stride 0): encoded, or
  // refused by name; never a crash.
  request.strides[0] = 256;
  request.strides[1] = 0;
  absl::Status broadcast = cuda_->EncodeTensorMap(request, bytes + 8);
  std::printf("broadcast stride 0: %s\n", broadcast.ToString().c_str());
  if (!broadcast.ok()) EXPECT_THAT(broadcast, StatusIs(broadcast.code(), "cuTensorMapEncodeTiled"));
}

TEST_F(CudaGpuTest, DescribesTheDevice) {
  EXPECT_EQ(device_.backend, "cuda");
  EXPECT_EQ(device_.vendor, Vendor::kNvidia);
  EXPECT_EQ(device_.backend_ordinal, 0);
  EXPECT_FALSE(device_.name.empty());
  EXPECT_TRUE(absl::StartsWith(device_.arch, "sm_")) << device_.arch;
  // Hopper's own target is the arch-specific one, which wgmma needs.
  EXPECT_EQ(device_.target, device_.arch == "sm_90" ? "sm_90a" : device_.arch);
  EXPECT_EQ(device_.wave_size, 32);
  EXPECT_GT(device_.compute_units, 0);
  EXPECT_EQ(device_.max_threads_per_block, 1024);
  EXPECT_GE(device_.lds_bytes_per_block, 48 * 1024);
  EXPECT_GE(device_.lds_bytes_per_cu, device_.lds_bytes_per_block);
  EXPECT_GT(device_.memory_bytes, uint64_t{1} << 30);
  BackendReport report = cuda_->Report();
  EXPECT_TRUE(report.runtime_available);
  EXPECT_EQ(report.runtime_status, "ok");
  ASSERT_FALSE(report.devices.empty());
  EXPECT_EQ(report.devices[0].name, device_.name);
}

TEST_F(CudaGpuTest, LaunchesAxpyAndCopiesBack) {
  CodeObject code = CompileForDevice(kAxpySource, {kAxpyFloat128});
  absl::StatusOr<std::unique_ptr<Module>> module = cuda_->Load(0, code);
  ASSERT_THAT(module, IsOk());
  absl::StatusOr<FunctionHandle> axpy = (*module)->GetFunction(kAxpyFloat128Lowered);
  ASSERT_THAT(axpy, IsOk());
  // The same handle each time.
  EXPECT_EQ(*(*module)->GetFunction(kAxpyFloat128Lowered), *axpy);

  int n = 1000;  // not a multiple of the block: the tail is guarded
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = static_cast<float>(3 * i + 1);
  }
  void* dx = Buffer(n * sizeof(float));
  void* dy = Buffer(n * sizeof(float));
  ASSERT_THAT(cuda_->CopyToDevice(0, dx, x.data(), n * sizeof(float)), IsOk());
  ASSERT_THAT(cuda_->CopyToDevice(0, dy, y.data(), n * sizeof(float)), IsOk());
  float a = 2.0f;
  void* args[] = {&dy, &dx, &a, &n};
  ASSERT_THAT(cuda_->Launch(0, *axpy, Dim3{static_cast<uint32_t>((n + 127) / 128)}, Dim3{128}, 0,
                            nullptr, args),
              IsOk());
  ASSERT_THAT(cuda_->Synchronize(0, nullptr), IsOk());
  std::vector<float> out(n);
  ASSERT_THAT(cuda_->CopyToHost(0, out.data(), dy, n * sizeof(float)), IsOk());
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.0f * i + 3 * i + 1) << "at " << i;
}

// A module's __device__ variable, found by name and read back after a kernel
// wrote it; a name the module lacks is NotFound.
TEST_F(CudaGpuTest, ReadsAModuleVariableAKernelWrote) {
  constexpr char kSource[] = R"(
extern "C" __device__ unsigned jitk_test_counts[4];
extern "C" __global__ void count_threads() { atomicAdd(&jitk_test_counts[threadIdx.x % 4], 1u); }
)";
  absl::StatusOr<std::unique_ptr<Module>> module =
      cuda_->Load(0, CompileForDevice(kSource, {"count_threads"}));
  ASSERT_THAT(module, IsOk());
  absl::StatusOr<DeviceGlobal> counts = (*module)->GetGlobal("jitk_test_counts");
  ASSERT_THAT(counts, IsOk());
  ASSERT_EQ(counts->bytes, 4 * sizeof(unsigned));
  ASSERT_THAT(cuda_->Memset(0, counts->address, 0, counts->bytes), IsOk());
  FunctionHandle count = *(*module)->GetFunction("count_threads");
  ASSERT_THAT(cuda_->Launch(0, count, Dim3{3}, Dim3{64}, 0, nullptr, nullptr), IsOk());
  ASSERT_THAT(cuda_->Synchronize(0, nullptr), IsOk());
  unsigned host[4] = {};
  ASSERT_THAT(cuda_->CopyToHost(0, host, counts->address, sizeof(host)), IsOk());
  for (unsigned c : host) EXPECT_EQ(c, 3u * 64 / 4);
  EXPECT_THAT((*module)->GetGlobal("jitk_no_such_variable"),
              StatusIs(absl::StatusCode::kNotFound, "jitk_no_such_variable"));
}

// A dependent launch on sm_90+ (with a CUDA 12.3 driver) starts while the
// launch before it still runs (which lets it, from its first instruction),
// yet reads that launch's writes once it has waited for it; elsewhere it
// follows it.
TEST_F(CudaGpuTest, ADependentLaunchOverlapsThePreviousOneAndSeesItsWrites) {
  constexpr char kSource[] = R"(
__device__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
// Lets the next launch start, keeps the GPU 2 ms, then writes i + 1 and its end time.
extern "C" __global__ void slow_fill(float* out, int n, unsigned long long* times) {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  const unsigned long long start = now();
  while (now() - start < 2000000ull) {
  }
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = float(i + 1);
  if (threadIdx.x == 0) times[0] = now();
}
// Records when it started, waits for the launch before it, copies.
extern "C" __global__ void copy_after(const float* in, float* out, int n,
                                      unsigned long long* times) {
  if (threadIdx.x == 0) times[1] = now();
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = in[i];
}
)";
  absl::StatusOr<std::unique_ptr<Module>> module =
      cuda_->Load(0, CompileForDevice(kSource, {"slow_fill", "copy_after"}));
  ASSERT_THAT(module, IsOk());
  FunctionHandle fill = *(*module)->GetFunction("slow_fill");
  FunctionHandle copy = *(*module)->GetFunction("copy_after");
  int n = 4096;
  void* filled = Buffer(n * sizeof(float));
  void* copied = Buffer(n * sizeof(float));
  void* times = Buffer(2 * sizeof(uint64_t));
  ASSERT_THAT(cuda_->Memset(0, filled, 0, n * sizeof(float)), IsOk());
  void* fill_args[] = {&filled, &n, &times};
  void* copy_args[] = {&filled, &copied, &n, &times};
  ASSERT_THAT(cuda_->Launch(0, fill, Dim3{1}, Dim3{256}, 0, nullptr, fill_args), IsOk());
  ASSERT_THAT(cuda_->LaunchDependent(0, copy, Dim3{1}, Dim3{256}, 0, nullptr, copy_args), IsOk());
  ASSERT_THAT(cuda_->Synchronize(0, nullptr), IsOk());
  std::vector<float> out(n);
  ASSERT_THAT(cuda_->CopyToHost(0, out.data(), copied, n * sizeof(float)), IsOk());
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], float(i + 1)) << "at " << i;
  uint64_t at[2] = {};
  ASSERT_THAT(cuda_->CopyToHost(0, at, times, sizeof(at)), IsOk());
  absl::StatusOr<std::unique_ptr<CudaDriverApi>> driver = LoadCudaDriverApi({"libcuda.so.1"});
  ASSERT_THAT(driver, IsOk());
  int driver_version = 0;
  ASSERT_EQ((*driver)->cuDriverGetVersion(&driver_version), CUDA_SUCCESS);
  if (std::stoi(device_.arch.substr(3)) >= 90 && driver_version >= 12030) {
    EXPECT_LT(at[1], at[0]) << "the dependent launch started after the previous one ended";
  } else {
    EXPECT_GT(at[1], at[0]) << "a plain launch follows the previous one";
  }
}

TEST_F(CudaGpuTest, MemsetAndCopyRoundTrip) {
  std::vector<uint8_t> host(4096, 0);
  void* buffer = Buffer(host.size());
  ASSERT_THAT(cuda_->Memset(0, buffer, 0xab, host.size()), IsOk());
  ASSERT_THAT(cuda_->CopyToHost(0, host.data(), buffer, host.size()), IsOk());
  for (uint8_t byte : host) ASSERT_EQ(byte, 0xab);
  EXPECT_THAT(cuda_->Allocate(0, 0), IsOk());
  EXPECT_THAT(cuda_->Free(0, nullptr), IsOk());
}

TEST_F(CudaGpuTest, AnImpossibleAllocationIsResourceExhausted) {
  EXPECT_THAT(cuda_->Allocate(0, size_t{1} << 50),
              StatusIs(absl::StatusCode::kResourceExhausted, "CUDA_ERROR_OUT_OF_MEMORY"));
}

TEST_F(CudaGpuTest, ABadDeviceOrdinalIsInvalidArgument) {
  EXPECT_THAT(cuda_->Allocate(99, 16), StatusIs(absl::StatusCode::kInvalidArgument, "device 99"));
}

TEST_F(CudaGpuTest, RefusesCodeForAnotherArchitecture) {
  // A newer architecture than the device's, from the compiler's own list.
  absl::StatusOr<std::vector<std::string>> targets = cuda_->CompileTargets();
  ASSERT_THAT(targets, IsOk());
  int device_sm = std::stoi(device_.arch.substr(3));
  std::string newer;
  for (const std::string& target : *targets) {
    if (std::stoi(target.substr(3)) / 10 > device_sm / 10) {
      newer = target;
      break;
    }
  }
  if (!newer.empty()) {
    CodeObject code = CompileForDevice(kAxpySource, {kAxpyFloat128}, newer);
    absl::StatusOr<std::unique_ptr<Module>> module = cuda_->Load(0, code);
    EXPECT_THAT(module, StatusIs(absl::StatusCode::kFailedPrecondition, newer));
    EXPECT_THAT(module, StatusIs(absl::StatusCode::kFailedPrecondition, device_.arch));
  }

  // Metadata claiming another target is refused even though the cubin would run...
  CodeObject code = CompileForDevice(kAxpySource, {kAxpyFloat128});
  CodeObject relabelled = code;
  relabelled.target = "sm_120";
  EXPECT_THAT(cuda_->Load(0, relabelled),
              StatusIs(absl::StatusCode::kFailedPrecondition, "sm_120"));

  // ...and so is a cubin whose ELF header names another SM, whatever the metadata says.
  CodeObject forged = code;
  Elf64_Ehdr header;
  std::memcpy(&header, forged.binary.data(), sizeof(header));
  ASSERT_EQ(header.e_ident[EI_ABIVERSION], 8) << "expects a CUDA 13 cubin";
  header.e_flags = (header.e_flags & ~0xff00u) | (120u << 8);
  std::memcpy(forged.binary.data(), &header, sizeof(header));
  ASSERT_EQ(*CubinArch(forged.binary), "sm_120");
  EXPECT_THAT(cuda_->Load(0, forged), StatusIs(absl::StatusCode::kFailedPrecondition, "sm_120"));

  CodeObject garbage = code;
  garbage.binary = "definitely not a cubin";
  EXPECT_THAT(cuda_->Load(0, garbage),
              StatusIs(absl::StatusCode::kInvalidArgument, "not a CUDA cubin"));
}

TEST_F(CudaGpuTest, ArchSpecificCodeLoadsOnItsOwnArchitecture) {
  if (device_.arch != "sm_90") GTEST_SKIP() << "needs sm_90, have " << device_.arch;
  CodeObject code = CompileForDevice(kAxpySource, {kAxpyFloat128}, "sm_90a");
  EXPECT_EQ(code.target, "sm_90a");
  absl::StatusOr<std::unique_ptr<Module>> module = cuda_->Load(0, code);
  ASSERT_THAT(module, IsOk());
  EXPECT_THAT((*module)->GetFunction(kAxpyFloat128Lowered), IsOk());
}

// SASS runs within one major version only: sm_80 code loads on 8.x and is
// refused (not crashed on) elsewhere.
TEST_F(CudaGpuTest, Sm80CodeLoadsOnlyOnAmpereAndAda) {
  CodeObject code = CompileForDevice(kAxpySource, {kAxpyFloat128}, "sm_80");
  absl::StatusOr<std::unique_ptr<Module>> module = cuda_->Load(0, code);
  if (std::stoi(device_.arch.substr(3)) / 10 == 8) {
    EXPECT_THAT(module, IsOk());
  } else {
    EXPECT_THAT(module, StatusIs(absl::StatusCode::kFailedPrecondition, "sm_80"));
    EXPECT_THAT(module, StatusIs(absl::StatusCode::kFailedPrecondition, device_.arch));
  }
}

TEST_F(CudaGpuTest, UnknownKernelNameIsNotFound) {
  absl::StatusOr<std::unique_ptr<Module>> module =
      cuda_->Load(0, CompileForDevice(kAxpySource, {kAxpyFloat128}));
  ASSERT_THAT(module, IsOk());
  EXPECT_THAT((*module)->GetFunction("no_such_kernel"),
              StatusIs(absl::StatusCode::kNotFound, "no_such_kernel"));
}

TEST_F(CudaGpuTest, LaunchChecksItsHandle) {
  absl::StatusOr<std::unique_ptr<Module>> module =
      cuda_->Load(0, CompileForDevice(kAxpySource, {kAxpyFloat128}));
  ASSERT_THAT(module, IsOk());
  FunctionHandle axpy = *(*module)->GetFunction(kAxpyFloat128Lowered);
  EXPECT_THAT(cuda_->Launch(0, nullptr, Dim3{}, Dim3{}, 0, nullptr, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument, "null function handle"));
  EXPECT_THAT(cuda_->Launch(1, axpy, Dim3{}, Dim3{}, 0, nullptr, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument, "loaded on CUDA device 0"));
}

// The block limit computed without a GPU is the one the driver enforces.
TEST_F(CudaGpuTest, MaxThreadsPerBlockMatchesTheDriver) {
  CodeObject code = CompileForDevice(kRegisterSource, {"wide", "bounded"});
  absl::StatusOr<std::unique_ptr<Module>> module = cuda_->Load(0, code);
  ASSERT_THAT(module, IsOk());
  int stride = 1;
  void* out = Buffer(1024 * sizeof(float));
  void* in = Buffer(1024 * 97 * sizeof(float));
  ASSERT_THAT(cuda_->Memset(0, in, 0, 1024 * 97 * sizeof(float)), IsOk());
  void* args[] = {&out, &in, &stride};
  for (const CompiledSymbol& symbol : code.symbols) {
    SCOPED_TRACE(symbol.lowered_name);
    FunctionHandle function = *(*module)->GetFunction(symbol.lowered_name);
    uint32_t max = static_cast<uint32_t>(symbol.resources.max_threads_per_block);
    ASSERT_LT(max, 1024u) << symbol.resources.registers << " registers read from the log:\n"
                          << code.log;
    EXPECT_THAT(cuda_->Launch(0, function, Dim3{1}, Dim3{max}, 0, nullptr, args), IsOk());
    EXPECT_THAT(cuda_->Synchronize(0, nullptr), IsOk());
    absl::Status over = cuda_->Launch(0, function, Dim3{1}, Dim3{max + 32}, 0, nullptr, args);
    EXPECT_FALSE(over.ok());
    EXPECT_TRUE(over.code() == absl::StatusCode::kResourceExhausted ||
                over.code() == absl::StatusCode::kInvalidArgument)
        << over;
    EXPECT_THAT(cuda_->Synchronize(0, nullptr), IsOk());  // the failure is not sticky
  }
}

TEST_F(CudaGpuTest, LargeDynamicSharedMemoryIsOptedInto) {
  constexpr char kSource[] = R"(
extern "C" __global__ void reverse(float* data, int n) {
  extern __shared__ float tile[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) tile[i] = data[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) data[i] = tile[n - 1 - i];
}
)";
  const uint32_t bytes = 100 * 1024;
  if (device_.lds_bytes_per_block < static_cast<int>(bytes)) {
    GTEST_SKIP() << "device allows only " << device_.lds_bytes_per_block << " bytes";
  }
  absl::StatusOr<std::unique_ptr<Module>> module =
      cuda_->Load(0, CompileForDevice(kSource, {"reverse"}));
  ASSERT_THAT(module, IsOk());
  FunctionHandle reverse = *(*module)->GetFunction("reverse");
  int n = bytes / sizeof(float);
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  void* data = Buffer(bytes);
  ASSERT_THAT(cuda_->CopyToDevice(0, data, host.data(), bytes), IsOk());
  void* args[] = {&data, &n};
  for (int repeat = 0; repeat < 2; ++repeat) {  // the second launch reuses the opt-in
    ASSERT_THAT(cuda_->Launch(0, reverse, Dim3{1}, Dim3{256}, bytes, nullptr, args), IsOk());
  }
  std::vector<float> out(n);
  ASSERT_THAT(cuda_->CopyToHost(0, out.data(), data, bytes), IsOk());
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], static_cast<float>(i)) << "at " << i;

  EXPECT_THAT(
      cuda_->Launch(0, reverse, Dim3{1}, Dim3{256},
                    static_cast<uint32_t>(device_.lds_bytes_per_block) + 1024, nullptr, args),
      StatusIs(absl::StatusCode::kResourceExhausted, "dynamic shared memory"));
}

TEST_F(CudaGpuTest, TimesWorkOnTheDevice) {
  absl::StatusOr<std::unique_ptr<Module>> module =
      cuda_->Load(0, CompileForDevice(kAxpySource, {kAxpyFloat128}));
  ASSERT_THAT(module, IsOk());
  FunctionHandle axpy = *(*module)->GetFunction(kAxpyFloat128Lowered);
  int n = 1 << 24;
  void* dx = Buffer(n * sizeof(float));
  void* dy = Buffer(n * sizeof(float));
  ASSERT_THAT(cuda_->Memset(0, dx, 0, n * sizeof(float)), IsOk());
  ASSERT_THAT(cuda_->Memset(0, dy, 0, n * sizeof(float)), IsOk());
  float a = 1.5f;
  void* args[] = {&dy, &dx, &a, &n};
  int launches = 0;
  absl::StatusOr<double> ms = cuda_->TimeMs(0, nullptr, [&]() -> absl::Status {
    for (int i = 0; i < 10; ++i, ++launches) {
      absl::Status status =
          cuda_->Launch(0, axpy, Dim3{static_cast<uint32_t>(n / 128)}, Dim3{128}, 0, nullptr, args);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  });
  ASSERT_THAT(ms, IsOk());
  EXPECT_EQ(launches, 10);
  EXPECT_GT(*ms, 0);
  EXPECT_LT(*ms, 10000);

  // A failing `work` is passed through.
  EXPECT_THAT(cuda_->TimeMs(0, nullptr, [] { return absl::AbortedError("stop"); }),
              StatusIs(absl::StatusCode::kAborted, "stop"));
}

}  // namespace
}  // namespace jitk::internal
