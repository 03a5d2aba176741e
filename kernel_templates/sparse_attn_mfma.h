// sparse_attn_mfma.h — AMD CDNA engine (MFMA 32x32x8, wave64).
//
// Each wave owns 32 queries and computes S^T = K Q^T, so a lane's C fragment
// holds 16 keys of ONE query (lane % 32): the row max and sum are lane-local
// plus one exchange with lane ^ 32. The C fragment items 4s..4s+3 are exactly
// the B operand of P^T for k-step s of O^T = V^T P^T, so P stays in registers.
// Q goes from global memory straight into B-operand registers; K and V come
// through LDS (sparse_attn_staged.h), V transposed so that each A operand of
// V^T is one 8-byte read. In a partial block of a causal mask a wave skips
// the tiles its rows do not see and the element mask where they see all.
//
// Layout (l = lane), v_mfma_f32_32x32x8{f16,bf16_1k}:
//   A[i][k]: lane i + 32 * (k / 4), item k % 4
//   B[k][j]: lane j + 32 * (k / 4), item k % 4
//   C[i][j]: lane j + 32 * ((i / 4) % 2), item i % 4 + 4 * (i / 8)
#pragma once

#include "sparse_attn_common.h"

#if JITK_ATTN_HAS_MFMA

namespace jitk {
namespace attn {

template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK>
struct MfmaEngine {
  typedef T Elem;
  static constexpr int kBlockM = BLOCK_M;
  static constexpr int kBlockN = BLOCK_N;
  static constexpr int kStages = STAGES;
  static constexpr int kHeadDim = HEAD_DIM;
  static constexpr int kThreads = WAVES * 64;
  static constexpr int kKUnits = HEAD_DIM / 4;  // 8-byte units per LDS row of K
  static constexpr int kVUnits = BLOCK_N / 4;   // and of V^T
  static constexpr int kNC = BLOCK_N / 32;   // 32-key chunks of S^T
  static constexpr int kDC = HEAD_DIM / 32;  // 32-column chunks of O^T
  static constexpr int kKS = HEAD_DIM / 8;   // k-steps of K Q^T
  static_assert(kWaveSize == 64 || sizeof(T) == 0, "the mfma engine needs wave64");
  static_assert(sizeof(T) == 2, "the mfma engine takes f16 or bf16 storage");
#if !JITK_ATTN_HAS_MFMA_BF16
  static_assert(sizeof(T) == 2 && !__is_same(T, bf16), "this target has no bf16 MFMA (1k)");
#endif
  static_assert(BLOCK_M == 32 * WAVES, "BLOCK_M must be 32 * WAVES");
  static_assert(BLOCK_N % 32 == 0, "BLOCK_N must be a multiple of 32");
  static_assert(HEAD_DIM % 32 == 0, "HEAD_DIM must be a multiple of 32");

  Frag4 qf[kKS];
  f32x16 o[kDC];
  float m;
  float l;
  int wave;
  int col;  // lane % 32: the query this lane works for
  int hi;   // lane / 32
  int k_lane, v_lane;  // the lane's part of its K and V^T read offsets (MfmaPairXor)

  JITK_DEVICE void begin(const T* q, i64 q_stride, int q0, int len_q) {
    wave = int(threadIdx.x) / 64;
    int lane = int(threadIdx.x) % 64;
    col = lane & 31;
    hi = lane >> 5;
    k_lane = MfmaTileOffset(kKUnits, col, hi);
    v_lane = MfmaTileOffset(kVUnits, col, hi);
    m = neg_inf();
    l = 0.f;
#pragma unroll
    for (int dc = 0; dc < kDC; ++dc) {
#pragma unroll
      for (int v = 0; v < 16; ++v) o[dc][v] = 0.f;
    }
    int row = q0 + wave * 32 + col;
    const T* qrow = q + i64(row) * q_stride + 4 * hi;
#pragma unroll
    for (int ks = 0; ks < kKS; ++ks) {
      Frag4 f = {0u, 0u};
      if (row < len_q) f = *reinterpret_cast<const Frag4*>(qrow + ks * 8);
      qf[ks] = f;
    }
  }

  // sk: K's rows; svt: V transposed (sparse_attn_staged.h).
  JITK_DEVICE void tile(const T* sk, const T* svt, int pos0, int kv0, bool partial,
                        const SparseAttnParams& p) {
    // In a partial block this wave's 32 rows may see none of the tile's keys
    // (skip it) or all of them (no element mask): wave-uniform.
    const int r_lo = pos0 + wave * 32;
    if (!keys_visible<MASK>(r_lo, r_lo + 31, r_lo, r_lo + 31, kv0, kv0 + BLOCK_N - 1, p,
                            &partial)) {
      return;
    }
    f32x16 s[kNC];
#pragma unroll
    for (int kc = 0; kc < kNC; ++kc) {
#pragma unroll
      for (int v = 0; v < 16; ++v) s[kc][v] = 0.f;
    }
    // S^T = K Q^T. Each read: the lane's offset XOR a constant, plus an
    // immediate. The offset is opaque per 32-key chunk: otherwise the
    // compiler pairs the chunks' reads and loads all of their operands at
    // once, which at d = 64 cost the third wave per SIMD.
#pragma unroll
    for (int kc = 0; kc < kNC; ++kc) {
      const int kl = opaque(k_lane);
#pragma unroll
      for (int ks = 0; ks < kKS; ++ks) {
        const u64 w = *reinterpret_cast<const u64*>(sk + (kl ^ MfmaPairXor(kKUnits, ks)) +
                                                    MfmaPairStep(kKUnits, kc * 32, ks));
        const Frag4 a = {u32(w), u32(w >> 32)};
        s[kc] = mfma_32x32x8<T>(a, qf[ks], s[kc]);
      }
    }

    const int row = pos0 + wave * 32 + col;
    const bool bounds = kv0 < 0 || kv0 + BLOCK_N > p.len_k;
    const bool apply_mod = MASK != kMaskNone && partial;
    if (bounds || apply_mod) {
      const RowKeys keys = row_keys<MASK>(row, apply_mod, p);  // a lane's keys share its row
#pragma unroll
      for (int kc = 0; kc < kNC; ++kc) {
#pragma unroll
        for (int v = 0; v < 16; ++v) {
          const int key = kv0 + kc * 32 + 8 * (v >> 2) + 4 * hi + (v & 3);
          if (!key_visible(key, keys)) s[kc][v] = neg_inf();
        }
      }
    }

    float mx = neg_inf();
#pragma unroll
    for (int kc = 0; kc < kNC; ++kc) {
#pragma unroll
      for (int v = 0; v < 16; ++v) mx = fmaxf(mx, s[kc][v]);
    }
    mx = fmaxf(mx, shuffle_xor(mx, 32));
    // O lives in accumulation registers: a rescale moves all of it through
    // the vector registers, so the maximum moves only by more than
    // kRescaleSlack, as in the mma engine.
    const float m_tile = mx * p.scale_log2;
    float alpha = 1.f;
    if (m_tile > m + kRescaleSlack) {  // never for -inf (a row with no key yet)
      alpha = exp2f(m - m_tile);
      m = m_tile;
    }
    const float m_use = m == neg_inf() ? 0.f : m;
    float sum = 0.f;
#pragma unroll
    for (int kc = 0; kc < kNC; ++kc) {
#pragma unroll
      for (int v = 0; v < 16; ++v) {
        float e = exp2f(fmaf(s[kc][v], p.scale_log2, -m_use));
        s[kc][v] = e;
        sum += e;
      }
    }
    l = l * alpha + sum;
    if (alpha != 1.f) {
#pragma unroll
      for (int dc = 0; dc < kDC; ++dc) {
#pragma unroll
        for (int v = 0; v < 16; ++v) o[dc][v] *= alpha;
      }
    }

    // O^T += V^T P^T.
#pragma unroll
    for (int kc = 0; kc < kNC; ++kc) {
      const int vl = opaque(v_lane);
#pragma unroll
      for (int st = 0; st < 4; ++st) {
        Frag4 pb;
        pb.lo = pack2<T>(s[kc][4 * st], s[kc][4 * st + 1]);
        pb.hi = pack2<T>(s[kc][4 * st + 2], s[kc][4 * st + 3]);
        // V^T's row col of chunk dc, keys 8 st + 4 hi .. + 3: one 8-byte read.
#pragma unroll
        for (int dc = 0; dc < kDC; ++dc) {
          const u64 w =
              *reinterpret_cast<const u64*>(svt + (vl ^ MfmaPairXor(kVUnits, 4 * kc + st)) +
                                            MfmaPairStep(kVUnits, dc * 32, 4 * kc + st));
          const Frag4 va = {u32(w), u32(w >> 32)};
          o[dc] = mfma_32x32x8<T>(va, pb, o[dc]);
        }
      }
    }
  }

  JITK_DEVICE void finish(T* out, i64 o_stride, float* lse, int q0, int len_q) {
    float total = l + shuffle_xor(l, 32);
    float inv = total > 0.f ? 1.f / total : 0.f;
    int row = q0 + wave * 32 + col;
    if (row < len_q) {
      T* orow = out + i64(row) * o_stride + 4 * hi;
#pragma unroll
      for (int dc = 0; dc < kDC; ++dc) {
#pragma unroll
        for (int g = 0; g < 4; ++g) {
          store4<T>(orow + dc * 32 + 8 * g, o[dc][4 * g] * inv, o[dc][4 * g + 1] * inv,
                    o[dc][4 * g + 2] * inv, o[dc][4 * g + 3] * inv);
        }
      }
      if (lse != nullptr && hi == 0) lse[row] = total > 0.f ? (m + log2f(total)) * kLn2 : neg_inf();
    }
  }
};

}  // namespace attn
}  // namespace jitk

#endif  // JITK_ATTN_HAS_MFMA
