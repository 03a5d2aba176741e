// sparse_attn_fma.h — the plain-FMA engine: exact fp32 arithmetic (no tf32),
// any storage type, any wave size. It serves fp32 storage everywhere and
// 16-bit storage where no matrix unit is used.
//
// kTpr consecutive lanes share a query row. A thread owns kRm rows, the keys
// c * kTpr + lane_in_row of a tile (strided, so float4 reads of padded K rows
// hit distinct banks) and the head-dim columns c4 * 4 * kTpr + 4 * lane_in_row
// .. +3 of O. P goes through shared memory as fp32.
#pragma once

#include "sparse_attn_common.h"

namespace jitk {
namespace attn {

template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK>
struct FmaEngine {
  typedef T Elem;
  static constexpr int kBlockM = BLOCK_M;
  static constexpr int kBlockN = BLOCK_N;
  static constexpr int kStages = STAGES;
  static constexpr int kHeadDim = HEAD_DIM;
  static constexpr int kThreads = WAVES * kWaveSize;
  static constexpr bool kQInShared = true;
  static constexpr int kRow = PaddedRow(HEAD_DIM, int(sizeof(T)));
  static constexpr int kTpr = FmaThreadsPerRow(HEAD_DIM);
  static constexpr int kGroups = kThreads / kTpr;
  static constexpr int kRm = BLOCK_M / kGroups;
  static constexpr int kCn = BLOCK_N / kTpr;
  static constexpr int kDc = HEAD_DIM / (4 * kTpr);
  static constexpr int kPRow = BLOCK_N + 4;
  // P lives after Q and the K/V stages.
  static constexpr int kPOffset = (BLOCK_M + 2 * STAGES * BLOCK_N) * kRow * int(sizeof(T));
  static_assert(HEAD_DIM % 16 == 0, "HEAD_DIM must be a multiple of 16");
  static_assert(kRm >= 1 && BLOCK_M % kGroups == 0,
                "BLOCK_M must be a multiple of WAVES * wave size / threads per row");
  static_assert(BLOCK_N % kTpr == 0 && BLOCK_N % 4 == 0, "BLOCK_N must be a multiple of 16");

  float o[kRm][kDc][4];
  float m[kRm];
  float l[kRm];
  int rg;  // row group
  int tl;  // lane within the row group
  float* sp;

  JITK_DEVICE void begin(const T*, i64, int, int) {
    rg = int(threadIdx.x) / kTpr;
    tl = int(threadIdx.x) % kTpr;
#pragma unroll
    for (int i = 0; i < kRm; ++i) {
      m[i] = neg_inf();
      l[i] = 0.f;
#pragma unroll
      for (int c = 0; c < kDc; ++c) {
#pragma unroll
        for (int e = 0; e < 4; ++e) o[i][c][e] = 0.f;
      }
    }
  }

  JITK_DEVICE void set_shared(char* smem) { sp = reinterpret_cast<float*>(smem + kPOffset); }

  JITK_DEVICE void load_q(const T*) {}

  JITK_DEVICE void tile(const T* sq, const T* sk, const T* sv, int pos0, int kv0, bool partial,
                        const SparseAttnParams& p) {
    // S = Q K^T in exact fp32 FMAs.
    float s[kRm][kCn];
#pragma unroll
    for (int i = 0; i < kRm; ++i) {
#pragma unroll
      for (int c = 0; c < kCn; ++c) s[i][c] = 0.f;
    }
#pragma unroll 4
    for (int d = 0; d < HEAD_DIM; d += 4) {
      F4 qv[kRm];
#pragma unroll
      for (int i = 0; i < kRm; ++i) qv[i] = load4<T>(sq + (rg * kRm + i) * kRow + d);
#pragma unroll
      for (int c = 0; c < kCn; ++c) {
        F4 kv = load4<T>(sk + (c * kTpr + tl) * kRow + d);
#pragma unroll
        for (int i = 0; i < kRm; ++i) {
#pragma unroll
          for (int e = 0; e < 4; ++e) s[i][c] = fmaf(qv[i].v[e], kv.v[e], s[i][c]);
        }
      }
    }

    const bool bounds = kv0 < 0 || kv0 + BLOCK_N > p.len_k;
    const bool apply_mod = MASK != kMaskNone && partial;
#pragma unroll
    for (int i = 0; i < kRm; ++i) {
      if (bounds || apply_mod) {
        const RowKeys keys = row_keys<MASK>(pos0 + rg * kRm + i, apply_mod, p);
#pragma unroll
        for (int c = 0; c < kCn; ++c) {
          if (!key_visible(kv0 + c * kTpr + tl, keys)) s[i][c] = neg_inf();
        }
      }
      float mx = neg_inf();
#pragma unroll
      for (int c = 0; c < kCn; ++c) mx = fmaxf(mx, s[i][c]);
#pragma unroll
      for (int off = kTpr / 2; off > 0; off /= 2) mx = fmaxf(mx, shuffle_xor(mx, off));
      float m_new = fmaxf(m[i], mx * p.scale_log2);
      float m_use = m_new == neg_inf() ? 0.f : m_new;
      float alpha = exp2f(m[i] - m_use);
      m[i] = m_new;
      float sum = 0.f;
      float* prow = sp + (rg * kRm + i) * kPRow;
#pragma unroll
      for (int c = 0; c < kCn; ++c) {
        float e = exp2f(fmaf(s[i][c], p.scale_log2, -m_use));
        prow[c * kTpr + tl] = e;
        sum += e;
      }
      l[i] = l[i] * alpha + sum;
#pragma unroll
      for (int c = 0; c < kDc; ++c) {
#pragma unroll
        for (int e = 0; e < 4; ++e) o[i][c][e] *= alpha;
      }
    }
    block_sync();  // P rows are read by every lane of their row group

    // O += P V.
#pragma unroll 2
    for (int j = 0; j < BLOCK_N; j += 4) {
      F4 pv[kRm];
#pragma unroll
      for (int i = 0; i < kRm; ++i) pv[i] = *reinterpret_cast<const F4*>(sp + (rg * kRm + i) * kPRow + j);
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) {
#pragma unroll
        for (int c = 0; c < kDc; ++c) {
          F4 vv = load4<T>(sv + (j + jj) * kRow + c * 4 * kTpr + 4 * tl);
#pragma unroll
          for (int i = 0; i < kRm; ++i) {
#pragma unroll
            for (int e = 0; e < 4; ++e) o[i][c][e] = fmaf(pv[i].v[jj], vv.v[e], o[i][c][e]);
          }
        }
      }
    }
  }

  JITK_DEVICE void finish(T* out, i64 o_stride, float* lse, int q0, int len_q) {
#pragma unroll
    for (int i = 0; i < kRm; ++i) {
      float sum = l[i];
#pragma unroll
      for (int off = kTpr / 2; off > 0; off /= 2) sum += shuffle_xor(sum, off);
      float inv = sum > 0.f ? 1.f / sum : 0.f;
      int row = q0 + rg * kRm + i;
      if (row < len_q) {
        T* orow = out + i64(row) * o_stride + 4 * tl;
#pragma unroll
        for (int c = 0; c < kDc; ++c) {
          store4<T>(orow + c * 4 * kTpr, o[i][c][0] * inv, o[i][c][1] * inv, o[i][c][2] * inv,
                    o[i][c][3] * inv);
        }
        if (lse != nullptr && tl == 0) {
          lse[row] = sum > 0.f ? (m[i] + log2f(sum)) * kLn2 : neg_inf();
        }
      }
    }
  }
};

}  // namespace attn
}  // namespace jitk
