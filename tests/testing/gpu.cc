#include "tests/testing/gpu.h"

#include <cmath>
#include <bit>
#include <cstring>

namespace jitk::testing {

std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> values(n);
  for (float& v : values) v = dist(engine);
  return values;
}

uint16_t FloatToBFloat16(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return uint16_t(x >> 16);
}

float BFloat16ToFloat(uint16_t bits) {
  uint32_t x = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &x, 4);
  return value;
}

uint16_t FloatToHalf(float value) { return std::bit_cast<uint16_t>(static_cast<_Float16>(value)); }

float HalfToFloat(uint16_t bits) { return static_cast<float>(std::bit_cast<_Float16>(bits)); }

}  // namespace jitk::testing
