#include "tuner/runners/device_runner.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/blocking_counter.h"
#include "lib/internal/device_impl.h"
#include "lib/internal/kernel_impl.h"
#include "lib/internal/status_macros.h"
#include "tuner/internal/thread_pool.h"

namespace jitk::tuner {
namespace {

constexpr uint8_t kPoison = 0xff;  // NaN in f32, f16 and bf16
constexpr size_t kUploadChunk = size_t{16} << 20;
constexpr size_t kCheckChunk = size_t{256} << 10;

size_t AlignDown(size_t value, size_t unit) { return value / unit * unit; }

// (offset, bytes) pieces of a buffer to compare: all of it when small,
// otherwise a head, a tail and evenly spaced chunks, `budget` bytes in all.
std::vector<std::pair<size_t, size_t>> CheckedRanges(size_t bytes, size_t element, size_t budget) {
  std::vector<std::pair<size_t, size_t>> ranges;
  const size_t chunk = std::max(element, AlignDown(kCheckChunk, element));
  if (bytes <= budget) {
    for (size_t off = 0; off < bytes; off += chunk)
      ranges.emplace_back(off, std::min(chunk, bytes - off));
    return ranges;
  }
  const size_t count = std::max<size_t>(2, budget / chunk);
  const size_t last = AlignDown(bytes - chunk, element);
  for (size_t i = 0; i < count; ++i) {
    const size_t off = AlignDown(size_t(double(last) * double(i) / double(count - 1)), element);
    if (!ranges.empty() && off < ranges.back().first + ranges.back().second) continue;
    ranges.emplace_back(off, std::min(chunk, bytes - off));
  }
  return ranges;
}

}  // namespace

DeviceRunner::DeviceRunner(const jitk::internal::KernelTemplate& kernel_template, Shape shape,
                           Device device, const ProblemInstance& problem,
                           const CandidateCompiler& compiler, const MeasureOptions& options)
    : template_(kernel_template),
      shape_(std::move(shape)),
      device_(std::move(device)),
      arch_(jitk::internal::ArchForCode(device_.info(), compiler.target().arch)),
      problem_(problem),
      compiler_(compiler),
      options_(options) {}

absl::StatusOr<std::unique_ptr<DeviceRunner>> DeviceRunner::Create(
    const jitk::internal::KernelTemplate& kernel_template, const Shape& shape, Device device,
    const ProblemInstance& problem, const CandidateCompiler& compiler,
    const MeasureOptions& options) {
  std::unique_ptr<DeviceRunner> runner(
      new DeviceRunner(kernel_template, shape, std::move(device), problem, compiler, options));
  JITK_RETURN_IF_ERROR(runner->Allocate());
  JITK_RETURN_IF_ERROR(runner->Fill());
  return runner;
}

absl::Status DeviceRunner::Allocate() {
  size_t set_bytes = 0;
  for (const BufferSpec& b : problem_.buffers()) set_bytes += b.bytes;
  int sets = 1;
  if (set_bytes > 0 && set_bytes < options_.rotate_bytes) {
    sets = int(std::min<size_t>(size_t(std::max(1, options_.max_input_sets)),
                                (options_.rotate_bytes + set_bytes - 1) / set_bytes));
  }
  // Leave a quarter of the device memory to others when it is known.
  const uint64_t memory = device_.info().memory_bytes;
  if (memory > 0 && set_bytes > 0) {
    sets = int(std::max<uint64_t>(1, std::min<uint64_t>(sets, memory * 3 / 4 / set_bytes)));
  }
  for (int s = 0; s < sets; ++s) {
    std::vector<DeviceBuffer> buffers;
    for (const BufferSpec& b : problem_.buffers()) {
      absl::StatusOr<DeviceBuffer> buffer = device_.Allocate(std::max<size_t>(b.bytes, 1));
      if (!buffer.ok()) {
        if (s > 0) return absl::OkStatus();  // fewer sets; still correct, less cold
        return absl::ResourceExhaustedError(absl::StrCat(
            "cannot allocate ", b.bytes, " bytes for buffer '", b.name, "' of ", template_.name(),
            " ", shape_.Key(), " on ", device_.info().name, ": ", buffer.status().message()));
      }
      buffers.push_back(*std::move(buffer));
    }
    sets_.push_back(std::move(buffers));
  }
  return absl::OkStatus();
}

absl::Status DeviceRunner::Fill() {
  const std::vector<BufferSpec>& specs = problem_.buffers();
  internal::ThreadPool pool(internal::ThreadPool::DefaultThreads());
  for (size_t b = 0; b < specs.size(); ++b) {
    const BufferSpec& spec = specs[b];
    if (spec.output) {
      for (auto& set : sets_)
        JITK_RETURN_IF_ERROR(device_.Memset(set[b].data(), kPoison, spec.bytes));
      continue;
    }
    // Generate a group of chunks in parallel, then upload each to every set.
    const size_t chunk = std::max(spec.element_bytes, AlignDown(kUploadChunk, spec.element_bytes));
    const size_t group = size_t(pool.size());
    std::vector<std::string> host(group);
    for (size_t first = 0; first < spec.bytes; first += chunk * group) {
      const size_t n = std::min(group, (spec.bytes - first + chunk - 1) / chunk);
      // Shared with the tasks: DecrementCount may still be returning when
      // Wait() does.
      auto done = std::make_shared<absl::BlockingCounter>(static_cast<int>(n));
      for (size_t i = 0; i < n; ++i) {
        const size_t off = first + i * chunk;
        host[i].resize(std::min(chunk, spec.bytes - off));
        pool.Schedule([this, &host, b, i, off, done] {
          problem_.FillInput(b, off, absl::MakeSpan(host[i].data(), host[i].size()));
          done->DecrementCount();
        });
      }
      done->Wait();
      for (size_t i = 0; i < n; ++i) {
        const size_t off = first + i * chunk;
        for (auto& set : sets_) {
          JITK_RETURN_IF_ERROR(device_.CopyToDevice(static_cast<char*>(set[b].data()) + off,
                                                    host[i].data(), host[i].size()));
        }
      }
    }
  }
  return device_.Synchronize();
}

absl::StatusOr<CheckResult> DeviceRunner::Validate(const Kernel& kernel,
                                                   jitk::internal::LaunchPlan& plan) {
  const std::vector<BufferSpec>& specs = problem_.buffers();
  for (size_t b = 0; b < specs.size(); ++b) {
    if (specs[b].output)
      JITK_RETURN_IF_ERROR(device_.Memset(sets_[0][b].data(), kPoison, specs[b].bytes));
  }
  jitk::internal::Backend& backend = jitk::internal::KernelBackend(kernel);
  const int ordinal = device_.info().backend_ordinal;
  JITK_RETURN_IF_ERROR(
      jitk::internal::LaunchPlanned(backend, ordinal, kernel.impl()->function, plan, nullptr));
  JITK_RETURN_IF_ERROR(device_.Synchronize());

  CheckResult total;
  for (size_t b = 0; b < specs.size(); ++b) {
    if (!specs[b].output) continue;
    std::vector<std::pair<size_t, size_t>> ranges =
        CheckedRanges(specs[b].bytes, specs[b].element_bytes, options_.validate_bytes);
    std::vector<std::string> host(ranges.size());
    for (size_t i = 0; i < ranges.size(); ++i) {
      host[i].resize(ranges[i].second);
      JITK_RETURN_IF_ERROR(device_.CopyToHost(
          host[i].data(), static_cast<const char*>(sets_[0][b].data()) + ranges[i].first,
          ranges[i].second));
    }
    std::vector<CheckResult> results(ranges.size());
    {
      internal::ThreadPool pool(
          std::min<int>(internal::ThreadPool::DefaultThreads(), int(ranges.size())));
      for (size_t i = 0; i < ranges.size(); ++i) {
        pool.Schedule([&, i] {
          results[i] = problem_.CheckOutput(b, ranges[i].first,
                                            absl::MakeConstSpan(host[i].data(), host[i].size()));
        });
      }
    }  // joins
    for (const CheckResult& r : results) {
      total.checked += r.checked;
      total.max_error = std::max(total.max_error, r.max_error);
      if (!r.ok && total.ok) {
        total.ok = false;
        total.detail = absl::StrCat(specs[b].name, ": ", r.detail);
      }
    }
  }
  return total;
}

CandidateResult DeviceRunner::Measure(Prepared prepared, double best_ms) {
  CandidateResult result = std::move(prepared.result);
  if (!prepared.ready()) return result;
  const KernelConfig config = result.config;
  auto fail = [&](Outcome outcome, absl::string_view stage, const absl::Status& status) {
    result.outcome = outcome;
    result.message = absl::StrCat(stage, ": ", status.message());
    return result;
  };

  absl::StatusOr<Kernel> kernel = jitk::internal::LoadCompiled(
      template_, shape_, *std::move(prepared.compiled), ConfigSource::kExplicit, device_);
  if (!kernel.ok()) return fail(Outcome::kRuntimeFailed, "load", kernel.status());

  // One launch plan per input set; plans hold pointers into themselves, so
  // they stay where they are built.
  std::vector<std::unique_ptr<jitk::internal::LaunchPlan>> plans;
  for (const std::vector<DeviceBuffer>& set : sets_) {
    std::vector<void*> pointers;
    for (const DeviceBuffer& b : set) pointers.push_back(b.data());
    auto plan = std::make_unique<jitk::internal::LaunchPlan>();
    absl::Status planned =
        template_.PlanLaunch(config, shape_, arch_, problem_.Args(pointers), *plan);
    if (!planned.ok()) return fail(Outcome::kInvalidConfig, "launch plan", planned);
    plans.push_back(std::move(plan));
  }
  // One scratch serves every plan: the launches run one after another.
  size_t scratch_bytes = 0;
  for (const auto& plan : plans) scratch_bytes = std::max(scratch_bytes, plan->scratch_bytes);
  std::optional<DeviceBuffer> scratch;
  if (scratch_bytes > 0) {
    absl::StatusOr<DeviceBuffer> buffer = device_.Allocate(scratch_bytes);
    if (!buffer.ok()) return fail(Outcome::kRuntimeFailed, "scratch", buffer.status());
    scratch = *std::move(buffer);
    for (const auto& plan : plans) jitk::internal::BindScratch(*plan, scratch->data());
  }
  for (const auto& plan : plans) {  // once, after the scratch (a map may point into it)
    absl::Status encoded =
        jitk::internal::EncodeTensorMaps(jitk::internal::KernelBackend(*kernel), *plan);
    if (!encoded.ok()) return fail(Outcome::kRuntimeFailed, "tensor maps", encoded);
  }

  absl::StatusOr<CheckResult> check = Validate(*kernel, *plans[0]);
  if (!check.ok()) return fail(Outcome::kRuntimeFailed, "validation launch", check.status());
  if (!check->ok) {
    result.outcome = Outcome::kWrongResult;
    result.message = check->detail;
    return result;
  }

  jitk::internal::Backend& backend = jitk::internal::KernelBackend(*kernel);
  const int ordinal = device_.info().backend_ordinal;
  const jitk::internal::FunctionHandle function = kernel->impl()->function;
  size_t cursor = 0;
  auto batch = [&](int launches) -> absl::StatusOr<double> {
    return backend.TimeMs(ordinal, nullptr, [&]() -> absl::Status {
      for (int i = 0; i < launches; ++i) {
        JITK_RETURN_IF_ERROR(jitk::internal::LaunchPlanned(
            backend, ordinal, function, *plans[cursor++ % plans.size()], nullptr));
      }
      return absl::OkStatus();
    });
  };
  std::string note;
  absl::StatusOr<Timing> timing = MeasureStable(batch, int(plans.size()), options_, best_ms, &note);
  if (!timing.ok()) return fail(Outcome::kRuntimeFailed, "timing", timing.status());
  result.outcome = Outcome::kOk;
  result.timing = *timing;
  result.message = note;
  return result;
}

}  // namespace jitk::tuner
