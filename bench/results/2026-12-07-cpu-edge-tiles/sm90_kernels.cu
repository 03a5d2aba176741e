// sm_90's mma engine (no wgmma), 64/64/4/2 split kernels under the two
// sliding masks: where the cursor's cuts cost the most registers.
#include "kernel_templates/sparse_attn.h"
#if defined(__CUDA_ARCH__)
template __global__ void jitk::sparse_attn_split_fwd<64, 64, 4, 2, 128, jitk::f16, 3, 1>(const jitk::SparseAttnParams);
template __global__ void jitk::sparse_attn_split_fwd<64, 64, 4, 2, 128, jitk::f16, 2, 1>(const jitk::SparseAttnParams);
#endif
