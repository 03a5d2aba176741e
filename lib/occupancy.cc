#include "lib/occupancy.h"

#include <algorithm>
#include <cstdint>

namespace jitk::internal {
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
  // AMD: a wave lives on one SIMD and takes its registers from that SIMD's
  // file (register_file_per_cu / simds); NVIDIA's warps share the SM's (0).
  int simds;
};

CuLimits LimitsFor(const ArchInfo& arch) {
  if (arch.vendor == Vendor::kNvidia) return {2048, 32, 8, 1024, 0};
  if (arch.wave_size == 32) return {1024, 32, 8, 0, 4};  // RDNA (wave32 per CU)
  return {2048, 32, 8, 0, 4};                            // CDNA / GCN
}

int RoundUp(int value, int granule) { return (value + granule - 1) / granule * granule; }

// Registers a wave takes from the CU's file (register_file_per_cu counts
// VGPRs and AGPRs together on CDNA). CDNA1 keeps them in two files of half
// the size, so the larger of the two counts twice; CDNA2 and later share one
// file.
int RegistersPerLane(const ResourceUsage& usage, const ArchInfo& arch) {
  if (arch.family == "cdna1") return 2 * std::max(usage.registers, usage.accum_registers);
  return usage.registers + usage.accum_registers;
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
      RoundUp(std::max(1, RegistersPerLane(usage, arch)), limits.register_granule);
  if (arch.register_file_per_cu > 0) {
    int by_registers;
    if (limits.simds > 0) {
      // Whole waves per SIMD, the block's waves spread over the SIMDs.
      const int per_simd = arch.register_file_per_cu / limits.simds / wave / registers;
      by_registers = per_simd * limits.simds / occ.waves_per_block;
    } else {
      const int64_t per_block = int64_t(registers) * occ.waves_per_block * wave;
      by_registers = int(arch.register_file_per_cu / per_block);
    }
    if (by_registers < blocks) blocks = by_registers, occ.limiter = "registers";
  }
  if (usage.lds_bytes > 0 && arch.lds_bytes_per_cu > 0) {
    const int by_lds = arch.lds_bytes_per_cu / (usage.lds_bytes + limits.lds_reserved_per_block);
    if (by_lds < blocks) blocks = by_lds, occ.limiter = "lds";
  }
  occ.blocks_per_cu = std::max(0, blocks);
  return occ;
}

}  // namespace jitk::internal
