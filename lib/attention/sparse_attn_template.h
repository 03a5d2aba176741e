// The sparse_attn kernel template: block-sparse flash attention forward.
//
// Shape dimensions: b, hq, hkv, lq, lk, d (required); block (mask block
// size, default 128), layout (AttentionLayout as int, default 0 = dense),
// mask (MaskMod as int, default: the layout's, see DefaultMaskMod),
// mask_per_head (1: a block mask per query head, which keeps grouped heads
// unpacked; default 0).
// dtype: f32 (exact fp32 FMA), f16, bf16 (fp32 accumulate and softmax).
//
// Tunables: BLOCK_M (query rows per block), BLOCK_N (keys per tile), WAVES
// (waves / warps per block), STAGES (K/V shared-memory buffers).
//
// Launch arguments (docs/sparse_attn.md has the full list):
//   q, k, v, o            device pointers, 16-byte aligned
//   lse                   optional fp32 [b, hq, lq] (natural log)
//   kv_num_blocks, kv_indices, full_kv_num_blocks, full_kv_indices
//   mask_batch, mask_heads  the block mask's B and H (1 = broadcast)
//   window, global_tokens   for the sliding-window masks
//   {q,k,v,o}_stride_{b,h,l}  element strides (default: contiguous [B,H,L,D])
//   scale                 default 1 / sqrt(d)
#ifndef JITK_LIB_ATTENTION_SPARSE_ATTN_TEMPLATE_H_
#define JITK_LIB_ATTENTION_SPARSE_ATTN_TEMPLATE_H_

#include "jitk/arch.h"
#include "jitk/shape.h"
#include "lib/kernel_template.h"

namespace jitk::internal {

const KernelTemplate& SparseAttnKernelTemplate();

// The matrix engine (jitk::attn::EngineKind) the template uses for a shape
// on `arch`: mma.sync on sm_80+ for 16-bit storage (d <= 128), MFMA on CDNA
// for 16-bit storage (no bf16 on gfx908; d and block multiples of 32),
// plain FMA otherwise. REQUIRES: ValidateShape(shape) is OK.
int SparseAttnEngine(const Shape& shape, const ArchInfo& arch);

// Whether the kernel for `shape` on `arch` is the mma engine's with K and V
// brought by tensor-memory copies (sparse_attn_tma_fwd: sm_90 and later).
bool SparseAttnMmaTensorCopies(const Shape& shape, const ArchInfo& arch);

// Whether a group's query rows (hq / hkv heads of lq rows each) fit one mask
// block, as grouped heads packed into a tile's rows need: where a block mask
// per query head ("mask_per_head") changes the shape's config.
bool GroupedRowsFitOneBlock(int64_t hq, int64_t hkv, int64_t lq, int64_t block);

// Rough registers per thread of a config (calibrated on ptxas / hiprtc
// reports); ValidateConfig refuses configs whose estimate exceeds the
// architecture's budget, so defaults do not spill.
int SparseAttnRegisterEstimate(const KernelConfig& config, const Shape& shape,
                               const ArchInfo& arch);

}  // namespace jitk::internal

#endif  // JITK_LIB_ATTENTION_SPARSE_ATTN_TEMPLATE_H_
