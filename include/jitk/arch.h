// jitk/arch.h — what jitk knows about GPU architectures without a GPU.
//
// The table holds the facts the compiler and tuner need when the target is
// named on the command line (`--arch gfx942`) rather than detected: wave size,
// LDS / shared memory, compute-unit count of the flagship part, matrix units.
//
// Example:
//   absl::StatusOr<jitk::ArchInfo> arch = jitk::LookupArch("gfx942");
//   if (arch.ok()) printf("%d lanes per wave\n", arch->wave_size);
#ifndef JITK_ARCH_H_
#define JITK_ARCH_H_

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace jitk {

enum class Vendor { kAmd, kNvidia };

absl::string_view VendorName(Vendor vendor);  // "amd", "nvidia"

struct ArchInfo {
  absl::string_view name;          // "gfx942", "sm_90"
  Vendor vendor;
  absl::string_view family;        // "cdna3", "rdna3", "hopper", ...
  absl::string_view example_part;  // "MI300X", "H100/H200"
  int wave_size;                  // lanes per wavefront / warp (RDNA default: 32)
  int max_threads_per_block;
  int lds_bytes_per_block;        // largest LDS / shared memory one block may use
  int lds_bytes_per_cu;           // LDS / shared memory per CU / SM
  int compute_units;              // CUs / SMs of the example part
  int max_registers_per_thread;   // VGPRs (+AGPRs on CDNA) / registers per thread
  int register_file_per_cu;       // 32-bit registers per CU / SM
  bool matrix_cores;              // MFMA, WMMA or tensor cores
  absl::string_view matrix_isa;    // "mfma", "wmma", "mma.sync", "wgmma", "none"
};

// All architectures in the table.
absl::Span<const ArchInfo> KnownArchs();

// Looks up a bare architecture name ("gfx942") or a full target
// ("gfx942:sramecc+:xnack-", "amdgcn-amd-amdhsa--gfx942", "sm_90a").
// "sm_90a" keeps its name and has sm_90's resources with matrix_isa "wgmma"
// (code built for plain sm_90 may only use mma.sync). Unknown names give
// kNotFound listing the known ones.
absl::StatusOr<ArchInfo> LookupArch(absl::string_view name);

// A compile target: the architecture plus AMD target features.
struct Target {
  std::string arch;      // "gfx942", "sm_90", "sm_90a"
  std::string features;  // ":sramecc+:xnack-" or "" (empty = any)
  Vendor vendor = Vendor::kAmd;  // set by ParseTarget from the name

  std::string ToString() const { return arch + features; }
};

// Parses "gfx942", "gfx942:sramecc+:xnack-", "amdgcn-amd-amdhsa--gfx90a:xnack-",
// "sm_90", "sm_90a". Anything else is kInvalidArgument naming the input.
absl::StatusOr<Target> ParseTarget(absl::string_view text);

// OK when code compiled for `code` can run on a device whose target is
// `device`; otherwise kFailedPrecondition naming both and how to fix it.
// AMD: the architecture must be equal and each feature the code object sets
// (sramecc, xnack) must equal the device's. NVIDIA: a cubin for sm_XY runs on
// sm_XZ with Z >= Y; an "a" target (sm_90a) only on exactly that architecture.
absl::Status CheckTargetCompatible(const Target& code, const Target& device);

}  // namespace jitk

#endif  // JITK_ARCH_H_
