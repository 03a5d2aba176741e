// The sliding-window decode default (64/64/4/2, d = 128, f16, mask 2) as the split kernel and
// as the unsplit kernel: ptxas registers, PTX instruction counts and SASS sizes.
#include "kernel_templates/sparse_attn.h"
#if defined(__CUDA_ARCH__)
template __global__ void jitk::sparse_attn_split_fwd<64, 64, 4, 2, 128, jitk::f16, 2, 3>(const jitk::SparseAttnParams);
template __global__ void jitk::sparse_attn_fwd<64, 64, 4, 2, 128, jitk::f16, 2, 3>(const jitk::SparseAttnParams);
#endif
