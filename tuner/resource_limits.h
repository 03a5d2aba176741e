// tuner/resource_limits.h — pruning candidates by what the compiler reports.
//
// Before a candidate costs device time its code object's resources
// (registers, LDS, spills; comgr metadata on AMD, the cubin's attributes on
// NVIDIA) are checked against the architecture's limits, and its occupancy —
// resident waves per CU over the most a CU can hold — against a floor. Only
// the ArchInfo table is needed, so pruning works offline for any --arch.
#ifndef JITK_TUNER_RESOURCE_LIMITS_H_
#define JITK_TUNER_RESOURCE_LIMITS_H_

#include "absl/status/status.h"
#include "jitk/arch.h"
#include "jitk/kernel.h"
#include "lib/occupancy.h"

namespace jitk::tuner {

struct PruneOptions {
  // Candidates whose occupancy estimate is below this fraction are dropped.
  double min_occupancy = 0.125;
  // Spilled registers (AMD) / spill bytes (NVIDIA) tolerated.
  int max_spills = 0;
  // Scratch (private segment / local memory) bytes per thread tolerated.
  int max_scratch_bytes = 1024;
};

// The estimate lives with the core library, which sizes launches by it.
using ::jitk::internal::EstimateOccupancy;
using ::jitk::internal::Occupancy;

// OK, or kResourceExhausted saying which limit the candidate exceeds
// ("needs 300 registers per thread; gfx90a allows 256"). `dynamic_lds_bytes`
// adds to the static LDS the compiler reports.
absl::Status CheckResources(const ResourceUsage& usage, int threads_per_block,
                            int dynamic_lds_bytes, const ArchInfo& arch,
                            const PruneOptions& options);

}  // namespace jitk::tuner

#endif  // JITK_TUNER_RESOURCE_LIMITS_H_
