#include "lib/backend/hip/hsa_agents.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace jitk::internal {
namespace {

constexpr char kKfdPath[] = "/dev/kfd";

// Why the kernel side of ROCm is missing, or "" when /dev/kfd looks usable.
std::string KernelDriverProblem() {
  struct stat info;
  if (stat(kKfdPath, &info) != 0) {
    return absl::StrCat(kKfdPath,
                        " does not exist: the amdgpu kernel driver (ROCk) is not "
                        "loaded or there is no AMD GPU");
  }
  if (access(kKfdPath, R_OK | W_OK) != 0) {
    return absl::StrCat("no permission to open ", kKfdPath,
                        ": add the user to the render and video groups");
  }
  return "";
}

// Fixed-size char[] attributes (HSA writes up to 64 bytes, NUL padded).
std::string InfoString(const HsaApi& hsa, hsa_agent_t agent, int attribute) {
  char buffer[128] = {};
  if (hsa.hsa_agent_get_info(agent, static_cast<hsa_agent_info_t>(attribute), buffer) !=
      HSA_STATUS_SUCCESS) {
    return "";
  }
  buffer[sizeof(buffer) - 1] = '\0';
  return buffer;
}

template <typename T>
T InfoValue(const HsaApi& hsa, hsa_agent_t agent, int attribute) {
  T value{};
  if (hsa.hsa_agent_get_info(agent, static_cast<hsa_agent_info_t>(attribute), &value) !=
      HSA_STATUS_SUCCESS) {
    return T{};
  }
  return value;
}

struct IsaWalk {
  const HsaApi* hsa;
  std::string name;
};

hsa_status_t VisitIsa(hsa_isa_t isa, void* data) {
  auto* walk = static_cast<IsaWalk*>(data);
  uint32_t length = 0;
  if (walk->hsa->hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length) !=
          HSA_STATUS_SUCCESS ||
      length == 0 || length > 4096) {
    return HSA_STATUS_SUCCESS;
  }
  std::string name(length, '\0');
  if (walk->hsa->hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name.data()) != HSA_STATUS_SUCCESS) {
    return HSA_STATUS_SUCCESS;
  }
  name.resize(strnlen(name.data(), name.size()));
  walk->name = std::move(name);
  return HSA_STATUS_INFO_BREAK;  // the first ISA is the agent's own
}

struct PoolWalk {
  const HsaApi* hsa;
  uint64_t group_bytes = 0;
  uint64_t coarse_global_bytes = 0;
  uint64_t any_global_bytes = 0;
};

hsa_status_t VisitPool(hsa_amd_memory_pool_t pool, void* data) {
  auto* walk = static_cast<PoolWalk*>(data);
  hsa_amd_segment_t segment;
  if (walk->hsa->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment) !=
      HSA_STATUS_SUCCESS) {
    return HSA_STATUS_SUCCESS;
  }
  size_t size = 0;
  if (walk->hsa->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size) !=
      HSA_STATUS_SUCCESS) {
    return HSA_STATUS_SUCCESS;
  }
  if (segment == HSA_AMD_SEGMENT_GROUP) {
    walk->group_bytes = size;
  } else if (segment == HSA_AMD_SEGMENT_GLOBAL) {
    uint32_t flags = 0;
    walk->hsa->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
    // VRAM is the coarse-grained pool; fine-grained ones may be host memory.
    if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) {
      walk->coarse_global_bytes = std::max<uint64_t>(walk->coarse_global_bytes, size);
    }
    walk->any_global_bytes = std::max<uint64_t>(walk->any_global_bytes, size);
  }
  return HSA_STATUS_SUCCESS;
}

struct AgentWalk {
  const HsaApi* hsa;
  std::vector<HsaGpu> gpus;
};

hsa_status_t VisitAgent(hsa_agent_t agent, void* data) {
  auto* walk = static_cast<AgentWalk*>(data);
  const HsaApi& hsa = *walk->hsa;
  hsa_device_type_t type;
  if (hsa.hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS ||
      type != HSA_DEVICE_TYPE_GPU) {
    return HSA_STATUS_SUCCESS;
  }
  HsaGpu gpu;
  gpu.name = InfoString(hsa, agent, HSA_AGENT_INFO_NAME);
  gpu.product_name = InfoString(hsa, agent, HSA_AMD_AGENT_INFO_PRODUCT_NAME);
  IsaWalk isa{&hsa, ""};
  hsa.hsa_agent_iterate_isas(agent, VisitIsa, &isa);
  gpu.isa_name = isa.name;
  gpu.wave_size = int(InfoValue<uint32_t>(hsa, agent, HSA_AGENT_INFO_WAVEFRONT_SIZE));
  gpu.compute_units = int(InfoValue<uint32_t>(hsa, agent, HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT));
  gpu.max_workgroup_size = int(InfoValue<uint32_t>(hsa, agent, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE));
  gpu.clock_mhz = int(InfoValue<uint32_t>(hsa, agent, HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY));
  gpu.pci_domain = InfoValue<uint32_t>(hsa, agent, HSA_AMD_AGENT_INFO_DOMAIN);
  gpu.pci_bdf = InfoValue<uint32_t>(hsa, agent, HSA_AMD_AGENT_INFO_BDFID);
  PoolWalk pools{&hsa};
  hsa.hsa_amd_agent_iterate_memory_pools(agent, VisitPool, &pools);
  gpu.lds_bytes_per_workgroup = int(pools.group_bytes);
  gpu.memory_bytes =
      pools.coarse_global_bytes != 0 ? pools.coarse_global_bytes : pools.any_global_bytes;
  walk->gpus.push_back(std::move(gpu));
  return HSA_STATUS_SUCCESS;
}

}  // namespace

absl::Status InitHsa(const HsaApi& hsa) {
  hsa_status_t status = hsa.hsa_init();
  if (status == HSA_STATUS_SUCCESS) return absl::OkStatus();
  std::string error = hsa.ErrorName(status);
  std::string driver = KernelDriverProblem();
  if (driver.empty()) return absl::UnavailableError(absl::StrCat("hsa_init failed: ", error));
  // Without the driver HSA's own text ("failed to allocate the necessary
  // resources") misleads; its status name is enough.
  return absl::UnavailableError(
      absl::StrCat("hsa_init failed (", error.substr(0, error.find(':')), "): ", driver));
}

absl::StatusOr<std::vector<HsaGpu>> ListHsaGpus(const HsaApi& hsa) {
  AgentWalk walk{&hsa, {}};
  hsa_status_t status = hsa.hsa_iterate_agents(VisitAgent, &walk);
  if (status != HSA_STATUS_SUCCESS && status != HSA_STATUS_INFO_BREAK) {
    return absl::InternalError(absl::StrCat("hsa_iterate_agents: ", hsa.ErrorName(status)));
  }
  return std::move(walk.gpus);
}

}  // namespace jitk::internal
