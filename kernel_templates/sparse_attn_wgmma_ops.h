// sparse_attn_wgmma_ops.h — Hopper warpgroup MMA (sm_90a), for the wgmma engine.
//
//   smem_desc_sw128(addr, lbo, sbo)  matrix descriptor of a 128-byte-swizzled
//                  shared-memory operand (the layout Sw128Offset writes)
//   wgmma_ss<N, T>(d, a, b, acc)  D(64xN) (+)= A(64x16) B(16xN), A and B in
//                  shared memory (descriptors), fp32 accumulate
//   wgmma_rs<N, T>(d, a, b, acc)  the same with A in registers (the m16n8k16
//                  A fragment of this warp's 16 rows)
//   wgmma_fence / wgmma_commit / wgmma_wait<N>   the warpgroup's async groups
//   async_proxy_fence  makes this thread's generic-proxy shared-memory writes
//                  (cp.async included) visible to wgmma's reads
//   keep_registers(d)  stops the compiler from moving reads of accumulators
//                  above wgmma_wait (the asm that writes them has returned
//                  before the hardware has), or reusing the registers of a
//                  register operand still being read
//   mbar_init / mbar_arrive / mbar_wait(bar, parity)  shared-memory barriers
//                  of the warp-specialized pipeline (one phase per use)
//   mbar_init_fence  makes the inits visible to the tensor-memory engine
//   mbar_arrive_expect_tx(bar, bytes)  this thread's arrival, announcing the
//                  bytes copies will still complete on bar
//   tma_load_4d(dst, map, c0..c3, bar)  one box of a tensor map (coordinates
//                  innermost first) into shared memory; its bytes complete
//                  on bar
//   tma_prefetch_4d(map, c0..c3)  the same box into L2 only (a hint)
//   set_max_registers_{inc,dec}<N>  moves registers between warpgroups
//   named_barrier_{sync,arrive}(id, threads)  a hardware barrier other than
//                  block_sync's (id 0) among `threads` threads
//
// D's fragment is the m16n8k16 C layout per warp (warp w of the warpgroup
// owns rows 16w..16w+15): d[j] holds columns 8j..8j+7.
#pragma once

#include "prelude.h"

#if JITK_CUDA && defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define JITK_ATTN_HAS_WGMMA 1

namespace jitk {
namespace attn {

JITK_DEVICE u64 smem_desc_sw128(u32 addr, u32 lbo, u32 sbo) {
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

JITK_DEVICE void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
JITK_DEVICE void mbar_arrive(u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
JITK_DEVICE void mbar_wait(u32 bar, u32 parity) {
  u32 done;
  do {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p; }\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}
JITK_DEVICE void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
JITK_DEVICE void mbar_arrive_expect_tx(u32 bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
JITK_DEVICE void tma_load_4d(u32 dst, const void* map, int c0, int c1, int c2, int c3,
                             u32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(dst),
      "l"(reinterpret_cast<u64>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
      : "memory");
}
JITK_DEVICE void tma_prefetch_4d(const void* map, int c0, int c1, int c2, int c3) {
  asm volatile("cp.async.bulk.prefetch.tensor.4d.L2.global.tile [%0, {%1, %2, %3, %4}];\n" ::"l"(
                   reinterpret_cast<u64>(map)),
               "r"(c0), "r"(c1), "r"(c2), "r"(c3)
               : "memory");
}
// The reverse: a box of shared memory (written by this CTA's threads, made
// visible to the async proxy by each writer's fence) to global memory, in
// this thread's bulk group; rows past the tensor's end are not written.
JITK_DEVICE void tma_store_4d(const void* map, u32 src, int c0, int c1, int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(
          reinterpret_cast<u64>(map)),
      "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}
JITK_DEVICE void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Until this thread's bulk stores have read their shared memory...
JITK_DEVICE void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}
// ...or written global memory.
JITK_DEVICE void bulk_wait() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }
// Four 8x8 16-bit matrices to shared memory: lanes 8i..8i+7 give the row
// addresses of matrix i, and register i of each lane holds matrix i's row
// lane / 4, columns 2 (lane % 4) and the next: mma's C fragment, packed.
JITK_DEVICE void stmatrix_x4(u32 addr, u32 r0, u32 r1, u32 r2, u32 r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}
JITK_DEVICE void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
JITK_DEVICE void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
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
// scale-d predicate. The SS form's two trailing 0s keep A and B K-major,
// the RS form's 1 reads B transposed (V, N-major).
#define JITK_WGMMA_SS_N64(TY)                                                        \
  asm volatile(                                                                      \
      "{ .reg .pred p; setp.ne.b32 p, %34, 0;\n"                                     \
      "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " {" JITK_WGMMA_D_N64  \
      "}, %32, %33, p, 1, 1, 0, 0; }\n"                                              \
      : JITK_WGMMA_OUT_N64                                                           \
      : "l"(a), "l"(b), "r"(accumulate))

#define JITK_WGMMA_RS_N64(TY)                                                        \
  asm volatile(                                                                      \
      "{ .reg .pred p; setp.ne.b32 p, %37, 0;\n"                                     \
      "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY " {" JITK_WGMMA_D_N64  \
      "}, {%32, %33, %34, %35}, %36, p, 1, 1, 1; }\n"                                \
      : JITK_WGMMA_OUT_N64                                                           \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate))

#define JITK_WGMMA_SS_N128(TY)                                                         \
  asm volatile(                                                                        \
      "{ .reg .pred p; setp.ne.b32 p, %66, 0;\n"                                       \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {" JITK_WGMMA_D_N128  \
      "}, %64, %65, p, 1, 1, 0, 0; }\n"                                                \
      : JITK_WGMMA_OUT_N128                                                            \
      : "l"(a), "l"(b), "r"(accumulate))

#define JITK_WGMMA_RS_N128(TY)                                                         \
  asm volatile(                                                                        \
      "{ .reg .pred p; setp.ne.b32 p, %69, 0;\n"                                       \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {" JITK_WGMMA_D_N128  \
      "}, {%64, %65, %66, %67}, %68, p, 1, 1, 1; }\n"                                  \
      : JITK_WGMMA_OUT_N128                                                            \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate))

template <int N, typename T>
struct Wgmma;
#define JITK_WGMMA_SPECIALIZE(N, TYPE, TY)                                                    \
  template <>                                                                                 \
  struct Wgmma<N, TYPE> {                                                                     \
    static JITK_DEVICE void ss(float (&d)[N / 8][4], u64 a, u64 b, int accumulate) {          \
      JITK_WGMMA_SS_N##N(TY);                                                                 \
    }                                                                                         \
    static JITK_DEVICE void rs(float (&d)[N / 8][4], const u32 (&a)[4], u64 b, int accumulate) { \
      JITK_WGMMA_RS_N##N(TY);                                                                 \
    }                                                                                         \
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
template <int N, typename T>
JITK_DEVICE void wgmma_rs(float (&d)[N / 8][4], const u32 (&a)[4], u64 b, bool accumulate) {
  Wgmma<N, T>::rs(d, a, b, int(accumulate));
}

}  // namespace attn
}  // namespace jitk

#endif  // sm_90a
