// sparse_attn_wgmma.h — Hopper warpgroup engine (sm_90a: wgmma.mma_async).
//
// Each warpgroup (4 warps) owns 64 query rows, so BLOCK_M = 16 * WAVES.
// S = Q K^T is one m64nBLOCK_Nk16 wgmma per 16 of the head dimension with Q
// and K read by the tensor cores straight from shared memory; O += P V takes
// P from registers (S's accumulator, softmaxed and packed to 16 bits, is
// exactly wgmma's register A operand) and V from shared memory, transposed
// by the hardware. No ldmatrix: the register file and issue slots go to the
// softmax. Tiles are stored in wgmma's 128-byte-swizzled layout
// (Sw128Offset), which the copies write directly.
//
// Masking, the online softmax and the epilogue are the mma engine's: the
// accumulator of each warp is the m16n8k16 C layout of its 16 rows.
#pragma once

#include "sparse_attn_common.h"
#include "sparse_attn_mma.h"
#include "sparse_attn_wgmma_ops.h"

#if JITK_ATTN_HAS_WGMMA

namespace jitk {
namespace attn {

// Whether warpgroup `group` (rows q0 + 64 group ...) sees any key of the
// tile at kv0: a warpgroup that sees none skips it (the wgmma is collective,
// so the test is warpgroup-uniform). In a partial tile of a causal mask,
// *partial is cleared when warp `warp`'s 16 rows see all of its keys.
template <int MASK, int BLOCK_N>
JITK_DEVICE bool wgmma_tile_visible(int group, int warp, int q0, int kv0,
                                    const SparseAttnParams& p, bool* partial) {
  if ((MASK != kMaskCausal && MASK != kMaskSlidingCausal) || !*partial) return true;
  const int g_lo = q0 + group * 64, g_hi = g_lo + 63;
  const int r_lo = q0 + warp * 16, r_hi = r_lo + 15;
  const int k_lo = kv0, k_hi = kv0 + BLOCK_N - 1;
  bool none = k_lo > g_hi;
  bool all = k_hi <= r_lo;
  if (MASK == kMaskSlidingCausal) {
    none = none | ((g_lo - k_hi >= p.window) & (k_lo >= p.global_tokens));
    all = all & ((r_hi - k_lo < p.window) | (k_hi < p.global_tokens));
  }
  if (all) *partial = false;
  return !none;
}

template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK>
struct WgmmaEngine {
  typedef T Elem;
  static constexpr int kBlockM = BLOCK_M;
  static constexpr int kBlockN = BLOCK_N;
  static constexpr int kStages = STAGES;
  static constexpr int kHeadDim = HEAD_DIM;
  static constexpr int kThreads = WAVES * 32;
  static constexpr bool kQInShared = true;
  static constexpr bool kSwizzled = true;
  static constexpr int kNT = BLOCK_N / 8;    // n-tiles of S
  static constexpr int kDT = HEAD_DIM / 8;   // n-tiles of O
  static constexpr int kKS = HEAD_DIM / 16;  // k-steps of Q K^T
  static constexpr int kPS = BLOCK_N / 16;   // k-steps of P V
  static_assert(sizeof(T) == 2, "the wgmma engine takes f16 or bf16 storage");
  static_assert(WAVES % 4 == 0 && BLOCK_M == 16 * WAVES,
                "the wgmma engine needs whole warpgroups of 64 rows: BLOCK_M = 16 * WAVES");
  static_assert(BLOCK_N == 64 || BLOCK_N == 128, "BLOCK_N must be 64 or 128");
  static_assert(HEAD_DIM == 64 || HEAD_DIM == 128, "HEAD_DIM must be 64 or 128");

  // Swizzle atoms: 8 rows of 128 bytes. K-major operands (Q, K) step 8 rows
  // by kAtomBytes; V, read transposed, steps 64 head columns by a column
  // block of its tile.
  static constexpr u32 kAtomBytes = 1024;
  static constexpr u32 kVColumnBlock = BLOCK_N * 128;

  float o[kDT][4];
  float m[2];
  float l[2];
  int warp;
  int lane;

  JITK_DEVICE void begin(const T*, i64, int, int) {
    warp = int(threadIdx.x) / 32;
    lane = int(threadIdx.x) % 32;
#pragma unroll
    for (int dt = 0; dt < kDT; ++dt) {
#pragma unroll
      for (int i = 0; i < 4; ++i) o[dt][i] = 0.f;
    }
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      m[hr] = neg_inf();
      l[hr] = 0.f;
    }
  }

  JITK_DEVICE void load_q(const T*) {}

  JITK_DEVICE void tile(const T* sq, const T* sk, const T* sv, int q0, int kv0, bool partial,
                        const SparseAttnParams& p) {
    const int group = warp / 4;
    if (!wgmma_tile_visible<MASK, BLOCK_N>(group, warp, q0, kv0, p, &partial)) return;

    // S = Q K^T. Step ks reads 16 columns of 64-column block ks / 4, which
    // start 32 (ks % 4) bytes into each swizzled row (the hardware applies
    // the XOR).
    const u32 q_base = smem_ptr(sq) + group * 64 * 128;
    const u32 k_base = smem_ptr(sk);
    float s[kNT][4];
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < kKS; ++ks) {
      const u32 q = q_base + (ks / 4) * BLOCK_M * 128 + (ks % 4) * 32;
      const u32 k = k_base + (ks / 4) * BLOCK_N * 128 + (ks % 4) * 32;
      wgmma_ss<BLOCK_N, T>(s, smem_desc_sw128(q, 16, kAtomBytes),
                           smem_desc_sw128(k, 16, kAtomBytes), ks > 0);
    }
    wgmma_commit();
    wgmma_wait<0>();
    keep_registers(s);

    const bool bounds = kv0 < 0 || kv0 + BLOCK_N > p.len_k;
    const bool apply_mod = MASK != kMaskNone && partial;
    if (bounds || apply_mod) {
      mask_scores<MASK>(s, q0 + warp * 16 + (lane >> 2), kv0 + (lane & 3) * 2, apply_mod, p);
    }
    u32 pk[kNT][2];
    online_softmax<T>(s, m, l, o, pk, p.scale_log2);

    // O += P V: 16 keys (two swizzle atoms of V's rows) per step.
    const u32 v_base = smem_ptr(sv);
    wgmma_fence();
#pragma unroll
    for (int ps = 0; ps < kPS; ++ps) {
      const u32 pa[4] = {pk[2 * ps][0], pk[2 * ps][1], pk[2 * ps + 1][0], pk[2 * ps + 1][1]};
      wgmma_rs<HEAD_DIM, T>(o, pa, smem_desc_sw128(v_base + ps * 2 * kAtomBytes, kVColumnBlock,
                                                   kAtomBytes),
                            true);
    }
    wgmma_commit();
    wgmma_wait<0>();
    keep_registers(o);
  }

  JITK_DEVICE void finish(T* out, i64 o_stride, float* lse, int q0, int len_q) {
    store_rows<T>(o, m, l, out, o_stride, lse, q0 + warp * 16 + (lane >> 2), len_q, lane);
  }
};

}  // namespace attn
}  // namespace jitk

#endif  // JITK_ATTN_HAS_WGMMA
