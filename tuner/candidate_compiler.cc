#include "tuner/candidate_compiler.h"

#include <chrono>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/internal/kernel_impl.h"
#include "lib/internal/status_macros.h"

namespace jitk::tuner {

CandidateCompiler::CandidateCompiler(const jitk::internal::KernelTemplate& kernel_template,
                                     Shape shape, Target target, ArchInfo arch,
                                     jitk::internal::Backend& backend,
                                     std::optional<LaunchArgs> placeholder_args, PruneOptions prune,
                                     ResultStore* store)
    : template_(kernel_template),
      shape_(std::move(shape)),
      default_config_(kernel_template.DefaultConfig(shape_, arch)),
      target_(std::move(target)),
      arch_(arch),
      backend_(backend),
      placeholder_args_(std::move(placeholder_args)),
      prune_(prune),
      store_(store) {
  absl::StatusOr<jitk::internal::CompilerInfo> info = backend_.Compiler();
  if (info.ok()) compiler_ = info->ToString();
}

namespace {

// Threads per block by the naming conventions of the built-in templates,
// for kernels without a Problem to plan a launch with: BLOCK (threads),
// WAVES / NUM_WARPS (waves), THREADS; else one wave.
int ThreadsFromConfig(const KernelConfig& config, const ArchInfo& arch) {
  if (auto it = config.find("BLOCK"); it != config.end()) return int(it->second);
  if (auto it = config.find("THREADS"); it != config.end()) return int(it->second);
  for (const char* waves : {"WAVES", "NUM_WARPS", "WARPS"}) {
    if (auto it = config.find(waves); it != config.end()) return int(it->second) * arch.wave_size;
  }
  return arch.wave_size;
}

}  // namespace

absl::Status CandidateCompiler::store_status() const {
  absl::MutexLock lock(&mu_);
  return store_status_;
}

// The same steps as get_kernel's compile (lib/kernel.cc), with the backend
// given rather than looked up by vendor, and the store in front.
absl::StatusOr<CompiledKernel> CandidateCompiler::Compile(const KernelConfig& config,
                                                          bool& reused) const {
  reused = false;
  JITK_ASSIGN_OR_RETURN(jitk::internal::CompileRequest request,
                        jitk::internal::InstanceRequest(template_, shape_, config, target_, arch_));
  const std::string expression = request.name_expressions[0];

  std::string key;
  if (store_ != nullptr && !compiler_.empty()) {
    absl::StatusOr<std::string> made = jitk::internal::CodeObjectKey(request, compiler_);
    if (made.ok()) key = *std::move(made);
    if (!key.empty()) {
      absl::StatusOr<std::optional<cache::CodeObjectRecord>> found =
          store_->FindCodeObject(target_.arch, key);
      if (found.ok() && found->has_value() && (*found)->config == KernelConfigToString(config)) {
        cache::CodeObjectRecord& record = **found;
        CompiledKernel compiled;
        compiled.kernel = std::move(record.kernel);
        compiled.symbol = std::move(record.symbol);
        compiled.name_expression = std::move(record.name_expression);
        compiled.config = config;
        compiled.target = std::move(record.target);
        compiled.code_object = std::move(record.code);
        compiled.resources = record.resources;
        compiled.compiler = std::move(record.compiler);
        compiled.compile_ms = record.compile_ms;
        reused = true;
        return compiled;
      }
    }
  }

  const auto begin = std::chrono::steady_clock::now();
  JITK_ASSIGN_OR_RETURN(
      jitk::internal::CodeObject code,
      jitk::internal::CompileInstance(template_, backend_, request, config, shape_, arch_));
  CompiledKernel compiled;
  compiled.kernel = std::string(template_.name());
  compiled.symbol = code.symbols[0].lowered_name;
  compiled.name_expression = expression;
  compiled.config = config;
  compiled.target = code.target;
  compiled.code_object = std::move(code.binary);
  compiled.resources = code.symbols[0].resources;
  compiled.compiler = compiler_;
  compiled.log = std::move(code.log);
  compiled.compile_ms =
      code.compile_ms > 0
          ? code.compile_ms
          : std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin)
                .count();

  if (!key.empty()) {
    cache::CodeObjectRecord record;
    record.key = key;
    record.kernel = compiled.kernel;
    record.symbol = compiled.symbol;
    record.name_expression = compiled.name_expression;
    record.target = compiled.target;
    record.compiler = compiled.compiler;
    record.config = KernelConfigToString(config);
    record.resources = compiled.resources;
    record.compile_ms = compiled.compile_ms;
    record.code = compiled.code_object;
    absl::Status stored = store_->PutCodeObject(target_.arch, record);
    if (!stored.ok()) {
      absl::MutexLock lock(&mu_);
      if (store_status_.ok()) store_status_ = stored;
    }
  }
  return compiled;
}

Prepared CandidateCompiler::Prepare(const KernelConfig& config) const {
  Prepared prepared;
  CandidateResult& result = prepared.result;
  result.config = config;

  if (absl::Status valid = template_.ValidateConfig(config, shape_, arch_); !valid.ok()) {
    result.outcome = Outcome::kInvalidConfig;
    result.message = std::string(valid.message());
    return prepared;
  }
  bool reused = false;
  absl::StatusOr<CompiledKernel> compiled = Compile(config, reused);
  if (!compiled.ok()) {
    result.outcome = OutcomeForCompileError(compiled.status(), /*config_rejected=*/false);
    result.message = std::string(compiled.status().message());
    return prepared;
  }
  result.resources = compiled->resources;
  result.compile_ms = compiled->compile_ms;
  result.code_bytes = compiled->code_object.size();
  result.code_reused = reused;

  // The block size and dynamic LDS of a launch, from the template itself.
  int threads = 0;
  int dynamic_lds = 0;
  if (placeholder_args_.has_value()) {
    jitk::internal::LaunchPlan plan;
    absl::Status planned = template_.PlanLaunch(config, shape_, arch_, *placeholder_args_, plan);
    if (!planned.ok()) {
      result.outcome = Outcome::kInvalidConfig;
      result.message = absl::StrCat("launch plan: ", planned.message());
      return prepared;
    }
    threads = int(plan.block.x * plan.block.y * plan.block.z);
    dynamic_lds = int(plan.dynamic_shared_bytes);
  } else {
    threads = ThreadsFromConfig(config, arch_);
  }
  result.threads_per_block = threads;
  ResourceUsage per_block = result.resources;  // NVIDIA reports dynamic shared memory apart
  per_block.lds_bytes += dynamic_lds;
  result.occupancy = EstimateOccupancy(per_block, threads, arch_).fraction();

  PruneOptions limits = prune_;
  if (config == default_config_) {
    limits.max_spills = std::numeric_limits<int>::max();
    limits.max_scratch_bytes = std::numeric_limits<int>::max();
  }
  if (absl::Status fits = CheckResources(result.resources, threads, dynamic_lds, arch_, limits);
      !fits.ok()) {
    result.outcome = Outcome::kOutOfResources;
    result.message = std::string(fits.message());
    return prepared;
  }
  result.outcome = Outcome::kCompiledOnly;
  prepared.compiled = std::move(compiled).value();
  return prepared;
}

}  // namespace jitk::tuner
