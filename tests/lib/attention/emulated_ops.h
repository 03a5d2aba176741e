// CPU versions of the primitives in kernel_templates/sparse_attn_ops.h, for
// the SIMT emulator: cp.async, ldmatrix(.trans), mma.sync m16n8k16 and MFMA
// 32x32x8 executed on the wave's exchanged operands, with the register
// layouts of the PTX ISA and the CDNA ISA; and the tensor-memory loads and
// mbarriers of sparse_attn_tma_ops.h (emulated_tma.h).
//
// Include after simt_emulator.h, emulated_tma.h and prelude.h, with
// JITK_ATTN_OPS_PROVIDED defined, before sparse_attn.h. No include guard:
// each emulated wave size includes it once in its own (renamed) jitk
// namespace.

#define JITK_ATTN_HAS_MMA 1
#define JITK_ATTN_HAS_MFMA 1
#define JITK_ATTN_HAS_MFMA_BF16 1
#define JITK_ATTN_HAS_TMA 1

#include "kernel_templates/sparse_attn_ops.h"

namespace jitk {
namespace attn {

typedef char* SmemPtr;
inline SmemPtr smem_ptr(const void* p) { return static_cast<char*>(const_cast<void*>(p)); }

inline void copy16_async(SmemPtr dst, const void* src, bool valid) {
  if (valid) {
    std::memcpy(dst, src, 16);
  } else {
    std::memset(dst, 0, 16);
  }
}
struct Vec16 {
  u32 v[4];
  u32 operator[](int i) const { return v[i]; }
};
inline Vec16 load16(const void* src) {
  Vec16 c;
  std::memcpy(c.v, src, 16);
  return c;
}
inline void store16(SmemPtr dst, Vec16 c, bool valid, bool swap) {
  if (!valid) c = Vec16{};
  if (swap) c = Vec16{{c.v[2], c.v[3], c.v[0], c.v[1]}};
  std::memcpy(dst, c.v, 16);
}

inline int opaque(int x) { return x; }

inline void cp_async_commit() {}
template <int N>
inline void cp_async_wait() {}

template <typename T>
inline float bits_to_float(u16 bits) {
  T t;
  t.bits = bits;
  return to_float(t);
}

template <typename T>
inline u32 pack2(float lo, float hi) {
  return u32(from_float<T>(lo).bits) | (u32(from_float<T>(hi).bits) << 16);
}

// ldmatrix .x4: lane l gives the address of row l % 8 of matrix l / 8;
// lane l receives, of each matrix j, row l / 4, columns 2 (l % 4) and +1
// (.trans: rows 2 (l % 4) and +1 of column l / 4).
inline void ldmatrix_x4_impl(u32 (&r)[4], const void* p, bool trans) {
  ::simt::Emulator& e = ::simt::Emulator::Get();
  const void* const* rows = e.Exchange(p);
  const int l = e.Lane();
  for (int j = 0; j < 4; ++j) {
    u16 lo, hi;
    if (!trans) {
      const u16* row = static_cast<const u16*>(rows[j * 8 + l / 4]);
      lo = row[2 * (l % 4)];
      hi = row[2 * (l % 4) + 1];
    } else {
      lo = static_cast<const u16*>(rows[j * 8 + 2 * (l % 4)])[l / 4];
      hi = static_cast<const u16*>(rows[j * 8 + 2 * (l % 4) + 1])[l / 4];
    }
    r[j] = u32(lo) | (u32(hi) << 16);
  }
  e.SyncWave();
}
inline void ldmatrix_x4(u32 (&r)[4], const void* p) { ldmatrix_x4_impl(r, p, false); }
inline void ldmatrix_x4_trans(u32 (&r)[4], const void* p) { ldmatrix_x4_impl(r, p, true); }

// mma.sync.m16n8k16.row.col, fp32 accumulate (g = lane / 4, t = lane % 4).
template <typename T>
inline void mma_16816(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  struct Operands {
    u32 a[4];
    u32 b[2];
  };
  ::simt::Emulator& e = ::simt::Emulator::Get();
  const Operands* all = e.Exchange(Operands{{a[0], a[1], a[2], a[3]}, {b0, b1}});
  float A[16][16], B[16][8];
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    for (int half = 0; half < 2; ++half) {
      auto el = [&](u32 reg) { return bits_to_float<T>(u16(reg >> (16 * half))); };
      A[g][2 * t + half] = el(all[l].a[0]);
      A[g + 8][2 * t + half] = el(all[l].a[1]);
      A[g][2 * t + 8 + half] = el(all[l].a[2]);
      A[g + 8][2 * t + 8 + half] = el(all[l].a[3]);
      B[2 * t + half][g] = el(all[l].b[0]);
      B[2 * t + 8 + half][g] = el(all[l].b[1]);
    }
  }
  const int l = e.Lane(), g = l / 4, t = l % 4;
  for (int i = 0; i < 4; ++i) {
    const int row = g + (i / 2) * 8, col = 2 * t + (i % 2);
    float acc = d[i];
    for (int k = 0; k < 16; ++k) acc += A[row][k] * B[k][col];
    d[i] = acc;
  }
  e.SyncWave();
}

inline void mbar_init(SmemPtr bar, u32 count) { ::simt::AsyncCopies::Get().Init(bar, int(count)); }
inline void mbar_init_fence() {}
inline void mbar_arrive_expect_tx(SmemPtr bar, u32 bytes) {
  ::simt::AsyncCopies::Get().ArriveExpectTx(bar, bytes);
}
inline void mbar_wait(SmemPtr bar, u32 parity) { ::simt::AsyncCopies::Get().Wait(bar, parity); }
inline void tma_load_4d(SmemPtr dst, const void* map, int c0, int c1, int c2, int c3,
                        SmemPtr bar) {
  ::simt::AsyncCopies::Get().Load4d(dst, map, {c0, c1, c2, c3}, bar);
}

struct f32x16 {
  float v[16];
  float& operator[](int i) { return v[i]; }
  const float& operator[](int i) const { return v[i]; }
};

// v_mfma_f32_32x32x8: A[i][k] lane i + 32 (k / 4) item k % 4; B[k][j] lane
// j + 32 (k / 4) item k % 4; C[i][j] lane j + 32 ((i / 4) % 2) item
// i % 4 + 4 (i / 8).
template <typename T>
inline f32x16 mfma_32x32x8(Frag4 a, Frag4 b, f32x16 c) {
  struct Operands {
    Frag4 a, b;
  };
  ::simt::Emulator& e = ::simt::Emulator::Get();
  const Operands* all = e.Exchange(Operands{a, b});
  auto item = [](const Frag4& f, int i) {
    u32 reg = i < 2 ? f.lo : f.hi;
    return bits_to_float<T>(u16(reg >> (16 * (i % 2))));
  };
  float A[32][8], B[8][32];
  for (int l = 0; l < 64; ++l) {
    for (int it = 0; it < 4; ++it) {
      A[l % 32][4 * (l / 32) + it] = item(all[l].a, it);
      B[4 * (l / 32) + it][l % 32] = item(all[l].b, it);
    }
  }
  const int l = e.Lane();
  f32x16 d = c;
  for (int v = 0; v < 16; ++v) {
    const int i = (v % 4) + 4 * (l / 32) + 8 * (v / 4), j = l % 32;
    float acc = d[v];
    for (int k = 0; k < 8; ++k) acc += A[i][k] * B[k][j];
    d[v] = acc;
  }
  e.SyncWave();
  return d;
}

}  // namespace attn
}  // namespace jitk
