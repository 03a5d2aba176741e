// tuner/problem.h — what the tuner needs to run a kernel on real data.
//
// A kernel template says how to compile and launch; a Problem says what to
// feed it while tuning: the buffers of one launch with their input contents,
// the launch arguments for buffers at given device addresses, and the check
// of an output against a reference computed on the CPU (fp64, per-dtype
// tolerances). The tuner owns device memory: it allocates as many copies of
// the buffers as it needs to rotate inputs past the caches, fills them
// through FillInput, and validates chunks of the outputs through
// CheckOutput, so a Problem is host code only and testable without a GPU.
//
// A kernel plugs in by registering a Problem (see problems/): nothing in
// the tuner changes.
//
// Example (registering):
//   RegisterProblem(std::make_unique<MyProblem>());  // or list it in problem_registry.cc
#ifndef JITK_TUNER_PROBLEM_H_
#define JITK_TUNER_PROBLEM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "jitk/kernel.h"
#include "jitk/shape.h"

namespace jitk::tuner {

struct BufferSpec {
  std::string name;  // launch argument name, "x"
  size_t bytes = 0;
  size_t element_bytes = 1;  // chunks of the buffer start and end on multiples of this
  bool output = false;       // written by the kernel: poisoned before a check, then compared
};

struct CheckResult {
  bool ok = true;
  size_t checked = 0;    // elements compared
  double max_error = 0;  // largest |got - expected| / (atol + rtol |expected|), ≤ 1 when ok
  std::string detail;    // the first mismatch: "out[4096] = nan, expected 1.25 (f16 tolerance ...)"
};

// One shape's data. All methods are const and thread-safe.
class ProblemInstance {
 public:
  virtual ~ProblemInstance() = default;

  virtual const std::vector<BufferSpec>& buffers() const = 0;

  // Bytes [offset, offset + out.size()) of input buffer `buffer`:
  // deterministic in the seed the instance was created with.
  virtual void FillInput(size_t buffer, size_t offset, absl::Span<char> out) const = 0;

  // Compares bytes [offset, offset + got.size()) of output buffer `buffer`
  // with the reference. REQUIRES: offset and size are multiples of the
  // buffer's element_bytes.
  virtual CheckResult CheckOutput(size_t buffer, size_t offset,
                                  absl::Span<const char> got) const = 0;

  // Launch arguments for the buffers at `pointers` (in buffers() order).
  virtual LaunchArgs Args(absl::Span<void* const> pointers) const = 0;

  // Bytes read + written and floating-point operations of one launch, for
  // TB/s and TFLOP/s figures (0: not meaningful).
  virtual double bytes_moved() const = 0;
  virtual double flops() const { return 0; }
};

class Problem {
 public:
  virtual ~Problem() = default;

  // The kernel template this problem feeds, "scaled_add".
  virtual absl::string_view kernel() const = 0;

  // kInvalidArgument for a shape the kernel does not take.
  virtual absl::StatusOr<std::unique_ptr<ProblemInstance>> Create(const Shape& shape,
                                                                  uint64_t seed) const = 0;

  // The shapes `jitk-tune --all` tunes.
  virtual std::vector<Shape> StandardShapes() const = 0;
};

// The registered problem for `kernel`; kNotFound naming the kernels that
// have one.
absl::StatusOr<const Problem*> FindProblem(absl::string_view kernel);

// Adds a problem; kAlreadyExists when its kernel has one. Thread-safe.
absl::Status RegisterProblem(std::unique_ptr<Problem> problem);

// The built-in problems (problems/*.cc).
std::unique_ptr<Problem> NewScaledAddProblem();
std::unique_ptr<Problem> NewSparseAttnProblem();

}  // namespace jitk::tuner

#endif  // JITK_TUNER_PROBLEM_H_
