// sparse_attn_wgmma.h — Hopper warpgroup engine (sm_90a: wgmma.mma_async).
//
// Each warpgroup (4 warps) owns 64 query rows, so BLOCK_M = 16 * WAVES.
// S = Q K^T is one m64nBLOCK_Nk16 wgmma per 16 of the head dimension with Q
// and K read by the tensor cores straight from shared memory (Q from
// registers in the warp-specialized engine with one computing warpgroup:
// sparse_attn_wgmma_ws.h); O += P V takes
// P from registers (S's accumulator, softmaxed and packed to 16 bits, is
// exactly wgmma's register A operand) and V from shared memory, transposed
// by the hardware. No ldmatrix in the tile loop: the register file and issue
// slots go to the softmax. Tiles are stored in wgmma's 128-byte-swizzled layout
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

// keys_visible for wgmma tiles: warpgroup `group` (query positions from
// pos0 + 64 group) skips a tile it does not see (the wgmma is collective,
// so the test is warpgroup-uniform); warp `warp`'s 16 rows drop the element
// mask when they see all of it.
template <int MASK, int BLOCK_N>
JITK_DEVICE bool wgmma_tile_visible(int group, int warp, int pos0, int kv0,
                                    const SparseAttnParams& p, bool* partial) {
  const int g_lo = pos0 + group * 64, r_lo = pos0 + warp * 16;
  return keys_visible<MASK>(g_lo, g_lo + 63, r_lo, r_lo + 15, kv0, kv0 + BLOCK_N - 1, p, partial);
}

// Swizzle atoms: 8 rows of 128 bytes. K-major operands (Q, K) step 8 rows
// by kWgmmaAtomBytes; V, read transposed, steps 64 head columns by a column
// block of its tile (BLOCK_N rows of 128 bytes).
constexpr u32 kWgmmaAtomBytes = 1024;

// Issues S = Q K^T for a warpgroup's 64 rows (from q_base in a BLOCK_M-row Q
// tile) and a BLOCK_N-row K tile, both Sw128: one m64nBLOCK_Nk16 per 16 of
// the head dimension, committed, not waited. Step ks reads 16 columns of
// 64-column block ks / 4, which start 32 (ks % 4) bytes into each swizzled
// row (the hardware applies the XOR); a descriptor steps by the byte offset
// / 16 in its low bits.
template <int BLOCK_M, int BLOCK_N, int HEAD_DIM, typename T>
JITK_DEVICE void issue_scores(float (&s)[BLOCK_N / 8][4], SmemPtr q_base, SmemPtr k_base) {
  const u64 q_desc = smem_desc_sw128(q_base, 16, kWgmmaAtomBytes);
  const u64 k_desc = smem_desc_sw128(k_base, 16, kWgmmaAtomBytes);
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < HEAD_DIM / 16; ++ks) {
    wgmma_ss<BLOCK_N, T>(s, q_desc + ((ks / 4) * BLOCK_M * 128 + (ks % 4) * 32) / 16,
                         k_desc + ((ks / 4) * BLOCK_N * 128 + (ks % 4) * 32) / 16, ks > 0);
  }
  wgmma_commit();
}

// This warp's 16 rows of a BLOCK_M-row Sw128 Q tile (from row0), as the
// A operand of S = Q K^T from registers: qa[j] holds columns 8j..8j+7, the
// layout of the packed P that issue_pv takes. ldmatrix.x4: lanes 8i..8i+7
// address rows 0-7 / 8-15 of columns 16 dp .. + 7, then of the next 8.
template <int BLOCK_M, int HEAD_DIM>
JITK_DEVICE void load_q_rows(u32 (&qa)[HEAD_DIM / 8][2], SmemPtr q_tile, int row0, int lane) {
  const int r = row0 + (lane & 7) + ((lane >> 3) & 1) * 8;
#pragma unroll
  for (int dp = 0; dp < HEAD_DIM / 16; ++dp) {
    u32 f[4];
    ldmatrix_x4(f, q_tile + Sw128Offset(BLOCK_M, r, 2 * dp + (lane >> 4)));
    qa[2 * dp][0] = f[0];
    qa[2 * dp][1] = f[1];
    qa[2 * dp + 1][0] = f[2];
    qa[2 * dp + 1][1] = f[3];
  }
}

// issue_scores with Q from registers (load_q_rows): the warp-specialized
// engine with one computing warpgroup frees Q's buffer once its warps hold
// their rows, so the next query tile's Q is copied while this one is
// computed.
template <int BLOCK_N, int HEAD_DIM, typename T>
JITK_DEVICE void issue_scores(float (&s)[BLOCK_N / 8][4], const u32 (&qa)[HEAD_DIM / 8][2],
                              SmemPtr k_base) {
  const u64 k_desc = smem_desc_sw128(k_base, 16, kWgmmaAtomBytes);
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < HEAD_DIM / 16; ++ks) {
    const u32 qk[4] = {qa[2 * ks][0], qa[2 * ks][1], qa[2 * ks + 1][0], qa[2 * ks + 1][1]};
    wgmma_rs<BLOCK_N, T, false>(s, qk, k_desc + ((ks / 4) * BLOCK_N * 128 + (ks % 4) * 32) / 16,
                                ks > 0);
  }
  wgmma_commit();
}

// Issues O += P V: P from registers (pk, the packed S accumulator), V a
// BLOCK_N-row Sw128 tile read transposed, 16 keys (two swizzle atoms of its
// rows) per step; committed, not waited.
template <int BLOCK_N, int HEAD_DIM, typename T>
JITK_DEVICE void issue_pv(float (&o)[HEAD_DIM / 8][4], const u32 (&pk)[BLOCK_N / 8][2],
                          SmemPtr v_base) {
  const u64 v_desc = smem_desc_sw128(v_base, BLOCK_N * 128, kWgmmaAtomBytes);
  wgmma_fence();
#pragma unroll
  for (int ps = 0; ps < BLOCK_N / 16; ++ps) {
    const u32 pa[4] = {pk[2 * ps][0], pk[2 * ps][1], pk[2 * ps + 1][0], pk[2 * ps + 1][1]};
    wgmma_rs<HEAD_DIM, T, true>(o, pa, v_desc + ps * 2 * kWgmmaAtomBytes / 16, true);
  }
  wgmma_commit();
}

// mask_scores where a tile needs it (keys past len_k, or a partial tile's
// element mask), for warp `warp`'s 16 rows at positions from pos0 + 16 warp.
template <int MASK, int BLOCK_N>
JITK_DEVICE void mask_wgmma_tile(float (&s)[BLOCK_N / 8][4], int pos0, int warp, int lane,
                                 int kv0, bool partial, const SparseAttnParams& p) {
  const bool bounds = kv0 < 0 || kv0 + BLOCK_N > p.len_k;
  const bool apply_mod = MASK != kMaskNone && partial;
  if (bounds || apply_mod) {
    mask_scores<MASK>(s, pos0 + warp * 16 + (lane >> 2), kv0 + (lane & 3) * 2, apply_mod, p);
  }
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
  static_assert(sizeof(T) == 2, "the wgmma engine takes f16 or bf16 storage");
  static_assert(WAVES % 4 == 0 && BLOCK_M == 16 * WAVES,
                "the wgmma engine needs whole warpgroups of 64 rows: BLOCK_M = 16 * WAVES");
  static_assert(BLOCK_N == 64 || BLOCK_N == 128, "BLOCK_N must be 64 or 128");
  static_assert(HEAD_DIM == 64 || HEAD_DIM == 128, "HEAD_DIM must be 64 or 128");

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

  JITK_DEVICE void tile(const T* sq, const T* sk, const T* sv, int pos0, int kv0, bool partial,
                        const SparseAttnParams& p) {
    const int group = warp / 4;
    if (!wgmma_tile_visible<MASK, BLOCK_N>(group, warp, pos0, kv0, p, &partial)) return;

    float s[kNT][4];
    issue_scores<BLOCK_M, BLOCK_N, HEAD_DIM, T>(s, smem_ptr(sq) + group * 64 * 128, smem_ptr(sk));
    wgmma_wait<0>();
    keep_registers(s);
    mask_wgmma_tile<MASK, BLOCK_N>(s, pos0, warp, lane, kv0, partial, p);
    u32 pk[kNT][2];
    online_softmax<T>(s, m, l, o, pk, p.scale_log2);
    issue_pv<BLOCK_N, HEAD_DIM, T>(o, pk, smem_ptr(sv));
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
