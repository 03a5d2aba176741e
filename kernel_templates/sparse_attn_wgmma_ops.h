// sparse_attn_wgmma_ops.h — Hopper warpgroup MMA (sm_90a), for the wgmma engine.
//
//   smem_desc_sw128(addr, lbo, sbo)  matrix descriptor of a 128-byte-swizzled
//                  shared-memory operand (the layout Sw128Offset writes)
//   wgmma_ss<N, T>(d, a, b, acc)  D(64xN) (+)= A(64x16) B(16xN), A and B in
//                  shared memory (descriptors), fp32 accumulate
//   wgmma_rs<N, T, B_TRANSPOSED>(d, a, b, acc)  the same with A in registers
//                  (the m16n8k16 A fragment of this warp's 16 rows), B K-major
//                  (K in S = Q K^T) or read transposed (V in O += P V)
//   wgmma_fence / wgmma_commit / wgmma_wait<N>   the warpgroup's async groups
//   async_proxy_fence  makes this thread's generic-proxy shared-memory writes
//                  (cp.async included) visible to wgmma's reads
//   keep_registers(d)  stops the compiler from moving reads of accumulators
//                  above wgmma_wait (the asm that writes them has returned
//                  before the hardware has), or reusing the registers of a
//                  register operand still being read
//   set_max_registers_{inc,dec}<N>  moves registers between warpgroups
// The mbarriers, tensor-memory copies and named barriers it shares with the
// mma engine's TMA pipeline are in sparse_attn_tma_ops.h.
//
// D's fragment is the m16n8k16 C layout per warp (warp w of the warpgroup
// owns rows 16w..16w+15): d[j] holds columns 8j..8j+7.
#pragma once

#include "prelude.h"
#include "sparse_attn_tma_ops.h"

#if JITK_CUDA && defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define JITK_ATTN_HAS_WGMMA 1

namespace jitk {
namespace attn {

JITK_DEVICE u64 smem_desc_sw128(SmemPtr addr, u32 lbo, u32 sbo) {
  return u64((addr & 0x3ffffu) >> 4) | (u64(lbo >> 4) << 16) | (u64(sbo >> 4) << 32) |
         (u64(1) << 62);
}

JITK_DEVICE void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
JITK_DEVICE void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
JITK_DEVICE void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
JITK_DEVICE void async_proxy_fence() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

template <int N>
JITK_DEVICE void set_max_registers_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N>
JITK_DEVICE void set_max_registers_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

template <int NT>
JITK_DEVICE void keep_registers(u32 (&r)[NT][2]) {
#pragma unroll
  for (int j = 0; j < NT; ++j) asm volatile("" : "+r"(r[j][0]), "+r"(r[j][1])::"memory");
}

template <int NT>
JITK_DEVICE void keep_registers(float (&d)[NT][4]) {
#pragma unroll
  for (int j = 0; j < NT; ++j) {
#pragma unroll
    for (int i = 0; i < 4; ++i) asm volatile("" : "+f"(d[j][i])::"memory");
  }
}

// The accumulators of an m64nNk16 wgmma: N / 2 fp32 registers per thread,
// operands %0 onwards, as the instruction's register list and as the asm's
// in-out operands (d[j][i] is register 4 j + i).
#define JITK_WGMMA_D_N64                      \
  "%0, %1, %2, %3, %4, %5, %6, %7, "          \
  "%8, %9, %10, %11, %12, %13, %14, %15, "    \
  "%16, %17, %18, %19, %20, %21, %22, %23, "  \
  "%24, %25, %26, %27, %28, %29, %30, %31"

#define JITK_WGMMA_D_N128                    \
  JITK_WGMMA_D_N64 ", "                      \
  "%32, %33, %34, %35, %36, %37, %38, %39, " \
  "%40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, " \
  "%56, %57, %58, %59, %60, %61, %62, %63"

#define JITK_WGMMA_OUT_N64                                                                   \
  "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]),  \
  "+f"(d[1][2]), "+f"(d[1][3]), "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]),  \
  "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]), "+f"(d[4][0]), "+f"(d[4][1]),  \
  "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),  \
  "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]),  \
  "+f"(d[7][2]), "+f"(d[7][3])

#define JITK_WGMMA_OUT_N128                                                                       \
  JITK_WGMMA_OUT_N64,                                                                             \
  "+f"(d[8][0]), "+f"(d[8][1]), "+f"(d[8][2]), "+f"(d[8][3]), "+f"(d[9][0]), "+f"(d[9][1]),       \
  "+f"(d[9][2]), "+f"(d[9][3]), "+f"(d[10][0]), "+f"(d[10][1]), "+f"(d[10][2]), "+f"(d[10][3]),   \
  "+f"(d[11][0]), "+f"(d[11][1]), "+f"(d[11][2]), "+f"(d[11][3]), "+f"(d[12][0]), "+f"(d[12][1]), \
  "+f"(d[12][2]), "+f"(d[12][3]), "+f"(d[13][0]), "+f"(d[13][1]), "+f"(d[13][2]), "+f"(d[13][3]), \
  "+f"(d[14][0]), "+f"(d[14][1]), "+f"(d[14][2]), "+f"(d[14][3]), "+f"(d[15][0]), "+f"(d[15][1]), \
  "+f"(d[15][2]), "+f"(d[15][3])

// D (+)= A B with A from shared memory (descriptor a) or from registers
// (four per thread), B from shared memory; the accumulate flag becomes the
// scale-d predicate. The SS form's two trailing 0s keep A and B K-major;
// the RS form's last immediate (trans) is 1 where B is read transposed
// (V, N-major), 0 where it is K-major (K).
#define JITK_WGMMA_SS_N64(TY)                                                        \
  asm volatile(                                                                      \
      "{ .reg .pred p; setp.ne.b32 p, %34, 0;\n"                                     \
      "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " {" JITK_WGMMA_D_N64  \
      "}, %32, %33, p, 1, 1, 0, 0; }\n"                                              \
      : JITK_WGMMA_OUT_N64                                                           \
      : "l"(a), "l"(b), "r"(accumulate))

#define JITK_WGMMA_RS_N64(TY)                                                       \
  asm volatile(                                                                     \
      "{ .reg .pred p; setp.ne.b32 p, %37, 0;\n"                                    \
      "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " {" JITK_WGMMA_D_N64 \
      "}, {%32, %33, %34, %35}, %36, p, 1, 1, %38; }\n"                             \
      : JITK_WGMMA_OUT_N64                                                          \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate), "n"(trans))

#define JITK_WGMMA_SS_N128(TY)                                                         \
  asm volatile(                                                                        \
      "{ .reg .pred p; setp.ne.b32 p, %66, 0;\n"                                       \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {" JITK_WGMMA_D_N128  \
      "}, %64, %65, p, 1, 1, 0, 0; }\n"                                                \
      : JITK_WGMMA_OUT_N128                                                            \
      : "l"(a), "l"(b), "r"(accumulate))

#define JITK_WGMMA_RS_N128(TY)                                                        \
  asm volatile(                                                                       \
      "{ .reg .pred p; setp.ne.b32 p, %69, 0;\n"                                      \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {" JITK_WGMMA_D_N128 \
      "}, {%64, %65, %66, %67}, %68, p, 1, 1, %70; }\n"                               \
      : JITK_WGMMA_OUT_N128                                                           \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate), "n"(trans))

template <int N, typename T>
struct Wgmma;
#define JITK_WGMMA_SPECIALIZE(N, TYPE, TY)                                                       \
  template <>                                                                                    \
  struct Wgmma<N, TYPE> {                                                                        \
    static JITK_DEVICE void ss(float (&d)[N / 8][4], u64 a, u64 b, int accumulate) {             \
      JITK_WGMMA_SS_N##N(TY);                                                                    \
    }                                                                                            \
    template <int trans>                                                                         \
    static JITK_DEVICE void rs(float (&d)[N / 8][4], const u32 (&a)[4], u64 b, int accumulate) { \
      JITK_WGMMA_RS_N##N(TY);                                                                    \
    }                                                                                            \
  };
JITK_WGMMA_SPECIALIZE(64, f16, "f16")
JITK_WGMMA_SPECIALIZE(128, f16, "f16")
JITK_WGMMA_SPECIALIZE(64, bf16, "bf16")
JITK_WGMMA_SPECIALIZE(128, bf16, "bf16")
#undef JITK_WGMMA_SPECIALIZE

template <int N, typename T>
JITK_DEVICE void wgmma_ss(float (&d)[N / 8][4], u64 a, u64 b, bool accumulate) {
  Wgmma<N, T>::ss(d, a, b, int(accumulate));
}
template <int N, typename T, bool B_TRANSPOSED>
JITK_DEVICE void wgmma_rs(float (&d)[N / 8][4], const u32 (&a)[4], u64 b, bool accumulate) {
  Wgmma<N, T>::template rs<int(B_TRANSPOSED)>(d, a, b, int(accumulate));
}

}  // namespace attn
}  // namespace jitk

#endif  // sm_90a
