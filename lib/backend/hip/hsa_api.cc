#include "lib/backend/hip/hsa_api.h"

#include "absl/strings/str_cat.h"
#include "lib/backend/hip/vendor_library.h"
#include "lib/internal/status_macros.h"

namespace jitk::internal {

std::string HsaApi::ErrorName(hsa_status_t status) const {
  const char* text = nullptr;
  if (hsa_status_string != nullptr && hsa_status_string(status, &text) == HSA_STATUS_SUCCESS &&
      text != nullptr) {
    return text;
  }
  return absl::StrCat("HSA status 0x", absl::Hex(int(status)));
}

absl::StatusOr<std::unique_ptr<HsaApi>> LoadHsaApi(absl::Span<const std::string> file_names) {
  auto api = std::make_unique<HsaApi>();
  JITK_ASSIGN_OR_RETURN(
      api->library,
      OpenVendorLibrary(file_names, "hsa_init",
                        "apt-get install libhsa-runtime64-1 (Debian/Ubuntu) or install ROCm"));
  const DynamicLibrary& lib = *api->library;
#define JITK_RESOLVE(fn) JITK_RETURN_IF_ERROR(lib.Resolve(#fn, api->fn))
  JITK_RESOLVE(hsa_init);
  JITK_RESOLVE(hsa_status_string);
  JITK_RESOLVE(hsa_iterate_agents);
  JITK_RESOLVE(hsa_agent_get_info);
  JITK_RESOLVE(hsa_agent_iterate_isas);
  JITK_RESOLVE(hsa_isa_get_info_alt);
  JITK_RESOLVE(hsa_amd_agent_iterate_memory_pools);
  JITK_RESOLVE(hsa_amd_memory_pool_get_info);
#undef JITK_RESOLVE
  return api;
}

}  // namespace jitk::internal
