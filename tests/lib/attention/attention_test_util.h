// Helpers shared by the sparse_attn tests: random inputs in a storage type
// and layout (BHLD or BLHD), their exact fp64 values for the reference, and
// error metrics. Header-only (the test directory compiles only *_test.cc).
#ifndef JITK_TESTS_LIB_ATTENTION_ATTENTION_TEST_UTIL_H_
#define JITK_TESTS_LIB_ATTENTION_ATTENTION_TEST_UTIL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "jitk/dtype.h"
#include "jitk/kernel.h"

namespace jitk::attn_test {

struct Problem {
  int batch = 1;
  int heads_q = 2;
  int heads_kv = 1;
  int len_q = 64;
  int len_k = 64;
  int head_dim = 64;
  DType dtype = DType::kF16;
  bool blhd = false;  // [B, L, H, D] storage instead of [B, H, L, D]
};

inline uint16_t FloatToHalfBits(float v) {
  return __builtin_bit_cast(uint16_t, static_cast<_Float16>(v));
}
inline float HalfBitsToFloat(uint16_t b) { return float(__builtin_bit_cast(_Float16, b)); }
inline uint16_t FloatToBf16Bits(float v) {
  uint32_t x = __builtin_bit_cast(uint32_t, v);
  x += 0x7fffu + ((x >> 16) & 1u);
  return uint16_t(x >> 16);
}
inline float Bf16BitsToFloat(uint16_t b) { return __builtin_bit_cast(float, uint32_t(b) << 16); }

// One tensor [B, H, L, D] in storage bytes, plus its values as doubles (BHLD).
struct Tensor {
  std::vector<uint8_t> bytes;
  std::vector<double> values;
  int64_t stride_b = 0, stride_h = 0, stride_l = 0;  // elements
};

inline int64_t Offset(const Tensor& t, int b, int h, int l) {
  return b * t.stride_b + h * t.stride_h + l * t.stride_l;
}

inline Tensor MakeTensor(const Problem& p, int heads, int len, std::mt19937_64& rng, double range) {
  Tensor t;
  const size_t elem = DTypeSize(p.dtype);
  const int64_t d = p.head_dim;
  if (p.blhd) {
    t.stride_l = heads * d;
    t.stride_h = d;
    t.stride_b = int64_t(len) * heads * d;
  } else {
    t.stride_l = d;
    t.stride_h = int64_t(len) * d;
    t.stride_b = int64_t(heads) * len * d;
  }
  const size_t n = size_t(p.batch) * heads * len * d;
  t.bytes.assign(n * elem, 0);
  t.values.assign(n, 0);
  std::uniform_real_distribution<float> dist(-float(range), float(range));
  for (int b = 0; b < p.batch; ++b) {
    for (int h = 0; h < heads; ++h) {
      for (int l = 0; l < len; ++l) {
        for (int x = 0; x < d; ++x) {
          float v = dist(rng);
          if (v == 0.0f) v = 0.5f;  // never zeros
          const int64_t at = Offset(t, b, h, l) + x;
          double exact;
          if (p.dtype == DType::kF32) {
            std::memcpy(&t.bytes[at * 4], &v, 4);
            exact = v;
          } else {
            uint16_t bits = p.dtype == DType::kF16 ? FloatToHalfBits(v) : FloatToBf16Bits(v);
            std::memcpy(&t.bytes[at * 2], &bits, 2);
            exact = p.dtype == DType::kF16 ? HalfBitsToFloat(bits) : Bf16BitsToFloat(bits);
          }
          t.values[((size_t(b) * heads + h) * len + l) * d + x] = exact;
        }
      }
    }
  }
  return t;
}

// Rows [from, to) of every batch and head of t as NaN, in its storage and
// its values, for keys no query may read.
inline void PoisonRows(const Problem& p, int heads, int from, int to, Tensor& t) {
  const size_t elem = DTypeSize(p.dtype);
  const size_t len = t.values.size() / (size_t(p.batch) * heads * p.head_dim);
  for (int b = 0; b < p.batch; ++b) {
    for (int h = 0; h < heads; ++h) {
      for (int l = from; l < to; ++l) {
        std::memset(&t.bytes[Offset(t, b, h, l) * elem], 0xff, p.head_dim * elem);  // every dtype
        std::fill_n(t.values.begin() + ((size_t(b) * heads + h) * len + l) * p.head_dim,
                    p.head_dim, std::numeric_limits<double>::quiet_NaN());
      }
    }
  }
}

// An output tensor's storage (poisoned with NaN bytes) and strides.
inline Tensor MakeOutput(const Problem& p) {
  Tensor t;
  std::mt19937_64 unused;
  t = MakeTensor(p, p.heads_q, p.len_q, unused, 1.0);
  std::memset(t.bytes.data(), 0xff, t.bytes.size());  // NaN in every dtype
  t.values.clear();
  return t;
}

// Reads an output's storage back as BHLD doubles.
inline std::vector<double> ReadOutput(const Problem& p, const Tensor& o) {
  std::vector<double> out(size_t(p.batch) * p.heads_q * p.len_q * p.head_dim);
  for (int b = 0; b < p.batch; ++b) {
    for (int h = 0; h < p.heads_q; ++h) {
      for (int l = 0; l < p.len_q; ++l) {
        for (int x = 0; x < p.head_dim; ++x) {
          const int64_t at = Offset(o, b, h, l) + x;
          double v;
          if (p.dtype == DType::kF32) {
            float f;
            std::memcpy(&f, &o.bytes[at * 4], 4);
            v = f;
          } else {
            uint16_t bits;
            std::memcpy(&bits, &o.bytes[at * 2], 2);
            v = p.dtype == DType::kF16 ? HalfBitsToFloat(bits) : Bf16BitsToFloat(bits);
          }
          out[((size_t(b) * p.heads_q + h) * p.len_q + l) * p.head_dim + x] = v;
        }
      }
    }
  }
  return out;
}

inline void AddStrides(const char* name, const Tensor& t, LaunchArgs& args) {
  args.Int(absl::StrCat(name, "_stride_b"), t.stride_b)
      .Int(absl::StrCat(name, "_stride_h"), t.stride_h)
      .Int(absl::StrCat(name, "_stride_l"), t.stride_l);
}

struct Errors {
  double max_abs = 0;
  double rel_l2 = 0;
  double cosine = 1;
  int64_t non_finite = 0;

  std::string ToString() const {
    return absl::StrCat("max_abs=", max_abs, " rel_l2=", rel_l2, " cosine=", cosine,
                        " non_finite=", non_finite);
  }
};

inline Errors Compare(const std::vector<double>& got, const std::vector<double>& want) {
  Errors e;
  double diff2 = 0, want2 = 0, got2 = 0, dot = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) {
      ++e.non_finite;
      continue;
    }
    const double d = got[i] - want[i];
    e.max_abs = std::max(e.max_abs, std::abs(d));
    diff2 += d * d;
    want2 += want[i] * want[i];
    got2 += got[i] * got[i];
    dot += got[i] * want[i];
  }
  e.rel_l2 = want2 > 0 ? std::sqrt(diff2 / want2) : std::sqrt(diff2);
  e.cosine = (want2 > 0 && got2 > 0) ? dot / std::sqrt(want2 * got2) : (diff2 == 0 ? 1.0 : 0.0);
  return e;
}

// LSE: -inf must match exactly, finite entries within the max abs error.
inline double LseError(const std::vector<float>& got, const std::vector<double>& want,
                       int64_t* mismatched_inf) {
  double max_abs = 0;
  *mismatched_inf = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const bool want_inf = std::isinf(want[i]);
    if (want_inf || !std::isfinite(got[i])) {
      if (!(want_inf && std::isinf(got[i]) && got[i] < 0)) ++*mismatched_inf;
      continue;
    }
    max_abs = std::max(max_abs, std::abs(double(got[i]) - want[i]));
  }
  return max_abs;
}

}  // namespace jitk::attn_test

#endif  // JITK_TESTS_LIB_ATTENTION_ATTENTION_TEST_UTIL_H_
