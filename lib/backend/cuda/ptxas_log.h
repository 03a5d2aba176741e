// What ptxas says about each function when run with -v (NVRTC's
// --ptxas-options=-v puts it in the program log), e.g.
//
//   ptxas info    : Compiling entry function '_Z4axpyPfPKffi' for 'sm_90'
//   ptxas info    : Function properties for _Z4axpyPfPKffi
//   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 10 registers, used 1 barriers, 512 bytes smem
//
// Device functions that are not inlined get a "Function properties" entry
// with a stack line but no "Used" line.
#ifndef JITK_LIB_BACKEND_CUDA_PTXAS_LOG_H_
#define JITK_LIB_BACKEND_CUDA_PTXAS_LOG_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace jitk::internal {

struct PtxasFunctionInfo {
  int registers = 0;
  int barriers = 0;
  int shared_bytes = 0;  // static shared memory ("smem")
  int stack_frame_bytes = 0;
  int cumulative_stack_bytes = 0;  // stack frame plus callees'
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
};

// Keyed by the mangled function name. Lines it does not recognise are
// ignored, so warnings and unrelated output do no harm.
absl::flat_hash_map<std::string, PtxasFunctionInfo> ParsePtxasLog(absl::string_view log);

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_CUDA_PTXAS_LOG_H_
