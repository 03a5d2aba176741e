// NvrtcCompiler: CUDA C++ source to cubin with NVRTC, no GPU needed.
//
// NVRTC is opened on first use (thread-safe); until then nothing is loaded.
// Every compile runs ptxas with -v so the code object carries each kernel's
// registers, shared memory, stack and spills.
//
// Example:
//   NvrtcCompiler nvrtc;  // the default library names and directories
//   absl::StatusOr<CodeObject> code = nvrtc.Compile(request);  // request.target: sm_90
#ifndef JITK_LIB_BACKEND_CUDA_NVRTC_COMPILER_H_
#define JITK_LIB_BACKEND_CUDA_NVRTC_COMPILER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/status/statusor.h"
#include "lib/backend/backend.h"

namespace jitk::internal {

struct NvrtcApi;  // nvrtc_api.h; kept out of this header so it needs no CUDA headers

class NvrtcCompiler {
 public:
  // Library file names to try, also under each of `extra_dirs`; empty means
  // the defaults (DefaultNvrtcNames(), DefaultCudaLibraryDirs()).
  explicit NvrtcCompiler(std::vector<std::string> file_names = {},
                         std::vector<std::string> extra_dirs = {});
  ~NvrtcCompiler();
  NvrtcCompiler(const NvrtcCompiler&) = delete;
  NvrtcCompiler& operator=(const NvrtcCompiler&) = delete;

  const std::vector<std::string>& file_names() const { return file_names_; }
  const std::vector<std::string>& extra_dirs() const { return extra_dirs_; }

  // kUnavailable (naming the files tried) when NVRTC cannot be loaded.
  absl::StatusOr<CompilerInfo> Info();
  // nvrtcGetSupportedArchs as "sm_75", "sm_80", ...
  absl::StatusOr<std::vector<std::string>> Targets();

  // Options always passed: --gpu-architecture=<arch>, --std=c++17 (unless the
  // request sets a standard), --ptxas-options=-v; then request.options.
  // Unannotated functions are not made device functions (no -default-device):
  // the same templates go through hiprtc, which has no such mode.
  //
  // The code object's target is read back from the cubin ("sm_100f" gives
  // "sm_100", whose cubin is the same).
  //
  // kInvalidArgument: a target that is not "sm_XY" with an optional "a" or
  // "f", or that NVRTC does not support (checked first, message lists the
  // supported ones); an architecture option in request.options (NVRTC would
  // let it override the target); or a compile error (message has the
  // options and log).
  absl::StatusOr<CodeObject> Compile(const CompileRequest& request);

 private:
  // Loads NVRTC once; the result is kept, so a missing library is reported
  // the same way every time without retrying dlopen.
  absl::StatusOr<const NvrtcApi*> Api();
  absl::Status CheckTarget(const Target& target) const;

  const std::vector<std::string> file_names_;
  const std::vector<std::string> extra_dirs_;

  absl::once_flag once_;
  absl::Status status_;               // set once in Api()
  std::unique_ptr<NvrtcApi> api_;     // set once in Api()
  std::vector<int> supported_archs_;  // set once in Api(), e.g. {75, 80, ..., 121}
};

// The most threads per block a kernel using `registers` registers per thread
// can be launched with on NVIDIA GPUs of compute capability 7.5 and newer
// (65536 registers per block, allocated per warp in units of 256 and across
// four SM sub-partitions), capped at `declared` when it is > 0 and at 1024.
int MaxThreadsForRegisters(int registers, int declared);

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_CUDA_NVRTC_COMPILER_H_
