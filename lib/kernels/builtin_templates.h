// The built-in kernel templates; kernel_registry.cc lists them.
#ifndef JITK_LIB_KERNELS_BUILTIN_TEMPLATES_H_
#define JITK_LIB_KERNELS_BUILTIN_TEMPLATES_H_

#include "lib/kernel_template.h"

namespace jitk::internal {

const KernelTemplate& ScaledAddKernelTemplate();
const KernelTemplate& SparseAttnKernelTemplate();  // lib/attention/sparse_attn_template.cc

}  // namespace jitk::internal

#endif  // JITK_LIB_KERNELS_BUILTIN_TEMPLATES_H_
