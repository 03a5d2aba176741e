#include "kernel_templates/sparse_attn.h"
#if defined(__CUDA_ARCH__)
template __global__ void jitk::sparse_attn_ws_fwd<128, 128, 12, 3, 128, jitk::f16, 1>(
    const __grid_constant__ jitk::SparseAttnParams,
    const __grid_constant__ jitk::SparseAttnTensorMaps);
template __global__ void jitk::sparse_attn_ws_fwd<128, 128, 12, 3, 64, jitk::bf16, 1>(
    const __grid_constant__ jitk::SparseAttnParams,
    const __grid_constant__ jitk::SparseAttnTensorMaps);
template __global__ void jitk::sparse_attn_ws_fwd<64, 64, 8, 3, 128, jitk::f16, 1>(
    const __grid_constant__ jitk::SparseAttnParams,
    const __grid_constant__ jitk::SparseAttnTensorMaps);
template __global__ void jitk::sparse_attn_ws_fwd<128, 128, 12, 3, 128, jitk::f16, 0>(
    const __grid_constant__ jitk::SparseAttnParams,
    const __grid_constant__ jitk::SparseAttnTensorMaps);
template __global__ void jitk::sparse_attn_ws_fwd<128, 128, 12, 3, 128, jitk::f16, 2>(
    const __grid_constant__ jitk::SparseAttnParams,
    const __grid_constant__ jitk::SparseAttnTensorMaps);
template __global__ void jitk::sparse_attn_ws_split_fwd<128, 128, 12, 3, 128, jitk::f16, 1>(
    const __grid_constant__ jitk::SparseAttnParams,
    const __grid_constant__ jitk::SparseAttnTensorMaps);
#endif
