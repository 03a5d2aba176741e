// sparse_attn_mma.h — NVIDIA tensor-core engine (sm_80+: mma.sync m16n8k16).
//
// Each warp owns BLOCK_M / WAVES query rows (16 per m-tile). With one m-tile
// per warp the Q fragments stay in registers for the whole row of key tiles;
// with two or more (fewer ldmatrix per mma: each K / V fragment feeds every
// m-tile) they are re-read from shared memory one k-step at a time, which
// keeps O (kMT * HEAD_DIM / 2 registers) and S in the register file (all 255
// at d = 128 with 64-key passes). S = Q K^T is accumulated in
// fp32 C fragments, softmaxed in place, and the C fragments of two adjacent
// n-tiles are exactly the A fragment of P for the next mma, so P never
// touches shared memory. K fragments come from ldmatrix, V fragments from
// ldmatrix.trans.
//
// Fragment layout (g = lane / 4, t = lane % 4), m16n8k16:
//   A: a0 (g, 2t..2t+1)  a1 (g+8, 2t..)  a2 (g, 2t+8..)  a3 (g+8, 2t+8..)
//   B: b0 (k 2t..2t+1, n g)  b1 (k 2t+8.., n g)
//   C: c0,c1 (g, 2t..2t+1)   c2,c3 (g+8, 2t..2t+1)
#pragma once

#include "sparse_attn_common.h"

#if JITK_ATTN_HAS_MMA

namespace jitk {
namespace attn {

// 2^x on the special-function unit, subnormal results flushed to zero (P is
// rounded to 16 bits next; exp2f adds a range fix-up for them). -inf gives 0.
JITK_DEVICE float exp2_fast(float x) {
#if defined(__CUDA_ARCH__)
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#else
  return exp2f(x);
#endif
}

// The pieces of one 16-row m-tile in the m16n8k16 C layout (g = lane / 4,
// t = lane % 4: elements 0, 1 of an n-tile are row g, columns 2t, 2t + 1;
// elements 2, 3 row g + 8), shared by the mma and wgmma engines.

// -inf where the key is out of bounds or, with apply_mod, masked. row0 and
// col0 are this lane's first row's query position and its first column.
// Selects, no branch per element.
template <int MASK, int NT>
JITK_DEVICE void mask_scores(float (&s)[NT][4], int row0, int col0, bool apply_mod,
                             const SparseAttnParams& p) {
#pragma unroll
  for (int hr = 0; hr < 2; ++hr) {
    const RowKeys keys = row_keys<MASK>(row0 + hr * 8, apply_mod, p);
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int col = col0 + nt * 8 + j;
        s[nt][2 * hr + j] = key_visible(col, keys) ? s[nt][2 * hr + j] : neg_inf();
      }
    }
  }
}

// Online softmax of S into running max m and sum l: S becomes P = 2^(S
// scale_log2 - m) in place, and alpha[hr] is the factor O's row g + 8 hr
// must be rescaled by (rescale_rows), 1 when m did not move. A quad of lanes
// shares each row.
template <int NT>
JITK_DEVICE void softmax_scores(float (&s)[NT][4], float (&m)[2], float (&l)[2],
                                float (&alpha)[2], float scale_log2) {
#pragma unroll
  for (int hr = 0; hr < 2; ++hr) {
    float mx = neg_inf();
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) mx = fmaxf(mx, fmaxf(s[nt][2 * hr], s[nt][2 * hr + 1]));
    mx = fmaxf(mx, shuffle_xor(mx, 1));
    mx = fmaxf(mx, shuffle_xor(mx, 2));
    const float m_tile = mx * scale_log2;
    alpha[hr] = 1.f;
    if (m_tile > m[hr] + kRescaleSlack) {  // never for -inf (a row with no key yet)
      alpha[hr] = exp2_fast(m[hr] - m_tile);
      m[hr] = m_tile;
    }
    const float m_use = m[hr] == neg_inf() ? 0.f : m[hr];
    float sum = 0.f;
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
      s[nt][2 * hr] = exp2_fast(fmaf(s[nt][2 * hr], scale_log2, -m_use));
      s[nt][2 * hr + 1] = exp2_fast(fmaf(s[nt][2 * hr + 1], scale_log2, -m_use));
      sum += s[nt][2 * hr] + s[nt][2 * hr + 1];
    }
    l[hr] = l[hr] * alpha[hr] + sum;
  }
}

// P packed to 16 bits: pk[nt][hr] holds row g + 8 hr, columns 2t, 2t + 1 of
// n-tile nt, which is the A fragment of the P V product.
template <typename T, int NT>
JITK_DEVICE void pack_probs(const float (&s)[NT][4], u32 (&pk)[NT][2]) {
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    pk[nt][0] = pack2<T>(s[nt][0], s[nt][1]);
    pk[nt][1] = pack2<T>(s[nt][2], s[nt][3]);
  }
}

template <int DT>
JITK_DEVICE void rescale_rows(float (&o)[DT][4], const float (&alpha)[2]) {
  if (alpha[0] != 1.f || alpha[1] != 1.f) {
#pragma unroll
    for (int dt = 0; dt < DT; ++dt) {
#pragma unroll
      for (int i = 0; i < 4; ++i) o[dt][i] *= alpha[i >> 1];
    }
  }
}

// The whole step: P packed, O rescaled.
template <typename T, int NT, int DT>
JITK_DEVICE void online_softmax(float (&s)[NT][4], float (&m)[2], float (&l)[2],
                                float (&o)[DT][4], u32 (&pk)[NT][2], float scale_log2) {
  float alpha[2];
  softmax_scores(s, m, l, alpha, scale_log2);
  pack_probs<T>(s, pk);
  rescale_rows(o, alpha);
}

// Lane q of a quad holds columns 2q, 2q+1 of four 8-column groups (v[j] of
// group j); afterwards it holds group q whole (v[i] from lane i), so that
// it writes one 16-byte piece where it wrote four 4-byte ones: a quarter of
// the store instructions, and whole 32-byte sectors. Two butterfly steps,
// each swapping half of the values with the partner lane.
JITK_DEVICE void transpose_quad(u32 (&v)[4], int lane) {
#pragma unroll
  for (int step = 1; step <= 2; step *= 2) {
    const bool upper = (lane & step) != 0;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (j & step) continue;
      const u32 sent = upper ? v[j] : v[j | step];
      const u32 got = __float_as_uint(shuffle_xor(__uint_as_float(sent), step));
      if (upper) {
        v[j] = got;
      } else {
        v[j | step] = got;
      }
    }
  }
}

// The end of a row whose lane quad holds running max m and partial sums l:
// the quad's first lane writes its LSE (-inf for a row that saw no key), and
// every lane gets the factor of its O (0 for that row). l >= 1 once a key is
// seen (the row maximum's own term is at least exp2(0)), where the hardware's
// logarithm and reciprocal are within a few ulp; the precise ones' polynomials
// and slow paths sat on every query tile's critical path (1-4 % at 10 %
// density, bench/results/2026-12-06-h100-fast-finish/).
JITK_DEVICE float finish_row(float m, float l, float* lse, int row, int len_q, int lane) {
  l += shuffle_xor(l, 1);
  l += shuffle_xor(l, 2);
  if (lse != nullptr && (lane & 3) == 0 && row < len_q) {
    lse[row] = l > 0.f ? (m + __log2f(l)) * kLn2 : neg_inf();
  }
  return l > 0.f ? __fdividef(1.f, l) : 0.f;
}

// O / l to global memory (rows from row0, this lane's first), and the LSE.
// The host passes 16-byte aligned rows (o and its strides).
template <typename T, int DT>
JITK_DEVICE void store_rows(const float (&o)[DT][4], const float (&m)[2], const float (&l)[2],
                            T* out, i64 o_stride, float* lse, int row0, int len_q, int lane) {
  static_assert(DT % 2 == 0, "HEAD_DIM is a multiple of 16");
#pragma unroll
  for (int hr = 0; hr < 2; ++hr) {
    const int row = row0 + hr * 8;
    const float inv = finish_row(m[hr], l[hr], lse, row, len_q, lane);
    T* orow = out + i64(row) * o_stride;
    // The shuffles need every lane: only the stores depend on the row.
#pragma unroll
    for (int g = 0; g + 4 <= DT; g += 4) {
      u32 v[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) v[j] = pack2<T>(o[g + j][2 * hr] * inv, o[g + j][2 * hr + 1] * inv);
      transpose_quad(v, lane);
      if (row < len_q) {
        *reinterpret_cast<Chunk16*>(orow + (g + (lane & 3)) * 8) = Chunk16{v[0], v[1], v[2], v[3]};
      }
    }
    if (row < len_q) {
#pragma unroll
      for (int dt = DT / 4 * 4; dt < DT; ++dt) {  // the last 16 columns when HEAD_DIM % 32 == 16
        *reinterpret_cast<u32*>(orow + dt * 8 + (lane & 3) * 2) =
            pack2<T>(o[dt][2 * hr] * inv, o[dt][2 * hr + 1] * inv);
      }
    }
  }
}

template <int BLOCK_M, int BLOCK_N, int WAVES, int STAGES, int HEAD_DIM, typename T, int MASK>
struct MmaEngine {
  typedef T Elem;
  static constexpr int kBlockM = BLOCK_M;
  static constexpr int kBlockN = BLOCK_N;
  static constexpr int kStages = STAGES;
  static constexpr int kHeadDim = HEAD_DIM;
  static constexpr int kThreads = WAVES * 32;
  static constexpr bool kQInShared = true;
  static constexpr int kRow = PaddedRow(HEAD_DIM, 2);
  static constexpr int kWarpRows = BLOCK_M / WAVES;
  static constexpr int kMT = kWarpRows / 16;   // m-tiles per warp
  // Keys per pass through S = Q K^T, softmax, O += P V. With two or more
  // m-tiles a stage of BLOCK_N keys is computed 64 keys at a time: S and O
  // share the register file (255 registers at 128x64, d = 128), Q is re-read
  // from shared memory once per 64 keys, and the barriers and the refill are
  // paid once per BLOCK_N keys.
  static constexpr int kSubN = kMT >= 2 && BLOCK_N > 64 ? 64 : BLOCK_N;
  static constexpr int kNT = kSubN / 8;        // n-tiles of S
  static constexpr int kDT = HEAD_DIM / 8;     // n-tiles of O
  static constexpr int kKS = HEAD_DIM / 16;    // k-steps of Q K^T
  static constexpr int kPS = kSubN / 16;       // k-steps of P V
  static_assert(kWaveSize == 32 || sizeof(T) == 0, "the mma engine needs 32-lane warps");
  static_assert(sizeof(T) == 2, "the mma engine takes f16 or bf16 storage");
  static_assert(BLOCK_M % (16 * WAVES) == 0, "BLOCK_M must be a multiple of 16 * WAVES");
  static_assert(BLOCK_N % 16 == 0 && BLOCK_N % kSubN == 0,
                "BLOCK_N must be a multiple of 16 (above 64 with two or more m-tiles: of 64)");
  static_assert(HEAD_DIM % 16 == 0, "HEAD_DIM must be a multiple of 16");

  static constexpr bool kQInRegs = kMT == 1;
  static constexpr int kQRegTiles = kQInRegs ? kMT : 1;

  static constexpr int kRowBytes = kRow * 2;

  u32 qf[kQRegTiles][kKS][4];
  float o[kMT][kDT][4];
  float m[kMT][2];
  float l[kMT][2];
  int warp;
  int lane;
  // Byte offsets of this lane's ldmatrix rows within the Q, K and V tiles.
  int q_off;
  int k_off;
  int v_off;

  JITK_DEVICE void begin(const T*, i64, int, int) {
    warp = int(threadIdx.x) / 32;
    lane = int(threadIdx.x) % 32;
    q_off = (warp * kWarpRows + (lane & 7) + ((lane >> 3) & 1) * 8) * kRowBytes + (lane >> 4) * 16;
    k_off = ((lane & 7) + (lane >> 4) * 8) * kRowBytes + ((lane >> 3) & 1) * 16;
    v_off = ((lane & 7) + ((lane >> 3) & 1) * 8) * kRowBytes + (lane >> 4) * 16;
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
      for (int dt = 0; dt < kDT; ++dt) {
#pragma unroll
        for (int i = 0; i < 4; ++i) o[mt][dt][i] = 0.f;
      }
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) {
        m[mt][hr] = neg_inf();
        l[mt][hr] = 0.f;
      }
    }
  }

  JITK_DEVICE void load_q(const T* sq) {
    if (!kQInRegs) return;  // read per k-step in tile()
    const SmemPtr q = smem_ptr(sq) + q_off;
#pragma unroll
    for (int mt = 0; mt < kQRegTiles; ++mt) {
#pragma unroll
      for (int ks = 0; ks < kKS; ++ks) ldmatrix_x4(qf[mt][ks], q + mt * 16 * kRowBytes + ks * 32);
    }
  }

  JITK_DEVICE void tile(const T* sq, const T* sk, const T* sv, int pos0, int kv0, bool partial,
                        const SparseAttnParams& p) {
    const SmemPtr qrow = smem_ptr(sq) + q_off;
    const SmemPtr krow = smem_ptr(sk) + k_off;
    const SmemPtr vrow = smem_ptr(sv) + v_off;
    // Under a causal mask, tiles that need no masking run their own copy of
    // the loop, without the mask's code: with one shared loop ptxas
    // schedules them slower (causal 128x64 at L=16384 gains 1.04x from the
    // copy on the H200). The two-sided sliding mask spills with two copies.
    constexpr bool kSplit = MASK == kMaskCausal || MASK == kMaskSlidingCausal;
    if (kSplit && !partial && kv0 >= 0 && kv0 + BLOCK_N <= p.len_k) {
      passes<false>(qrow, krow, vrow, pos0, kv0, false, p);
    } else {
      passes<true>(qrow, krow, vrow, pos0, kv0, partial, p);
    }
  }

  template <bool kMasked>
  JITK_DEVICE void passes(SmemPtr qrow, SmemPtr krow, SmemPtr vrow, int pos0, int kv0, bool partial,
                          const SparseAttnParams& p) {
#pragma unroll 1  // unrolled, the scheduler overlaps passes and spills
    for (int sub = 0; sub < BLOCK_N / kSubN; ++sub) {
      const int skip = sub * kSubN * kRowBytes;
      keys<kMasked>(qrow, krow + skip, vrow + skip, pos0, kv0 + sub * kSubN, partial, p);
    }
  }

  // kSubN keys from kv0: their K rows at krow, V rows at vrow (this lane's);
  // without kMasked all in bounds and unmasked.
  template <bool kMasked>
  JITK_DEVICE void keys(SmemPtr qrow, SmemPtr krow, SmemPtr vrow, int pos0, int kv0, bool partial,
                        const SparseAttnParams& p) {
    // In a partial block this warp's rows may see none of these keys (skip
    // the pass) or all of them (no element mask): warp-uniform.
    const int r_lo = pos0 + warp * kWarpRows, r_hi = r_lo + kWarpRows - 1;
    if (kMasked && !keys_visible<MASK>(r_lo, r_hi, r_lo, r_hi, kv0, kv0 + kSubN - 1, p, &partial)) {
      return;
    }
    float s[kMT][kNT][4];
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
      for (int nt = 0; nt < kNT; ++nt) {
#pragma unroll
        for (int i = 0; i < 4; ++i) s[mt][nt][i] = 0.f;
      }
    }

    // S = Q K^T: one ldmatrix.x4 gives the B fragments of two n-tiles.
#pragma unroll
    for (int ks = 0; ks < kKS; ++ks) {
      u32 qs[kMT][4];
      if (!kQInRegs) {
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt) ldmatrix_x4(qs[mt], qrow + mt * 16 * kRowBytes + ks * 32);
      }
#pragma unroll
      for (int np = 0; np < kNT / 2; ++np) {
        u32 kb[4];
        ldmatrix_x4(kb, krow + np * 16 * kRowBytes + ks * 32);
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt) {
          const u32(&qa)[4] = kQInRegs ? qf[kQInRegs ? mt : 0][ks] : qs[mt];
          mma_16816<T>(s[mt][2 * np], qa, kb[0], kb[1]);
          mma_16816<T>(s[mt][2 * np + 1], qa, kb[2], kb[3]);
        }
      }
    }

    // Mask: partial blocks get the element mask, the last block the bounds.
    const bool bounds = kv0 < 0 || kv0 + kSubN > p.len_k;
    const bool apply_mod = MASK != kMaskNone && partial;
    if (kMasked && (bounds || apply_mod)) {
      const int row0 = pos0 + warp * kWarpRows + (lane >> 2);
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) {
        mask_scores<MASK>(s[mt], row0 + mt * 16, kv0 + (lane & 3) * 2, apply_mod, p);
      }
    }

    u32 pk[kMT][kNT][2];
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt) online_softmax<T>(s[mt], m[mt], l[mt], o[mt], pk[mt], p.scale_log2);

    // O += P V: C fragments of n-tiles 2ps, 2ps+1 are P's A fragment.
#pragma unroll
    for (int ps = 0; ps < kPS; ++ps) {
      u32 pa[kMT][4];
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) {
        pa[mt][0] = pk[mt][2 * ps][0];
        pa[mt][1] = pk[mt][2 * ps][1];
        pa[mt][2] = pk[mt][2 * ps + 1][0];
        pa[mt][3] = pk[mt][2 * ps + 1][1];
      }
#pragma unroll
      for (int dp = 0; dp < kDT / 2; ++dp) {
        u32 vb[4];
        ldmatrix_x4_trans(vb, vrow + ps * 16 * kRowBytes + dp * 32);
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt) {
          mma_16816<T>(o[mt][2 * dp], pa[mt], vb[0], vb[1]);
          mma_16816<T>(o[mt][2 * dp + 1], pa[mt], vb[2], vb[3]);
        }
      }
    }
  }

  JITK_DEVICE void finish(T* out, i64 o_stride, float* lse, int q0, int len_q) {
    const int row0 = q0 + warp * kWarpRows + (lane >> 2);
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt) {
      store_rows<T>(o[mt], m[mt], l[mt], out, o_stride, lse, row0 + mt * 16, len_q, lane);
    }
  }
};

}  // namespace attn
}  // namespace jitk

#endif  // JITK_ATTN_HAS_MMA
