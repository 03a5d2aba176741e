#include "tuner/tuner.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "jitk/version.h"
#include "lib/internal/device_impl.h"
#include "lib/internal/status_macros.h"
#include "lib/kernel_template.h"
#include "tuner/candidate_compiler.h"
#include "tuner/evaluator.h"
#include "tuner/problem.h"
#include "tuner/runners/compile_only_runner.h"
#include "tuner/runners/device_runner.h"
#include "tuner/search_space.h"
#include "tuner/strategy.h"

namespace jitk::tuner {
namespace {

// How many runner-up configurations a tuning row keeps.
constexpr size_t kRunnerUps = 5;

absl::string_view BaseArch(absl::string_view arch) {
  if (absl::StartsWith(arch, "sm_")) absl::ConsumeSuffix(&arch, "a");
  return arch;
}

// Launch arguments with the right kinds whose pointers are aligned but never
// dereferenced: the template plans a launch from them during pruning.
std::optional<LaunchArgs> PlaceholderArgs(const ProblemInstance* instance) {
  if (instance == nullptr) return std::nullopt;
  std::vector<void*> pointers;
  for (size_t i = 0; i < instance->buffers().size(); ++i) {
    pointers.push_back(reinterpret_cast<void*>(uintptr_t{1} << 20 << i));
  }
  return instance->Args(pointers);
}

cache::TuningRecord WinnerRecord(const TuneResult& result) {
  cache::TuningRecord r;
  r.kernel = result.key.kernel;
  r.shape_key = result.key.shape_key;
  r.device_name = result.key.device_name;
  r.compute_units = result.key.compute_units;
  r.compiler = result.key.compiler;
  r.config = KernelConfigToString(result.best->config);
  r.median_ms = result.best->timing.median_ms;
  r.spread_ms = result.best->timing.spread * result.best->timing.median_ms;
  r.validated = true;  // only validated candidates are kOk
  std::vector<const CandidateResult*> ok;
  for (const CandidateResult& c : result.candidates) {
    if (c.ok() && c.config != result.best->config) ok.push_back(&c);
  }
  std::sort(ok.begin(), ok.end(), [](const CandidateResult* a, const CandidateResult* b) {
    return a->cost() < b->cost();
  });
  for (size_t i = 0; i < ok.size() && i < kRunnerUps; ++i) {
    r.runner_ups.push_back({KernelConfigToString(ok[i]->config), ok[i]->timing.median_ms});
  }
  return r;
}

}  // namespace

size_t TuneResult::Count(Outcome outcome) const {
  return size_t(std::count_if(candidates.begin(), candidates.end(),
                              [&](const CandidateResult& c) { return c.outcome == outcome; }));
}

size_t TuneResult::CodeReused() const {
  return size_t(std::count_if(candidates.begin(), candidates.end(),
                              [](const CandidateResult& c) { return c.code_reused; }));
}

double TuneResult::speedup() const {
  if (!best.has_value() || !default_result.has_value() || !default_result->ok() ||
      best->timing.median_ms <= 0) {
    return 0;
  }
  return default_result->timing.median_ms / best->timing.median_ms;
}

double TuneResult::best_tbps() const {
  if (!best.has_value() || best->timing.median_ms <= 0 || bytes_moved <= 0) return 0;
  return bytes_moved / (best->timing.median_ms * 1e-3) / 1e12;
}

bool DeviceRunsArch(const DeviceInfo& device, const Target& arch) {
  if (BaseArch(device.arch) != BaseArch(arch.arch)) return false;
  absl::StatusOr<Target> device_target =
      ParseTarget(device.target.empty() ? device.arch : device.target);
  return device_target.ok() && CheckTargetCompatible(arch, *device_target).ok();
}

absl::StatusOr<TuneResult> Tune(absl::string_view kernel, const Shape& shape,
                                const TuneTarget& where, const TuneOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const absl::Time start_time = absl::Now();
  JITK_ASSIGN_OR_RETURN(const jitk::internal::KernelTemplate* kernel_template,
                        jitk::internal::FindKernelTemplate(kernel));
  JITK_RETURN_IF_ERROR(kernel_template->ValidateShape(shape));

  std::string arch_text = where.arch;
  if (arch_text.empty() && where.device.has_value()) {
    const DeviceInfo& info = where.device->info();
    arch_text = info.target.empty() ? info.arch : info.target;
  }
  if (arch_text.empty()) {
    return absl::InvalidArgumentError(
        "tuning needs an architecture (e.g. --arch gfx942) or a GPU to take it from");
  }
  JITK_ASSIGN_OR_RETURN(Target target, ParseTarget(arch_text));

  TuneResult result;
  result.shape = shape;
  bool timed = false;
  if (!where.device.has_value()) {
    result.compile_only_reason = "no GPU";
  } else if (!DeviceRunsArch(where.device->info(), target)) {
    result.compile_only_reason = absl::StrCat("the GPU present is ", where.device->info().arch,
                                              " (", where.device->info().name, ")");
  } else if (options.compile_only) {
    result.compile_only_reason = "compile-only was asked for";
  } else {
    timed = true;
  }
  result.compile_only = !timed;

  ArchInfo arch;
  if (timed) {
    arch = jitk::internal::ArchForCode(where.device->info(), target.arch);
  } else {
    JITK_ASSIGN_OR_RETURN(arch, LookupArch(target.arch));
  }

  // The device's backend compiles for its own vendor even when it cannot
  // run the target (sm_80 code on an sm_90 machine); another vendor's
  // target needs that vendor's built-in backend.
  jitk::internal::Backend* backend = where.compile_backend;
  if (backend == nullptr && where.device.has_value() &&
      where.device->info().vendor == target.vendor) {
    backend = where.device->impl()->backend;
  }
  if (backend == nullptr) {
    JITK_ASSIGN_OR_RETURN(backend, jitk::internal::BackendFor(target.vendor));
  }

  // The problem feeds the runs; compile-only needs it only for block sizes.
  absl::StatusOr<const Problem*> problem = FindProblem(kernel);
  if (timed && !problem.ok()) return problem.status();
  std::unique_ptr<ProblemInstance> instance;
  if (problem.ok()) {
    JITK_ASSIGN_OR_RETURN(instance, (*problem)->Create(shape, options.measure.seed));
    result.bytes_moved = instance->bytes_moved();
  }

  JITK_ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::ForTemplate(*kernel_template, shape, arch));
  result.space_size = space.size();
  result.combinations = space.combinations();
  result.default_config = kernel_template->DefaultConfig(shape, arch);

  ResultStore* code_store = options.store_code_objects ? options.store : nullptr;
  CandidateCompiler compiler(*kernel_template, shape, target, arch, *backend,
                             PlaceholderArgs(instance.get()), options.prune, code_store);
  if (compiler.compiler().empty()) {
    absl::StatusOr<jitk::internal::CompilerInfo> info = backend->Compiler();
    return info.status();  // the compiler library cannot be loaded: nothing would compile
  }

  result.key.arch = target.arch;
  result.key.kernel = std::string(kernel);
  result.key.shape_key = shape.Key();
  if (timed) {
    result.key.device_name = where.device->info().name;
    result.key.compute_units = where.device->info().compute_units;
  }
  result.key.compiler = compiler.compiler();
  result.strategy = timed ? options.strategy : "exhaustive";

  if (options.resume && options.store != nullptr && timed) {
    JITK_ASSIGN_OR_RETURN(std::optional<cache::TuningRecord> stored,
                          options.store->FindTuning(result.key));
    if (stored.has_value()) {
      JITK_ASSIGN_OR_RETURN(KernelConfig config, ParseKernelConfig(stored->config));
      CandidateResult best;
      best.config = std::move(config);
      best.outcome = Outcome::kOk;
      best.timing.median_ms = stored->median_ms;
      best.timing.spread = stored->median_ms > 0 ? stored->spread_ms / stored->median_ms : 0;
      result.best = std::move(best);
      result.skipped = true;
      result.wall_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (options.observer != nullptr) options.observer->OnRunEnd(result);
      return result;
    }
  }

  std::unique_ptr<Runner> runner;
  if (timed) {
    JITK_ASSIGN_OR_RETURN(std::unique_ptr<DeviceRunner> device_runner,
                          DeviceRunner::Create(*kernel_template, shape, *where.device, *instance,
                                               compiler, options.measure));
    result.input_sets = device_runner->input_sets();
    runner = std::move(device_runner);
  } else {
    runner = std::make_unique<CompileOnlyRunner>(compiler);
  }

  JITK_ASSIGN_OR_RETURN(std::unique_ptr<Strategy> strategy, MakeStrategy(result.strategy));
  const std::optional<size_t> default_index = space.IndexOf(result.default_config);
  StrategyContext context{.seed = options.seed,
                          .start = default_index,
                          .max_evaluations = options.budget.max_evaluations};
  size_t planned = strategy->Planned(space, context);  // the default included
  if (options.budget.max_evaluations > 0) {
    planned = std::min(planned, size_t(options.budget.max_evaluations));
  }
  planned = std::min(planned, space.size());

  size_t done = 0;
  absl::Status store_error;
  EvaluatorOptions evaluator_options;
  evaluator_options.budget = options.budget;
  evaluator_options.start = start_time;
  evaluator_options.compile_threads = options.compile_threads;
  evaluator_options.on_result = [&](const CandidateResult& r) {
    ++done;
    if (options.store != nullptr && options.store->keeps_candidates()) {
      absl::Status stored = options.store->PutCandidate(result.key, r);
      if (!stored.ok() && store_error.ok()) store_error = stored;
    }
    if (options.observer != nullptr) {
      options.observer->OnCandidate(result.key, r, done, std::max(planned, done));
    }
  };
  Evaluator evaluator(space, *runner, std::move(evaluator_options));
  if (options.resume && options.store != nullptr && options.store->keeps_candidates()) {
    JITK_ASSIGN_OR_RETURN(std::vector<CandidateResult> earlier,
                          options.store->Candidates(result.key));
    // Timed runs reuse timed results only; compile-only results say nothing
    // about time.
    std::vector<CandidateResult> usable;
    for (CandidateResult& c : earlier) {
      if (!timed || c.outcome != Outcome::kCompiledOnly) usable.push_back(std::move(c));
    }
    result.reloaded = evaluator.Preload(usable);
    done = result.reloaded;
  }
  if (options.observer != nullptr) options.observer->OnRunStart(result.key, planned, !timed);

  if (default_index.has_value()) {
    const size_t first[] = {*default_index};
    evaluator.Evaluate(first);
  }
  strategy->Run(space, evaluator, context);

  result.candidates = evaluator.results();
  if (const CandidateResult* best = evaluator.best()) result.best = *best;
  if (default_index.has_value()) {
    if (const CandidateResult* d = evaluator.Find(*default_index)) result.default_result = *d;
  }
  const bool cut =
      evaluator.budget_cut() || (evaluator.exhausted() && evaluator.evaluations() < space.size());
  if (cut) {
    result.status = absl::DeadlineExceededError(
        absl::StrCat(evaluator.BudgetReason().empty() ? "budget spent" : evaluator.BudgetReason(),
                     " after ", evaluator.evaluations(), " of ", space.size(),
                     " configurations of ", kernel, " ", shape.Key(),
                     result.compile_only       ? "; what compiled is stored"
                     : result.best.has_value() ? "; the best so far is kept"
                                               : "; no candidate passed"));
  }

  if (timed && result.best.has_value() && options.store != nullptr) {
    absl::Status stored = options.store->PutTuning(result.key, WinnerRecord(result));
    if (!stored.ok() && store_error.ok()) store_error = stored;
  }
  if (absl::Status code = compiler.store_status(); !code.ok() && store_error.ok()) {
    store_error = code;
  }
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (options.observer != nullptr) options.observer->OnRunEnd(result);
  if (!store_error.ok()) {
    return absl::Status(
        store_error.code(),
        absl::StrCat("tuned ", kernel, " ", shape.Key(), " but could not store ", "the results in ",
                     options.store->Describe(), ": ", store_error.message()));
  }
  return result;
}

}  // namespace jitk::tuner
