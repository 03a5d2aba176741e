// The warp-specialized kernels the rank-major walk touches: causal (d = 128 and
// 64, one computing warpgroup), dense and sliding, and a causal split pass.
#include "kernel_templates/sparse_attn.h"
#if defined(__CUDA_ARCH__)
#define INSTANCE(kernel, ...)                         \
  template __global__ void jitk::kernel<__VA_ARGS__>( \
      const __grid_constant__ jitk::SparseAttnParams, \
      const __grid_constant__ jitk::SparseAttnTensorMaps);
INSTANCE(sparse_attn_ws_fwd, 128, 128, 12, 3, 128, jitk::f16, 1)
INSTANCE(sparse_attn_ws_fwd, 128, 128, 12, 3, 64, jitk::bf16, 1)
INSTANCE(sparse_attn_ws_fwd, 64, 64, 8, 3, 128, jitk::f16, 1)
INSTANCE(sparse_attn_ws_fwd, 128, 128, 12, 3, 128, jitk::f16, 0)
INSTANCE(sparse_attn_ws_fwd, 128, 128, 12, 3, 128, jitk::f16, 2)
INSTANCE(sparse_attn_ws_split_fwd, 128, 128, 12, 3, 128, jitk::f16, 1)
#endif
