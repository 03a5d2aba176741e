// HipCompiler: hiprtc source → AMD code object, with comgr metadata.
//
// No GPU is needed. hiprtc and comgr are loaded on first use. Every target
// is checked against comgr's ISA list before hiprtc sees it: ROCm 5.2's
// hiprtc aborts the whole process (a double free in comgr) for an
// architecture or target feature it does not know, instead of failing.
//
// Thread safety: all methods may be called concurrently; compiles run one at
// a time (ROCm 5.2 comgr corrupts its heap otherwise).
#ifndef JITK_LIB_BACKEND_HIP_HIP_COMPILER_H_
#define JITK_LIB_BACKEND_HIP_HIP_COMPILER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/status/statusor.h"
#include "lib/backend/backend.h"
#include "lib/backend/hip/comgr_api.h"
#include "lib/backend/hip/hiprtc_api.h"

namespace jitk::internal {

class HipCompiler {
 public:
  HipCompiler(std::vector<std::string> hiprtc_files, std::vector<std::string> comgr_files);

  // "hiprtc", "5.2.21153 (api 9.0; comgr 2.4.0; -O3 -std=c++17)": library
  // file versions, API versions and the fixed options, all of which change
  // the code objects (cache keys are built from it).
  absl::StatusOr<CompilerInfo> Info();
  // Bare architecture names from comgr's ISA list, in its order.
  absl::StatusOr<std::vector<std::string>> Targets();
  absl::StatusOr<CodeObject> Compile(const CompileRequest& request);

 private:
  struct Libraries {
    std::unique_ptr<HiprtcApi> hiprtc;
    std::unique_ptr<ComgrApi> comgr;
    CompilerInfo info;
    std::vector<std::string> targets;
  };

  // Loads once; the result never changes afterwards.
  absl::StatusOr<const Libraries*> Load();
  absl::Status LoadOnce();
  // kInvalidArgument unless hiprtc can safely be asked for `target`.
  absl::Status CheckTarget(const Libraries& libraries, const Target& target) const;

  const std::vector<std::string> hiprtc_files_;
  const std::vector<std::string> comgr_files_;
  absl::once_flag once_;
  absl::Status status_;                   // written once, under once_
  std::unique_ptr<Libraries> libraries_;  // written once, under once_
};

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_HIP_HIP_COMPILER_H_
