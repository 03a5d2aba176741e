// sparse_attn_ops.h — the few hardware primitives the sparse_attn engines use.
//
//   SmemPtr / smem_ptr  a shared-memory address: 32 bits on NVIDIA, so address
//                  math stays 32-bit and constant offsets fold into the
//                  ldmatrix / cp.async immediates; a plain pointer elsewhere
//   copy16_async   16 bytes global -> shared, zero-filled when !valid
//                  (NVIDIA: cp.async.cg; AMD: a plain 16-byte load + store)
//   Vec16 / load16 / store16   AMD: the two halves of that copy, with the
//                  16 bytes held in registers in between (sparse_attn_staged.h);
//                  store16 writes zeros when !valid, and the two 8-byte halves
//                  in swapped order when swap
//   opaque         AMD: its argument, hidden from the compiler's loop hoisting
//   cp_async_commit / cp_async_wait<N>   cp.async groups (no-ops on AMD)
//   ldmatrix_x4 / ldmatrix_x4_trans      four 8x8 b16 matrices from shared
//   mma_16816<T>   D += A(16x16) B(16x8), fp32 accumulate, T = f16 / bf16
//   pack2<T>       two floats -> one 32-bit register of two T (low = first)
//   mfma_32x32x8<T>  AMD CDNA: D = A(32x8) B(8x32) + C, fp32 accumulate
//
// An includer that defines JITK_ATTN_OPS_PROVIDED supplies its own versions
// (the CPU SIMT emulator in tests/lib/attention does), together with
// JITK_ATTN_HAS_MMA / JITK_ATTN_HAS_MFMA / JITK_ATTN_HAS_MFMA_BF16.
#pragma once

#include "prelude.h"

namespace jitk {
namespace attn {

// Four 16-bit values in two registers (an MFMA operand, or 4 stored elements).
struct Frag4 {
  u32 lo, hi;
};

}  // namespace attn
}  // namespace jitk

#ifndef JITK_ATTN_OPS_PROVIDED

#if JITK_CUDA
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define JITK_ATTN_HAS_MMA 1
#endif
#endif

#if JITK_HIP
#if defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || \
    defined(__gfx942__)
#define JITK_ATTN_HAS_MFMA 1
#endif
#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define JITK_ATTN_HAS_MFMA_BF16 1
#endif
#endif

namespace jitk {
namespace attn {

#if JITK_CUDA

typedef u32 SmemPtr;
JITK_DEVICE SmemPtr smem_ptr(const void* p) {
  u32 r;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(r) : "l"(p));
  return r;
}

JITK_DEVICE void copy16_async(SmemPtr dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(valid ? 16 : 0)
               : "memory");
}
JITK_DEVICE void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
JITK_DEVICE void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

JITK_DEVICE void ldmatrix_x4(u32 (&r)[4], SmemPtr p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(p));
}
JITK_DEVICE void ldmatrix_x4_trans(u32 (&r)[4], SmemPtr p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(p));
}

template <typename T>
JITK_DEVICE void mma_16816(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1);
template <>
JITK_DEVICE void mma_16816<f16>(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
JITK_DEVICE void mma_16816<bf16>(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <typename T>
JITK_DEVICE u32 pack2(float lo, float hi);
template <>
JITK_DEVICE u32 pack2<f16>(float lo, float hi) {
  u32 r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
template <>
JITK_DEVICE u32 pack2<bf16>(float lo, float hi) {
  u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

#else  // JITK_HIP

// gfx9 has no asynchronous global->LDS copy that hiprtc exposes: copy now.
// (A native vector keeps the value in registers; a struct temporary went
// through scratch memory.)
typedef char* SmemPtr;
JITK_DEVICE SmemPtr smem_ptr(const void* p) { return static_cast<char*>(const_cast<void*>(p)); }

// The load is unconditional (callers pass a readable address for rows
// outside the tensor) and the zeros for those a select at the store: a
// select right after the load would wait for it there.
typedef u32 Vec16 __attribute__((ext_vector_type(4)));
JITK_DEVICE Vec16 load16(const void* src) { return *static_cast<const Vec16*>(src); }
JITK_DEVICE void store16(SmemPtr dst, Vec16 c, bool valid, bool swap) {
  const Vec16 zero = {0u, 0u, 0u, 0u};
  *reinterpret_cast<Vec16*>(dst) = valid ? (swap ? c.zwxy : c) : zero;
}
// x, which the compiler cannot see through: what a loop computes from it
// stays next to its use (one VALU op) instead of being hoisted out of the
// loop and held in a register across it.
JITK_DEVICE int opaque(int x) {
  asm volatile("" : "+v"(x));
  return x;
}
// The synchronous copy selects right after its load: the store follows at
// once anyway.
JITK_DEVICE void copy16_async(SmemPtr dst, const void* src, bool valid) {
  const Vec16 zero = {0u, 0u, 0u, 0u};
  *reinterpret_cast<Vec16*>(dst) = valid ? load16(src) : zero;
}
JITK_DEVICE void cp_async_commit() {}
template <int N>
JITK_DEVICE void cp_async_wait() {}

template <typename T>
JITK_DEVICE u32 pack2(float lo, float hi) {
  return u32(from_float<T>(lo).bits) | (u32(from_float<T>(hi).bits) << 16);
}

#if JITK_ATTN_HAS_MFMA
typedef float f32x16 __attribute__((ext_vector_type(16)));
typedef _Float16 f16x4_ __attribute__((ext_vector_type(4)));
typedef short i16x4_ __attribute__((ext_vector_type(4)));

template <typename T>
JITK_DEVICE f32x16 mfma_32x32x8(Frag4 a, Frag4 b, f32x16 c);
template <>
JITK_DEVICE f32x16 mfma_32x32x8<f16>(Frag4 a, Frag4 b, f32x16 c) {
  return __builtin_amdgcn_mfma_f32_32x32x8f16(__builtin_bit_cast(f16x4_, a),
                                              __builtin_bit_cast(f16x4_, b), c, 0, 0, 0);
}
#if JITK_ATTN_HAS_MFMA_BF16
template <>
JITK_DEVICE f32x16 mfma_32x32x8<bf16>(Frag4 a, Frag4 b, f32x16 c) {
  return __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(__builtin_bit_cast(i16x4_, a),
                                                  __builtin_bit_cast(i16x4_, b), c, 0, 0, 0);
}
#endif
#endif  // JITK_ATTN_HAS_MFMA

#endif  // JITK_CUDA / JITK_HIP

}  // namespace attn
}  // namespace jitk

#endif  // JITK_ATTN_OPS_PROVIDED
