#include "lib/backend/hip/comgr_api.h"

#include "absl/strings/str_cat.h"
#include "lib/backend/hip/vendor_library.h"
#include "lib/internal/status_macros.h"

namespace jitk::internal {

std::string ComgrApi::ErrorName(amd_comgr_status_t status) const {
  const char* text = nullptr;
  if (amd_comgr_status_string != nullptr &&
      amd_comgr_status_string(status, &text) == AMD_COMGR_STATUS_SUCCESS && text != nullptr) {
    return text;
  }
  return absl::StrCat("comgr status ", int(status));
}

absl::StatusOr<std::unique_ptr<ComgrApi>> LoadComgrApi(absl::Span<const std::string> file_names) {
  auto api = std::make_unique<ComgrApi>();
  JITK_ASSIGN_OR_RETURN(
      api->library,
      OpenVendorLibrary(file_names, "amd_comgr_get_data_metadata",
                        "apt-get install libamd-comgr2 (Debian/Ubuntu) or install ROCm"));
  const DynamicLibrary& lib = *api->library;
#define JITK_RESOLVE(fn) JITK_RETURN_IF_ERROR(lib.Resolve(#fn, api->fn))
  JITK_RESOLVE(amd_comgr_status_string);
  JITK_RESOLVE(amd_comgr_get_version);
  JITK_RESOLVE(amd_comgr_get_isa_count);
  JITK_RESOLVE(amd_comgr_get_isa_name);
  JITK_RESOLVE(amd_comgr_get_isa_metadata);
  JITK_RESOLVE(amd_comgr_create_data);
  JITK_RESOLVE(amd_comgr_release_data);
  JITK_RESOLVE(amd_comgr_set_data);
  JITK_RESOLVE(amd_comgr_get_data_isa_name);
  JITK_RESOLVE(amd_comgr_get_data_metadata);
  JITK_RESOLVE(amd_comgr_destroy_metadata);
  JITK_RESOLVE(amd_comgr_get_metadata_kind);
  JITK_RESOLVE(amd_comgr_get_metadata_string);
  JITK_RESOLVE(amd_comgr_iterate_map_metadata);
  JITK_RESOLVE(amd_comgr_get_metadata_list_size);
  JITK_RESOLVE(amd_comgr_index_list_metadata);
#undef JITK_RESOLVE
  return api;
}

}  // namespace jitk::internal
