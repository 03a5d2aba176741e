// get_kernel and compile_kernel: template → instance → code object → loaded kernel.
#include "jitk/kernel.h"

#include <chrono>
#include <cstdio>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "cache/cache_key.h"
#include "cache/kernel_cache.h"
#include "lib/internal/device_impl.h"
#include "lib/internal/kernel_impl.h"
#include "lib/internal/miss_tuner.h"
#include "lib/internal/status_macros.h"
#include "lib/internal/template_sources.h"

namespace jitk {
namespace internal {

namespace {

CompiledKernel FromRecord(const cache::CodeObjectRecord& record, const KernelConfig& config) {
  CompiledKernel compiled;
  compiled.kernel = record.kernel;
  compiled.symbol = record.symbol;
  compiled.name_expression = record.name_expression;
  compiled.config = config;
  compiled.target = record.target;
  compiled.code_object = record.code;
  compiled.resources = record.resources;
  compiled.compiler = record.compiler;
  compiled.compile_ms = record.compile_ms;
  return compiled;
}

cache::CodeObjectRecord ToRecord(const CompiledKernel& compiled, std::string key) {
  cache::CodeObjectRecord record;
  record.key = std::move(key);
  record.kernel = compiled.kernel;
  record.symbol = compiled.symbol;
  record.name_expression = compiled.name_expression;
  record.target = compiled.target;
  record.compiler = compiled.compiler;
  record.config = KernelConfigToString(compiled.config);
  record.resources = compiled.resources;
  record.compile_ms = compiled.compile_ms;
  record.code = compiled.code_object;
  return record;
}

// Cache problems never fail a compile; the cache itself has warned.
void StoreQuietly(absl::string_view arch, cache::CodeObjectRecord record) {
  (void)cache::DefaultKernelCache().PutCodeObject(arch, std::move(record));
}

}  // namespace

absl::StatusOr<CompileRequest> InstanceRequest(const KernelTemplate& kernel_template,
                                               const Shape& shape, const KernelConfig& config,
                                               const Target& target, const ArchInfo& arch) {
  JITK_ASSIGN_OR_RETURN(std::string expression,
                        kernel_template.NameExpression(config, shape, arch));
  CompileRequest request;
  JITK_ASSIGN_OR_RETURN(request.headers, TemplateSources());
  request.target = target;
  request.program_name = absl::StrCat(kernel_template.name(), ".jitk");
  request.source = absl::StrCat("#include \"prelude.h\"\n#include \"",
                                kernel_template.source_file(), "\"\n");
  request.name_expressions = {std::move(expression)};
  request.options = kernel_template.CompileOptions(config, shape, arch);
  return request;
}

namespace {

absl::Status CheckOneSymbol(const Backend& backend, const CodeObject& code) {
  if (code.symbols.size() == 1) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(backend.name(), " returned ", code.symbols.size(),
                                          " symbols for one name expression"));
}

bool SpillsLess(const ResourceUsage& a, const ResourceUsage& b) {
  return std::tie(a.spills, a.scratch_bytes) < std::tie(b.spills, b.scratch_bytes);
}

}  // namespace

absl::StatusOr<CodeObject> CompileInstance(const KernelTemplate& kernel_template, Backend& backend,
                                           const CompileRequest& request,
                                           const KernelConfig& config, const Shape& shape,
                                           const ArchInfo& arch) {
  JITK_ASSIGN_OR_RETURN(CodeObject code, backend.Compile(request));
  JITK_RETURN_IF_ERROR(CheckOneSymbol(backend, code));
  const ResourceUsage first = code.symbols[0].resources;
  if (first.spills == 0) return code;
  const std::vector<std::string> fallback =
      kernel_template.SpillFallbackOptions(config, shape, arch);
  if (fallback.empty()) return code;
  CompileRequest again = request;
  again.options.insert(again.options.end(), fallback.begin(), fallback.end());
  absl::StatusOr<CodeObject> other = backend.Compile(again);
  // A failed or no better second compile leaves the first's code.
  if (!other.ok() || !CheckOneSymbol(backend, *other).ok() ||
      !SpillsLess(other->symbols[0].resources, first)) {
    return code;
  }
  other->log = absl::StrCat("jitk: compiled again with ", absl::StrJoin(fallback, " "),
                            ": the first compile spilled ", first.spills, " registers (",
                            first.scratch_bytes, " bytes of scratch)\n", other->log);
  other->compile_ms += code.compile_ms;
  return other;
}

absl::StatusOr<std::string> CodeObjectKey(const CompileRequest& request,
                                          absl::string_view compiler_id) {
  std::vector<cache::HeaderText> headers;
  for (const auto& [name, text] : request.headers) headers.push_back({name, text});
  const std::string target = request.target.ToString();
  return cache::MakeCodeObjectKey(
      {.source = request.source, .headers = headers,
       .name_expression = request.name_expressions.empty() ? "" : request.name_expressions[0],
       .options = request.options, .compiler = compiler_id, .target = target});
}

absl::StatusOr<CompiledKernel> CompileTemplate(const KernelTemplate& kernel_template,
                                               const Shape& shape, const KernelConfig& config,
                                               const Target& target, const ArchInfo& arch,
                                               CodeObjectCache code_cache) {
  JITK_RETURN_IF_ERROR(kernel_template.ValidateConfig(config, shape, arch));
  JITK_ASSIGN_OR_RETURN(CompileRequest request,
                        InstanceRequest(kernel_template, shape, config, target, arch));
  const std::string expression = request.name_expressions[0];
  JITK_ASSIGN_OR_RETURN(Backend * backend, BackendFor(target.vendor));
  JITK_ASSIGN_OR_RETURN(CompilerInfo compiler, backend->Compiler());

  // The code object cache is keyed by everything that changes the binary.
  const std::string compiler_id = compiler.ToString();
  // (No key: the code is neither looked up nor stored.)
  std::optional<std::string> key;
  if (code_cache == CodeObjectCache::kUse) {
    if (absl::StatusOr<std::string> k = CodeObjectKey(request, compiler_id); k.ok()) key = *k;
  }
  if (key.has_value()) {
    absl::StatusOr<cache::CodeObjectHit> hit =
        cache::DefaultKernelCache().GetCodeObject(target.arch, *key);
    if (hit.ok() && hit->record->symbol.size() > 0) return FromRecord(*hit->record, config);
  }

  absl::StatusOr<CodeObject> code =
      CompileInstance(kernel_template, *backend, request, config, shape, arch);
  if (!code.ok()) {
    return absl::Status(code.status().code(),
                        absl::StrCat(kernel_template.name(), " {", KernelConfigToString(config),
                                     "} for ", target.ToString(), ": ", code.status().message()));
  }
  CompiledKernel compiled;
  compiled.kernel = std::string(kernel_template.name());
  compiled.symbol = code->symbols[0].lowered_name;
  compiled.name_expression = expression;
  compiled.config = config;
  compiled.target = code->target;
  compiled.code_object = std::move(code->binary);
  compiled.resources = code->symbols[0].resources;
  compiled.compiler = compiler_id;
  compiled.log = std::move(code->log);
  compiled.compile_ms = code->compile_ms;
  if (key.has_value()) StoreQuietly(target.arch, ToRecord(compiled, *key));
  return compiled;
}

absl::StatusOr<Kernel> LoadCompiled(const KernelTemplate& kernel_template, const Shape& shape,
                                    CompiledKernel compiled, ConfigSource source,
                                    const Device& device) {
  Backend* backend = device.impl()->backend;
  const DeviceInfo& info = device.info();
  CodeObject code;
  code.target = compiled.target;
  code.binary = compiled.code_object;
  auto impl = std::make_shared<Kernel::Impl>();
  JITK_ASSIGN_OR_RETURN(impl->module, backend->Load(info.backend_ordinal, code));
  JITK_ASSIGN_OR_RETURN(impl->function, impl->module->GetFunction(compiled.symbol));
  impl->kernel_template = &kernel_template;
  impl->shape = shape;
  impl->config_source = source;
  impl->compiled = std::move(compiled);
  impl->device = info;
  // ArchInfo holds views: take them from the copy this kernel owns.
  impl->arch = ArchForCode(impl->device, impl->compiled.target);
  impl->backend = backend;
  JITK_ASSIGN_OR_RETURN(impl->planner, kernel_template.NewLaunchPlanner(impl->compiled.config,
                                                                        impl->shape, impl->arch));
  impl->scratch = std::make_unique<LaunchScratch>(backend, info.backend_ordinal);
  return Kernel(std::move(impl));
}

Backend& KernelBackend(const Kernel& kernel) { return *kernel.impl()->backend; }

absl::StatusOr<DeviceGlobal> KernelGlobal(const Kernel& kernel, absl::string_view name) {
  return kernel.impl()->module->GetGlobal(name);
}

namespace {

// In-process memo of loaded kernels: the hot path of get_kernel. Lookups
// build no strings and copy no shapes (heterogeneous lookup by reference).
struct MemoKey {
  int device;
  std::string name;
  Shape shape;
  std::optional<KernelConfig> config;
};

struct MemoKeyRef {
  int device;
  absl::string_view name;
  const Shape& shape;
  const std::optional<KernelConfig>& config;
};

struct MemoHash {
  using is_transparent = void;
  size_t operator()(const MemoKeyRef& key) const {
    size_t h = absl::HashOf(key.device, key.name, static_cast<int>(key.shape.dtype()));
    for (const auto& [dim, value] : key.shape.dims()) h = absl::HashOf(h, dim, value);
    if (key.config.has_value()) {
      for (const auto& [param, value] : *key.config) h = absl::HashOf(h, param, value);
    }
    return h;
  }
  size_t operator()(const MemoKey& key) const {
    return (*this)(MemoKeyRef{key.device, key.name, key.shape, key.config});
  }
};

struct MemoEq {
  using is_transparent = void;
  static MemoKeyRef Ref(const MemoKey& key) {
    return MemoKeyRef{key.device, key.name, key.shape, key.config};
  }
  static const MemoKeyRef& Ref(const MemoKeyRef& key) { return key; }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    const MemoKeyRef& x = Ref(a);
    const MemoKeyRef& y = Ref(b);
    return x.device == y.device && x.name == y.name && x.shape == y.shape && x.config == y.config;
  }
};

// Shared map behind a reader lock, fronted by a per-thread copy: a repeated
// hit takes no lock and touches no shared cache line but the Kernel's
// reference count. Entries are never removed, so the copies cannot go stale.
class KernelMemo {
 public:
  using Map = absl::flat_hash_map<MemoKey, Kernel, MemoHash, MemoEq>;

  // The kernel for `key`, valid until this thread's next call; nullptr on a miss.
  const Kernel* Find(const MemoKeyRef& key) const ABSL_LOCKS_EXCLUDED(mu_) {
    thread_local Map local;
    if (auto it = local.find(key); it != local.end()) return &it->second;
    absl::ReaderMutexLock lock(&mu_);
    auto it = kernels_.find(key);
    if (it == kernels_.end()) return nullptr;
    return &local.emplace(it->first, it->second).first->second;
  }
  void Insert(MemoKey key, Kernel kernel) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    kernels_.emplace(std::move(key), std::move(kernel));
  }

 private:
  mutable absl::Mutex mu_;
  Map kernels_ ABSL_GUARDED_BY(mu_);
};

KernelMemo& Memo() {
  static KernelMemo* const kMemo = new KernelMemo();
  return *kMemo;
}

}  // namespace

std::pair<KernelConfig, ConfigSource> ChooseConfig(const KernelTemplate& kernel_template,
                                                   const Shape& shape, const DeviceInfo& device,
                                                   const ArchInfo& arch) {
  absl::StatusOr<Backend*> backend = BackendFor(device.vendor);
  absl::StatusOr<CompilerInfo> compiler =
      backend.ok() ? (*backend)->Compiler() : absl::StatusOr<CompilerInfo>(backend.status());
  if (compiler.ok()) {
    const std::string shape_key = shape.Key();
    const std::string compiler_id = compiler->ToString();
    const std::vector<std::string> exact_dims = kernel_template.ExactDims();
    absl::StatusOr<cache::TuningHit> tuned = cache::DefaultKernelCache().LookupTuning(
        {.arch = device.arch, .device_name = device.name, .compute_units = device.compute_units,
         .kernel = kernel_template.name(), .shape_key = shape_key, .compiler = compiler_id,
         .exact_dims = exact_dims});
    if (tuned.ok()) {
      absl::StatusOr<KernelConfig> config = ParseKernelConfig(tuned->record->config);
      // A row from an older template whose parameters no longer fit is skipped.
      if (config.ok() && kernel_template.ValidateConfig(*config, shape, arch).ok()) {
        ConfigSource source = !tuned->exact                              ? ConfigSource::kNearestTuned
                              : tuned->from_memo                         ? ConfigSource::kMemo
                              : tuned->layer == cache::CacheLayer::kSystemDb ? ConfigSource::kSystemDb
                                                                         : ConfigSource::kUserDb;
        return {*std::move(config), source};
      }
    }
  }
  return {kernel_template.DefaultConfig(shape, arch), ConfigSource::kDefault};
}

namespace {

absl::StatusOr<Target> DeviceTarget(const DeviceInfo& device) {
  return ParseTarget(device.target.empty() ? device.arch : device.target);
}

}  // namespace
}  // namespace internal

using internal::KernelTemplate;

const std::string& Kernel::name() const { return impl_->compiled.kernel; }
const KernelConfig& Kernel::config() const { return impl_->compiled.config; }
ConfigSource Kernel::config_source() const { return impl_->config_source; }
const CompiledKernel& Kernel::compiled() const { return impl_->compiled; }
const DeviceInfo& Kernel::device() const { return impl_->device; }

absl::Status Kernel::Launch(const LaunchArgs& args, Stream stream) const {
  internal::LaunchPlan plan;
  JITK_RETURN_IF_ERROR(impl_->planner->Plan(args, plan));
  if (plan.scratch_bytes > 0) {
    JITK_ASSIGN_OR_RETURN(void* scratch, impl_->scratch->ForStream(stream, plan.scratch_bytes));
    internal::BindScratch(plan, scratch);
  }
  return internal::LaunchPlanned(*impl_->backend, impl_->device.backend_ordinal,
                                 impl_->function, plan, stream);
}

absl::StatusOr<CompiledKernel> compile_kernel(absl::string_view name, const Shape& shape,
                                              const CompileOptions& options) {
  JITK_ASSIGN_OR_RETURN(const KernelTemplate* kernel_template,
                        internal::FindKernelTemplate(name));
  JITK_RETURN_IF_ERROR(kernel_template->ValidateShape(shape));
  if (options.arch.empty()) {
    return absl::InvalidArgumentError(
        "compile_kernel needs an architecture, e.g. gfx942 or sm_90 (get_kernel uses the GPU's)");
  }
  JITK_ASSIGN_OR_RETURN(Target target, ParseTarget(options.arch));
  JITK_ASSIGN_OR_RETURN(ArchInfo arch, LookupArch(options.arch));
  KernelConfig config = options.config.has_value()
                            ? *options.config
                            : kernel_template->DefaultConfig(shape, arch);
  return internal::CompileTemplate(*kernel_template, shape, config, target, arch);
}

absl::StatusOr<Kernel> get_kernel(absl::string_view name, const Shape& shape,
                                  const GetKernelOptions& options) {
  internal::MemoKeyRef key{options.device, name, shape, options.config};
  if (const Kernel* hit = internal::Memo().Find(key)) return *hit;

  JITK_ASSIGN_OR_RETURN(const KernelTemplate* kernel_template,
                        internal::FindKernelTemplate(name));
  JITK_RETURN_IF_ERROR(kernel_template->ValidateShape(shape));
  JITK_ASSIGN_OR_RETURN(Device device, Device::Open(options.device));
  const ArchInfo arch = internal::ArchForDevice(device.info());
  JITK_ASSIGN_OR_RETURN(Target target, internal::DeviceTarget(device.info()));

  ConfigSource source = ConfigSource::kExplicit;
  KernelConfig config;
  if (options.config.has_value()) {
    config = *options.config;
  } else {
    std::tie(config, source) = internal::ChooseConfig(*kernel_template, shape, device.info(), arch);
    if (std::shared_ptr<const internal::MissTuner> tune = internal::GetMissTuner()) {
      const bool have_tuned = source != ConfigSource::kDefault;
      absl::StatusOr<std::optional<KernelConfig>> tuned = (*tune)(device, name, shape, have_tuned);
      if (tuned.ok() && tuned->has_value()) {
        config = **tuned;
        source = ConfigSource::kTunedNow;
      } else if (!tuned.ok()) {
        // Tuning is an optimisation: a failure leaves the configuration chosen above.
        fprintf(stderr, "jitk: tuning %s for %s failed, using the %s configuration: %s\n",
                std::string(name).c_str(), shape.Key().c_str(),
                std::string(ConfigSourceName(source)).c_str(),
                std::string(tuned.status().message()).c_str());
      }
    }
  }
  JITK_ASSIGN_OR_RETURN(CompiledKernel compiled,
                        internal::CompileTemplate(*kernel_template, shape, config, target, arch));
  JITK_ASSIGN_OR_RETURN(Kernel kernel, internal::LoadCompiled(*kernel_template, shape,
                                                              std::move(compiled), source, device));
  internal::Memo().Insert(internal::MemoKey{options.device, std::string(name), shape,
                                            options.config},
                          kernel);
  return kernel;
}

}  // namespace jitk
