// The defaults whose softmax the row-maximum trees change: sm_90a's
// warp-specialized engine (the timed cases: no element mask, causal,
// sliding; d = 64; 64-token mask blocks) and its decode split kernels,
// and sm_90's mma engine with tensor copies (compiled apart, -arch=sm_90).
#include "kernel_templates/sparse_attn.h"
#if defined(__CUDA_ARCH__) && defined(JITK_SM90A)
#define WS(BM, BN, W, S, D, M)                                                   \
  template __global__ void jitk::sparse_attn_ws_fwd<BM, BN, W, S, D, jitk::f16, M>( \
      const __grid_constant__ jitk::SparseAttnParams,                            \
      const __grid_constant__ jitk::SparseAttnTensorMaps);
WS(128, 128, 12, 3, 128, 0)
WS(128, 128, 12, 3, 128, 1)
WS(128, 128, 12, 3, 128, 2)
WS(128, 128, 12, 3, 64, 1)
WS(64, 64, 8, 3, 128, 1)
template __global__ void jitk::sparse_attn_split_fwd<64, 64, 4, 2, 128, jitk::f16, 0, 3>(
    const jitk::SparseAttnParams);
template __global__ void jitk::sparse_attn_split_fwd<64, 64, 4, 2, 128, jitk::f16, 2, 3>(
    const jitk::SparseAttnParams);
#elif defined(__CUDA_ARCH__)
template __global__ void jitk::sparse_attn_tma_fwd<64, 64, 4, 2, 128, jitk::f16, 1>(
    const __grid_constant__ jitk::SparseAttnParams,
    const __grid_constant__ jitk::SparseAttnTensorMaps);
template __global__ void jitk::sparse_attn_tma_fwd<64, 64, 4, 2, 128, jitk::f16, 3>(
    const __grid_constant__ jitk::SparseAttnParams,
    const __grid_constant__ jitk::SparseAttnTensorMaps);
#endif
