#include "jitk/arch.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace jitk {
namespace {

constexpr int kKiB = 1024;

// Facts of the flagship part per architecture (vendor ISA guides and data
// sheets). Register counts are per lane: CDNA has 512 (256 arch + 256 acc).
constexpr ArchInfo kArchs[] = {
    {"gfx908", Vendor::kAmd, "cdna1", "MI100", 64, 1024, 64 * kKiB, 64 * kKiB, 120, 512,
     4 * 512 * 64, true, "mfma"},
    {"gfx90a", Vendor::kAmd, "cdna2", "MI250X (one GCD)", 64, 1024, 64 * kKiB, 64 * kKiB, 110,
     512, 4 * 512 * 64, true, "mfma"},
    {"gfx942", Vendor::kAmd, "cdna3", "MI300X", 64, 1024, 64 * kKiB, 64 * kKiB, 304, 512,
     4 * 512 * 64, true, "mfma"},
    {"gfx950", Vendor::kAmd, "cdna4", "MI355X", 64, 1024, 160 * kKiB, 160 * kKiB, 256, 512,
     4 * 512 * 64, true, "mfma"},
    {"gfx1030", Vendor::kAmd, "rdna2", "RX 6900 XT", 32, 1024, 64 * kKiB, 128 * kKiB, 80, 256,
     4 * 1024 * 32, false, "none"},
    {"gfx1100", Vendor::kAmd, "rdna3", "RX 7900 XTX", 32, 1024, 64 * kKiB, 128 * kKiB, 96, 256,
     4 * 1536 * 32, true, "wmma"},
    {"sm_80", Vendor::kNvidia, "ampere", "A100", 32, 1024, 163 * kKiB, 164 * kKiB, 108, 255,
     64 * kKiB, true, "mma.sync"},
    {"sm_90", Vendor::kNvidia, "hopper", "H100/H200", 32, 1024, 227 * kKiB, 228 * kKiB, 132, 255,
     64 * kKiB, true, "mma.sync"},
};

// Arch-specific NVIDIA targets: the base architecture's resources plus the
// instructions only code built for exactly that architecture may use.
struct ArchSpecific {
  absl::string_view name, base, matrix_isa;
};
constexpr ArchSpecific kArchSpecific[] = {{"sm_90a", "sm_90", "wgmma"}};

constexpr absl::string_view kAmdTriple = "amdgcn-amd-amdhsa--";

bool IsHexDigits(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isxdigit(c)) return false;
  }
  return true;
}

absl::Status BadTarget(absl::string_view text) {
  return absl::InvalidArgumentError(absl::StrCat(
      "'", text, "' is not a GPU target: use an AMD one like gfx942 or gfx942:sramecc+:xnack-, "
      "or an NVIDIA one like sm_90 or sm_90a"));
}

// sm_XY / sm_XYa → (XY, accelerated).
bool ParseSm(absl::string_view arch, int& version, bool& accelerated) {
  absl::string_view digits = absl::StripPrefix(arch, "sm_");
  accelerated = absl::ConsumeSuffix(&digits, "a");
  return digits.size() >= 2 && absl::SimpleAtoi(digits, &version);
}

}  // namespace

absl::string_view VendorName(Vendor vendor) { return vendor == Vendor::kAmd ? "amd" : "nvidia"; }

absl::Span<const ArchInfo> KnownArchs() { return kArchs; }

absl::StatusOr<ArchInfo> LookupArch(absl::string_view name) {
  absl::StatusOr<Target> target = ParseTarget(name);
  if (!target.ok()) return target.status();
  absl::string_view arch = target->arch;
  const ArchSpecific* specific = nullptr;
  for (const ArchSpecific& candidate : kArchSpecific) {
    if (candidate.name == arch) specific = &candidate;
  }
  if (specific != nullptr) {
    arch = specific->base;
  } else if (target->vendor == Vendor::kNvidia) {
    absl::ConsumeSuffix(&arch, "a");  // other "a" targets: their base's table row
  }
  for (ArchInfo info : kArchs) {
    if (info.name != arch) continue;
    if (specific != nullptr) {
      info.name = specific->name;
      info.matrix_isa = specific->matrix_isa;
    }
    return info;
  }
  std::vector<absl::string_view> known;
  for (const ArchInfo& info : kArchs) known.push_back(info.name);
  return absl::NotFoundError(absl::StrCat("architecture ", target->arch,
                                          " is not in jitk's table (known: ",
                                          absl::StrJoin(known, ", "), ")"));
}

absl::StatusOr<Target> ParseTarget(absl::string_view text) {
  absl::string_view rest = absl::StripAsciiWhitespace(text);
  absl::ConsumePrefix(&rest, kAmdTriple);
  if (absl::StartsWith(rest, "sm_")) {
    int version = 0;
    bool accelerated = false;
    if (!ParseSm(rest, version, accelerated)) return BadTarget(text);
    return Target{std::string(rest), "", Vendor::kNvidia};
  }
  if (!absl::StartsWith(rest, "gfx")) return BadTarget(text);
  std::vector<absl::string_view> parts = absl::StrSplit(rest, ':');
  if (!IsHexDigits(parts[0].substr(3))) return BadTarget(text);
  Target target{std::string(parts[0]), "", Vendor::kAmd};
  for (size_t i = 1; i < parts.size(); ++i) {
    absl::string_view feature = parts[i];
    bool known = feature == "sramecc+" || feature == "sramecc-" || feature == "xnack+" ||
                 feature == "xnack-";
    if (!known) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown target feature '", feature, "' in '", text,
          "': AMD targets take sramecc+/- and xnack+/-"));
    }
    absl::StrAppend(&target.features, ":", feature);
  }
  return target;
}

namespace {

// "+", "-" or "" (any) for `feature` within ":sramecc+:xnack-".
absl::string_view FeatureSetting(absl::string_view features, absl::string_view feature) {
  for (absl::string_view part : absl::StrSplit(features, ':', absl::SkipEmpty())) {
    if (absl::StartsWith(part, feature)) return part.substr(feature.size());
  }
  return "";
}

absl::Status Mismatch(const Target& code, const Target& device, absl::string_view why) {
  return absl::FailedPreconditionError(absl::StrCat(
      "code object for ", code.ToString(), " cannot run on this ", device.ToString(),
      " device (", why, "): recompile for ", device.arch,
      " — jitk compiles for the detected device unless --arch or a stored code object says "
      "otherwise; also check PYTORCH_ROCM_ARCH / HSA_OVERRIDE_GFX_VERSION / TORCH_CUDA_ARCH_LIST"));
}

}  // namespace

absl::Status CheckTargetCompatible(const Target& code, const Target& device) {
  if (code.vendor != device.vendor) return Mismatch(code, device, "different GPU vendor");
  if (code.vendor == Vendor::kAmd) {
    if (code.arch != device.arch) return Mismatch(code, device, "different ISA");
    for (absl::string_view feature : {"sramecc", "xnack"}) {
      absl::string_view want = FeatureSetting(code.features, feature);
      absl::string_view have = FeatureSetting(device.features, feature);
      if (!want.empty() && !have.empty() && want != have) {
        return Mismatch(code, device,
                        absl::StrCat(feature, want, " code on a ", feature, have, " device"));
      }
    }
    return absl::OkStatus();
  }
  int code_version = 0, device_version = 0;
  bool code_accel = false, device_accel = false;
  if (!ParseSm(code.arch, code_version, code_accel) ||
      !ParseSm(device.arch, device_version, device_accel)) {
    return Mismatch(code, device, "unparsable architecture");
  }
  if (code_version / 10 != device_version / 10) {
    return Mismatch(code, device, "cubins run only within one major compute capability");
  }
  if (code_accel && code_version != device_version) {
    return Mismatch(code, device, "an 'a' target runs only on exactly that architecture");
  }
  if (code_version > device_version) {
    return Mismatch(code, device, "the code needs a newer minor compute capability");
  }
  return absl::OkStatus();
}

}  // namespace jitk
