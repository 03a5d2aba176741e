// tuner/candidate_compiler.h — compile a candidate and prune it by resources.
//
// The first half of every runner that compiles: instantiate the template
// for one configuration, compile it with a given Backend (the built-in HIP
// or CUDA one, or a fake in tests; no GPU needed), and check the code
// object's resources against the architecture (resource_limits.h). The
// result is a Prepared candidate: ready to measure, or finished with
// kInvalidConfig, kCompileFailed or kOutOfResources.
//
// With a ResultStore, code objects are looked up by their content key
// before compiling and stored after, so a repeated or resumed sweep does
// not compile again.
//
// Thread-safe: Prepare may run on many threads at once.
#ifndef JITK_TUNER_CANDIDATE_COMPILER_H_
#define JITK_TUNER_CANDIDATE_COMPILER_H_

#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "jitk/arch.h"
#include "jitk/kernel.h"
#include "jitk/shape.h"
#include "lib/backend/backend.h"
#include "lib/kernel_template.h"
#include "tuner/resource_limits.h"
#include "tuner/result_store.h"
#include "tuner/runners/runner.h"

namespace jitk::tuner {

class CandidateCompiler {
 public:
  // `placeholder_args` are launch arguments of the right kinds (pointers
  // need not be dereferenceable) used to ask the template for the block
  // size; nullopt when the kernel has no Problem (then the block size comes
  // from the code object's launch bounds when known). The template's default
  // config is exempt from the spill and scratch limits of `prune`: it is
  // what runs untuned, so it is always timed (the speed-up is over it, and
  // it may win).
  CandidateCompiler(const jitk::internal::KernelTemplate& kernel_template, Shape shape,
                    Target target, ArchInfo arch, jitk::internal::Backend& backend,
                    std::optional<LaunchArgs> placeholder_args, PruneOptions prune,
                    ResultStore* store = nullptr);

  Prepared Prepare(const KernelConfig& config) const;

  // The compiler's identity ("nvrtc 13.0"); empty when it cannot be loaded.
  const std::string& compiler() const { return compiler_; }
  const ArchInfo& arch() const { return arch_; }
  const Target& target() const { return target_; }
  // The first failure to store a code object (the sweep goes on without).
  absl::Status store_status() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // Compiles, or takes the code object from the store; `reused` says which.
  absl::StatusOr<CompiledKernel> Compile(const KernelConfig& config, bool& reused) const;

  const jitk::internal::KernelTemplate& template_;
  Shape shape_;
  KernelConfig default_config_;
  Target target_;
  ArchInfo arch_;
  jitk::internal::Backend& backend_;
  std::optional<LaunchArgs> placeholder_args_;
  PruneOptions prune_;
  ResultStore* store_;
  std::string compiler_;
  mutable absl::Mutex mu_;
  mutable absl::Status store_status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace jitk::tuner

#endif  // JITK_TUNER_CANDIDATE_COMPILER_H_
