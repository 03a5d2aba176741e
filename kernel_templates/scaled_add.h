// scaled_add.h — out[i] = x[i] + y[i] * scale, fp32 math for every storage type.
//
// Template parameters (tuned per device):
//   BLOCK  threads per block (a multiple of the wave size)
//   EPT    vectors per thread, loaded before any is used (memory-level parallelism)
//   VEC    elements per vector access (VEC * sizeof(T) <= 16 bytes)
// Any n works: pointers that share their misalignment get a scalar head, a
// vectorised body and a scalar tail; pointers that do not take the scalar path.
#pragma once

#include "prelude.h"

namespace jitk {

template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) Vec {
  T lane[VEC];
};

template <typename T>
JITK_DEVICE T scaled_add_one(T x, T y, float scale) {
  return from_float<T>(fmaf(to_float(y), scale, to_float(x)));
}

template <int BLOCK, int EPT, int VEC, typename T>
__global__ void __launch_bounds__(BLOCK)
    scaled_add(T* JITK_RESTRICT out, const T* JITK_RESTRICT x, const T* JITK_RESTRICT y, i64 n,
               float scale) {
  static_assert(BLOCK % kWaveSize == 0, "BLOCK must be a multiple of the wave size");
  static_assert(VEC >= 1 && sizeof(T) * VEC <= 16, "vector accesses are at most 16 bytes");
  constexpr i64 kVecBytes = i64(sizeof(T)) * VEC;

  // Elements before the first vector-aligned one; all of n when the three
  // pointers disagree on alignment (no common vector boundary exists).
  const i64 misalign = i64((unsigned long long)(x) % kVecBytes);
  const bool common = misalign == i64((unsigned long long)(y) % kVecBytes) &&
                      misalign == i64((unsigned long long)(out) % kVecBytes);
  i64 head = 0;
  if (VEC > 1) head = common ? ((kVecBytes - misalign) % kVecBytes) / i64(sizeof(T)) : n;
  if (head > n) head = n;
  const i64 vectors = (n - head) / VEC;
  const i64 tail_begin = head + vectors * VEC;

  const i64 thread = i64(blockIdx.x) * BLOCK + threadIdx.x;
  const i64 threads = i64(gridDim.x) * BLOCK;

  // Scalar head and tail: together fewer than 2 * VEC elements unless the
  // pointers are mutually misaligned.
  for (i64 i = thread; i < head; i += threads) out[i] = scaled_add_one(x[i], y[i], scale);
  for (i64 i = tail_begin + thread; i < n; i += threads) out[i] = scaled_add_one(x[i], y[i], scale);

  typedef Vec<T, VEC> V;
  const V* xv = reinterpret_cast<const V*>(x + head);
  const V* yv = reinterpret_cast<const V*>(y + head);
  V* ov = reinterpret_cast<V*>(out + head);
  for (i64 base = i64(blockIdx.x) * BLOCK * EPT; base < vectors; base += i64(gridDim.x) * BLOCK * EPT) {
    V a[EPT], b[EPT];
#pragma unroll
    for (int e = 0; e < EPT; ++e) {
      const i64 v = base + e * BLOCK + threadIdx.x;
      if (v < vectors) {
        a[e] = xv[v];
        b[e] = yv[v];
      }
    }
#pragma unroll
    for (int e = 0; e < EPT; ++e) {
      const i64 v = base + e * BLOCK + threadIdx.x;
      if (v < vectors) {
        V r;
#pragma unroll
        for (int k = 0; k < VEC; ++k) r.lane[k] = scaled_add_one(a[e].lane[k], b[e].lane[k], scale);
        ov[v] = r;
      }
    }
  }
}

}  // namespace jitk
