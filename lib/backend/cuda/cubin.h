// Facts read straight from a cubin (CUDA ELF) image, so a stored code object
// can be checked without trusting the metadata stored beside it.
//
// Example:
//   absl::StatusOr<std::string> arch = CubinArch(code.binary);  // "sm_90a"
#ifndef JITK_LIB_BACKEND_CUDA_CUBIN_H_
#define JITK_LIB_BACKEND_CUDA_CUBIN_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace jitk::internal {

// The SASS architecture a cubin holds code for: "sm_80", "sm_90", "sm_90a".
//
// The SM number is in e_flags: bits 0..7 for the ELF ABI version 7 and older
// (CUDA 12 and before; the arch-specific "a" flag is bit 11), bits 8..15 for
// ABI version 8 (CUDA 13; "a" is bit 3). CUDA 13.0's ptxas leaves that bit
// clear and marks "a" code in the .nv.compat section instead (attribute 0x09
// = 1), so both are read. A family target (sm_100f) gives the same cubin as
// the plain one and reads back as "sm_100".
//
// kInvalidArgument when `cubin` is not a 64-bit little-endian ELF image for
// EM_CUDA (190), is truncated, or names no SM.
absl::StatusOr<std::string> CubinArch(absl::string_view cubin);

// The block size limit a kernel declares (__launch_bounds__, i.e. PTX
// .maxntid; EIATTR_MAX_THREADS in .nv.info.<kernel>), or 0 when it declares
// none. `kernel` is the lowered (mangled) name. kInvalidArgument as above.
absl::StatusOr<int> CubinDeclaredMaxThreads(absl::string_view cubin, absl::string_view kernel);

// What the cubin records of a kernel's resources (.nv.info: EIATTR_REGCOUNT
// and EIATTR_FRAME_SIZE for the kernel's symbol); zeros for what it does not
// record. For a compile without a ptxas report (NVRTC 12.9 and later write
// none when they serve it from their own cache); spill bytes and static
// shared memory are not read. kInvalidArgument as above.
struct CubinKernelInfo {
  int registers = 0;    // per thread
  int frame_bytes = 0;  // local memory per thread (spills and local arrays)
};
absl::StatusOr<CubinKernelInfo> CubinKernelResources(absl::string_view cubin,
                                                     absl::string_view kernel);

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_CUDA_CUBIN_H_
