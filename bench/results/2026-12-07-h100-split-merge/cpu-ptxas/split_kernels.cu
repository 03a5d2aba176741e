// Split kernels of the sm_90a engines (decode 64/64/4/2 unmasked and sliding-causal, warp-specialized
// 128/128/12/3 causal and 64/64/8/3, mma with tensor copies 128/64/4/2 causal),
// d = 128, f16: ptxas registers and spills with each combine pass.
#include "kernel_templates/sparse_attn.h"
#if defined(__CUDA_ARCH__)
template __global__ void jitk::sparse_attn_split_fwd<64, 64, 4, 2, 128, jitk::f16, 0, 3>(const jitk::SparseAttnParams);
template __global__ void jitk::sparse_attn_split_fwd<64, 64, 4, 2, 128, jitk::f16, 2, 3>(const jitk::SparseAttnParams);
template __global__ void jitk::sparse_attn_ws_split_fwd<128, 128, 12, 3, 128, jitk::f16, 1>(const __grid_constant__ jitk::SparseAttnParams, const __grid_constant__ jitk::SparseAttnTensorMaps);
template __global__ void jitk::sparse_attn_ws_split_fwd<64, 64, 8, 3, 128, jitk::f16, 0>(const __grid_constant__ jitk::SparseAttnParams, const __grid_constant__ jitk::SparseAttnTensorMaps);
template __global__ void jitk::sparse_attn_tma_split_fwd<128, 64, 4, 2, 128, jitk::f16, 1>(const __grid_constant__ jitk::SparseAttnParams, const __grid_constant__ jitk::SparseAttnTensorMaps);
#endif
