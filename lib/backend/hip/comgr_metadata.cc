#include "lib/backend/hip/comgr_metadata.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/internal/status_macros.h"

namespace jitk::internal {
namespace {

// Deep metadata trees mean a corrupt note; real ones are ~5 levels deep.
constexpr int kMaxDepth = 32;

absl::Status ComgrError(const ComgrApi& comgr, amd_comgr_status_t status, absl::string_view what) {
  return absl::DataLossError(absl::StrCat(what, ": ", comgr.ErrorName(status)));
}

// comgr sizes count the terminating NUL.
std::string TrimNul(std::string text) {
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

absl::StatusOr<std::string> ReadString(const ComgrApi& comgr, amd_comgr_metadata_node_t node) {
  size_t size = 0;
  amd_comgr_status_t status = comgr.amd_comgr_get_metadata_string(node, &size, nullptr);
  if (status != AMD_COMGR_STATUS_SUCCESS) return ComgrError(comgr, status, "metadata string");
  std::string text(size, '\0');
  status = comgr.amd_comgr_get_metadata_string(node, &size, text.data());
  if (status != AMD_COMGR_STATUS_SUCCESS) return ComgrError(comgr, status, "metadata string");
  return TrimNul(std::move(text));
}

absl::StatusOr<MetadataValue> Read(const ComgrApi& comgr, amd_comgr_metadata_node_t node,
                                   int depth);

struct MapWalk {
  const ComgrApi* comgr;
  int depth;
  MetadataValue* out;
  absl::Status status;
};

amd_comgr_status_t VisitMapEntry(amd_comgr_metadata_node_t key, amd_comgr_metadata_node_t value,
                                 void* user_data) {
  auto* walk = static_cast<MapWalk*>(user_data);
  absl::StatusOr<std::string> key_text = ReadString(*walk->comgr, key);
  absl::StatusOr<MetadataValue> entry = Read(*walk->comgr, value, walk->depth + 1);
  if (!key_text.ok() || !entry.ok()) {
    walk->status = !key_text.ok() ? key_text.status() : entry.status();
    return AMD_COMGR_STATUS_ERROR;
  }
  walk->out->map.emplace_back(*std::move(key_text), *std::move(entry));
  return AMD_COMGR_STATUS_SUCCESS;
}

absl::StatusOr<MetadataValue> Read(const ComgrApi& comgr, amd_comgr_metadata_node_t node,
                                   int depth) {
  if (depth > kMaxDepth) return absl::DataLossError("metadata nested too deeply");
  amd_comgr_metadata_kind_t kind;
  amd_comgr_status_t status = comgr.amd_comgr_get_metadata_kind(node, &kind);
  if (status != AMD_COMGR_STATUS_SUCCESS) return ComgrError(comgr, status, "metadata kind");
  MetadataValue value;
  switch (kind) {
    case AMD_COMGR_METADATA_KIND_STRING: {
      value.kind = MetadataValue::Kind::kString;
      JITK_ASSIGN_OR_RETURN(value.string, ReadString(comgr, node));
      break;
    }
    case AMD_COMGR_METADATA_KIND_MAP: {
      value.kind = MetadataValue::Kind::kMap;
      MapWalk walk{&comgr, depth, &value, absl::OkStatus()};
      status = comgr.amd_comgr_iterate_map_metadata(node, VisitMapEntry, &walk);
      JITK_RETURN_IF_ERROR(walk.status);
      if (status != AMD_COMGR_STATUS_SUCCESS) return ComgrError(comgr, status, "metadata map");
      break;
    }
    case AMD_COMGR_METADATA_KIND_LIST: {
      value.kind = MetadataValue::Kind::kList;
      size_t size = 0;
      status = comgr.amd_comgr_get_metadata_list_size(node, &size);
      if (status != AMD_COMGR_STATUS_SUCCESS) return ComgrError(comgr, status, "metadata list");
      for (size_t i = 0; i < size; ++i) {
        amd_comgr_metadata_node_t element;
        status = comgr.amd_comgr_index_list_metadata(node, i, &element);
        if (status != AMD_COMGR_STATUS_SUCCESS) return ComgrError(comgr, status, "metadata list");
        absl::StatusOr<MetadataValue> item = Read(comgr, element, depth + 1);
        comgr.amd_comgr_destroy_metadata(element);
        if (!item.ok()) return item.status();
        value.list.push_back(*std::move(item));
      }
      break;
    }
    default:
      break;  // kNull
  }
  return value;
}

// Releases a comgr data object on every path.
class ScopedData {
 public:
  explicit ScopedData(const ComgrApi& comgr) : comgr_(comgr) {}
  ~ScopedData() {
    if (created_) comgr_.amd_comgr_release_data(data_);
  }
  amd_comgr_status_t Create(amd_comgr_data_kind_t kind) {
    amd_comgr_status_t status = comgr_.amd_comgr_create_data(kind, &data_);
    created_ = status == AMD_COMGR_STATUS_SUCCESS;
    return status;
  }
  amd_comgr_data_t get() const { return data_; }

 private:
  const ComgrApi& comgr_;
  amd_comgr_data_t data_{};
  bool created_ = false;
};

int ToInt(std::optional<int64_t> value) { return value.has_value() ? int(*value) : 0; }

}  // namespace

const MetadataValue* MetadataValue::Find(absl::string_view key) const {
  for (const auto& [name, value] : map) {
    if (name == key) return &value;
  }
  return nullptr;
}

std::optional<int64_t> MetadataValue::FindInt(absl::string_view key) const {
  const MetadataValue* value = Find(key);
  int64_t number = 0;
  if (value == nullptr || value->kind != Kind::kString ||
      !absl::SimpleAtoi(value->string, &number)) {
    return std::nullopt;
  }
  return number;
}

std::string MetadataValue::FindString(absl::string_view key) const {
  const MetadataValue* value = Find(key);
  return value != nullptr && value->kind == Kind::kString ? value->string : std::string();
}

absl::StatusOr<MetadataValue> ReadMetadata(const ComgrApi& comgr, amd_comgr_metadata_node_t node) {
  return Read(comgr, node, 0);
}

const KernelMetadata* CodeObjectMetadata::FindKernel(absl::string_view lowered_name) const {
  const std::string descriptor = absl::StrCat(lowered_name, ".kd");
  for (const KernelMetadata& kernel : kernels) {
    if (kernel.symbol == descriptor) return &kernel;
  }
  for (const KernelMetadata& kernel : kernels) {
    if (kernel.name == lowered_name) return &kernel;
  }
  return nullptr;
}

bool UnifiedRegisterFile(absl::string_view isa_name) {
  for (absl::string_view arch : {"--gfx90a", "--gfx94", "--gfx95", "--gfx9-4-generic"}) {
    if (absl::StrContains(isa_name, arch)) return true;
  }
  return false;
}

ResourceUsage KernelResources(const MetadataValue& kernel, bool unified_registers) {
  ResourceUsage usage;
  usage.registers = ToInt(kernel.FindInt(".vgpr_count"));
  usage.scalar_registers = ToInt(kernel.FindInt(".sgpr_count"));
  usage.accum_registers = ToInt(kernel.FindInt(".agpr_count"));
  if (unified_registers) usage.registers = std::max(0, usage.registers - usage.accum_registers);
  usage.lds_bytes = ToInt(kernel.FindInt(".group_segment_fixed_size"));
  usage.scratch_bytes = ToInt(kernel.FindInt(".private_segment_fixed_size"));
  usage.spills =
      ToInt(kernel.FindInt(".vgpr_spill_count")) + ToInt(kernel.FindInt(".sgpr_spill_count"));
  usage.wave_size = ToInt(kernel.FindInt(".wavefront_size"));
  usage.max_threads_per_block = ToInt(kernel.FindInt(".max_flat_workgroup_size"));
  return usage;
}

bool IsElf(absl::string_view binary) {
  return binary.size() >= 4 && binary.substr(0, 4) == absl::string_view(
                                                          "\x7f"
                                                          "ELF",
                                                          4);
}

absl::StatusOr<CodeObjectMetadata> ReadCodeObjectMetadata(const ComgrApi& comgr,
                                                          absl::string_view binary) {
  // A code object is far larger than an ELF header; comgr reads past short
  // buffers.
  if (!IsElf(binary) || binary.size() < 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("not an AMD code object: ", binary.size(), " bytes without an ELF header"));
  }
  ScopedData data(comgr);
  amd_comgr_status_t status = data.Create(AMD_COMGR_DATA_KIND_EXECUTABLE);
  if (status != AMD_COMGR_STATUS_SUCCESS) return ComgrError(comgr, status, "amd_comgr_create_data");
  status = comgr.amd_comgr_set_data(data.get(), binary.size(), binary.data());
  if (status != AMD_COMGR_STATUS_SUCCESS) return ComgrError(comgr, status, "amd_comgr_set_data");

  CodeObjectMetadata out;
  size_t size = 0;
  status = comgr.amd_comgr_get_data_isa_name(data.get(), &size, nullptr);
  if (status != AMD_COMGR_STATUS_SUCCESS) {
    return ComgrError(comgr, status, "amd_comgr_get_data_isa_name");
  }
  std::string isa(size, '\0');
  status = comgr.amd_comgr_get_data_isa_name(data.get(), &size, isa.data());
  if (status != AMD_COMGR_STATUS_SUCCESS) {
    return ComgrError(comgr, status, "amd_comgr_get_data_isa_name");
  }
  out.isa_name = TrimNul(std::move(isa));

  amd_comgr_metadata_node_t root;
  status = comgr.amd_comgr_get_data_metadata(data.get(), &root);
  if (status != AMD_COMGR_STATUS_SUCCESS) {
    return ComgrError(comgr, status, "amd_comgr_get_data_metadata");
  }
  absl::StatusOr<MetadataValue> tree = ReadMetadata(comgr, root);
  comgr.amd_comgr_destroy_metadata(root);
  if (!tree.ok()) return tree.status();

  const MetadataValue* kernels = tree->Find("amdhsa.kernels");
  if (kernels == nullptr || kernels->kind != MetadataValue::Kind::kList) {
    return absl::DataLossError("code object metadata has no amdhsa.kernels list");
  }
  for (const MetadataValue& kernel : kernels->list) {
    out.kernels.push_back(
        {kernel.FindString(".name"), kernel.FindString(".symbol"),
         KernelResources(kernel, UnifiedRegisterFile(out.isa_name))});
  }
  return out;
}

}  // namespace jitk::internal
