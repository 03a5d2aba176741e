#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "tuner/problem.h"

namespace jitk::tuner {
namespace {

class ProblemRegistry {
 public:
  ProblemRegistry() {
    // One line per built-in problem; explicit so a static link keeps them.
    problems_.push_back(NewScaledAddProblem());
    problems_.push_back(NewSparseAttnProblem());
  }

  absl::StatusOr<const Problem*> Find(absl::string_view kernel) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    std::vector<absl::string_view> names;
    for (const std::unique_ptr<Problem>& p : problems_) {
      if (p->kernel() == kernel) return p.get();
      names.push_back(p->kernel());
    }
    return absl::NotFoundError(absl::StrCat("no tuning problem (inputs + reference) for kernel '",
                                            kernel,
                                            "'; kernels with one: ", absl::StrJoin(names, ", "),
                                            ". Compile-only sweeps work for every kernel"));
  }

  absl::Status Add(std::unique_ptr<Problem> problem) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    for (const std::unique_ptr<Problem>& p : problems_) {
      if (p->kernel() == problem->kernel()) {
        return absl::AlreadyExistsError(
            absl::StrCat("kernel '", problem->kernel(), "' already has a tuning problem"));
      }
    }
    problems_.push_back(std::move(problem));
    return absl::OkStatus();
  }

 private:
  absl::Mutex mu_;
  // Never removed, so pointers handed out stay valid.
  std::vector<std::unique_ptr<Problem>> problems_ ABSL_GUARDED_BY(mu_);
};

ProblemRegistry& Registry() {
  static ProblemRegistry* const kRegistry = new ProblemRegistry();
  return *kRegistry;
}

}  // namespace

absl::StatusOr<const Problem*> FindProblem(absl::string_view kernel) {
  return Registry().Find(kernel);
}

absl::Status RegisterProblem(std::unique_ptr<Problem> problem) {
  if (problem == nullptr) return absl::InvalidArgumentError("RegisterProblem: null problem");
  return Registry().Add(std::move(problem));
}

}  // namespace jitk::tuner
