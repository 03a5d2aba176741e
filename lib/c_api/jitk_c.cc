// The C ABI (include/jitk/jitk_c.h) over the C++ API.
//
// Each entry point checks its pointers, converts C values to jitk types,
// calls the C++ API and records the resulting status for
// jitk_last_error_message(). No C++ exception crosses the boundary.
#include "jitk/jitk_c.h"
#include "jitk/tuning.h"

#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "jitk/jitk.h"
#include "lib/c_api/c_args.h"
#include "lib/c_api/handles.h"
#include "lib/c_api/info_json.h"
#include "lib/c_api/last_error.h"
#include "lib/internal/device_impl.h"
#include "lib/internal/status_macros.h"
#include "lib/kernel_template.h"

namespace jitk::c_api {
namespace {

// Runs `body` (returning absl::Status) and records its result; exceptions
// become statuses instead of unwinding into C.
template <typename Body>
jitk_status Guard(Body&& body) {
  try {
    return Record(body());
  } catch (const std::bad_alloc&) {
    return Record(absl::ResourceExhaustedError("out of host memory"));
  } catch (const std::exception& e) {
    return Record(absl::InternalError(absl::StrCat("unexpected C++ exception: ", e.what())));
  } catch (...) {
    return Record(absl::InternalError("unexpected C++ exception"));
  }
}

// NULL or "" means "no config": let jitk choose.
absl::StatusOr<std::optional<KernelConfig>> ParseConfig(const char* config) {
  if (config == nullptr || config[0] == '\0') return std::optional<KernelConfig>();
  JITK_ASSIGN_OR_RETURN(KernelConfig parsed, ParseKernelConfig(config));
  return std::optional<KernelConfig>(std::move(parsed));
}

void CopyResources(const ResourceUsage& r, jitk_resources* out) {
  out->registers = r.registers;
  out->scalar_registers = r.scalar_registers;
  out->accum_registers = r.accum_registers;
  out->lds_bytes = r.lds_bytes;
  out->scratch_bytes = r.scratch_bytes;
  out->spills = r.spills;
  out->wave_size = r.wave_size;
  out->max_threads_per_block = r.max_threads_per_block;
}

}  // namespace
}  // namespace jitk::c_api

using jitk::c_api::Guard;
using jitk::c_api::NullArgument;

extern "C" {

const char* jitk_status_name(int status) {
  static const char* const kNames[] = {
      "OK",          "CANCELLED",         "UNKNOWN",          "INVALID_ARGUMENT",
      "DEADLINE_EXCEEDED", "NOT_FOUND",   "ALREADY_EXISTS",   "PERMISSION_DENIED",
      "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
      "UNIMPLEMENTED", "INTERNAL",        "UNAVAILABLE",      "DATA_LOSS",
      "UNAUTHENTICATED"};
  if (status < 0 || status >= int(sizeof(kNames) / sizeof(kNames[0]))) return "UNKNOWN_CODE";
  return kNames[status];
}

jitk_status jitk_last_error_code(void) { return jitk::c_api::LastCode(); }

const char* jitk_last_error_message(void) { return jitk::c_api::LastMessage(); }

const char* jitk_version(void) { return JITK_VERSION_STRING; }

int jitk_abi_version(void) { return JITK_C_ABI_VERSION; }

const char* jitk_kernel_names(void) {
  static const std::string* const kNames =
      new std::string(absl::StrJoin(jitk::KernelNames(), ","));
  return kNames->c_str();
}

const char* jitk_discover_json(void) {
  thread_local std::string json;
  try {
    json = jitk::c_api::InventoryJson(jitk::DiscoverDevices());
  } catch (...) {
    json = "{\"error\":\"out of host memory\"}";
  }
  return json.c_str();
}

jitk_status jitk_malloc(int device, size_t bytes, void** out) {
  if (out == nullptr) return NullArgument("jitk_malloc", "out");
  *out = nullptr;
  return Guard([&]() -> absl::Status {
    JITK_ASSIGN_OR_RETURN(jitk::Device gpu, jitk::Device::Open(device));
    JITK_ASSIGN_OR_RETURN(*out, gpu.impl()->backend->Allocate(gpu.info().backend_ordinal, bytes));
    return absl::OkStatus();
  });
}

jitk_status jitk_free(int device, void* pointer) {
  return Guard([&]() -> absl::Status {
    if (pointer == nullptr) return absl::OkStatus();
    JITK_ASSIGN_OR_RETURN(jitk::Device gpu, jitk::Device::Open(device));
    return gpu.impl()->backend->Free(gpu.info().backend_ordinal, pointer);
  });
}

jitk_status jitk_copy_to_device(int device, void* device_dst, const void* host_src,
                                size_t bytes) {
  if (bytes > 0 && device_dst == nullptr) return NullArgument("jitk_copy_to_device", "device_dst");
  if (bytes > 0 && host_src == nullptr) return NullArgument("jitk_copy_to_device", "host_src");
  return Guard([&]() -> absl::Status {
    JITK_ASSIGN_OR_RETURN(jitk::Device gpu, jitk::Device::Open(device));
    return gpu.CopyToDevice(device_dst, host_src, bytes);
  });
}

jitk_status jitk_copy_to_host(int device, void* host_dst, const void* device_src, size_t bytes) {
  if (bytes > 0 && host_dst == nullptr) return NullArgument("jitk_copy_to_host", "host_dst");
  if (bytes > 0 && device_src == nullptr) return NullArgument("jitk_copy_to_host", "device_src");
  return Guard([&]() -> absl::Status {
    JITK_ASSIGN_OR_RETURN(jitk::Device gpu, jitk::Device::Open(device));
    return gpu.CopyToHost(host_dst, device_src, bytes);
  });
}

jitk_status jitk_synchronize(int device, void* stream) {
  return Guard([&]() -> absl::Status {
    JITK_ASSIGN_OR_RETURN(jitk::Device gpu, jitk::Device::Open(device));
    return gpu.Synchronize(stream);
  });
}

// --- compiling -------------------------------------------------------------

jitk_status jitk_compile_kernel(const char* name, const char* shape_key, const char* arch,
                                const char* config, jitk_compiled** out) {
  if (out == nullptr) return NullArgument("jitk_compile_kernel", "out");
  *out = nullptr;
  if (name == nullptr) return NullArgument("jitk_compile_kernel", "name");
  if (shape_key == nullptr) return NullArgument("jitk_compile_kernel", "shape_key");
  if (arch == nullptr) return NullArgument("jitk_compile_kernel", "arch");
  return Guard([&]() -> absl::Status {
    JITK_ASSIGN_OR_RETURN(jitk::Shape shape, jitk::Shape::Parse(shape_key));
    JITK_ASSIGN_OR_RETURN(std::optional<jitk::KernelConfig> parsed,
                          jitk::c_api::ParseConfig(config));
    JITK_ASSIGN_OR_RETURN(jitk::CompiledKernel compiled,
                          jitk::compile_kernel(name, shape, {.arch = arch, .config = parsed}));
    // compile_kernel succeeded, so the template and the arch exist.
    JITK_ASSIGN_OR_RETURN(const jitk::internal::KernelTemplate* kernel_template,
                          jitk::internal::FindKernelTemplate(name));
    JITK_ASSIGN_OR_RETURN(jitk::ArchInfo arch_info, jitk::LookupArch(arch));
    auto handle = std::make_unique<jitk_compiled>();
    handle->config = jitk::KernelConfigToString(compiled.config);
    handle->info_json = jitk::c_api::CompiledJson(compiled, shape);
    handle->compiled = std::move(compiled);
    handle->shape = std::move(shape);
    handle->kernel_template = kernel_template;
    handle->arch = arch_info;
    *out = handle.release();
    return absl::OkStatus();
  });
}

void jitk_compiled_release(jitk_compiled* compiled) { delete compiled; }

const char* jitk_compiled_config(const jitk_compiled* compiled) {
  if (compiled == nullptr) {
    NullArgument("jitk_compiled_config", "compiled");
    return nullptr;
  }
  return compiled->config.c_str();
}

const char* jitk_compiled_info_json(const jitk_compiled* compiled) {
  if (compiled == nullptr) {
    NullArgument("jitk_compiled_info_json", "compiled");
    return nullptr;
  }
  return compiled->info_json.c_str();
}

jitk_status jitk_compiled_resources(const jitk_compiled* compiled, jitk_resources* out) {
  if (compiled == nullptr) return NullArgument("jitk_compiled_resources", "compiled");
  if (out == nullptr) return NullArgument("jitk_compiled_resources", "out");
  jitk::c_api::CopyResources(compiled->compiled.resources, out);
  return jitk::c_api::Ok();
}

jitk_status jitk_compiled_code_object(const jitk_compiled* compiled, const void** data,
                                      size_t* size) {
  if (compiled == nullptr) return NullArgument("jitk_compiled_code_object", "compiled");
  if (data == nullptr) return NullArgument("jitk_compiled_code_object", "data");
  if (size == nullptr) return NullArgument("jitk_compiled_code_object", "size");
  *data = compiled->compiled.code_object.data();
  *size = compiled->compiled.code_object.size();
  return jitk::c_api::Ok();
}

jitk_status jitk_compiled_plan_launch(const jitk_compiled* compiled, const jitk_arg* args,
                                      size_t num_args, jitk_launch_dims* out) {
  if (compiled == nullptr) return NullArgument("jitk_compiled_plan_launch", "compiled");
  if (out == nullptr) return NullArgument("jitk_compiled_plan_launch", "out");
  return Guard([&]() -> absl::Status {
    JITK_ASSIGN_OR_RETURN(jitk::LaunchArgs launch_args,
                          jitk::c_api::ToLaunchArgs(args, num_args));
    jitk::internal::LaunchPlan plan;
    JITK_RETURN_IF_ERROR(compiled->kernel_template->PlanLaunch(
        compiled->compiled.config, compiled->shape, compiled->arch, launch_args, plan));
    *out = jitk_launch_dims{{plan.grid.x, plan.grid.y, plan.grid.z},
                            {plan.block.x, plan.block.y, plan.block.z},
                            plan.dynamic_shared_bytes};
    return absl::OkStatus();
  });
}

// --- kernels on a GPU ------------------------------------------------------

jitk_status jitk_get_kernel(const char* name, const char* shape_key, const char* config,
                            int device, jitk_kernel** out) {
  if (out == nullptr) return NullArgument("jitk_get_kernel", "out");
  *out = nullptr;
  if (name == nullptr) return NullArgument("jitk_get_kernel", "name");
  if (shape_key == nullptr) return NullArgument("jitk_get_kernel", "shape_key");
  return Guard([&]() -> absl::Status {
    JITK_ASSIGN_OR_RETURN(jitk::Shape shape, jitk::Shape::Parse(shape_key));
    JITK_ASSIGN_OR_RETURN(std::optional<jitk::KernelConfig> parsed,
                          jitk::c_api::ParseConfig(config));
    JITK_ASSIGN_OR_RETURN(jitk::Kernel kernel,
                          jitk::get_kernel(name, shape, {.device = device, .config = parsed}));
    auto handle = std::make_unique<jitk_kernel>(std::move(kernel), std::move(shape));
    handle->config = jitk::KernelConfigToString(handle->kernel.config());
    handle->config_source = std::string(jitk::ConfigSourceName(handle->kernel.config_source()));
    *out = handle.release();
    return absl::OkStatus();
  });
}

void jitk_kernel_release(jitk_kernel* kernel) { delete kernel; }

const char* jitk_kernel_config(const jitk_kernel* kernel) {
  if (kernel == nullptr) {
    NullArgument("jitk_kernel_config", "kernel");
    return nullptr;
  }
  return kernel->config.c_str();
}

const char* jitk_kernel_config_source(const jitk_kernel* kernel) {
  if (kernel == nullptr) {
    NullArgument("jitk_kernel_config_source", "kernel");
    return nullptr;
  }
  return kernel->config_source.c_str();
}

const char* jitk_kernel_info_json(const jitk_kernel* kernel) {
  if (kernel == nullptr) {
    NullArgument("jitk_kernel_info_json", "kernel");
    return nullptr;
  }
  absl::call_once(kernel->info_once, [kernel] {
    kernel->info_json = jitk::c_api::KernelJson(kernel->kernel, kernel->shape);
  });
  return kernel->info_json.c_str();
}

jitk_status jitk_kernel_resources(const jitk_kernel* kernel, jitk_resources* out) {
  if (kernel == nullptr) return NullArgument("jitk_kernel_resources", "kernel");
  if (out == nullptr) return NullArgument("jitk_kernel_resources", "out");
  jitk::c_api::CopyResources(kernel->kernel.compiled().resources, out);
  return jitk::c_api::Ok();
}

jitk_status jitk_kernel_launch(const jitk_kernel* kernel, const jitk_arg* args, size_t num_args,
                               void* stream) {
  if (kernel == nullptr) return NullArgument("jitk_kernel_launch", "kernel");
  return Guard([&]() -> absl::Status {
    JITK_ASSIGN_OR_RETURN(jitk::LaunchArgs launch_args,
                          jitk::c_api::ToLaunchArgs(args, num_args));
    return kernel->kernel.Launch(launch_args, stream);
  });
}

}  // extern "C"

namespace {

// Python and C callers get JITK_TUNE=lazy|force without a separate call.
const bool kInLibraryTuningEnabled = (jitk::EnableInLibraryTuning(), true);

}  // namespace
