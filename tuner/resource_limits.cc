#include "tuner/resource_limits.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace jitk::tuner {
namespace {

// Per-thread architectural register limit: CDNA's table entry counts
// VGPRs + AGPRs; the VGPR file alone is half of it.
int VgprLimit(const ArchInfo& arch) {
  return arch.matrix_isa == "mfma" ? arch.max_registers_per_thread / 2
                                   : arch.max_registers_per_thread;
}

}  // namespace

absl::Status CheckResources(const ResourceUsage& usage, int threads_per_block,
                            int dynamic_lds_bytes, const ArchInfo& arch,
                            const PruneOptions& options) {
  const int vgpr_limit = VgprLimit(arch);
  if (usage.registers > vgpr_limit) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "needs ", usage.registers, " registers per thread; ", arch.name, " allows ", vgpr_limit));
  }
  if (usage.registers + usage.accum_registers > arch.max_registers_per_thread) {
    return absl::ResourceExhaustedError(
        absl::StrCat("needs ", usage.registers, " + ", usage.accum_registers,
                     " accumulation registers per thread; ", arch.name, " allows ",
                     arch.max_registers_per_thread, " in all"));
  }
  const int lds = usage.lds_bytes + dynamic_lds_bytes;
  if (arch.lds_bytes_per_block > 0 && lds > arch.lds_bytes_per_block) {
    return absl::ResourceExhaustedError(absl::StrCat("needs ", lds, " bytes of LDS per block; ",
                                                     arch.name, " allows ",
                                                     arch.lds_bytes_per_block));
  }
  if (usage.spills > options.max_spills) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "spills ", usage.spills, arch.vendor == Vendor::kNvidia ? " bytes" : " registers",
        " (at most ", options.max_spills, " allowed)"));
  }
  if (usage.scratch_bytes > options.max_scratch_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat("uses ", usage.scratch_bytes,
                                                     " scratch bytes per thread (at most ",
                                                     options.max_scratch_bytes, " allowed)"));
  }
  if (threads_per_block > arch.max_threads_per_block) {
    return absl::ResourceExhaustedError(absl::StrCat(threads_per_block, " threads per block; ",
                                                     arch.name, " allows ",
                                                     arch.max_threads_per_block));
  }
  if (usage.max_threads_per_block > 0 && threads_per_block > usage.max_threads_per_block) {
    return absl::ResourceExhaustedError(
        absl::StrCat(threads_per_block, " threads per block, but the code object allows at most ",
                     usage.max_threads_per_block, " (registers or launch bounds)"));
  }
  const Occupancy occ = EstimateOccupancy(usage, threads_per_block, arch);
  if (occ.blocks_per_cu == 0) {
    return absl::ResourceExhaustedError(absl::StrCat("not one block of ", threads_per_block,
                                                     " threads fits on a CU (", occ.limiter, ")"));
  }
  if (occ.fraction() < options.min_occupancy) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "occupancy %.0f%% (%d of %d waves per CU, limited by %s) is below the %.0f%% floor",
        100 * occ.fraction(), occ.blocks_per_cu * occ.waves_per_block, occ.max_waves_per_cu,
        occ.limiter, 100 * options.min_occupancy));
  }
  return absl::OkStatus();
}

}  // namespace jitk::tuner
