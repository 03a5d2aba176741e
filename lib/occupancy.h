// lib/occupancy.h — how many blocks of a kernel one CU / SM holds at once.
//
// From the compiler's resource report (or an estimate of it) and the
// ArchInfo table alone, so it works offline for any architecture: the tuner
// prunes candidates below an occupancy floor with it, and launch planning
// sizes work orders to the blocks resident at once.
//
// Example:
//   ResourceUsage usage;
//   usage.registers = 255;
//   usage.lds_bytes = 104 * 1024;
//   EstimateOccupancy(usage, 128, *LookupArch("sm_90")).blocks_per_cu;  // 2
#ifndef JITK_LIB_OCCUPANCY_H_
#define JITK_LIB_OCCUPANCY_H_

#include "jitk/arch.h"
#include "jitk/kernel.h"

namespace jitk::internal {

struct Occupancy {
  int waves_per_block = 0;
  int blocks_per_cu = 0;     // resident blocks per CU / SM
  int max_waves_per_cu = 0;  // what the CU / SM can hold at best
  const char* limiter = "";  // "registers", "lds", "threads", "blocks"
  double fraction() const {
    return max_waves_per_cu == 0 ? 0 : double(blocks_per_cu * waves_per_block) / max_waves_per_cu;
  }
};

// Resident blocks of `threads_per_block` threads with `usage` (registers,
// accumulation registers and static + dynamic LDS per block) on one CU.
Occupancy EstimateOccupancy(const ResourceUsage& usage, int threads_per_block,
                            const ArchInfo& arch);

}  // namespace jitk::internal

#endif  // JITK_LIB_OCCUPANCY_H_
