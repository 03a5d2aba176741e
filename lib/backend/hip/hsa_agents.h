// The GPU agents of the HSA runtime, described the way rocminfo does.
//
// HSA is the layer under HIP that knows each GPU's full ISA name with target
// features ("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"), which decides
// whether a code object can be loaded.
#ifndef JITK_LIB_BACKEND_HIP_HSA_AGENTS_H_
#define JITK_LIB_BACKEND_HIP_HSA_AGENTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/backend/hip/hsa_api.h"

namespace jitk::internal {

struct HsaGpu {
  std::string name;          // HSA_AGENT_INFO_NAME: "gfx942"
  std::string product_name;  // "AMD Instinct MI300X"
  std::string isa_name;      // first ISA: "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
  int wave_size = 0;
  int compute_units = 0;
  int max_workgroup_size = 0;
  int lds_bytes_per_workgroup = 0;  // group segment pool size
  int clock_mhz = 0;
  uint64_t memory_bytes = 0;  // device-local global pool size
  uint32_t pci_domain = 0;
  uint32_t pci_bdf = 0;  // bus << 8 | device << 3 | function
};

// hsa_init, explained: when it fails the message says why in plain words
// (no /dev/kfd: the amdgpu kernel driver is not loaded; no permission: the
// user is not in the render group). Call once; the runtime stays up.
absl::Status InitHsa(const HsaApi& hsa);

// The GPU agents in HSA order (the order HIP numbers devices in).
absl::StatusOr<std::vector<HsaGpu>> ListHsaGpus(const HsaApi& hsa);

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_HIP_HSA_AGENTS_H_
