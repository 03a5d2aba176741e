#include "lib/backend/hip/hip_compiler.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lib/backend/hip/comgr_metadata.h"
#include "lib/backend/hip/vendor_library.h"
#include "lib/internal/status_macros.h"

namespace jitk::internal {
namespace {

constexpr char kIsaPrefix[] = "amdgcn-amd-amdhsa--";

// Serializes every hiprtc and comgr call in the process. comgr before ROCm 5.5
// is not thread-safe (concurrent compiles corrupt its heap), and later hiprtc
// takes a lock of its own, so holding one costs no parallelism. It is global,
// not per HipCompiler, because all instances share the loaded libraries.
ABSL_CONST_INIT absl::Mutex compiler_mutex(absl::kConstInit);

// Passed to every compile, before the request's own options.
constexpr const char* kFixedOptions[] = {"-O3", "-std=c++17"};

// Options that choose the target behind CompileRequest::target's back: they
// would bypass the ISA check (ROCm 5.2 aborts on --offload-arch=gfx942 just as
// on --gpu-architecture=gfx942) and make code.target lie.
constexpr const char* kTargetOptions[] = {
    "--offload-arch", "--gpu-architecture", "-arch", "--amdgpu-target", "-mcpu", "-march"};

// "amdgcn-amd-amdhsa--gfx90a:xnack-" → "gfx90a".
std::string BareArch(absl::string_view isa_name) {
  size_t dashes = isa_name.rfind("--");
  if (dashes != absl::string_view::npos) isa_name.remove_prefix(dashes + 2);
  return std::string(isa_name.substr(0, isa_name.find(':')));
}

// "amdgcn-amd-amdhsa--gfx90a:sramecc+" → "gfx90a:sramecc+".
std::string TargetOfIsa(absl::string_view isa_name) {
  absl::StatusOr<Target> target = ParseTarget(isa_name);
  if (target.ok()) return target->ToString();
  size_t dashes = isa_name.rfind("--");
  return std::string(dashes == absl::string_view::npos ? isa_name : isa_name.substr(dashes + 2));
}

std::string Log(const HiprtcApi& hiprtc, hiprtcProgram program) {
  size_t size = 0;
  if (hiprtc.hiprtcGetProgramLogSize(program, &size) != HIPRTC_SUCCESS || size == 0) return "";
  std::string log(size, '\0');
  if (hiprtc.hiprtcGetProgramLog(program, log.data()) != HIPRTC_SUCCESS) return "";
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// Destroys the program on every path.
class ScopedProgram {
 public:
  explicit ScopedProgram(const HiprtcApi& hiprtc) : hiprtc_(hiprtc) {}
  ~ScopedProgram() {
    if (program_ != nullptr) hiprtc_.hiprtcDestroyProgram(&program_);
  }
  hiprtcProgram* out() { return &program_; }
  hiprtcProgram get() const { return program_; }

 private:
  const HiprtcApi& hiprtc_;
  hiprtcProgram program_ = nullptr;
};

// The target features comgr accepts for `arch` ("sramecc", "xnack").
std::vector<std::string> SupportedFeatures(const ComgrApi& comgr, const std::string& arch) {
  std::vector<std::string> features;
  amd_comgr_metadata_node_t node;
  if (comgr.amd_comgr_get_isa_metadata(absl::StrCat(kIsaPrefix, arch).c_str(), &node) !=
      AMD_COMGR_STATUS_SUCCESS) {
    return features;
  }
  absl::StatusOr<MetadataValue> isa = ReadMetadata(comgr, node);
  comgr.amd_comgr_destroy_metadata(node);
  if (!isa.ok()) return features;
  if (const MetadataValue* map = isa->Find("Features"); map != nullptr) {
    for (const auto& [name, value] : map->map) features.push_back(name);
  }
  return features;
}

}  // namespace

HipCompiler::HipCompiler(std::vector<std::string> hiprtc_files,
                         std::vector<std::string> comgr_files)
    : hiprtc_files_(std::move(hiprtc_files)), comgr_files_(std::move(comgr_files)) {}

absl::StatusOr<const HipCompiler::Libraries*> HipCompiler::Load() {
  absl::call_once(once_, [this] { status_ = LoadOnce(); });
  if (!status_.ok()) return status_;
  return libraries_.get();
}

absl::Status HipCompiler::LoadOnce() {
  absl::MutexLock lock(&compiler_mutex);
  auto libraries = std::make_unique<Libraries>();
  // hiprtc first: the comgr it links against is then already loaded, and
  // OpenVendorLibrary picks that one, so the ISA list is hiprtc's own.
  JITK_ASSIGN_OR_RETURN(libraries->hiprtc, LoadHiprtcApi(hiprtc_files_));
  JITK_ASSIGN_OR_RETURN(libraries->comgr, LoadComgrApi(comgr_files_));
  const HiprtcApi& hiprtc = *libraries->hiprtc;
  const ComgrApi& comgr = *libraries->comgr;

  int major = 0, minor = 0;
  hiprtcResult result = hiprtc.hiprtcVersion(&major, &minor);
  if (result != HIPRTC_SUCCESS) {
    return absl::UnavailableError(
        absl::StrCat(hiprtc.library->path(), ": hiprtcVersion failed: ", hiprtc.ErrorName(result)));
  }
  size_t comgr_major = 0, comgr_minor = 0;
  comgr.amd_comgr_get_version(&comgr_major, &comgr_minor);
  std::string hiprtc_file =
      LibraryFileVersion(reinterpret_cast<const void*>(hiprtc.hiprtcCreateProgram));
  std::string comgr_file =
      LibraryFileVersion(reinterpret_cast<const void*>(comgr.amd_comgr_get_version));
  libraries->info.name = "hiprtc";
  // The fixed options shape every binary too, so they belong to the version
  // that cache keys are made of.
  libraries->info.version =
      absl::StrCat(hiprtc_file.empty() ? absl::StrCat(major, ".", minor) : hiprtc_file, " (api ",
                   major, ".", minor, "; comgr ",
                   comgr_file.empty() ? absl::StrCat(comgr_major, ".", comgr_minor) : comgr_file,
                   "; ", absl::StrJoin(kFixedOptions, " "), ")");

  size_t count = 0;
  amd_comgr_status_t status = comgr.amd_comgr_get_isa_count(&count);
  if (status != AMD_COMGR_STATUS_SUCCESS) {
    return absl::UnavailableError(absl::StrCat(
        comgr.library->path(), ": amd_comgr_get_isa_count failed: ", comgr.ErrorName(status)));
  }
  for (size_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    if (comgr.amd_comgr_get_isa_name(i, &name) != AMD_COMGR_STATUS_SUCCESS || name == nullptr) {
      continue;
    }
    std::string arch = BareArch(name);
    if (std::find(libraries->targets.begin(), libraries->targets.end(), arch) ==
        libraries->targets.end()) {
      libraries->targets.push_back(std::move(arch));
    }
  }
  libraries_ = std::move(libraries);
  return absl::OkStatus();
}

absl::StatusOr<CompilerInfo> HipCompiler::Info() {
  JITK_ASSIGN_OR_RETURN(const Libraries* libraries, Load());
  return libraries->info;
}

absl::StatusOr<std::vector<std::string>> HipCompiler::Targets() {
  JITK_ASSIGN_OR_RETURN(const Libraries* libraries, Load());
  return libraries->targets;
}

absl::Status HipCompiler::CheckTarget(const Libraries& libraries, const Target& target) const {
  if (target.vendor != Vendor::kAmd) {
    return absl::InvalidArgumentError(absl::StrCat("the HIP backend compiles for AMD GPUs only; ",
                                                   target.ToString(), " is not an AMD target"));
  }
  const std::vector<std::string>& known = libraries.targets;
  if (std::find(known.begin(), known.end(), target.arch) == known.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "this ", libraries.info.ToString(), " cannot compile for ", target.arch,
        ": comgr does not list the architecture (ROCm 5.2 would abort the process instead of "
        "failing). It can compile for: ",
        absl::StrJoin(known, ", "), ". Install a newer ROCm to build for ", target.arch, "."));
  }
  if (target.features.empty()) return absl::OkStatus();
  const std::string isa = absl::StrCat(kIsaPrefix, target.arch, target.features);
  amd_comgr_metadata_node_t node;
  const ComgrApi& comgr = *libraries.comgr;
  if (comgr.amd_comgr_get_isa_metadata(isa.c_str(), &node) == AMD_COMGR_STATUS_SUCCESS) {
    comgr.amd_comgr_destroy_metadata(node);
    return absl::OkStatus();
  }
  std::vector<std::string> features = SupportedFeatures(comgr, target.arch);
  return absl::InvalidArgumentError(absl::StrCat(
      "target ", target.ToString(), " is not valid for this ", libraries.info.ToString(), ": ",
      target.arch, " takes ",
      features.empty() ? std::string("no target features")
                       : absl::StrCat("the features ", absl::StrJoin(features, ", "),
                                      ", each as +/- (e.g. ", target.arch, ":", features[0], "+)"),
      "; got \"", target.features, "\""));
}

absl::StatusOr<CodeObject> HipCompiler::Compile(const CompileRequest& request) {
  JITK_ASSIGN_OR_RETURN(const Libraries* libraries, Load());
  absl::MutexLock lock(&compiler_mutex);
  JITK_RETURN_IF_ERROR(CheckTarget(*libraries, request.target));
  for (const std::string& option : request.options) {
    for (const char* forbidden : kTargetOptions) {
      if (absl::StartsWith(option, forbidden)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "compile option \"", option, "\" is not allowed: the target comes from the request (",
            request.target.ToString(), ")"));
      }
    }
  }
  const HiprtcApi& hiprtc = *libraries->hiprtc;
  const std::string program_name =
      request.program_name.empty() ? std::string("jitk_program.hip") : request.program_name;
  const std::string target = request.target.ToString();
  const absl::Time start = absl::Now();

  std::vector<const char*> header_texts, header_names;
  for (const auto& [name, text] : request.headers) {
    header_names.push_back(name.c_str());
    header_texts.push_back(text.c_str());
  }
  ScopedProgram program(hiprtc);
  hiprtcResult result = hiprtc.hiprtcCreateProgram(
      program.out(), request.source.c_str(), program_name.c_str(), int(header_texts.size()),
      header_texts.empty() ? nullptr : header_texts.data(),
      header_names.empty() ? nullptr : header_names.data());
  if (result != HIPRTC_SUCCESS) {
    return absl::InvalidArgumentError(
        absl::StrCat("hiprtcCreateProgram(", program_name, "): ", hiprtc.ErrorName(result)));
  }
  for (const std::string& expression : request.name_expressions) {
    result = hiprtc.hiprtcAddNameExpression(program.get(), expression.c_str());
    if (result != HIPRTC_SUCCESS) {
      return absl::InvalidArgumentError(absl::StrCat("hiprtcAddNameExpression(\"", expression,
                                                     "\"): ", hiprtc.ErrorName(result)));
    }
  }

  std::vector<std::string> options = {absl::StrCat("--gpu-architecture=", target)};
  options.insert(options.end(), std::begin(kFixedOptions), std::end(kFixedOptions));
  options.insert(options.end(), request.options.begin(), request.options.end());
  std::vector<const char*> option_pointers;
  for (const std::string& option : options) option_pointers.push_back(option.c_str());
  result = hiprtc.hiprtcCompileProgram(program.get(), int(option_pointers.size()),
                                       option_pointers.data());
  CodeObject code;
  code.log = Log(hiprtc, program.get());
  if (result != HIPRTC_SUCCESS) {
    return absl::InvalidArgumentError(
        absl::StrCat("hiprtc could not compile ", program_name, " for ", target, " (",
                     hiprtc.ErrorName(result), "; options: ", absl::StrJoin(options, " "), "):\n",
                     code.log.empty() ? std::string("(empty log)") : code.log));
  }

  size_t size = 0;
  result = hiprtc.hiprtcGetCodeSize(program.get(), &size);
  if (result != HIPRTC_SUCCESS || size == 0) {
    return absl::InternalError(absl::StrCat("hiprtc compiled ", program_name, " for ", target,
                                            " but returned no code: ", hiprtc.ErrorName(result)));
  }
  code.binary.assign(size, '\0');
  result = hiprtc.hiprtcGetCode(program.get(), code.binary.data());
  if (result != HIPRTC_SUCCESS) {
    return absl::InternalError(absl::StrCat("hiprtcGetCode: ", hiprtc.ErrorName(result)));
  }
  if (!IsElf(code.binary)) {
    return absl::InternalError(absl::StrCat("hiprtc returned ", size, " bytes for ", program_name,
                                            " that are not an ELF code object"));
  }
  for (const std::string& expression : request.name_expressions) {
    const char* lowered = nullptr;
    result = hiprtc.hiprtcGetLoweredName(program.get(), expression.c_str(), &lowered);
    if (result != HIPRTC_SUCCESS || lowered == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "name expression \"", expression, "\" of ", program_name,
          " has no lowered name (is it a __global__ template instantiation that exists?): ",
          hiprtc.ErrorName(result)));
    }
    code.symbols.push_back({expression, lowered, {}});
  }
  code.compile_ms = absl::ToDoubleMilliseconds(absl::Now() - start);

  JITK_ASSIGN_OR_RETURN(CodeObjectMetadata metadata,
                        ReadCodeObjectMetadata(*libraries->comgr, code.binary));
  code.isa_name = metadata.isa_name;
  code.target = TargetOfIsa(metadata.isa_name);
  for (CompiledSymbol& symbol : code.symbols) {
    const KernelMetadata* kernel = metadata.FindKernel(symbol.lowered_name);
    if (kernel == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "name expression \"", symbol.name_expression, "\" lowers to ", symbol.lowered_name,
          ", which is not a kernel in the code object (is it __global__?)"));
    }
    symbol.resources = kernel->resources;
  }
  return code;
}

}  // namespace jitk::internal
