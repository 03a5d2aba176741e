#include "lib/backend/hip/hip_backend.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/base/call_once.h"
#include "absl/strings/str_cat.h"
#include "lib/backend/hip/comgr_metadata.h"
#include "lib/backend/hip/hip_compiler.h"
#include "lib/backend/hip/hip_runtime_api.h"
#include "lib/backend/hip/hsa_agents.h"
#include "lib/backend/hip/hsa_api.h"
#include "lib/internal/status_macros.h"

namespace jitk::internal {
namespace {

constexpr char kGfxOverride[] = "HSA_OVERRIDE_GFX_VERSION";

// Environment variables that hide GPUs from HIP or HSA.
constexpr const char* kVisibilityVariables[] = {"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                                                "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"};

std::string VisibilityNote() {
  std::string note;
  for (const char* name : kVisibilityVariables) {
    if (const char* value = std::getenv(name); value != nullptr) {
      absl::StrAppend(&note, note.empty() ? "" : ", ", name, "=\"", value, "\"");
    }
  }
  return note.empty() ? note : absl::StrCat("; note ", note, " is set");
}

class HipModule final : public Module {
 public:
  HipModule(std::shared_ptr<const HipRuntimeApi> hip, hipModule_t module, std::string binary)
      : hip_(std::move(hip)), module_(module), binary_(std::move(binary)) {}
  ~HipModule() override { (void)hip_->hipModuleUnload(module_); }

  absl::StatusOr<FunctionHandle> GetFunction(absl::string_view lowered_name) override {
    const std::string name(lowered_name);
    hipFunction_t function = nullptr;
    HipRelaxedCaptureMode relaxed(hip_->hipThreadExchangeStreamCaptureMode);
    JITK_RETURN_IF_ERROR(hip_->Check(hip_->hipModuleGetFunction(&function, module_, name.c_str()),
                                     absl::StrCat("hipModuleGetFunction(", name, ")")));
    return static_cast<FunctionHandle>(function);
  }

  absl::StatusOr<DeviceGlobal> GetGlobal(absl::string_view name) override {
    const std::string variable(name);
    hipDeviceptr_t address = nullptr;
    size_t bytes = 0;
    const hipError_t error = hip_->hipModuleGetGlobal(&address, &bytes, module_, variable.c_str());
    if (error == hipErrorNotFound) {
      return absl::NotFoundError(absl::StrCat("the module has no variable named ", name));
    }
    JITK_RETURN_IF_ERROR(hip_->Check(error, absl::StrCat("hipModuleGetGlobal(", name, ")")));
    return DeviceGlobal{reinterpret_cast<void*>(address), bytes};
  }

 private:
  std::shared_ptr<const HipRuntimeApi> hip_;  // a module may outlive its backend
  hipModule_t module_;
  std::string binary_;  // kept alive for as long as HIP may read the image
};

// Destroys HIP events on every path.
class ScopedEvents {
 public:
  explicit ScopedEvents(const HipRuntimeApi& hip) : hip_(hip) {}
  ~ScopedEvents() {
    if (start != nullptr) (void)hip_.hipEventDestroy(start);
    if (stop != nullptr) (void)hip_.hipEventDestroy(stop);
  }
  hipEvent_t start = nullptr;
  hipEvent_t stop = nullptr;

 private:
  const HipRuntimeApi& hip_;
};

// Parses hipDeviceGetPCIBusId's "0000:c1:00.0".
bool ParsePciBusId(const char* text, uint32_t* domain, uint32_t* bus, uint32_t* device) {
  unsigned d = 0, b = 0, s = 0, f = 0;
  if (std::sscanf(text, "%x:%x:%x.%x", &d, &b, &s, &f) != 4) return false;
  *domain = d;
  *bus = b;
  *device = s;
  return true;
}

DeviceInfo ToDeviceInfo(int ordinal, const HsaGpu& gpu) {
  DeviceInfo info;
  info.ordinal = ordinal;
  info.backend_ordinal = ordinal;
  info.vendor = Vendor::kAmd;
  info.backend = "hip";
  info.name = gpu.product_name.empty() ? gpu.name : gpu.product_name;
  absl::StatusOr<Target> target = ParseTarget(gpu.isa_name.empty() ? gpu.name : gpu.isa_name);
  info.arch = target.ok() ? target->arch : gpu.name;
  info.target = target.ok() ? target->ToString() : gpu.name;
  info.wave_size = gpu.wave_size;
  info.compute_units = gpu.compute_units;
  info.max_threads_per_block = gpu.max_workgroup_size;
  info.lds_bytes_per_block = gpu.lds_bytes_per_workgroup;
  // HSA reports LDS per workgroup only; per CU comes from the table.
  absl::StatusOr<ArchInfo> arch = LookupArch(info.arch);
  info.lds_bytes_per_cu = arch.ok() ? arch->lds_bytes_per_cu : gpu.lds_bytes_per_workgroup;
  info.clock_mhz = gpu.clock_mhz;
  info.memory_bytes = gpu.memory_bytes;
  return info;
}

class HipBackend final : public Backend {
 public:
  explicit HipBackend(HipLibraryNames names)
      : names_(std::move(names)), compiler_(names_.hiprtc, names_.comgr) {}

  absl::string_view name() const override { return "hip"; }
  Vendor vendor() const override { return Vendor::kAmd; }

  absl::StatusOr<CompilerInfo> Compiler() override { return compiler_.Info(); }
  absl::StatusOr<std::vector<std::string>> CompileTargets() override { return compiler_.Targets(); }
  absl::StatusOr<CodeObject> Compile(const CompileRequest& request) override {
    return compiler_.Compile(request);
  }

  BackendReport Report() override;
  absl::StatusOr<std::vector<DeviceInfo>> Devices() override;
  absl::StatusOr<std::unique_ptr<Module>> Load(int device, const CodeObject& code) override;
  absl::Status Launch(int device, FunctionHandle function, Dim3 grid, Dim3 block,
                      uint32_t dynamic_shared_bytes, Stream stream, void** args) override;
  absl::StatusOr<void*> Allocate(int device, size_t bytes) override;
  absl::Status Free(int device, void* pointer) override;
  absl::Status CopyToDevice(int device, void* dst, const void* src, size_t bytes) override;
  absl::Status CopyToHost(int device, void* dst, const void* src, size_t bytes) override;
  absl::Status Memset(int device, void* dst, uint8_t value, size_t bytes) override;
  absl::Status Synchronize(int device, Stream stream) override;
  absl::StatusOr<double> TimeMs(int device, Stream stream,
                                absl::FunctionRef<absl::Status()> work) override;

 private:
  // What the runtime side found; filled once, read-only afterwards.
  struct Runtime {
    absl::Status library_status;  // libamdhip64 could not be loaded
    std::shared_ptr<const HipRuntimeApi> hip;
    std::unique_ptr<HsaApi> hsa;
    absl::Status devices_status;  // HIP sees GPUs but they could not be described
    std::vector<DeviceInfo> devices;
    std::string no_devices_reason;  // why `devices` is empty
  };

  const Runtime& GetRuntime();
  void InitRuntime(Runtime& runtime);
  // Why HSA sees no GPU either, e.g. "hsa_init failed: ...; /dev/kfd does not exist ...".
  std::string HsaDiagnosis(Runtime& runtime);
  // Checks `device` and makes it current on this thread.
  absl::StatusOr<const HipRuntimeApi*> UseDevice(int device);

  const HipLibraryNames names_;
  HipCompiler compiler_;
  absl::once_flag runtime_once_;
  std::unique_ptr<Runtime> runtime_;  // written once, under runtime_once_
};

const HipBackend::Runtime& HipBackend::GetRuntime() {
  absl::call_once(runtime_once_, [this] {
    auto runtime = std::make_unique<Runtime>();
    InitRuntime(*runtime);
    runtime_ = std::move(runtime);
  });
  return *runtime_;
}

std::string HipBackend::HsaDiagnosis(Runtime& runtime) {
  absl::StatusOr<std::unique_ptr<HsaApi>> hsa = LoadHsaApi(names_.hsa);
  if (!hsa.ok()) return std::string(hsa.status().message());
  runtime.hsa = *std::move(hsa);
  if (absl::Status init = InitHsa(*runtime.hsa); !init.ok()) return std::string(init.message());
  absl::StatusOr<std::vector<HsaGpu>> gpus = ListHsaGpus(*runtime.hsa);
  if (!gpus.ok()) return std::string(gpus.status().message());
  if (gpus->empty()) return "HSA finds no GPU agent either";
  return absl::StrCat("HSA finds ", gpus->size(), " GPU agent(s) that HIP does not use");
}

void HipBackend::InitRuntime(Runtime& runtime) {
  absl::StatusOr<std::unique_ptr<HipRuntimeApi>> hip = LoadHipRuntimeApi(names_.hip);
  if (!hip.ok()) {
    runtime.library_status = hip.status();
    return;
  }
  runtime.hip = *std::move(hip);
  const HipRuntimeApi& api = *runtime.hip;

  int count = 0;
  hipError_t error = api.hipGetDeviceCount(&count);
  if (error == hipErrorNoDevice || (error == hipSuccess && count <= 0)) {
    runtime.no_devices_reason =
        absl::StrCat("hipGetDeviceCount returned ",
                     error == hipSuccess ? std::string("0 devices") : api.ErrorName(error), "; ",
                     HsaDiagnosis(runtime), VisibilityNote());
    return;
  }
  if (error != hipSuccess) {
    runtime.devices_status = api.Check(error, "hipGetDeviceCount");
    return;
  }

  absl::StatusOr<std::unique_ptr<HsaApi>> hsa = LoadHsaApi(names_.hsa);
  if (!hsa.ok()) {
    runtime.devices_status = hsa.status();
    return;
  }
  runtime.hsa = *std::move(hsa);
  if (absl::Status init = InitHsa(*runtime.hsa); !init.ok()) {
    runtime.devices_status = init;
    return;
  }
  absl::StatusOr<std::vector<HsaGpu>> gpus = ListHsaGpus(*runtime.hsa);
  if (!gpus.ok()) {
    runtime.devices_status = gpus.status();
    return;
  }

  // HIP numbers the HSA GPU agents in order, less those hidden by
  // HIP_VISIBLE_DEVICES; the PCI address pairs them when HIP reports it.
  std::vector<bool> used(gpus->size(), false);
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    int match = -1;
    char bus_id[64] = {};
    uint32_t domain = 0, bus = 0, slot = 0;
    if (api.hipDeviceGetPCIBusId(bus_id, sizeof(bus_id), ordinal) == hipSuccess &&
        ParsePciBusId(bus_id, &domain, &bus, &slot)) {
      for (size_t i = 0; i < gpus->size() && match < 0; ++i) {
        const HsaGpu& gpu = (*gpus)[i];
        if (!used[i] && gpu.pci_domain == domain && (gpu.pci_bdf >> 8) == bus &&
            ((gpu.pci_bdf >> 3) & 0x1f) == slot) {
          match = int(i);
        }
      }
    }
    for (size_t i = 0; i < gpus->size() && match < 0; ++i) {
      if (!used[i]) match = int(i);
    }
    if (match < 0) {
      runtime.devices_status = absl::InternalError(absl::StrCat(
          "HIP reports ", count, " devices but HSA only ", gpus->size(), " GPU agents"));
      runtime.devices.clear();
      return;
    }
    used[match] = true;
    runtime.devices.push_back(ToDeviceInfo(ordinal, (*gpus)[match]));
  }
}

absl::StatusOr<const HipRuntimeApi*> HipBackend::UseDevice(int device) {
  const Runtime& runtime = GetRuntime();
  if (!runtime.library_status.ok()) return runtime.library_status;
  if (!runtime.devices_status.ok()) return runtime.devices_status;
  if (runtime.devices.empty()) {
    return absl::NotFoundError(
        absl::StrCat("no AMD GPU for HIP device ", device, ": ", runtime.no_devices_reason));
  }
  if (device < 0 || device >= int(runtime.devices.size())) {
    return absl::InvalidArgumentError(absl::StrCat("HIP device ", device, " does not exist; there ",
                                                   runtime.devices.size() == 1 ? "is " : "are ",
                                                   runtime.devices.size(), " (0 to ",
                                                   runtime.devices.size() - 1, ")"));
  }
  const HipRuntimeApi* hip = runtime.hip.get();
  JITK_RETURN_IF_ERROR(
      hip->Check(hip->hipSetDevice(device), absl::StrCat("hipSetDevice(", device, ")")));
  return hip;
}

BackendReport HipBackend::Report() {
  BackendReport report;
  report.backend = "hip";
  absl::StatusOr<CompilerInfo> compiler = compiler_.Info();
  report.compiler_available = compiler.ok();
  if (compiler.ok()) {
    report.compiler_status = "ok";
    report.compiler_version = compiler->ToString();
    report.compile_targets = compiler_.Targets().value_or(std::vector<std::string>{});
  } else {
    report.compiler_status = std::string(compiler.status().message());
  }

  const Runtime& runtime = GetRuntime();
  report.runtime_available = runtime.hip != nullptr;
  if (!runtime.library_status.ok()) {
    report.runtime_status = std::string(runtime.library_status.message());
  } else if (!runtime.devices_status.ok()) {
    report.runtime_status = std::string(runtime.devices_status.message());
  } else if (runtime.devices.empty()) {
    report.runtime_status = absl::StrCat("no AMD GPU found: ", runtime.no_devices_reason);
  } else {
    report.runtime_status = "ok";
  }
  report.devices = runtime.devices;
  if (const char* value = std::getenv(kGfxOverride); value != nullptr && *value != '\0') {
    report.gfx_override = value;
    absl::StrAppend(&report.runtime_status, "; ", kGfxOverride, "=", value,
                    " is set: it applies to every AMD GPU in this process, which all report and "
                    "load code as that ISA");
  }
  return report;
}

absl::StatusOr<std::vector<DeviceInfo>> HipBackend::Devices() {
  const Runtime& runtime = GetRuntime();
  if (!runtime.library_status.ok()) return runtime.library_status;
  if (!runtime.devices_status.ok()) return runtime.devices_status;
  return runtime.devices;
}

absl::StatusOr<std::unique_ptr<Module>> HipBackend::Load(int device, const CodeObject& code) {
  JITK_ASSIGN_OR_RETURN(const HipRuntimeApi* hip, UseDevice(device));
  const DeviceInfo& info = GetRuntime().devices[device];
  const std::string& code_target_text = code.target.empty() ? code.isa_name : code.target;
  absl::StatusOr<Target> code_target = ParseTarget(code_target_text);
  if (!code_target.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("code object has no usable target (\"",
                                                   code_target_text,
                                                   "\"): ", code_target.status().message()));
  }
  JITK_ASSIGN_OR_RETURN(Target device_target, ParseTarget(info.target));
  JITK_RETURN_IF_ERROR(CheckTargetCompatible(*code_target, device_target));
  if (!IsElf(code.binary)) {
    return absl::InvalidArgumentError(absl::StrCat("not an AMD code object: ", code.binary.size(),
                                                   " bytes without an ELF header"));
  }
  std::string binary = code.binary;
  hipModule_t module = nullptr;
  HipRelaxedCaptureMode relaxed(hip->hipThreadExchangeStreamCaptureMode);
  JITK_RETURN_IF_ERROR(hip->Check(hip->hipModuleLoadData(&module, binary.data()),
                                  absl::StrCat("hipModuleLoadData (", code_target_text, " code on ",
                                               info.name, ", ", info.target, ")")));
  return std::make_unique<HipModule>(GetRuntime().hip, module, std::move(binary));
}

absl::Status HipBackend::Launch(int device, FunctionHandle function, Dim3 grid, Dim3 block,
                                uint32_t dynamic_shared_bytes, Stream stream, void** args) {
  if (function == nullptr) return absl::InvalidArgumentError("launch of a null function handle");
  JITK_ASSIGN_OR_RETURN(const HipRuntimeApi* hip, UseDevice(device));
  return hip->Check(
      hip->hipModuleLaunchKernel(static_cast<hipFunction_t>(function), grid.x, grid.y, grid.z,
                                 block.x, block.y, block.z, dynamic_shared_bytes,
                                 static_cast<hipStream_t>(stream), args, nullptr),
      absl::StrCat("hipModuleLaunchKernel(grid ", grid.x, "x", grid.y, "x", grid.z, ", block ",
                   block.x, "x", block.y, "x", block.z, ", ", dynamic_shared_bytes,
                   " bytes dynamic LDS)"));
}

absl::StatusOr<void*> HipBackend::Allocate(int device, size_t bytes) {
  JITK_ASSIGN_OR_RETURN(const HipRuntimeApi* hip, UseDevice(device));
  // A kernel's first launch that needs scratch memory may be captured.
  HipRelaxedCaptureMode relaxed(hip->hipThreadExchangeStreamCaptureMode);
  void* pointer = nullptr;
  JITK_RETURN_IF_ERROR(hip->Check(hip->hipMalloc(&pointer, bytes),
                                  absl::StrCat("hipMalloc(", bytes, " bytes) on device ", device)));
  return pointer;
}

absl::Status HipBackend::Free(int device, void* pointer) {
  JITK_ASSIGN_OR_RETURN(const HipRuntimeApi* hip, UseDevice(device));
  return hip->Check(hip->hipFree(pointer), "hipFree");
}

absl::Status HipBackend::CopyToDevice(int device, void* dst, const void* src, size_t bytes) {
  JITK_ASSIGN_OR_RETURN(const HipRuntimeApi* hip, UseDevice(device));
  return hip->Check(hip->hipMemcpy(dst, src, bytes, hipMemcpyHostToDevice),
                    absl::StrCat("hipMemcpy host to device (", bytes, " bytes)"));
}

absl::Status HipBackend::CopyToHost(int device, void* dst, const void* src, size_t bytes) {
  JITK_ASSIGN_OR_RETURN(const HipRuntimeApi* hip, UseDevice(device));
  return hip->Check(hip->hipMemcpy(dst, src, bytes, hipMemcpyDeviceToHost),
                    absl::StrCat("hipMemcpy device to host (", bytes, " bytes)"));
}

absl::Status HipBackend::Memset(int device, void* dst, uint8_t value, size_t bytes) {
  JITK_ASSIGN_OR_RETURN(const HipRuntimeApi* hip, UseDevice(device));
  return hip->Check(hip->hipMemset(dst, value, bytes),
                    absl::StrCat("hipMemset(", bytes, " bytes)"));
}

absl::Status HipBackend::Synchronize(int device, Stream stream) {
  JITK_ASSIGN_OR_RETURN(const HipRuntimeApi* hip, UseDevice(device));
  return hip->Check(hip->hipStreamSynchronize(static_cast<hipStream_t>(stream)),
                    "hipStreamSynchronize");
}

absl::StatusOr<double> HipBackend::TimeMs(int device, Stream stream,
                                          absl::FunctionRef<absl::Status()> work) {
  JITK_ASSIGN_OR_RETURN(const HipRuntimeApi* hip, UseDevice(device));
  hipStream_t hip_stream = static_cast<hipStream_t>(stream);
  ScopedEvents events(*hip);
  JITK_RETURN_IF_ERROR(hip->Check(hip->hipEventCreate(&events.start), "hipEventCreate"));
  JITK_RETURN_IF_ERROR(hip->Check(hip->hipEventCreate(&events.stop), "hipEventCreate"));
  JITK_RETURN_IF_ERROR(hip->Check(hip->hipEventRecord(events.start, hip_stream), "hipEventRecord"));
  JITK_RETURN_IF_ERROR(work());
  JITK_RETURN_IF_ERROR(hip->Check(hip->hipEventRecord(events.stop, hip_stream), "hipEventRecord"));
  JITK_RETURN_IF_ERROR(hip->Check(hip->hipEventSynchronize(events.stop), "hipEventSynchronize"));
  float ms = 0;
  JITK_RETURN_IF_ERROR(
      hip->Check(hip->hipEventElapsedTime(&ms, events.start, events.stop), "hipEventElapsedTime"));
  return double(ms);
}

}  // namespace

std::unique_ptr<Backend> NewHipBackend(HipLibraryNames names) {
  return std::make_unique<HipBackend>(std::move(names));
}

}  // namespace jitk::internal
