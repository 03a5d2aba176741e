// Backend: the small interface between jitk's core and a GPU vendor stack.
//
// One implementation per vendor (HIP: hiprtc + HIP module API + comgr + HSA;
// CUDA: NVRTC + driver API) plus a fake one for tests. A backend compiles
// source to code-object bytes (no GPU needed), reports devices, and loads,
// launches and times code on them. It knows nothing of tuning or caching.
//
// Thread safety: every method may be called from any thread.
#ifndef JITK_LIB_BACKEND_BACKEND_H_
#define JITK_LIB_BACKEND_BACKEND_H_

#include <cstdint>
#include <memory>
#include <string>
#include "absl/strings/string_view.h"
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "jitk/arch.h"
#include "jitk/device.h"
#include "jitk/kernel.h"

namespace jitk::internal {

struct CompileRequest {
  Target target;                 // arch + features to compile for
  std::string program_name;      // shows in logs, e.g. "scaled_add.cu"
  std::string source;            // the translation unit
  // In-memory headers (name, text), resolvable by #include "name".
  std::vector<std::pair<std::string, std::string>> headers;
  // C++ name expressions to instantiate and lower, e.g.
  // "jitk::scaled_add<256, 4, 4, __half>". Order is kept in the result.
  std::vector<std::string> name_expressions;
  std::vector<std::string> options;  // extra compiler options ("-DFOO=1")
};

struct CompiledSymbol {
  std::string name_expression;
  std::string lowered_name;      // symbol in the code object
  ResourceUsage resources;
};

struct CodeObject {
  std::string target;            // full target the code is for ("gfx90a:sramecc+:xnack-", "sm_90")
  std::string isa_name;          // as the toolchain reports it ("amdgcn-amd-amdhsa--gfx90a:...")
  std::string binary;            // bytes, storable and reloadable
  std::vector<CompiledSymbol> symbols;  // one per name expression, same order
  std::string log;               // compiler output, possibly empty
  double compile_ms = 0;
};

struct CompilerInfo {
  std::string name;              // "hiprtc", "nvrtc"
  std::string version;           // "5.2.21153", "13.0"
  std::string ToString() const { return name + " " + version; }
};

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

// A tensor-memory-access descriptor (Hopper's TMA; the driver's 128-byte
// format is opaque) for a kernel argument: a tiled view of a tensor of
// 16-bit elements, innermost dimension first, whose boxes are copied
// between global and shared memory with the 128-byte swizzle or row after
// row (zeros read outside the tensor, nothing written there).
struct TensorMapRequest {
  size_t offset = 0;  // where the 128 bytes go in the packed arguments
  const void* base = nullptr;
  int rank = 0;               // 1..5
  uint64_t dims[5] = {};      // elements
  uint64_t strides[4] = {};   // bytes, of dims 1..rank-1
  uint32_t box[5] = {};       // elements per copy
  bool swizzle_128b = true;   // else the box lands row after row, unswizzled
};
inline constexpr size_t kTensorMapBytes = 128;

// A function inside a loaded module; valid while its Module lives.
using FunctionHandle = void*;

// A variable of a loaded module (a __device__ global) where the device holds
// it: read and written with the backend's copies.
struct DeviceGlobal {
  void* address = nullptr;
  size_t bytes = 0;
};

class Module {
 public:
  virtual ~Module() = default;
  virtual absl::StatusOr<FunctionHandle> GetFunction(absl::string_view lowered_name) = 0;
  // NotFound when the module has no variable of that (unmangled, extern "C") name.
  virtual absl::StatusOr<DeviceGlobal> GetGlobal(absl::string_view name) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual absl::string_view name() const = 0;  // "hip", "cuda", "fake"
  virtual Vendor vendor() const = 0;

  // --- compiling (no GPU needed) ---

  // kUnavailable when the compiler library cannot be loaded.
  virtual absl::StatusOr<CompilerInfo> Compiler() = 0;
  // Architectures the compiler can build for ("gfx90a", ..., "sm_90").
  virtual absl::StatusOr<std::vector<std::string>> CompileTargets() = 0;
  // Compile errors are kInvalidArgument with the compiler log in the message;
  // an architecture the compiler does not know is kInvalidArgument listing
  // the ones it does (checked before the compiler is called, see PLATFORM.md).
  virtual absl::StatusOr<CodeObject> Compile(const CompileRequest& request) = 0;

  // --- devices ---

  // Fills runtime/compiler availability, devices and compile targets.
  virtual BackendReport Report() = 0;
  // Devices of this backend; empty when none (not an error).
  virtual absl::StatusOr<std::vector<DeviceInfo>> Devices() = 0;

  // Loads `code` on device `device` (backend ordinal). Refuses code for
  // another target with kFailedPrecondition naming both.
  virtual absl::StatusOr<std::unique_ptr<Module>> Load(int device, const CodeObject& code) = 0;

  // Encodes `request` into the kTensorMapBytes at `map` (64-byte aligned or
  // not). kUnimplemented where the vendor has no tensor maps.
  virtual absl::Status EncodeTensorMap(const TensorMapRequest& request, void* map) {
    return absl::UnimplementedError(absl::StrCat(
        "tensor maps (TMA descriptors) need the CUDA backend on sm_90 or newer; the ", name(),
        " backend has none"));
  }

  // Enqueues a launch; `args` points at each kernel argument's value.
  virtual absl::Status Launch(int device, FunctionHandle function, Dim3 grid, Dim3 block,
                              uint32_t dynamic_shared_bytes, Stream stream, void** args) = 0;
  // Launch, for a kernel that waits for the stream's previous kernel itself
  // (griddepcontrol.wait, sm_90+): it may start while that kernel ends,
  // which hides the gap between two passes of one launch. A plain Launch
  // where the backend or the device has no such launches.
  virtual absl::Status LaunchDependent(int device, FunctionHandle function, Dim3 grid, Dim3 block,
                                       uint32_t dynamic_shared_bytes, Stream stream, void** args) {
    return Launch(device, function, grid, block, dynamic_shared_bytes, stream, args);
  }

  virtual absl::StatusOr<void*> Allocate(int device, size_t bytes) = 0;
  virtual absl::Status Free(int device, void* pointer) = 0;
  virtual absl::Status CopyToDevice(int device, void* dst, const void* src, size_t bytes) = 0;
  virtual absl::Status CopyToHost(int device, void* dst, const void* src, size_t bytes) = 0;
  virtual absl::Status Memset(int device, void* dst, uint8_t value, size_t bytes) = 0;
  virtual absl::Status Synchronize(int device, Stream stream) = 0;

  // Runs `work` (which enqueues on `stream`) between two device events and
  // returns the elapsed device time in milliseconds.
  virtual absl::StatusOr<double> TimeMs(int device, Stream stream,
                                        absl::FunctionRef<absl::Status()> work) = 0;
};

// The process-wide backends compiled in (HIP, CUDA), created on first use.
// Never null entries; possibly empty.
absl::Span<Backend* const> BuiltinBackends();

// The built-in backend for a vendor, or kUnavailable when not built in.
absl::StatusOr<Backend*> BackendFor(Vendor vendor);

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_BACKEND_H_
