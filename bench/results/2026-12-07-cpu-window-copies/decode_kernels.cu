// Sliding-causal decode kernels, d = 128, f16: sm_90a's default 64/64/4/2
// (wgmma, split and unsplit) and sm_80's 128/32/4/2 (mma, split).
#include "kernel_templates/sparse_attn.h"
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
template __global__ void jitk::sparse_attn_split_fwd<64, 64, 4, 2, 128, jitk::f16, 2, 3>(const jitk::SparseAttnParams);
template __global__ void jitk::sparse_attn_fwd<64, 64, 4, 2, 128, jitk::f16, 2, 3>(const jitk::SparseAttnParams);
#elif defined(__CUDA_ARCH__)
template __global__ void jitk::sparse_attn_split_fwd<128, 32, 4, 2, 128, jitk::f16, 2, 1>(const jitk::SparseAttnParams);
template __global__ void jitk::sparse_attn_fwd<128, 32, 4, 2, 128, jitk::f16, 2, 1>(const jitk::SparseAttnParams);
#endif
