// HsaApi: the HSA runtime entry points jitk uses to describe GPUs the way
// rocminfo does (agents, ISA names with target features, memory pools).
#ifndef JITK_LIB_BACKEND_HIP_HSA_API_H_
#define JITK_LIB_BACKEND_HIP_HSA_API_H_

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lib/backend/internal/dynamic_library.h"

namespace jitk::internal {

struct HsaApi {
  std::unique_ptr<DynamicLibrary> library;

  decltype(&::hsa_init) hsa_init = nullptr;
  decltype(&::hsa_status_string) hsa_status_string = nullptr;
  decltype(&::hsa_iterate_agents) hsa_iterate_agents = nullptr;
  decltype(&::hsa_agent_get_info) hsa_agent_get_info = nullptr;
  decltype(&::hsa_agent_iterate_isas) hsa_agent_iterate_isas = nullptr;
  decltype(&::hsa_isa_get_info_alt) hsa_isa_get_info_alt = nullptr;
  decltype(&::hsa_amd_agent_iterate_memory_pools) hsa_amd_agent_iterate_memory_pools = nullptr;
  decltype(&::hsa_amd_memory_pool_get_info) hsa_amd_memory_pool_get_info = nullptr;

  // "HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to ...".
  std::string ErrorName(hsa_status_t status) const;
};

// kUnavailable naming the files when none loads.
absl::StatusOr<std::unique_ptr<HsaApi>> LoadHsaApi(absl::Span<const std::string> file_names);

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_HIP_HSA_API_H_
