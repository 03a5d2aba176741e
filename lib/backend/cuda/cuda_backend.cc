#include "lib/backend/cuda/cuda_backend.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/base/call_once.h"
#include "absl/base/optimization.h"
#include "absl/base/thread_annotations.h"
#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "jitk/arch.h"
#include "lib/backend/cuda/cubin.h"
#include "lib/backend/cuda/cuda_driver_api.h"
#include "lib/backend/cuda/nvrtc_compiler.h"
#include "lib/internal/status_macros.h"

namespace jitk::internal {
namespace {

CUdeviceptr DevicePointer(const void* pointer) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(pointer));
}

// What Launch needs, in one place, so a launch allocates nothing and takes
// no lock unless it asks for more dynamic shared memory than ever before.
struct CudaFunction {
  const CudaDriverApi* api;
  CUfunction function;
  CUcontext context;
  int device;
  // Whether LaunchDependent may overlap a launch with the stream's previous
  // kernel (DeviceState::dependent_launches).
  bool dependent_launches;
  std::string name;
  // Launches with at most this many dynamic shared bytes need no
  // cuFuncSetAttribute; only grows.
  std::atomic<uint32_t> dynamic_shared_limit{0};
  absl::Mutex mu;  // serializes raising the limit
};

class CudaModule final : public Module {
 public:
  CudaModule(std::shared_ptr<const CudaDriverApi> api, CUmodule module, CUcontext context,
             int device, bool dependent_launches)
      : api_(std::move(api)),
        module_(module),
        context_(context),
        device_(device),
        dependent_launches_(dependent_launches) {}

  ~CudaModule() override {
    api_->cuCtxSetCurrent(context_);
    api_->cuModuleUnload(module_);
  }

  absl::StatusOr<FunctionHandle> GetFunction(absl::string_view lowered_name) override {
    absl::MutexLock lock(&mu_);
    auto it = functions_.find(lowered_name);
    if (it != functions_.end()) return static_cast<FunctionHandle>(it->second.get());

    CUresult result = api_->cuCtxSetCurrent(context_);
    if (result != CUDA_SUCCESS) return CudaError(*api_, result, "cuCtxSetCurrent");
    // With lazy loading the module's code loads here.
    RelaxedCaptureMode relaxed(api_->cuThreadExchangeStreamCaptureMode);
    auto function = std::make_unique<CudaFunction>();
    function->api = api_.get();
    function->context = context_;
    function->device = device_;
    function->dependent_launches = dependent_launches_;
    function->name = std::string(lowered_name);
    result = api_->cuModuleGetFunction(&function->function, module_, function->name.c_str());
    if (result == CUDA_ERROR_NOT_FOUND) {
      return absl::NotFoundError(absl::StrCat("the module has no kernel named ", lowered_name));
    }
    if (result != CUDA_SUCCESS) {
      return CudaError(*api_, result, absl::StrCat("cuModuleGetFunction(", lowered_name, ")"));
    }
    // The limit without opt-in: 48 KiB less the kernel's static shared memory.
    int limit = 0;
    if (api_->cuFuncGetAttribute(&limit, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                 function->function) == CUDA_SUCCESS &&
        limit > 0) {
      function->dynamic_shared_limit.store(static_cast<uint32_t>(limit));
    }
    FunctionHandle handle = function.get();
    functions_.emplace(function->name, std::move(function));
    return handle;
  }

  absl::StatusOr<DeviceGlobal> GetGlobal(absl::string_view name) override {
    CUresult result = api_->cuCtxSetCurrent(context_);
    if (result != CUDA_SUCCESS) return CudaError(*api_, result, "cuCtxSetCurrent");
    const std::string variable(name);
    CUdeviceptr address = 0;
    size_t bytes = 0;
    result = api_->cuModuleGetGlobal_v2(&address, &bytes, module_, variable.c_str());
    if (result == CUDA_ERROR_NOT_FOUND) {
      return absl::NotFoundError(absl::StrCat("the module has no variable named ", name));
    }
    if (result != CUDA_SUCCESS) {
      return CudaError(*api_, result, absl::StrCat("cuModuleGetGlobal(", name, ")"));
    }
    return DeviceGlobal{reinterpret_cast<void*>(address), bytes};
  }

 private:
  const std::shared_ptr<const CudaDriverApi> api_;
  const CUmodule module_;
  const CUcontext context_;
  const int device_;
  const bool dependent_launches_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<CudaFunction>> functions_ ABSL_GUARDED_BY(mu_);
};

struct DeviceState {
  CUdevice handle = 0;
  DeviceInfo info;
  // Whether its modules' functions take dependent launches: sm_90 or newer
  // and a driver with cuLaunchKernelEx whose stream capture records them as
  // graph edges (CUDA 12.3).
  bool dependent_launches = false;
  absl::Mutex mu;                           // serializes retaining the context
  std::atomic<CUcontext> context{nullptr};  // primary context, retained once
};

ABSL_ATTRIBUTE_NOINLINE absl::Status LaunchError(const CudaFunction& function, CUresult result,
                                                 Dim3 grid, Dim3 block, uint32_t shared) {
  return CudaError(*function.api, result,
                   absl::StrCat("cuLaunchKernel(", function.name, ", grid ", grid.x, "x", grid.y,
                                "x", grid.z, ", block ", block.x, "x", block.y, "x", block.z, ", ",
                                shared, " bytes dynamic shared memory)"));
}

ABSL_ATTRIBUTE_NOINLINE absl::Status RaiseSharedLimit(CudaFunction& function, uint32_t bytes) {
  absl::MutexLock lock(&function.mu);
  if (bytes <= function.dynamic_shared_limit.load(std::memory_order_relaxed)) {
    return absl::OkStatus();
  }
  RelaxedCaptureMode relaxed(function.api->cuThreadExchangeStreamCaptureMode);
  CUresult result = function.api->cuFuncSetAttribute(
      function.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(bytes));
  if (result != CUDA_SUCCESS) {
    absl::Status status = CudaError(*function.api, result,
                                    absl::StrCat("cuFuncSetAttribute(", function.name,
                                                 ", MAX_DYNAMIC_SHARED_SIZE_BYTES, ", bytes, ")"));
    return absl::ResourceExhaustedError(absl::StrCat(
        function.name, " asks for ", bytes,
        " bytes of dynamic shared memory, more than the device allows: ", status.message()));
  }
  function.dynamic_shared_limit.store(bytes, std::memory_order_release);
  return absl::OkStatus();
}

// Backend::Launch, or, `dependent`, LaunchDependent.
absl::Status EnqueueLaunch(int device, FunctionHandle function, Dim3 grid, Dim3 block,
                           uint32_t dynamic_shared_bytes, Stream stream, void** args,
                           bool dependent) {
  CudaFunction* f = static_cast<CudaFunction*>(function);
  if (ABSL_PREDICT_FALSE(f == nullptr || f->device != device)) {
    return absl::InvalidArgumentError(f == nullptr ? std::string("Launch: null function handle")
                                                   : absl::StrCat("Launch: ", f->name,
                                                                  " was loaded on CUDA device ",
                                                                  f->device, ", not ", device));
  }
  const CudaDriverApi& api = *f->api;
  CUresult result = api.cuCtxSetCurrent(f->context);
  if (ABSL_PREDICT_FALSE(result != CUDA_SUCCESS)) return LaunchError(*f, result, grid, block, 0);
  if (ABSL_PREDICT_FALSE(dynamic_shared_bytes >
                         f->dynamic_shared_limit.load(std::memory_order_acquire))) {
    JITK_RETURN_IF_ERROR(RaiseSharedLimit(*f, dynamic_shared_bytes));
  }
  if (dependent && f->dependent_launches) {
    CUlaunchAttribute overlap = {};
    overlap.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    overlap.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config = {};
    config.gridDimX = grid.x;
    config.gridDimY = grid.y;
    config.gridDimZ = grid.z;
    config.blockDimX = block.x;
    config.blockDimY = block.y;
    config.blockDimZ = block.z;
    config.sharedMemBytes = dynamic_shared_bytes;
    config.hStream = static_cast<CUstream>(stream);
    config.attrs = &overlap;
    config.numAttrs = 1;
    result = api.cuLaunchKernelEx(&config, f->function, args, nullptr);
  } else {
    result = api.cuLaunchKernel(f->function, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                dynamic_shared_bytes, static_cast<CUstream>(stream), args, nullptr);
  }
  if (ABSL_PREDICT_FALSE(result != CUDA_SUCCESS)) {
    return LaunchError(*f, result, grid, block, dynamic_shared_bytes);
  }
  return absl::OkStatus();
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(CudaLibraryNames names)
      : driver_names_(names.driver.empty()
                          ? std::vector<std::string>{std::string(kCudaDriverLibrary)}
                          : std::move(names.driver)),
        nvrtc_(std::move(names.nvrtc)) {}

  ~CudaBackend() override {
    for (const std::unique_ptr<DeviceState>& device : devices_) {
      if (device->context.load() != nullptr) api_->cuDevicePrimaryCtxRelease_v2(device->handle);
    }
  }

  absl::string_view name() const override { return "cuda"; }
  Vendor vendor() const override { return Vendor::kNvidia; }

  absl::StatusOr<CompilerInfo> Compiler() override { return nvrtc_.Info(); }
  absl::StatusOr<std::vector<std::string>> CompileTargets() override { return nvrtc_.Targets(); }
  absl::StatusOr<CodeObject> Compile(const CompileRequest& request) override {
    return nvrtc_.Compile(request);
  }

  BackendReport Report() override {
    BackendReport report;
    report.backend = "cuda";
    absl::StatusOr<CompilerInfo> compiler = nvrtc_.Info();
    report.compiler_available = compiler.ok();
    report.compiler_status = compiler.ok() ? "ok" : std::string(compiler.status().message());
    if (compiler.ok()) report.compiler_version = compiler->ToString();
    absl::StatusOr<std::vector<std::string>> targets = nvrtc_.Targets();
    if (targets.ok()) report.compile_targets = *std::move(targets);

    InitDriver();
    report.runtime_available = api_ != nullptr;
    report.runtime_status = driver_status_.ok() ? "ok" : std::string(driver_status_.message());
    for (const std::unique_ptr<DeviceState>& device : devices_) {
      report.devices.push_back(device->info);
    }
    return report;
  }

  absl::StatusOr<std::vector<DeviceInfo>> Devices() override {
    InitDriver();
    std::vector<DeviceInfo> devices;
    for (const std::unique_ptr<DeviceState>& device : devices_) devices.push_back(device->info);
    return devices;
  }

  absl::StatusOr<std::unique_ptr<Module>> Load(int device, const CodeObject& code) override {
    JITK_ASSIGN_OR_RETURN(DeviceState * state, Activate(device));
    const Target device_target{state->info.target, "", Vendor::kNvidia};
    // The stored target is checked, and so is the cubin itself: metadata can
    // be stale or wrong, the ELF header is what the driver will run.
    if (!code.target.empty()) {
      JITK_ASSIGN_OR_RETURN(Target claimed, ParseTarget(code.target));
      JITK_RETURN_IF_ERROR(CheckTargetCompatible(claimed, device_target));
    }
    absl::StatusOr<std::string> cubin_arch = CubinArch(code.binary);
    if (!cubin_arch.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("cannot load the code object on CUDA device ",
                                                     device, ": ", cubin_arch.status().message()));
    }
    JITK_RETURN_IF_ERROR(
        CheckTargetCompatible(Target{*cubin_arch, "", Vendor::kNvidia}, device_target));

    CUmodule module = nullptr;
    RelaxedCaptureMode relaxed(api_->cuThreadExchangeStreamCaptureMode);
    CUresult result = api_->cuModuleLoadData(&module, code.binary.data());
    if (result != CUDA_SUCCESS) {
      return CudaError(*api_, result,
                       absl::StrCat("cuModuleLoadData (", *cubin_arch, " cubin, ",
                                    code.binary.size(), " bytes) on ", state->info.name));
    }
    return std::make_unique<CudaModule>(api_, module, state->context.load(), device,
                                        state->dependent_launches);
  }

  absl::Status EncodeTensorMap(const TensorMapRequest& request, void* map) override {
    InitDriver();
    if (!driver_status_.ok()) return driver_status_;
    if (api_->cuTensorMapEncodeTiled == nullptr) {
      return absl::FailedPreconditionError(
          "this NVIDIA driver has no cuTensorMapEncodeTiled: tensor maps (TMA) need a CUDA 12 "
          "or newer driver; update the NVIDIA driver");
    }
    const cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
    CUtensorMap encoded;  // the driver wants it 64-byte aligned; `map` may not be
    CUresult result = api_->cuTensorMapEncodeTiled(
        &encoded, CU_TENSOR_MAP_DATA_TYPE_UINT16, cuuint32_t(request.rank),
        const_cast<void*>(request.base), request.dims, request.strides, request.box,
        element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
        request.swizzle_128b ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (result != CUDA_SUCCESS) {
      std::string dims, strides, box;
      for (int i = 0; i < request.rank; ++i) {
        absl::StrAppend(&dims, i ? "," : "", request.dims[i]);
        absl::StrAppend(&box, i ? "," : "", request.box[i]);
        if (i + 1 < request.rank) absl::StrAppend(&strides, i ? "," : "", request.strides[i]);
      }
      return CudaError(*api_, result,
                       absl::StrCat("cuTensorMapEncodeTiled (dims ", dims, ", byte strides ",
                                    strides, ", box ", box,
                                    "; strides must be multiples of 16 bytes)"));
    }
    static_assert(sizeof(encoded) == kTensorMapBytes, "CUtensorMap is 128 bytes");
    std::memcpy(map, &encoded, sizeof(encoded));
    return absl::OkStatus();
  }

  absl::Status Launch(int device, FunctionHandle function, Dim3 grid, Dim3 block,
                      uint32_t dynamic_shared_bytes, Stream stream, void** args) override {
    return EnqueueLaunch(device, function, grid, block, dynamic_shared_bytes, stream, args,
                         /*dependent=*/false);
  }

  absl::Status LaunchDependent(int device, FunctionHandle function, Dim3 grid, Dim3 block,
                               uint32_t dynamic_shared_bytes, Stream stream, void** args) override {
    return EnqueueLaunch(device, function, grid, block, dynamic_shared_bytes, stream, args,
                         /*dependent=*/true);
  }

  absl::StatusOr<void*> Allocate(int device, size_t bytes) override {
    if (bytes == 0) return nullptr;
    JITK_RETURN_IF_ERROR(Activate(device).status());
    // A kernel's first launch that needs scratch memory may be captured.
    RelaxedCaptureMode relaxed(api_->cuThreadExchangeStreamCaptureMode);
    CUdeviceptr pointer = 0;
    CUresult result = api_->cuMemAlloc_v2(&pointer, bytes);
    if (result != CUDA_SUCCESS) {
      return CudaError(*api_, result,
                       absl::StrCat("cuMemAlloc(", bytes, " bytes) on CUDA device ", device));
    }
    return reinterpret_cast<void*>(static_cast<uintptr_t>(pointer));
  }

  absl::Status Free(int device, void* pointer) override {
    if (pointer == nullptr) return absl::OkStatus();
    JITK_RETURN_IF_ERROR(Activate(device).status());
    return Check(api_->cuMemFree_v2(DevicePointer(pointer)), "cuMemFree");
  }

  absl::Status CopyToDevice(int device, void* dst, const void* src, size_t bytes) override {
    if (bytes == 0) return absl::OkStatus();
    JITK_RETURN_IF_ERROR(Activate(device).status());
    return Check(api_->cuMemcpyHtoD_v2(DevicePointer(dst), src, bytes), "cuMemcpyHtoD");
  }

  absl::Status CopyToHost(int device, void* dst, const void* src, size_t bytes) override {
    if (bytes == 0) return absl::OkStatus();
    JITK_RETURN_IF_ERROR(Activate(device).status());
    return Check(api_->cuMemcpyDtoH_v2(dst, DevicePointer(src), bytes), "cuMemcpyDtoH");
  }

  absl::Status Memset(int device, void* dst, uint8_t value, size_t bytes) override {
    if (bytes == 0) return absl::OkStatus();
    JITK_RETURN_IF_ERROR(Activate(device).status());
    return Check(api_->cuMemsetD8_v2(DevicePointer(dst), value, bytes), "cuMemsetD8");
  }

  absl::Status Synchronize(int device, Stream stream) override {
    JITK_RETURN_IF_ERROR(Activate(device).status());
    return Check(api_->cuStreamSynchronize(static_cast<CUstream>(stream)), "cuStreamSynchronize");
  }

  absl::StatusOr<double> TimeMs(int device, Stream stream,
                                absl::FunctionRef<absl::Status()> work) override {
    JITK_ASSIGN_OR_RETURN(DeviceState * state, Activate(device));
    CUevent start = nullptr, end = nullptr;
    JITK_RETURN_IF_ERROR(Check(api_->cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate"));
    absl::Cleanup destroy_start = [&] { api_->cuEventDestroy_v2(start); };
    JITK_RETURN_IF_ERROR(Check(api_->cuEventCreate(&end, CU_EVENT_DEFAULT), "cuEventCreate"));
    absl::Cleanup destroy_end = [&] { api_->cuEventDestroy_v2(end); };
    const CUstream cu_stream = static_cast<CUstream>(stream);
    JITK_RETURN_IF_ERROR(Check(api_->cuEventRecord(start, cu_stream), "cuEventRecord"));
    JITK_RETURN_IF_ERROR(work());
    // `work` may have made another context current.
    JITK_RETURN_IF_ERROR(Check(api_->cuCtxSetCurrent(state->context.load()), "cuCtxSetCurrent"));
    JITK_RETURN_IF_ERROR(Check(api_->cuEventRecord(end, cu_stream), "cuEventRecord"));
    JITK_RETURN_IF_ERROR(Check(api_->cuEventSynchronize(end), "cuEventSynchronize"));
    float ms = 0;
    JITK_RETURN_IF_ERROR(Check(api_->cuEventElapsedTime_v2(&ms, start, end), "cuEventElapsedTime"));
    return static_cast<double>(ms);
  }

 private:
  absl::Status Check(CUresult result, absl::string_view what) const {
    if (ABSL_PREDICT_TRUE(result == CUDA_SUCCESS)) return absl::OkStatus();
    return CudaError(*api_, result, what);
  }

  // Loads the driver and reads every device once. Afterwards api_ is set
  // when libcuda loaded, driver_status_ says whether it can be used, and
  // devices_ lists the devices; none of them changes again.
  void InitDriver() {
    absl::call_once(driver_once_, [this] { driver_status_ = LoadDriver(); });
  }

  absl::Status LoadDriver() {
    JITK_ASSIGN_OR_RETURN(std::unique_ptr<CudaDriverApi> api, LoadCudaDriverApi(driver_names_));
    api_ = std::move(api);
    CUresult result = api_->cuInit(0);
    if (result == CUDA_ERROR_NO_DEVICE) {
      return absl::UnavailableError(
          absl::StrCat("no CUDA device (", CudaError(*api_, result, "cuInit").message(), ")"));
    }
    JITK_RETURN_IF_ERROR(Check(result, "cuInit"));
    int count = 0, driver_version = 0;
    JITK_RETURN_IF_ERROR(Check(api_->cuDeviceGetCount(&count), "cuDeviceGetCount"));
    JITK_RETURN_IF_ERROR(Check(api_->cuDriverGetVersion(&driver_version), "cuDriverGetVersion"));
    std::vector<std::unique_ptr<DeviceState>> devices;
    for (int i = 0; i < count; ++i) {
      auto device = std::make_unique<DeviceState>();
      JITK_RETURN_IF_ERROR(Check(api_->cuDeviceGet(&device->handle, i), "cuDeviceGet"));
      int major = 0;
      JITK_ASSIGN_OR_RETURN(device->info, QueryDevice(i, device->handle, &major));
      device->dependent_launches =
          api_->cuLaunchKernelEx != nullptr && driver_version >= 12030 && major >= 9;
      devices.push_back(std::move(device));
    }
    devices_ = std::move(devices);
    if (devices_.empty()) return absl::UnavailableError("the CUDA driver reports no devices");
    return absl::OkStatus();
  }

  // The device's description; *major, its compute capability's major number.
  absl::StatusOr<DeviceInfo> QueryDevice(int ordinal, CUdevice handle, int* major) const {
    DeviceInfo info;
    info.ordinal = ordinal;
    info.backend_ordinal = ordinal;
    info.vendor = Vendor::kNvidia;
    info.backend = "cuda";
    char name[256] = {};
    JITK_RETURN_IF_ERROR(
        Check(api_->cuDeviceGetName(name, sizeof(name) - 1, handle), "cuDeviceGetName"));
    info.name = name;
    auto attribute = [&](CUdevice_attribute which, int* out) {
      return Check(api_->cuDeviceGetAttribute(out, which, handle),
                   absl::StrCat("cuDeviceGetAttribute(", static_cast<int>(which), ")"));
    };
    int minor = 0;
    JITK_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, major));
    JITK_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor));
    info.arch = absl::StrCat("sm_", *major * 10 + minor);
    // The arch-specific target where jitk knows one (sm_90 -> sm_90a, for
    // wgmma): its code runs on exactly this architecture, the one found.
    absl::StatusOr<ArchInfo> specific = LookupArch(absl::StrCat(info.arch, "a"));
    info.target = specific.ok() && specific->name != info.arch ? std::string(specific->name)
                                                               : info.arch;
    JITK_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE, &info.wave_size));
    JITK_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info.compute_units));
    JITK_RETURN_IF_ERROR(
        attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &info.max_threads_per_block));
    JITK_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                   &info.lds_bytes_per_block));
    JITK_RETURN_IF_ERROR(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
                                   &info.lds_bytes_per_cu));
    // Deprecated since CUDA 12 and informational only: 0 if the driver refuses.
    int clock_khz = 0;
    if (api_->cuDeviceGetAttribute(&clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, handle) ==
        CUDA_SUCCESS) {
      info.clock_mhz = clock_khz / 1000;
    }
    size_t memory = 0;
    JITK_RETURN_IF_ERROR(Check(api_->cuDeviceTotalMem_v2(&memory, handle), "cuDeviceTotalMem"));
    info.memory_bytes = memory;
    return info;
  }

  // The device, with its primary context retained and current on this thread.
  absl::StatusOr<DeviceState*> Activate(int device) {
    InitDriver();
    if (!driver_status_.ok()) return driver_status_;
    if (device < 0 || static_cast<size_t>(device) >= devices_.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("no CUDA device ", device, "; there are ", devices_.size()));
    }
    DeviceState& state = *devices_[device];
    CUcontext context = state.context.load(std::memory_order_acquire);
    if (ABSL_PREDICT_FALSE(context == nullptr)) {
      absl::MutexLock lock(&state.mu);
      context = state.context.load(std::memory_order_relaxed);
      if (context == nullptr) {
        RelaxedCaptureMode relaxed(api_->cuThreadExchangeStreamCaptureMode);
        JITK_RETURN_IF_ERROR(Check(api_->cuDevicePrimaryCtxRetain(&context, state.handle),
                                   "cuDevicePrimaryCtxRetain"));
        state.context.store(context, std::memory_order_release);
      }
    }
    JITK_RETURN_IF_ERROR(Check(api_->cuCtxSetCurrent(context), "cuCtxSetCurrent"));
    return &state;
  }

  const std::vector<std::string> driver_names_;
  NvrtcCompiler nvrtc_;

  absl::once_flag driver_once_;
  // Written once inside driver_once_, read-only afterwards.
  absl::Status driver_status_;
  std::shared_ptr<const CudaDriverApi> api_;
  std::vector<std::unique_ptr<DeviceState>> devices_;
};

}  // namespace

std::unique_ptr<Backend> NewCudaBackend(CudaLibraryNames names) {
  return std::make_unique<CudaBackend>(std::move(names));
}

}  // namespace jitk::internal
