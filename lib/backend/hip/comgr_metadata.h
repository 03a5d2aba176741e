// Reading AMD code object metadata through comgr.
//
// comgr exposes the msgpack note of a code object (and the description of an
// ISA) as a tree of handles that must each be destroyed. ReadMetadata copies
// such a tree into a plain MetadataValue once, so the rest of jitk queries
// ordinary C++ values and never leaks a handle.
//
// Example:
//   JITK_ASSIGN_OR_RETURN(CodeObjectMetadata md, ReadCodeObjectMetadata(comgr, binary));
//   const KernelMetadata* k = md.FindKernel("_Z4axpyILi256EfEvPT_PKS0_fi");
//   if (k != nullptr) printf("%d VGPRs\n", k->resources.registers);
#ifndef JITK_LIB_BACKEND_HIP_COMGR_METADATA_H_
#define JITK_LIB_BACKEND_HIP_COMGR_METADATA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "jitk/kernel.h"
#include "lib/backend/hip/comgr_api.h"

namespace jitk::internal {

// One metadata node: a string (numbers are strings too), a map or a list.
struct MetadataValue {
  enum class Kind { kNull, kString, kMap, kList };
  Kind kind = Kind::kNull;
  std::string string;
  std::vector<std::pair<std::string, MetadataValue>> map;  // in note order
  std::vector<MetadataValue> list;

  // The value under `key` of a map, or nullptr.
  const MetadataValue* Find(absl::string_view key) const;
  // `key`'s value as an integer, or nullopt when absent or not a number.
  std::optional<int64_t> FindInt(absl::string_view key) const;
  // `key`'s value as a string, or "" when absent or not a string.
  std::string FindString(absl::string_view key) const;
};

// Copies the tree under `node` (which the caller still owns).
absl::StatusOr<MetadataValue> ReadMetadata(const ComgrApi& comgr, amd_comgr_metadata_node_t node);

struct KernelMetadata {
  std::string name;    // ".name": the kernel's (mangled) function name
  std::string symbol;  // ".symbol": its kernel descriptor, name + ".kd"
  ResourceUsage resources;
};

struct CodeObjectMetadata {
  std::string isa_name;  // "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"
  std::vector<KernelMetadata> kernels;

  // The kernel whose .symbol is `lowered_name` + ".kd" or whose .name is
  // `lowered_name`, or nullptr.
  const KernelMetadata* FindKernel(absl::string_view lowered_name) const;
};

// Whether the ISA ("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-") keeps VGPRs
// and AGPRs in one register file: CDNA2 and later (gfx90a, gfx94x, gfx95x).
bool UnifiedRegisterFile(absl::string_view isa_name);

// The per-kernel resources of one entry of "amdhsa.kernels". With a unified
// register file .vgpr_count counts the AGPRs too (after the VGPRs, rounded
// up to 4), and ResourceUsage::registers is that count less the AGPRs: the
// VGPRs. On gfx908 (two files) .vgpr_count is the larger of the two counts,
// and registers stays that.
ResourceUsage KernelResources(const MetadataValue& kernel, bool unified_registers);

// ISA name and kernels of an executable code object. kInvalidArgument when
// `binary` is not an ELF file (comgr crashes on some non-ELF input, so this
// is checked first), kDataLoss when comgr cannot read it.
absl::StatusOr<CodeObjectMetadata> ReadCodeObjectMetadata(const ComgrApi& comgr,
                                                          absl::string_view binary);

// True when `binary` starts with the ELF magic.
bool IsElf(absl::string_view binary);

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_HIP_COMGR_METADATA_H_
