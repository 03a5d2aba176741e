#include "lib/c_api/info_json.h"

#include "jitk/version.h"
#include "nlohmann/json.hpp"

namespace jitk::c_api {
namespace {

using Json = nlohmann::ordered_json;

std::string Str(absl::string_view s) { return std::string(s.data(), s.size()); }

std::string Dump(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json ResourcesJson(const ResourceUsage& r) {
  return Json{{"registers", r.registers},
              {"scalar_registers", r.scalar_registers},
              {"accum_registers", r.accum_registers},
              {"lds_bytes", r.lds_bytes},
              {"scratch_bytes", r.scratch_bytes},
              {"spills", r.spills},
              {"wave_size", r.wave_size},
              {"max_threads_per_block", r.max_threads_per_block}};
}

Json DeviceJson(const DeviceInfo& d) {
  return Json{{"ordinal", d.ordinal},
              {"backend", d.backend},
              {"backend_ordinal", d.backend_ordinal},
              {"vendor", Str(VendorName(d.vendor))},
              {"name", d.name},
              {"arch", d.arch},
              {"target", d.target},
              {"wave_size", d.wave_size},
              {"compute_units", d.compute_units},
              {"max_threads_per_block", d.max_threads_per_block},
              {"lds_bytes_per_block", d.lds_bytes_per_block},
              {"lds_bytes_per_cu", d.lds_bytes_per_cu},
              {"clock_mhz", d.clock_mhz},
              {"memory_bytes", d.memory_bytes}};
}

}  // namespace

std::string InventoryJson(const Inventory& inventory) {
  Json backends = Json::array();
  for (const BackendReport& b : inventory.backends) {
    backends.push_back(Json{{"backend", b.backend},
                            {"runtime_available", b.runtime_available},
                            {"runtime_status", b.runtime_status},
                            {"compiler_available", b.compiler_available},
                            {"compiler_status", b.compiler_status},
                            {"compiler_version", b.compiler_version},
                            {"gfx_override", b.gfx_override},
                            {"compile_targets", b.compile_targets}});
  }
  Json devices = Json::array();
  for (const DeviceInfo& d : inventory.devices) devices.push_back(DeviceJson(d));
  return Dump(Json{{"jitk_version", JITK_VERSION_STRING},
                   {"backends", std::move(backends)},
                   {"devices", std::move(devices)}});
}

std::string CompiledJson(const CompiledKernel& compiled, const Shape& shape) {
  return Dump(Json{{"kernel", compiled.kernel},
                   {"shape", shape.Key()},
                   {"config", KernelConfigToString(compiled.config)},
                   {"symbol", compiled.symbol},
                   {"name_expression", compiled.name_expression},
                   {"target", compiled.target},
                   {"compiler", compiled.compiler},
                   {"compile_ms", compiled.compile_ms},
                   {"code_bytes", compiled.code_object.size()},
                   {"log", compiled.log},
                   {"resources", ResourcesJson(compiled.resources)}});
}

std::string KernelJson(const Kernel& kernel, const Shape& shape) {
  const CompiledKernel& compiled = kernel.compiled();
  const DeviceInfo& d = kernel.device();
  return Dump(Json{{"kernel", compiled.kernel},
                   {"shape", shape.Key()},
                   {"config", KernelConfigToString(compiled.config)},
                   {"config_source", Str(ConfigSourceName(kernel.config_source()))},
                   {"symbol", compiled.symbol},
                   {"target", compiled.target},
                   {"compiler", compiled.compiler},
                   {"resources", ResourcesJson(compiled.resources)},
                   {"device", Json{{"ordinal", d.ordinal},
                                   {"backend", d.backend},
                                   {"backend_ordinal", d.backend_ordinal},
                                   {"name", d.name},
                                   {"arch", d.arch},
                                   {"target", d.target}}}});
}

}  // namespace jitk::c_api
