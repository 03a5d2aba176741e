// The sliding decode kernels (sm_90a's 64/64/4/2 wgmma and sm_80's
// 128/32/4/2 mma, each split and unsplit), the warp-specialized engine's
// causal and sliding kernels, and a causal cp.async kernel for each arch:
// their schedules, cut or not, before and after the edge-block cuts.
#include "kernel_templates/sparse_attn.h"
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define WS(...)                                                                            \
  template __global__ void jitk::sparse_attn_ws_fwd<__VA_ARGS__>(                          \
      const __grid_constant__ jitk::SparseAttnParams, const __grid_constant__ jitk::SparseAttnTensorMaps);
template __global__ void jitk::sparse_attn_split_fwd<64, 64, 4, 2, 128, jitk::f16, 2, 3>(const jitk::SparseAttnParams);
template __global__ void jitk::sparse_attn_fwd<64, 64, 4, 2, 128, jitk::f16, 2, 3>(const jitk::SparseAttnParams);
template __global__ void jitk::sparse_attn_fwd<64, 64, 4, 2, 128, jitk::f16, 1, 3>(const jitk::SparseAttnParams);
WS(128, 128, 12, 3, 128, jitk::f16, 1)
WS(128, 128, 12, 3, 128, jitk::f16, 2)
WS(64, 64, 8, 3, 128, jitk::f16, 2)
#elif defined(__CUDA_ARCH__)
template __global__ void jitk::sparse_attn_split_fwd<128, 32, 4, 2, 128, jitk::f16, 2, 1>(const jitk::SparseAttnParams);
template __global__ void jitk::sparse_attn_fwd<128, 32, 4, 2, 128, jitk::f16, 2, 1>(const jitk::SparseAttnParams);
template __global__ void jitk::sparse_attn_fwd<128, 64, 4, 2, 128, jitk::f16, 1, 1>(const jitk::SparseAttnParams);
#endif
