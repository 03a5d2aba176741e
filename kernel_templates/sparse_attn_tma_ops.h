// sparse_attn_tma_ops.h — Hopper's (sm_90) shared-memory barriers, tensor-
// memory copies and named barriers: the warp-specialized wgmma engine's
// pipeline and the mma engine's TMA pipeline.
//
//   mbar_init / mbar_arrive / mbar_wait(bar, parity)  shared-memory barriers
//                  (one phase per use)
//   mbar_init_fence  makes the inits visible to the tensor-memory engine
//   mbar_arrive_expect_tx(bar, bytes)  this thread's arrival, announcing the
//                  bytes copies will still complete on bar
//   tma_load_4d(dst, map, c0..c3, bar)  one box of a tensor map (coordinates
//                  innermost first) into shared memory; its bytes complete
//                  on bar
//   tma_prefetch_4d(map, c0..c3)  the same box into L2 only (a hint)
//   tma_store_4d, bulk_commit, bulk_wait_read, bulk_wait  a box back to
//                  global memory, and waiting for it
//   stmatrix_x4  four 8x8 matrices from mma's C fragments to shared memory
//   named_barrier_{sync,arrive}(id, threads)  a hardware barrier other than
//                  block_sync's (id 0) among `threads` threads
#pragma once

#include "prelude.h"
#include "sparse_attn_ops.h"

#if JITK_CUDA && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define JITK_ATTN_HAS_TMA 1

namespace jitk {
namespace attn {

JITK_DEVICE void mbar_init(SmemPtr bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
JITK_DEVICE void mbar_arrive(SmemPtr bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
JITK_DEVICE void mbar_wait(SmemPtr bar, u32 parity) {
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
JITK_DEVICE void mbar_arrive_expect_tx(SmemPtr bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
JITK_DEVICE void tma_load_4d(SmemPtr dst, const void* map, int c0, int c1, int c2, int c3,
                             SmemPtr bar) {
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
JITK_DEVICE void tma_store_4d(const void* map, SmemPtr src, int c0, int c1, int c2, int c3) {
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
JITK_DEVICE void stmatrix_x4(SmemPtr addr, u32 r0, u32 r1, u32 r2, u32 r3) {
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

}  // namespace attn
}  // namespace jitk

#endif  // sm_90
