// JSON text for what the C API reports: devices, compiled and loaded kernels.
//
// Produced with nlohmann/json (header-only, so nothing of it is needed at run
// time); bytes that are not UTF-8 (a compiler log can hold anything) are
// replaced rather than failing the call.
#ifndef JITK_LIB_C_API_INFO_JSON_H_
#define JITK_LIB_C_API_INFO_JSON_H_

#include <string>

#include "jitk/device.h"
#include "jitk/kernel.h"
#include "jitk/shape.h"

namespace jitk::c_api {

// jitk-info --json, plus each device's backend_ordinal and vendor.
std::string InventoryJson(const Inventory& inventory);

std::string CompiledJson(const CompiledKernel& compiled, const Shape& shape);

std::string KernelJson(const Kernel& kernel, const Shape& shape);

}  // namespace jitk::c_api

#endif  // JITK_LIB_C_API_INFO_JSON_H_
