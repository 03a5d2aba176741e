#include "lib/backend/cuda/nvrtc_compiler.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "lib/backend/cuda/cubin.h"
#include "lib/backend/cuda/nvrtc_api.h"
#include "lib/backend/cuda/ptxas_log.h"
#include "lib/internal/status_macros.h"

namespace jitk::internal {
namespace {

constexpr int kWarpSize = 32;

std::string ArchList(const std::vector<int>& archs) {
  return absl::StrJoin(archs, ", ",
                       [](std::string* out, int arch) { absl::StrAppend(out, "sm_", arch); });
}

// "sm_90", "sm_90a", "sm_100f" -> 90, 90, 100; -1 when malformed.
int ParseSmNumber(absl::string_view arch) {
  if (!absl::ConsumePrefix(&arch, "sm_")) return -1;
  if (!arch.empty() && (arch.back() == 'a' || arch.back() == 'f')) arch.remove_suffix(1);
  if (arch.empty() || arch.size() > 4 || arch[0] == '0' ||
      !std::all_of(arch.begin(), arch.end(), [](char c) { return absl::ascii_isdigit(c); })) {
    return -1;
  }
  int number = 0;
  return absl::SimpleAtoi(arch, &number) ? number : -1;
}

absl::StatusCode CodeForCompileFailure(nvrtcResult result) {
  switch (result) {
    case NVRTC_ERROR_OUT_OF_MEMORY:
      return absl::StatusCode::kResourceExhausted;
    case NVRTC_ERROR_BUILTIN_OPERATION_FAILURE:
      // libnvrtc-builtins missing or broken: an installation problem.
      return absl::StatusCode::kUnavailable;
    default:
      return absl::StatusCode::kInvalidArgument;
  }
}

std::string ProgramLog(const NvrtcApi& api, nvrtcProgram program) {
  size_t size = 0;
  if (api.nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size == 0) return "";
  std::string log(size, '\0');
  if (api.nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return "";
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

bool SetsLanguageStandard(const std::vector<std::string>& options) {
  return std::any_of(options.begin(), options.end(), [](const std::string& option) {
    return absl::StartsWith(option, "--std") || absl::StartsWith(option, "-std");
  });
}

}  // namespace

int MaxThreadsForRegisters(int registers, int declared) {
  constexpr int kRegistersPerBlock = 65536;
  constexpr int kAllocationUnit = 256;  // registers, per warp
  constexpr int kSubPartitions = 4;     // a block's warps are rounded up to a multiple of this
  int limit = 1024;
  if (registers > 0) {
    int per_warp =
        (registers * kWarpSize + kAllocationUnit - 1) / kAllocationUnit * kAllocationUnit;
    int warps = kRegistersPerBlock / per_warp / kSubPartitions * kSubPartitions;
    limit = std::min(limit, warps * kWarpSize);
  }
  if (declared > 0) limit = std::min(limit, declared);
  return limit;
}

NvrtcCompiler::NvrtcCompiler(std::vector<std::string> file_names,
                             std::vector<std::string> extra_dirs)
    : file_names_(file_names.empty() ? DefaultNvrtcNames() : std::move(file_names)),
      extra_dirs_(extra_dirs.empty() ? DefaultCudaLibraryDirs() : std::move(extra_dirs)) {}

NvrtcCompiler::~NvrtcCompiler() = default;

absl::StatusOr<const NvrtcApi*> NvrtcCompiler::Api() {
  absl::call_once(once_, [this] {
    absl::StatusOr<std::unique_ptr<NvrtcApi>> api = LoadNvrtcApi(file_names_, extra_dirs_);
    if (!api.ok()) {
      status_ = api.status();
      return;
    }
    int count = 0;
    nvrtcResult result = (*api)->nvrtcGetNumSupportedArchs(&count);
    std::vector<int> archs(std::max(count, 0));
    if (result == NVRTC_SUCCESS && count > 0) result = (*api)->nvrtcGetSupportedArchs(archs.data());
    if (result != NVRTC_SUCCESS) {
      status_ = absl::UnavailableError(
          absl::StrCat((*api)->library->path(),
                       ": nvrtcGetSupportedArchs failed: ", (*api)->nvrtcGetErrorString(result)));
      return;
    }
    supported_archs_ = std::move(archs);
    api_ = *std::move(api);
  });
  if (!status_.ok()) return status_;
  return api_.get();
}

absl::StatusOr<CompilerInfo> NvrtcCompiler::Info() {
  JITK_ASSIGN_OR_RETURN(const NvrtcApi* api, Api());
  return CompilerInfo{"nvrtc", absl::StrCat(api->major, ".", api->minor)};
}

absl::StatusOr<std::vector<std::string>> NvrtcCompiler::Targets() {
  JITK_RETURN_IF_ERROR(Api().status());
  std::vector<std::string> targets;
  for (int arch : supported_archs_) targets.push_back(absl::StrCat("sm_", arch));
  return targets;
}

absl::Status NvrtcCompiler::CheckTarget(const Target& target) const {
  // Target::vendor is not checked: the name says it, and the vendor field
  // of a hand-built Target may be left at its zero value (kAmd).
  const std::string supported =
      absl::StrCat("NVRTC ", api_->major, ".", api_->minor, " supports ",
                   ArchList(supported_archs_), " (an \"a\" or \"f\" suffix is allowed)");
  int number = ParseSmNumber(target.arch);
  if (number < 0 || !target.features.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("\"", target.ToString(),
                                                   "\" is not an NVIDIA architecture (sm_XY, "
                                                   "sm_XYa or sm_XYf); ",
                                                   supported));
  }
  if (std::find(supported_archs_.begin(), supported_archs_.end(), number) ==
      supported_archs_.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot compile for ", target.arch, ": ", supported));
  }
  return absl::OkStatus();
}

absl::StatusOr<CodeObject> NvrtcCompiler::Compile(const CompileRequest& request) {
  JITK_ASSIGN_OR_RETURN(const NvrtcApi* api, Api());
  JITK_RETURN_IF_ERROR(CheckTarget(request.target));
  for (const std::string& option : request.options) {
    // The last architecture option wins in NVRTC, so one here would silently
    // build for something other than request.target.
    if (absl::StartsWith(option, "--gpu-architecture") || absl::StartsWith(option, "-arch")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "option \"", option, "\" sets the architecture; set CompileRequest::target instead"));
    }
  }
  const auto start = std::chrono::steady_clock::now();
  const std::string program_name =
      request.program_name.empty() ? std::string("jitk_kernel.cu") : request.program_name;

  std::vector<const char*> header_names, header_texts;
  for (const auto& [name, text] : request.headers) {
    header_names.push_back(name.c_str());
    header_texts.push_back(text.c_str());
  }
  nvrtcProgram program = nullptr;
  nvrtcResult result = api->nvrtcCreateProgram(
      &program, request.source.c_str(), program_name.c_str(), static_cast<int>(header_names.size()),
      header_texts.data(), header_names.data());
  if (result != NVRTC_SUCCESS) {
    return absl::Status(
        result == NVRTC_ERROR_OUT_OF_MEMORY ? absl::StatusCode::kResourceExhausted
                                            : absl::StatusCode::kInternal,
        absl::StrCat("nvrtcCreateProgram(", program_name, "): ", api->nvrtcGetErrorString(result)));
  }
  absl::Cleanup destroy = [api, &program] { api->nvrtcDestroyProgram(&program); };

  for (const std::string& expression : request.name_expressions) {
    result = api->nvrtcAddNameExpression(program, expression.c_str());
    if (result != NVRTC_SUCCESS) {
      return absl::InvalidArgumentError(absl::StrCat("nvrtcAddNameExpression(\"", expression,
                                                     "\"): ", api->nvrtcGetErrorString(result)));
    }
  }

  std::vector<std::string> options = {absl::StrCat("--gpu-architecture=", request.target.arch)};
  if (!SetsLanguageStandard(request.options)) options.push_back("--std=c++17");
  options.push_back("--ptxas-options=-v");
  // NVRTC 12.9 and later answer a repeated compile from a cache of their own
  // without running ptxas, so without its report (registers, spills, shared
  // memory). jitk keeps code objects in its own cache.
  if (api->major > 12 || (api->major == 12 && api->minor >= 9)) options.push_back("--no-cache");
  options.insert(options.end(), request.options.begin(), request.options.end());
  std::vector<const char*> option_pointers;
  for (const std::string& option : options) option_pointers.push_back(option.c_str());

  result = api->nvrtcCompileProgram(program, static_cast<int>(option_pointers.size()),
                                    option_pointers.data());
  CodeObject code;
  code.log = ProgramLog(*api, program);
  if (result != NVRTC_SUCCESS) {
    return absl::Status(
        CodeForCompileFailure(result),
        absl::StrCat("NVRTC could not compile ", program_name, " for ", request.target.arch, " (",
                     api->nvrtcGetErrorString(result), ") with options \"",
                     absl::StrJoin(options, " "), "\":\n", code.log));
  }

  size_t cubin_size = 0;
  result = api->nvrtcGetCUBINSize(program, &cubin_size);
  if (result == NVRTC_SUCCESS) {
    code.binary.resize(cubin_size);
    result = api->nvrtcGetCUBIN(program, code.binary.data());
  }
  if (result != NVRTC_SUCCESS) {
    return absl::InternalError(
        absl::StrCat("nvrtcGetCUBIN(", program_name, "): ", api->nvrtcGetErrorString(result)));
  }
  if (cubin_size == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("NVRTC compiled ", program_name,
                     " to no cubin (did an option ask for PTX only?) with "
                     "options \"",
                     absl::StrJoin(options, " "), "\""));
  }
  absl::StatusOr<std::string> arch = CubinArch(code.binary);
  if (!arch.ok()) {
    return absl::InternalError(absl::StrCat("NVRTC's output for ", program_name,
                                            " is unreadable: ", arch.status().message()));
  }
  // A family target ("sm_100f") gives the plain architecture's cubin.
  absl::string_view requested = request.target.arch;
  absl::ConsumeSuffix(&requested, "f");
  if (*arch != requested) {
    return absl::InternalError(
        absl::StrCat("NVRTC built ", *arch, " code for a ", request.target.arch, " request"));
  }
  code.target = *arch;
  code.isa_name = *arch;

  const absl::flat_hash_map<std::string, PtxasFunctionInfo> functions = ParsePtxasLog(code.log);
  for (const std::string& expression : request.name_expressions) {
    const char* lowered = nullptr;
    result = api->nvrtcGetLoweredName(program, expression.c_str(), &lowered);
    if (result != NVRTC_SUCCESS || lowered == nullptr) {
      return absl::InternalError(absl::StrCat("nvrtcGetLoweredName(\"", expression,
                                              "\"): ", api->nvrtcGetErrorString(result)));
    }
    CompiledSymbol symbol;
    symbol.name_expression = expression;
    symbol.lowered_name = lowered;
    ResourceUsage& usage = symbol.resources;
    usage.wave_size = kWarpSize;
    if (auto it = functions.find(symbol.lowered_name); it != functions.end()) {
      const PtxasFunctionInfo& info = it->second;
      usage.registers = info.registers;
      usage.lds_bytes = info.shared_bytes;
      usage.scratch_bytes = std::max(info.stack_frame_bytes, info.cumulative_stack_bytes);
      usage.spills = info.spill_store_bytes + info.spill_load_bytes;
    } else {
      // No ptxas report for this kernel: what the cubin records.
      JITK_ASSIGN_OR_RETURN(CubinKernelInfo info,
                            CubinKernelResources(code.binary, symbol.lowered_name));
      usage.registers = info.registers;
      usage.scratch_bytes = info.frame_bytes;
    }
    JITK_ASSIGN_OR_RETURN(int declared, CubinDeclaredMaxThreads(code.binary, symbol.lowered_name));
    usage.max_threads_per_block = MaxThreadsForRegisters(usage.registers, declared);
    code.symbols.push_back(std::move(symbol));
  }
  code.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return code;
}

}  // namespace jitk::internal
