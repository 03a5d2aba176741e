// What the C API's opaque handles hold.
#ifndef JITK_LIB_C_API_HANDLES_H_
#define JITK_LIB_C_API_HANDLES_H_

#include <string>
#include <utility>

#include "absl/base/call_once.h"
#include "jitk/arch.h"
#include "jitk/kernel.h"
#include "jitk/shape.h"
#include "lib/kernel_template.h"

// A compiled, not loaded, kernel plus what planning a launch needs.
struct jitk_compiled {
  jitk::CompiledKernel compiled;
  jitk::Shape shape;
  const jitk::internal::KernelTemplate* kernel_template = nullptr;
  jitk::ArchInfo arch;   // the facts the config was checked against
  std::string config;    // KernelConfigToString(compiled.config)
  std::string info_json;
};

// A loaded kernel. The JSON is built on first request only: get_kernel on a
// memo hit is a hot path.
struct jitk_kernel {
  jitk_kernel(jitk::Kernel k, jitk::Shape s) : kernel(std::move(k)), shape(std::move(s)) {}

  jitk::Kernel kernel;
  jitk::Shape shape;
  std::string config;
  std::string config_source;
  mutable absl::once_flag info_once;
  mutable std::string info_json;
};

#endif  // JITK_LIB_C_API_HANDLES_H_
