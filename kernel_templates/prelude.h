// prelude.h — the portability layer every kernel template includes.
//
// One template source serves hiprtc (AMD) and NVRTC (NVIDIA). This header
// hides the differences: lane count per wave/warp, shuffles, barriers, and
// 16-bit storage types. Storage is fp32/fp16/bf16; arithmetic is always fp32.
// No vendor headers are included: both run-time compilers bring their own
// built-ins, and /usr/include's HIP headers clash with hiprtc's.
#pragma once

#if defined(__HIPCC_RTC__) || defined(__HIP_DEVICE_COMPILE__) || defined(__HIP__)
#define JITK_HIP 1
#define JITK_WAVE_SIZE __AMDGCN_WAVEFRONT_SIZE
#elif defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define JITK_CUDA 1
#define JITK_WAVE_SIZE 32
#else
#error "prelude.h is compiled by hiprtc or NVRTC"
#endif

#define JITK_DEVICE __device__ __forceinline__
#define JITK_RESTRICT __restrict__

namespace jitk {

typedef unsigned int u32;
typedef unsigned short u16;
typedef long long i64;
typedef unsigned long long u64;

constexpr int kWaveSize = JITK_WAVE_SIZE;

// 16-bit storage types: bits only, converted to fp32 for every operation.
struct f16 {
  u16 bits;
};
struct bf16 {
  u16 bits;
};

JITK_DEVICE float to_float(float v) { return v; }
JITK_DEVICE float to_float(bf16 v) { return __uint_as_float(u32(v.bits) << 16); }
JITK_DEVICE float to_float(f16 v) {
#if JITK_HIP
  return float(__builtin_bit_cast(_Float16, v.bits));
#else
  float out;
  asm("cvt.f32.f16 %0, %1;" : "=f"(out) : "h"(v.bits));
  return out;
#endif
}

template <typename T>
JITK_DEVICE T from_float(float v);
template <>
JITK_DEVICE float from_float<float>(float v) { return v; }
template <>
JITK_DEVICE bf16 from_float<bf16>(float v) {
  // Round to nearest even; NaN stays a quiet NaN.
  u32 x = __float_as_uint(v);
  if ((x & 0x7fffffffu) > 0x7f800000u) return bf16{u16((x >> 16) | 0x40u)};
  x += 0x7fffu + ((x >> 16) & 1u);
  return bf16{u16(x >> 16)};
}
template <>
JITK_DEVICE f16 from_float<f16>(float v) {
#if JITK_HIP
  return f16{__builtin_bit_cast(u16, static_cast<_Float16>(v))};
#else
  u16 out;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(out) : "f"(v));
  return f16{out};
#endif
}

JITK_DEVICE void block_sync() { __syncthreads(); }

// Lane index within the wave/warp.
JITK_DEVICE int lane_id() { return int(threadIdx.x) % kWaveSize; }

// Butterfly shuffle within a wave/warp (all lanes participate).
JITK_DEVICE float shuffle_xor(float v, int mask) {
#if JITK_HIP
  return __shfl_xor(v, mask);
#else
  return __shfl_xor_sync(0xffffffffu, v, mask);
#endif
}

JITK_DEVICE float wave_sum(float v) {
  for (int offset = kWaveSize / 2; offset > 0; offset /= 2) v += shuffle_xor(v, offset);
  return v;
}

JITK_DEVICE float wave_max(float v) {
  for (int offset = kWaveSize / 2; offset > 0; offset /= 2) v = fmaxf(v, shuffle_xor(v, offset));
  return v;
}

}  // namespace jitk
