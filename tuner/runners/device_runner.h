// tuner/runners/device_runner.h — validate and time candidates on a GPU.
//
// Create() allocates the problem's buffers on the device — as many input
// sets as needed to rotate past the caches (MeasureOptions::rotate_bytes) —
// and fills them from the ProblemInstance on a host thread pool. Measure()
// then, per candidate: loads the code object; poisons the outputs, launches
// once and compares the outputs (or evenly spaced chunks of large ones)
// with the reference; and times batches of launches that cycle through the
// input sets with device events until the median is stable (timing.h).
//
// Works with any Backend behind the Device, the fake one included.
#ifndef JITK_TUNER_RUNNERS_DEVICE_RUNNER_H_
#define JITK_TUNER_RUNNERS_DEVICE_RUNNER_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "jitk/device.h"
#include "lib/kernel_template.h"
#include "tuner/candidate_compiler.h"
#include "tuner/problem.h"
#include "tuner/runners/runner.h"
#include "tuner/timing.h"

namespace jitk::tuner {

class DeviceRunner final : public Runner {
 public:
  // `kernel_template`, `problem` and `compiler` must outlive the runner.
  // kResourceExhausted when the device memory does not hold one input set;
  // other device errors as the backend returns them.
  static absl::StatusOr<std::unique_ptr<DeviceRunner>> Create(
      const jitk::internal::KernelTemplate& kernel_template, const Shape& shape, Device device,
      const ProblemInstance& problem, const CandidateCompiler& compiler,
      const MeasureOptions& options);

  Prepared Prepare(const KernelConfig& config) override { return compiler_.Prepare(config); }
  CandidateResult Measure(Prepared prepared, double best_ms) override;
  bool times() const override { return true; }

  int input_sets() const { return int(sets_.size()); }

 private:
  DeviceRunner(const jitk::internal::KernelTemplate& kernel_template, Shape shape, Device device,
               const ProblemInstance& problem, const CandidateCompiler& compiler,
               const MeasureOptions& options);
  absl::Status Allocate();
  absl::Status Fill();
  // Poisons, launches on set 0, compares. OK or the mismatch.
  absl::StatusOr<CheckResult> Validate(const Kernel& kernel, jitk::internal::LaunchPlan& plan);

  const jitk::internal::KernelTemplate& template_;
  Shape shape_;
  Device device_;
  ArchInfo arch_;
  const ProblemInstance& problem_;
  const CandidateCompiler& compiler_;
  MeasureOptions options_;
  std::vector<std::vector<DeviceBuffer>> sets_;  // [set][buffer]
};

}  // namespace jitk::tuner

#endif  // JITK_TUNER_RUNNERS_DEVICE_RUNNER_H_
