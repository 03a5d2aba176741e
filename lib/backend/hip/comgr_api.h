// ComgrApi: the AMD code object manager entry points jitk uses — the ISA
// list (what hiprtc can compile for) and code object metadata.
#ifndef JITK_LIB_BACKEND_HIP_COMGR_API_H_
#define JITK_LIB_BACKEND_HIP_COMGR_API_H_

#include <amd_comgr.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lib/backend/internal/dynamic_library.h"

namespace jitk::internal {

struct ComgrApi {
  std::unique_ptr<DynamicLibrary> library;

  decltype(&::amd_comgr_status_string) amd_comgr_status_string = nullptr;
  decltype(&::amd_comgr_get_version) amd_comgr_get_version = nullptr;
  decltype(&::amd_comgr_get_isa_count) amd_comgr_get_isa_count = nullptr;
  decltype(&::amd_comgr_get_isa_name) amd_comgr_get_isa_name = nullptr;
  decltype(&::amd_comgr_get_isa_metadata) amd_comgr_get_isa_metadata = nullptr;
  decltype(&::amd_comgr_create_data) amd_comgr_create_data = nullptr;
  decltype(&::amd_comgr_release_data) amd_comgr_release_data = nullptr;
  decltype(&::amd_comgr_set_data) amd_comgr_set_data = nullptr;
  decltype(&::amd_comgr_get_data_isa_name) amd_comgr_get_data_isa_name = nullptr;
  decltype(&::amd_comgr_get_data_metadata) amd_comgr_get_data_metadata = nullptr;
  decltype(&::amd_comgr_destroy_metadata) amd_comgr_destroy_metadata = nullptr;
  decltype(&::amd_comgr_get_metadata_kind) amd_comgr_get_metadata_kind = nullptr;
  decltype(&::amd_comgr_get_metadata_string) amd_comgr_get_metadata_string = nullptr;
  decltype(&::amd_comgr_iterate_map_metadata) amd_comgr_iterate_map_metadata = nullptr;
  decltype(&::amd_comgr_get_metadata_list_size) amd_comgr_get_metadata_list_size = nullptr;
  decltype(&::amd_comgr_index_list_metadata) amd_comgr_index_list_metadata = nullptr;

  // "AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT".
  std::string ErrorName(amd_comgr_status_t status) const;
};

// kUnavailable naming the files when none loads.
absl::StatusOr<std::unique_ptr<ComgrApi>> LoadComgrApi(absl::Span<const std::string> file_names);

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_HIP_COMGR_API_H_
