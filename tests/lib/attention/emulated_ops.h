// CPU versions of the primitives in kernel_templates/sparse_attn_ops.h, for
// the SIMT emulator: cp.async, ldmatrix(.trans), mma.sync m16n8k16 and MFMA
// 32x32x8 executed on the wave's exchanged operands, with the register
// layouts of the PTX ISA and the CDNA ISA; the tensor-memory copies and
// mbarriers of sparse_attn_tma_ops.h (emulated_tma.h), its named barriers
// (the emulator's) and stmatrix; and wgmma of sparse_attn_wgmma_ops.h
// (emulated_wgmma.h).
//
// Include after simt_emulator.h, emulated_tma.h, emulated_wgmma.h and
// prelude.h, with
// JITK_ATTN_OPS_PROVIDED defined, before sparse_attn.h. No include guard:
// each emulated wave size includes it once in its own (renamed) jitk
// namespace.

#define JITK_ATTN_HAS_MMA 1
#define JITK_ATTN_HAS_MFMA 1
#define JITK_ATTN_HAS_MFMA_BF16 1
#define JITK_ATTN_HAS_TMA 1
#define JITK_ATTN_HAS_WGMMA 1

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

// A warp's m16n8k16 A fragment as its 16x16 matrix: lane l (g = l / 4,
// t = l % 4) holds rows g and g + 8, columns 2 t, 2 t + 1 and 8 more, in
// registers a(l)[0..3].
struct Matrix16 {
  float v[16][16];
};
template <typename T, typename Registers>
inline Matrix16 a_fragment_matrix(Registers a) {
  Matrix16 A;
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    const u32* r = a(l);
    for (int half = 0; half < 2; ++half) {
      auto el = [&](u32 reg) { return bits_to_float<T>(u16(reg >> (16 * half))); };
      A.v[g][2 * t + half] = el(r[0]);
      A.v[g + 8][2 * t + half] = el(r[1]);
      A.v[g][2 * t + 8 + half] = el(r[2]);
      A.v[g + 8][2 * t + 8 + half] = el(r[3]);
    }
  }
  return A;
}

// mma.sync.m16n8k16.row.col, fp32 accumulate (g = lane / 4, t = lane % 4).
template <typename T>
inline void mma_16816(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  struct Operands {
    u32 a[4];
    u32 b[2];
  };
  ::simt::Emulator& e = ::simt::Emulator::Get();
  const Operands* all = e.Exchange(Operands{{a[0], a[1], a[2], a[3]}, {b0, b1}});
  const Matrix16 A = a_fragment_matrix<T>([&](int l) { return all[l].a; });
  float B[16][8];
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    for (int half = 0; half < 2; ++half) {
      auto el = [&](u32 reg) { return bits_to_float<T>(u16(reg >> (16 * half))); };
      B[2 * t + half][g] = el(all[l].b[0]);
      B[2 * t + 8 + half][g] = el(all[l].b[1]);
    }
  }
  const int l = e.Lane(), g = l / 4, t = l % 4;
  for (int i = 0; i < 4; ++i) {
    const int row = g + (i / 2) * 8, col = 2 * t + (i % 2);
    float acc = d[i];
    for (int k = 0; k < 16; ++k) acc += A.v[row][k] * B[k][col];
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
inline void mbar_arrive(SmemPtr bar) { ::simt::AsyncCopies::Get().ArriveExpectTx(bar, 0); }
inline void tma_prefetch_4d(const void*, int, int, int, int) {}
inline void tma_store_4d(const void* map, SmemPtr src, int c0, int c1, int c2, int c3) {
  ::simt::AsyncCopies::Get().Store4d(map, src, {c0, c1, c2, c3});
}
inline void bulk_commit() {}
inline void bulk_wait_read() { ::simt::AsyncCopies::Get().BulkWait(); }
inline void bulk_wait() { ::simt::AsyncCopies::Get().BulkWait(); }
inline void named_barrier_sync(int id, int threads) {
  ::simt::Emulator::Get().NamedBarrier(id, threads, true);
}
inline void named_barrier_arrive(int id, int threads) {
  ::simt::Emulator::Get().NamedBarrier(id, threads, false);
}

// stmatrix .x4: lane l gives the address of row l % 8 of matrix l / 8,
// which holds register l / 8 of lanes 4 (l % 8) .. + 3 (two elements each).
inline void stmatrix_x4(SmemPtr addr, u32 r0, u32 r1, u32 r2, u32 r3) {
  struct Operands {
    char* addr;
    u32 r[4];
  };
  ::simt::Emulator& e = ::simt::Emulator::Get();
  const Operands* all = e.Exchange(Operands{addr, {r0, r1, r2, r3}});
  const int l = e.Lane();
  u32 row[4];
  for (int q = 0; q < 4; ++q) row[q] = all[4 * (l % 8) + q].r[l / 8];
  std::memcpy(all[l].addr, row, sizeof(row));
  e.SyncWave();
}

// wgmma: each thread computes its m16n8k16-C-layout fragment of the
// warpgroup's D (warp w % 4 of its warpgroup owns rows 16 (w % 4) ..),
// emulated_wgmma.h keeps it in flight until its group's wait.
inline u64 smem_desc_sw128(SmemPtr addr, u32 lbo, u32 sbo) {
  return ::simt::WarpgroupMma::Get().Descriptor(addr, lbo, sbo);
}
inline void wgmma_fence() {}
inline void wgmma_commit() { ::simt::WarpgroupMma::Get().Commit(); }
template <int N>
inline void wgmma_wait() {
  ::simt::WarpgroupMma::Get().Wait(N);
}
inline void async_proxy_fence() {}
template <int N>
inline void set_max_registers_inc() {}
template <int N>
inline void set_max_registers_dec() {}
template <int NT>
inline void keep_registers(u32 (&)[NT][2]) {}
template <int NT>
inline void keep_registers(float (&)[NT][4]) {}

// D's fragment (N / 2 values: n-tile j, register i) from A's 16 rows of this
// warp, a(row, k), and B, b(k, col).
template <int N, typename A, typename B>
inline std::vector<float> wgmma_fragment(A a, B b) {
  const int l = ::simt::Emulator::Get().Lane(), g = l / 4, t = l % 4;
  std::vector<float> d(N / 2);
  for (int j = 0; j < N / 8; ++j) {
    for (int i = 0; i < 4; ++i) {
      const int row = g + 8 * (i / 2), col = 8 * j + 2 * t + i % 2;
      float acc = 0.f;
      for (int k = 0; k < 16; ++k) acc += a(row, k) * b(k, col);
      d[4 * j + i] = acc;
    }
  }
  return d;
}

template <typename T>
inline float smem_elem(const char* p) {
  u16 bits;
  std::memcpy(&bits, p, 2);
  return bits_to_float<T>(bits);
}

// D (+)= A B, A (64x16) and B (16xN) K-major in shared memory.
template <int N, typename T>
inline void wgmma_ss(float (&d)[N / 8][4], u64 a, u64 b, bool accumulate) {
  ::simt::WarpgroupMma& w = ::simt::WarpgroupMma::Get();
  const int rows = 16 * (int(threadIdx.x) / 32 % 4);
  auto product = [&w, a, b, rows] {
    return wgmma_fragment<N>(
        [&](int row, int k) { return smem_elem<T>(w.KMajor(a, rows + row, k)); },
        [&](int k, int col) { return smem_elem<T>(w.KMajor(b, col, k)); });
  };
  w.Issue(&d[0][0], N / 2, accumulate, product(), product, {u64(N), a, b, u64(accumulate)});
}

// D (+)= A B, A from registers (this warp's m16n8k16 A fragment), B (16xN)
// in shared memory, K-major or MN-major (read transposed).
template <int N, typename T, bool B_TRANSPOSED>
inline void wgmma_rs(float (&d)[N / 8][4], const u32 (&a)[4], u64 b, bool accumulate) {
  struct Fragment {
    u32 a[4];
  };
  ::simt::Emulator& e = ::simt::Emulator::Get();
  const Fragment* all = e.Exchange(Fragment{{a[0], a[1], a[2], a[3]}});
  const Matrix16 A = a_fragment_matrix<T>([&](int l) { return all[l].a; });
  e.SyncWave();
  ::simt::WarpgroupMma& w = ::simt::WarpgroupMma::Get();
  auto product = [&w, A, b] {
    return wgmma_fragment<N>(
        [&](int row, int k) { return A.v[row][k]; },
        [&](int k, int col) {
          return smem_elem<T>(B_TRANSPOSED ? w.MnMajor(b, k, col) : w.KMajor(b, col, k));
        });
  };
  // A comes from each warp's registers; the rest is the warpgroup's.
  w.Issue(&d[0][0], N / 2, accumulate, product(), product,
          {u64(N) | u64(1) << 16 | u64(B_TRANSPOSED) << 17, b, u64(accumulate)});
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
