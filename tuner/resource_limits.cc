#include "tuner/resource_limits.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace jitk::tuner {
namespace {

// Per-CU scheduling limits the arch table does not carry, by vendor (the
// values of the current generations: CDNA 8 waves per SIMD x 4 SIMDs,
// Hopper/Ampere 64 warps and 32 blocks per SM, and 1 KiB of shared memory
// the SM reserves per resident block).
struct CuLimits {
  int max_threads;
  int max_blocks;
  int register_granule;  // registers are allocated in multiples of this, per thread
  int lds_reserved_per_block;
};

CuLimits LimitsFor(const ArchInfo& arch) {
  if (arch.vendor == Vendor::kNvidia) return {2048, 32, 8, 1024};
  if (arch.wave_size == 32) return {1024, 32, 8, 0};  // RDNA (wave32 per CU)
  return {2048, 32, 8, 0};                            // CDNA / GCN
}

int RoundUp(int value, int granule) { return (value + granule - 1) / granule * granule; }

// Per-thread architectural register limit: CDNA's table entry counts
// VGPRs + AGPRs; the VGPR file alone is half of it.
int VgprLimit(const ArchInfo& arch) {
  return arch.matrix_isa == "mfma" ? arch.max_registers_per_thread / 2
                                   : arch.max_registers_per_thread;
}

}  // namespace

Occupancy EstimateOccupancy(const ResourceUsage& usage, int threads_per_block,
                            const ArchInfo& arch) {
  Occupancy occ;
  const CuLimits limits = LimitsFor(arch);
  const int wave = std::max(1, arch.wave_size);
  occ.waves_per_block = std::max(1, (threads_per_block + wave - 1) / wave);
  occ.max_waves_per_cu = limits.max_threads / wave;

  int blocks = limits.max_blocks;
  occ.limiter = "blocks";
  const int by_threads = occ.max_waves_per_cu / occ.waves_per_block;
  if (by_threads < blocks) blocks = by_threads, occ.limiter = "threads";
  const int registers =
      RoundUp(std::max(1, usage.registers + usage.accum_registers), limits.register_granule);
  if (arch.register_file_per_cu > 0) {
    const int64_t per_block = int64_t(registers) * occ.waves_per_block * wave;
    const int by_registers = int(arch.register_file_per_cu / per_block);
    if (by_registers < blocks) blocks = by_registers, occ.limiter = "registers";
  }
  if (usage.lds_bytes > 0 && arch.lds_bytes_per_cu > 0) {
    const int by_lds = arch.lds_bytes_per_cu / (usage.lds_bytes + limits.lds_reserved_per_block);
    if (by_lds < blocks) blocks = by_lds, occ.limiter = "lds";
  }
  occ.blocks_per_cu = std::max(0, blocks);
  return occ;
}

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
