#include "tests/testing/fake_backend.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/internal/device_impl.h"
#include "lib/internal/status_macros.h"
#include "tuner/internal/random.h"
#include "tuner/problems/storage.h"

namespace jitk::testing {

using jitk::internal::CodeObject;
using jitk::internal::CompiledSymbol;
using jitk::internal::CompileRequest;
using jitk::internal::DeviceGlobal;
using jitk::internal::Dim3;
using jitk::internal::FunctionHandle;
using jitk::internal::Module;

namespace {

constexpr absl::string_view kMagic = "JITKFAKE1\n";
constexpr absl::string_view kLoweredPrefix = "_fake_";

// Launch time accumulated by the TimeMs call running on this thread
// (nullptr: launches execute).
thread_local double* timing_sink = nullptr;

// Splits "ns::name<a, b<c, d>, e>" into "name" and {"a", "b<c, d>", "e"}.
absl::Status ParseExpression(absl::string_view expression, FakeInstance& instance) {
  const size_t open = expression.find('<');
  if (open == absl::string_view::npos || expression.back() != '>') {
    return absl::InvalidArgumentError(
        absl::StrCat("fake compiler: '", expression, "' is not a template instantiation"));
  }
  absl::string_view name = expression.substr(0, open);
  if (size_t colon = name.rfind("::"); colon != absl::string_view::npos) {
    name = name.substr(colon + 2);
  }
  instance.kernel = std::string(absl::StripAsciiWhitespace(name));
  absl::string_view inner = expression.substr(open + 1, expression.size() - open - 2);
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i <= inner.size(); ++i) {
    if (i == inner.size() || (inner[i] == ',' && depth == 0)) {
      instance.template_args.emplace_back(
          absl::StripAsciiWhitespace(inner.substr(begin, i - begin)));
      begin = i + 1;
    } else if (inner[i] == '<') {
      ++depth;
    } else if (inner[i] == '>') {
      --depth;
    }
  }
  return absl::OkStatus();
}

size_t StorageBytes(absl::string_view type) {
  if (type == "float") return 4;
  if (absl::StrContains(type, "f16") || absl::StrContains(type, "bf16") ||
      absl::StrContains(type, "half") || absl::StrContains(type, "bfloat16")) {
    return 2;
  }
  return 4;
}

DType StorageType(absl::string_view type) {
  if (absl::StrContains(type, "bf16") || absl::StrContains(type, "bfloat16")) return DType::kBF16;
  if (absl::StrContains(type, "f16") || absl::StrContains(type, "half")) return DType::kF16;
  return DType::kF32;
}

// scaled_add's model ------------------------------------------------------

struct ScaledAddParams {
  int64_t block, ept, vec;
  size_t element;
  DType dtype;
};

ScaledAddParams ScaledAddOf(const FakeInstance& instance) {
  return {instance.IntArg(0), instance.IntArg(1), instance.IntArg(2),
          StorageBytes(instance.template_args.size() > 3 ? instance.template_args[3] : "float"),
          StorageType(instance.template_args.size() > 3 ? instance.template_args[3] : "float")};
}

// Registers a compiler would need: two loaded vectors per EPT step plus
// addressing; on NVIDIA __launch_bounds__(BLOCK) caps them and the rest spills.
ResourceUsage ScaledAddResources(const FakeInstance& instance) {
  const ScaledAddParams p = ScaledAddOf(instance);
  ResourceUsage usage;
  int registers = int(12 + p.ept * p.vec * int64_t(p.element) / 2);
  usage.wave_size = instance.arch.wave_size;
  if (instance.arch.vendor == Vendor::kNvidia) {
    const int cap = std::min(
        255, int(instance.arch.register_file_per_cu / std::max<int64_t>(p.block, 1)) / 8 * 8);
    if (registers > cap) {
      usage.spills = (registers - cap) * 4;
      registers = cap;
    }
    usage.max_threads_per_block =
        std::min<int>(1024, instance.arch.register_file_per_cu / std::max(registers, 1) / 32 * 32);
  } else {
    usage.scalar_registers = 16;
    usage.max_threads_per_block = int(p.block);
  }
  usage.registers = registers;
  return usage;
}

double ScaledAddTimeMs(const FakeInstance& instance, const FakeLaunch& launch, const FakeGpu& gpu) {
  const ScaledAddParams p = ScaledAddOf(instance);
  int64_t n = 0;
  std::memcpy(&n, launch.args[3], sizeof(n));
  const ArchInfo& arch = instance.arch;
  const double cus = std::max(1, gpu.info.compute_units);
  const double bytes = 3.0 * double(n) * double(p.element);

  // Access width.
  const double access = double(p.vec) * double(p.element);
  const double width = access >= 16 ? 1.0 : access >= 8 ? 0.93 : access >= 4 ? 0.85 : 0.62;

  // Resident threads per CU: threads, blocks and registers.
  const ResourceUsage usage = ScaledAddResources(instance);
  const int64_t regs = (usage.registers + 7) / 8 * 8;
  int64_t blocks_per_cu = std::min<int64_t>(32, 2048 / p.block);
  blocks_per_cu = std::min<int64_t>(blocks_per_cu, arch.register_file_per_cu / (regs * p.block));
  blocks_per_cu = std::max<int64_t>(blocks_per_cu, 1);
  const double per_block = double(p.block * p.ept * p.vec);
  const double blocks = std::ceil(double(n) / per_block);
  const double resident = std::min(blocks, double(blocks_per_cu) * cus) * double(p.block);

  // Memory-level parallelism: bytes in flight per CU against what the
  // loaded latency needs to sustain this CU's share of the bandwidth.
  const double inflight = resident / cus * double(p.ept) * access * 2.0;
  const double needed = gpu.bandwidth_gbps / cus * gpu.memory_latency_ns;  // GB/s * ns = bytes
  const double mlp = 1.0 - std::exp(-3.0 * inflight / needed);

  // Partial last wave of blocks, and a cost per block scheduled.
  const double waves = blocks / (double(blocks_per_cu) * cus);
  const double tail = waves < 1 ? 1.0 : 1.0 - 0.15 * (std::ceil(waves) - waves) / std::ceil(waves);
  const double schedule_ms = blocks * 0.1e-3 / (cus * 2.0);
  // Spills go to local memory: extra traffic.
  const double spill = 1.0 + 0.02 * usage.spills;

  // A fixed, config-specific deviation, as real measurements have.
  const double jitter =
      1.0 + 0.02 * (2.0 *
                        double(tuner::internal::Mix(
                                   7, std::hash<std::string>()(instance.name_expression)) >>
                               11) *
                        0x1.0p-53 -
                    1.0);
  const double memory_ms = bytes / (gpu.bandwidth_gbps * 1e9 * width * mlp * tail) * 1e3 * spill;
  return (gpu.launch_overhead_us * 1e-3 + memory_ms + schedule_ms) * jitter;
}

absl::Status ScaledAddExecute(const FakeInstance& instance, const FakeLaunch& launch) {
  const ScaledAddParams p = ScaledAddOf(instance);
  char* out;
  const char *x, *y;
  int64_t n;
  float scale;
  std::memcpy(&out, launch.args[0], sizeof(out));
  std::memcpy(&x, launch.args[1], sizeof(x));
  std::memcpy(&y, launch.args[2], sizeof(y));
  std::memcpy(&n, launch.args[3], sizeof(n));
  std::memcpy(&scale, launch.args[4], sizeof(scale));
  for (int64_t i = 0; i < n; ++i) {
    const float xv = float(tuner::problems::LoadAs(p.dtype, x + i * p.element));
    const float yv = float(tuner::problems::LoadAs(p.dtype, y + i * p.element));
    tuner::problems::StoreAs(p.dtype, std::fmaf(yv, scale, xv), out + i * p.element);
  }
  return absl::OkStatus();
}

class FakeModule final : public Module {
 public:
  explicit FakeModule(std::vector<std::unique_ptr<FakeBackend::Function>> functions)
      : functions_(std::move(functions)) {}
  absl::StatusOr<FunctionHandle> GetFunction(absl::string_view lowered_name) override;
  // Fake kernels are host code: they define no device variables.
  absl::StatusOr<DeviceGlobal> GetGlobal(absl::string_view name) override {
    return absl::NotFoundError(absl::StrCat("the fake module has no variable named ", name));
  }

 private:
  std::vector<std::unique_ptr<FakeBackend::Function>> functions_;
};

}  // namespace

struct FakeBackend::Function {
  std::string lowered_name;
  FakeInstance instance;
  FakeKernelModel model;
  ResourceUsage resources;
};

absl::StatusOr<FunctionHandle> FakeModule::GetFunction(absl::string_view lowered_name) {
  for (const auto& f : functions_) {
    if (f->lowered_name == lowered_name) return static_cast<FunctionHandle>(f.get());
  }
  return absl::NotFoundError(absl::StrCat("fake module has no function ", lowered_name));
}

int64_t FakeInstance::IntArg(size_t i) const {
  int64_t value = 0;
  if (i < template_args.size()) (void)absl::SimpleAtoi(template_args[i], &value);
  return value;
}

FakeKernelModel ScaledAddFakeModel() {
  FakeKernelModel model;
  model.resources = [](const FakeInstance& i) -> absl::StatusOr<ResourceUsage> {
    return ScaledAddResources(i);
  };
  model.time_ms = ScaledAddTimeMs;
  model.execute = ScaledAddExecute;
  return model;
}

FakeGpu FakeH200() {
  FakeGpu gpu;
  gpu.info.vendor = Vendor::kNvidia;
  gpu.info.backend = "fake";
  gpu.info.name = "Fake H200";
  gpu.info.arch = "sm_90";
  gpu.info.target = "sm_90";
  gpu.info.wave_size = 32;
  gpu.info.compute_units = 132;
  gpu.info.max_threads_per_block = 1024;
  gpu.info.lds_bytes_per_block = 227 * 1024;
  gpu.info.lds_bytes_per_cu = 228 * 1024;
  gpu.info.clock_mhz = 1980;
  gpu.info.memory_bytes = uint64_t{141} << 30;
  gpu.bandwidth_gbps = 4800;
  return gpu;
}

FakeGpu FakeMi250x() {
  FakeGpu gpu;
  gpu.info.vendor = Vendor::kAmd;
  gpu.info.backend = "fake";
  gpu.info.name = "Fake MI250X GCD";
  gpu.info.arch = "gfx90a";
  gpu.info.target = "gfx90a:sramecc+:xnack-";
  gpu.info.wave_size = 64;
  gpu.info.compute_units = 110;
  gpu.info.max_threads_per_block = 1024;
  gpu.info.lds_bytes_per_block = 64 * 1024;
  gpu.info.lds_bytes_per_cu = 64 * 1024;
  gpu.info.clock_mhz = 1700;
  gpu.info.memory_bytes = uint64_t{64} << 30;
  gpu.bandwidth_gbps = 1600;
  gpu.launch_overhead_us = 4;
  gpu.memory_latency_ns = 2000;
  return gpu;
}

FakeBackend::FakeBackend(FakeBackendOptions options) : options_(std::move(options)) {
  if (options_.gpus.empty()) {
    options_.gpus.push_back(options_.vendor == Vendor::kNvidia ? FakeH200() : FakeMi250x());
  }
  for (size_t i = 0; i < options_.gpus.size(); ++i) {
    options_.gpus[i].info.backend = "fake";
    options_.gpus[i].info.backend_ordinal = int(i);
    options_.gpus[i].info.ordinal = int(i);
  }
  if (options_.compile_targets.empty()) {
    for (const ArchInfo& arch : KnownArchs()) {
      if (arch.vendor != options_.vendor) continue;
      options_.compile_targets.emplace_back(arch.name);
      if (arch.name == "sm_90") options_.compile_targets.emplace_back("sm_90a");
    }
  }
  models_["scaled_add"] = ScaledAddFakeModel();
}

FakeBackend::~FakeBackend() {
  absl::MutexLock lock(&mu_);
  for (const auto& [address, bytes] : allocations_) std::free(reinterpret_cast<void*>(address));
}

void FakeBackend::SetModel(const std::string& kernel, FakeKernelModel model) {
  absl::MutexLock lock(&mu_);
  models_[kernel] = std::move(model);
}

FakeKernelModel FakeBackend::ModelFor(const std::string& kernel) const {
  absl::MutexLock lock(&mu_);
  auto it = models_.find(kernel);
  return it == models_.end() ? FakeKernelModel() : it->second;
}

Device FakeBackend::OpenDevice(int ordinal) {
  auto impl = std::make_shared<Device::Impl>();
  impl->info = options_.gpus.at(ordinal).info;
  impl->backend = this;
  return Device(std::move(impl));
}

size_t FakeBackend::live_allocations() const {
  absl::MutexLock lock(&mu_);
  return allocations_.size();
}

absl::StatusOr<jitk::internal::CompilerInfo> FakeBackend::Compiler() {
  return jitk::internal::CompilerInfo{"fake", "1.0"};
}

absl::StatusOr<std::vector<std::string>> FakeBackend::CompileTargets() {
  return options_.compile_targets;
}

absl::StatusOr<CodeObject> FakeBackend::Compile(const CompileRequest& request) {
  compiles_.fetch_add(1);
  if (request.target.vendor != options_.vendor ||
      std::find(options_.compile_targets.begin(), options_.compile_targets.end(),
                request.target.arch) == options_.compile_targets.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("fake compiler cannot build for ", request.target.ToString(), " (it knows ",
                     absl::StrJoin(options_.compile_targets, ", "), ")"));
  }
  if (options_.compile_delay > absl::ZeroDuration()) absl::SleepFor(options_.compile_delay);
  absl::StatusOr<ArchInfo> arch = LookupArch(request.target.arch);
  CodeObject code;
  code.target = request.target.ToString();
  code.isa_name = absl::StrCat("fake--", code.target);
  code.binary = absl::StrCat(kMagic, code.target, "\n");
  code.compile_ms = absl::ToDoubleMilliseconds(options_.compile_delay);
  for (const std::string& expression : request.name_expressions) {
    FakeInstance instance;
    instance.name_expression = expression;
    instance.target = request.target;
    if (arch.ok()) instance.arch = *arch;
    instance.options = request.options;
    JITK_RETURN_IF_ERROR(ParseExpression(expression, instance));
    FakeKernelModel model = ModelFor(instance.kernel);
    ResourceUsage usage;
    usage.registers = 32;
    usage.wave_size = instance.arch.wave_size;
    if (model.resources) {
      absl::StatusOr<ResourceUsage> reported = model.resources(instance);
      if (!reported.ok()) return reported.status();
      usage = *reported;
    }
    CompiledSymbol symbol;
    symbol.name_expression = expression;
    symbol.lowered_name = absl::StrCat(kLoweredPrefix, expression);
    symbol.resources = usage;
    code.symbols.push_back(symbol);
    absl::StrAppend(&code.binary, expression, "\n");
  }
  return code;
}

BackendReport FakeBackend::Report() {
  BackendReport report;
  report.backend = "fake";
  report.runtime_available = true;
  report.compiler_available = true;
  report.runtime_status = "ok";
  report.compiler_status = "ok";
  report.compiler_version = "fake 1.0";
  report.compile_targets = options_.compile_targets;
  for (const FakeGpu& gpu : options_.gpus) report.devices.push_back(gpu.info);
  return report;
}

absl::StatusOr<std::vector<DeviceInfo>> FakeBackend::Devices() {
  std::vector<DeviceInfo> devices;
  for (const FakeGpu& gpu : options_.gpus) devices.push_back(gpu.info);
  return devices;
}

absl::Status FakeBackend::CheckDevice(int device) const {
  if (device < 0 || device >= int(options_.gpus.size())) {
    return absl::InvalidArgumentError(absl::StrCat("fake backend has no device ", device));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Module>> FakeBackend::Load(int device, const CodeObject& code) {
  JITK_RETURN_IF_ERROR(CheckDevice(device));
  if (!absl::StartsWith(code.binary, kMagic)) {
    return absl::InvalidArgumentError("not a fake code object");
  }
  std::vector<absl::string_view> lines =
      absl::StrSplit(absl::string_view(code.binary).substr(kMagic.size()), '\n', absl::SkipEmpty());
  if (lines.empty()) return absl::InvalidArgumentError("fake code object without a target");
  JITK_ASSIGN_OR_RETURN(Target code_target, ParseTarget(lines[0]));
  const DeviceInfo& info = options_.gpus[device].info;
  JITK_ASSIGN_OR_RETURN(Target device_target,
                        ParseTarget(info.target.empty() ? info.arch : info.target));
  JITK_RETURN_IF_ERROR(CheckTargetCompatible(code_target, device_target));
  absl::StatusOr<ArchInfo> arch = LookupArch(code_target.arch);
  std::vector<std::unique_ptr<Function>> functions;
  for (size_t i = 1; i < lines.size(); ++i) {
    auto f = std::make_unique<Function>();
    f->instance.name_expression = std::string(lines[i]);
    f->instance.target = code_target;
    if (arch.ok()) f->instance.arch = *arch;
    JITK_RETURN_IF_ERROR(ParseExpression(lines[i], f->instance));
    f->lowered_name = absl::StrCat(kLoweredPrefix, lines[i]);
    f->model = ModelFor(f->instance.kernel);
    f->resources.registers = 32;
    if (f->model.resources) {
      absl::StatusOr<ResourceUsage> usage = f->model.resources(f->instance);
      if (usage.ok()) f->resources = *usage;
    }
    functions.push_back(std::move(f));
  }
  return std::unique_ptr<Module>(std::make_unique<FakeModule>(std::move(functions)));
}

absl::Status FakeBackend::Launch(int device, FunctionHandle function, Dim3 grid, Dim3 block,
                                 uint32_t dynamic_shared_bytes, Stream, void** args) {
  JITK_RETURN_IF_ERROR(CheckDevice(device));
  if (function == nullptr) return absl::InvalidArgumentError("fake launch of a null function");
  const Function& f = *static_cast<const Function*>(function);
  const FakeGpu& gpu = options_.gpus[device];
  const int64_t threads = int64_t(block.x) * block.y * block.z;
  if (threads <= 0 || threads > gpu.info.max_threads_per_block) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fake launch: ", threads, " threads per block (max ", gpu.info.max_threads_per_block, ")"));
  }
  if (f.resources.max_threads_per_block > 0 && threads > f.resources.max_threads_per_block) {
    return absl::ResourceExhaustedError(
        absl::StrCat("fake launch: too many resources requested for launch (", threads,
                     " threads, ", f.resources.registers, " registers each)"));
  }
  if (int64_t(f.resources.lds_bytes) + dynamic_shared_bytes > gpu.info.lds_bytes_per_block) {
    return absl::ResourceExhaustedError("fake launch: too much shared memory");
  }
  launches_.fetch_add(1);
  FakeLaunch launch{grid, block, dynamic_shared_bytes, args};
  if (timing_sink != nullptr) {
    *timing_sink += f.model.time_ms ? f.model.time_ms(f.instance, launch, gpu) : 0.01;
    return absl::OkStatus();
  }
  executed_.fetch_add(1);
  if (f.model.execute) return f.model.execute(f.instance, launch);
  return absl::OkStatus();
}

absl::Status FakeBackend::LaunchDependent(int device, FunctionHandle function, Dim3 grid,
                                          Dim3 block, uint32_t dynamic_shared_bytes, Stream stream,
                                          void** args) {
  JITK_RETURN_IF_ERROR(Launch(device, function, grid, block, dynamic_shared_bytes, stream, args));
  dependent_launches_.fetch_add(1);
  return absl::OkStatus();
}

absl::StatusOr<void*> FakeBackend::Allocate(int device, size_t bytes) {
  JITK_RETURN_IF_ERROR(CheckDevice(device));
  const uint64_t memory = options_.gpus[device].info.memory_bytes;
  absl::MutexLock lock(&mu_);
  size_t used = 0;
  for (const auto& [address, size] : allocations_) used += size;
  if (memory > 0 && used + bytes > memory) {
    return absl::ResourceExhaustedError(absl::StrCat("fake device out of memory (", bytes,
                                                     " bytes asked, ", memory - used, " free)"));
  }
  const size_t rounded = (std::max<size_t>(bytes, 1) + 255) / 256 * 256;
  void* p = std::aligned_alloc(256, rounded);
  if (p == nullptr) return absl::ResourceExhaustedError("host out of memory for fake device");
  std::memset(p, 0, rounded);
  allocations_[reinterpret_cast<uintptr_t>(p)] = bytes;
  return p;
}

absl::Status FakeBackend::Free(int device, void* pointer) {
  JITK_RETURN_IF_ERROR(CheckDevice(device));
  absl::MutexLock lock(&mu_);
  auto it = allocations_.find(reinterpret_cast<uintptr_t>(pointer));
  if (it == allocations_.end()) {
    return absl::InvalidArgumentError("fake free of a pointer that was not allocated");
  }
  std::free(pointer);
  allocations_.erase(it);
  return absl::OkStatus();
}

absl::Status FakeBackend::CheckRange(const void* pointer, size_t bytes,
                                     absl::string_view what) const {
  absl::MutexLock lock(&mu_);
  const uintptr_t p = reinterpret_cast<uintptr_t>(pointer);
  auto it = allocations_.upper_bound(p);
  if (it != allocations_.begin()) {
    --it;
    if (p >= it->first && p + bytes <= it->first + it->second) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("fake ", what, ": ", bytes, " bytes at ",
                                                 absl::Hex(p),
                                                 " are not inside one device allocation"));
}

absl::Status FakeBackend::CopyToDevice(int device, void* dst, const void* src, size_t bytes) {
  JITK_RETURN_IF_ERROR(CheckDevice(device));
  JITK_RETURN_IF_ERROR(CheckRange(dst, bytes, "copy to device"));
  std::memcpy(dst, src, bytes);
  return absl::OkStatus();
}

absl::Status FakeBackend::CopyToHost(int device, void* dst, const void* src, size_t bytes) {
  JITK_RETURN_IF_ERROR(CheckDevice(device));
  JITK_RETURN_IF_ERROR(CheckRange(src, bytes, "copy to host"));
  std::memcpy(dst, src, bytes);
  return absl::OkStatus();
}

absl::Status FakeBackend::Memset(int device, void* dst, uint8_t value, size_t bytes) {
  JITK_RETURN_IF_ERROR(CheckDevice(device));
  JITK_RETURN_IF_ERROR(CheckRange(dst, bytes, "memset"));
  std::memset(dst, value, bytes);
  return absl::OkStatus();
}

absl::Status FakeBackend::Synchronize(int device, Stream) { return CheckDevice(device); }

absl::StatusOr<double> FakeBackend::TimeMs(int device, Stream,
                                           absl::FunctionRef<absl::Status()> work) {
  JITK_RETURN_IF_ERROR(CheckDevice(device));
  const int call = timed_calls_.fetch_add(1);
  double total = 0;
  double* outer = timing_sink;
  timing_sink = &total;
  absl::Status status = work();
  timing_sink = outer;
  JITK_RETURN_IF_ERROR(status);
  total = std::max(total, 1e-6);
  if (options_.timing_noise > 0) {
    const double u =
        2.0 * double(tuner::internal::Mix(options_.seed, uint64_t(call)) >> 11) * 0x1.0p-53 - 1.0;
    total *= 1.0 + options_.timing_noise * u;
  }
  return total;
}

// FaultInjectingBackend -----------------------------------------------------

class FaultInjectingBackend::WrappedModule final : public Module {
 public:
  WrappedModule(FaultInjectingBackend* owner, std::unique_ptr<Module> base)
      : owner_(owner), base_(std::move(base)) {}
  absl::StatusOr<FunctionHandle> GetFunction(absl::string_view lowered_name) override {
    JITK_ASSIGN_OR_RETURN(FunctionHandle f, base_->GetFunction(lowered_name));
    absl::MutexLock lock(&owner_->mu_);
    auto it = owner_->expressions_.find(lowered_name);
    owner_->functions_[f] =
        it != owner_->expressions_.end() ? it->second : std::string(lowered_name);
    return f;
  }
  absl::StatusOr<DeviceGlobal> GetGlobal(absl::string_view name) override {
    return base_->GetGlobal(name);
  }

 private:
  FaultInjectingBackend* owner_;
  std::unique_ptr<Module> base_;
};

FaultInjectingBackend::FaultInjectingBackend(jitk::internal::Backend* base) : base_(base) {}
FaultInjectingBackend::~FaultInjectingBackend() = default;

const FaultInjectingBackend::Rule* FaultInjectingBackend::Find(const std::vector<Rule>& rules,
                                                               absl::string_view name) {
  for (const Rule& rule : rules) {
    if (absl::StrContains(name, rule.match)) return &rule;
  }
  return nullptr;
}

void FaultInjectingBackend::FailCompile(std::string match, absl::Status status) {
  absl::MutexLock lock(&mu_);
  compile_.push_back({std::move(match), std::move(status)});
}
void FaultInjectingBackend::EditResources(std::string match,
                                          std::function<void(ResourceUsage&)> edit) {
  absl::MutexLock lock(&mu_);
  resources_.push_back({std::move(match), absl::OkStatus(), std::move(edit)});
}
void FaultInjectingBackend::FailLoad(std::string match, absl::Status status) {
  absl::MutexLock lock(&mu_);
  load_.push_back({std::move(match), std::move(status)});
}
void FaultInjectingBackend::FailLaunch(std::string match, absl::Status status) {
  absl::MutexLock lock(&mu_);
  launch_.push_back({std::move(match), std::move(status)});
}
void FaultInjectingBackend::CorruptOutput(std::string match, int pointer_arg, size_t bytes) {
  absl::MutexLock lock(&mu_);
  corrupt_.push_back({std::move(match), absl::OkStatus(), nullptr, pointer_arg, bytes});
}
void FaultInjectingBackend::FailTiming(absl::Status status) {
  absl::MutexLock lock(&mu_);
  timing_ = std::move(status);
}

void FaultInjectingBackend::FailSynchronize(absl::Status status) {
  absl::MutexLock lock(&mu_);
  synchronize_ = std::move(status);
}

absl::Status FaultInjectingBackend::Synchronize(int device, Stream stream) {
  {
    absl::MutexLock lock(&mu_);
    if (!synchronize_.ok()) {
      injected_.fetch_add(1);
      return synchronize_;
    }
  }
  return base_->Synchronize(device, stream);
}

Device FaultInjectingBackend::OpenDevice(const Device& base_device) {
  auto impl = std::make_shared<Device::Impl>();
  impl->info = base_device.info();
  impl->backend = this;
  return Device(std::move(impl));
}

absl::StatusOr<CodeObject> FaultInjectingBackend::Compile(const CompileRequest& request) {
  const std::string expression =
      request.name_expressions.empty() ? "" : request.name_expressions[0];
  {
    absl::MutexLock lock(&mu_);
    if (const Rule* rule = Find(compile_, expression)) {
      injected_.fetch_add(1);
      return rule->status;
    }
  }
  JITK_ASSIGN_OR_RETURN(CodeObject code, base_->Compile(request));
  absl::MutexLock lock(&mu_);
  for (CompiledSymbol& symbol : code.symbols) {
    expressions_[symbol.lowered_name] = symbol.name_expression;
    if (const Rule* rule = Find(resources_, symbol.name_expression)) {
      injected_.fetch_add(1);
      rule->edit(symbol.resources);
    }
  }
  return code;
}

absl::StatusOr<std::unique_ptr<Module>> FaultInjectingBackend::Load(int device,
                                                                    const CodeObject& code) {
  {
    absl::MutexLock lock(&mu_);
    // The binary does not name its functions portably; match the rule
    // against every expression compiled so far that the bytes mention.
    for (const auto& [lowered, expression] : expressions_) {
      if (!absl::StrContains(code.binary, lowered) && !absl::StrContains(code.binary, expression)) {
        continue;
      }
      if (const Rule* rule = Find(load_, expression)) {
        injected_.fetch_add(1);
        return rule->status;
      }
    }
  }
  JITK_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, base_->Load(device, code));
  return std::unique_ptr<Module>(std::make_unique<WrappedModule>(this, std::move(module)));
}

absl::Status FaultInjectingBackend::Launch(int device, FunctionHandle function, Dim3 grid,
                                           Dim3 block, uint32_t dynamic_shared_bytes, Stream stream,
                                           void** args) {
  std::string expression;
  Rule corrupt;
  bool corrupting = false;
  {
    absl::MutexLock lock(&mu_);
    auto it = functions_.find(function);
    if (it != functions_.end()) expression = it->second;
    if (const Rule* rule = Find(launch_, expression)) {
      injected_.fetch_add(1);
      return rule->status;
    }
    if (const Rule* rule = Find(corrupt_, expression)) {
      corrupt = *rule;
      corrupting = true;
    }
  }
  JITK_RETURN_IF_ERROR(
      base_->Launch(device, function, grid, block, dynamic_shared_bytes, stream, args));
  if (corrupting) {
    void* target = nullptr;
    std::memcpy(&target, args[corrupt.pointer_arg], sizeof(target));
    JITK_RETURN_IF_ERROR(base_->Synchronize(device, stream));
    JITK_RETURN_IF_ERROR(base_->Memset(device, target, 0x3c, corrupt.bytes));
    injected_.fetch_add(1);
  }
  return absl::OkStatus();
}

absl::StatusOr<double> FaultInjectingBackend::TimeMs(int device, Stream stream,
                                                     absl::FunctionRef<absl::Status()> work) {
  {
    absl::MutexLock lock(&mu_);
    if (!timing_.ok()) {
      injected_.fetch_add(1);
      return timing_;
    }
  }
  return base_->TimeMs(device, stream, work);
}

}  // namespace jitk::testing
