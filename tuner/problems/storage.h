// Host-side storage types and deterministic test data for tuning problems.
//
// Problems fill inputs element by element from a counter-based generator,
// so any chunk of any buffer can be produced (or reproduced for the
// reference check) independently and in parallel, with no host copy of a
// multi-GiB input kept around.
#ifndef JITK_TUNER_PROBLEMS_STORAGE_H_
#define JITK_TUNER_PROBLEMS_STORAGE_H_

#include <cmath>
#include <cstdint>
#include <cstring>

#include "jitk/dtype.h"
#include "tuner/internal/random.h"

namespace jitk::tuner::problems {

// IEEE binary16 ↔ float, round to nearest even.
inline uint16_t FloatToHalfBits(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return uint16_t(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {                                  // below 2^-14: subnormal or zero
    if (abs < 0x33000000u) return uint16_t(sign);           // below 2^-25: rounds to 0
    const uint32_t shift = 126 - (abs >> 23);               // 14..24
    const uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    uint32_t half = mantissa >> (shift);
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return uint16_t(sign | half);
  }
  abs += 0xfffu + ((abs >> 13) & 1u);  // round mantissa to 10 bits
  return uint16_t(sign | ((abs - 0x38000000u) >> 13));
}

inline float HalfBitsToFloat(uint16_t bits) {
  const uint32_t sign = uint32_t(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  uint32_t x;
  if (exponent == 0) {
    if (mantissa == 0) {
      x = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mantissa <<= 1;
      } while ((mantissa & 0x400u) == 0);
      x = sign | uint32_t(127 - 15 - e) << 23 | (mantissa & 0x3ffu) << 13;
    }
  } else if (exponent == 31) {
    x = sign | 0x7f800000u | mantissa << 13;
  } else {
    x = sign | (exponent + 127 - 15) << 23 | mantissa << 13;
  }
  float value;
  std::memcpy(&value, &x, 4);
  return value;
}

// bfloat16 ↔ float, round to nearest even; NaN stays NaN.
inline uint16_t FloatToBf16Bits(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return uint16_t(x >> 16);
}

inline float Bf16BitsToFloat(uint16_t bits) {
  const uint32_t x = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &x, 4);
  return value;
}

// Stores `value` as `dtype` at `dst` (DTypeSize(dtype) bytes).
inline void StoreAs(DType dtype, float value, char* dst) {
  switch (dtype) {
    case DType::kF32:
      std::memcpy(dst, &value, 4);
      return;
    case DType::kF16: {
      const uint16_t h = FloatToHalfBits(value);
      std::memcpy(dst, &h, 2);
      return;
    }
    case DType::kBF16: {
      const uint16_t b = FloatToBf16Bits(value);
      std::memcpy(dst, &b, 2);
      return;
    }
  }
}

// The value stored at `src` as `dtype`, widened exactly.
inline double LoadAs(DType dtype, const char* src) {
  switch (dtype) {
    case DType::kF32: {
      float f;
      std::memcpy(&f, src, 4);
      return f;
    }
    case DType::kF16: {
      uint16_t h;
      std::memcpy(&h, src, 2);
      return HalfBitsToFloat(h);
    }
    case DType::kBF16: {
      uint16_t b;
      std::memcpy(&b, src, 2);
      return Bf16BitsToFloat(b);
    }
  }
  return std::nan("");
}

// Element `i` of stream `stream`: uniform in [lo, hi), the same for a given
// (seed, stream, i) everywhere.
inline float UniformAt(uint64_t seed, uint64_t stream, uint64_t i, float lo, float hi) {
  const uint64_t bits = internal::Mix(seed, stream, i);
  return lo + (hi - lo) * float(double(bits >> 40) * 0x1.0p-24);
}

}  // namespace jitk::tuner::problems

#endif  // JITK_TUNER_PROBLEMS_STORAGE_H_
