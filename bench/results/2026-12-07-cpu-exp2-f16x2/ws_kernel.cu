// The warp-specialized sm_90a default at d = 128, f16, no element mask.
#include "kernel_templates/sparse_attn.h"
template __global__ void jitk::sparse_attn_ws_fwd<128, 128, 12, 3, 128, jitk::f16, 0>(
    const __grid_constant__ jitk::SparseAttnParams,
    const __grid_constant__ jitk::SparseAttnTensorMaps);
