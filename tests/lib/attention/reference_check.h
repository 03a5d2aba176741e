// Checks a sparse_attn result against the fp64 reference with the accuracy
// the kernel promises: fp32 max abs error <= 1e-5 and cosine >= 0.99999;
// fp16/bf16 relative L2 <= 1e-2 and cosine >= 0.9999; every output written
// (outputs start as NaN); LSE within 1e-5 (fp32) / 1e-4, -inf exactly where
// a row has no key.
#ifndef JITK_TESTS_LIB_ATTENTION_REFERENCE_CHECK_H_
#define JITK_TESTS_LIB_ATTENTION_REFERENCE_CHECK_H_

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "jitk/block_mask.h"
#include "lib/attention/reference.h"
#include "tests/lib/attention/attention_test_util.h"

namespace jitk::attn_test {

struct CheckResult {
  Errors o;
  double lse_max_abs = 0;
};

inline CheckResult ExpectMatchesReference(const std::string& what, const Problem& p,
                                          const BlockMask& mask, double scale, const Tensor& q,
                                          const Tensor& k, const Tensor& v, const Tensor& o,
                                          const std::vector<float>& lse) {
  CheckResult result;
  internal::AttentionDims dims{p.batch, p.heads_q, p.heads_kv, p.len_q, p.len_k, p.head_dim};
  absl::StatusOr<internal::ReferenceOutput> ref =
      internal::ReferenceSparseAttention(dims, scale, mask, q.values, k.values, v.values);
  EXPECT_TRUE(ref.ok()) << what << ": " << ref.status();
  if (!ref.ok()) return result;
  result.o = Compare(ReadOutput(p, o), ref->o);
  int64_t bad_inf = 0;
  result.lse_max_abs = LseError(lse, ref->lse, &bad_inf);
  const std::string detail =
      what + ": " + result.o.ToString() + " lse_max_abs=" + std::to_string(result.lse_max_abs);
  EXPECT_EQ(result.o.non_finite, 0) << detail;
  EXPECT_EQ(bad_inf, 0) << detail << ": LSE entries that should (not) be -inf";
  if (p.dtype == DType::kF32) {
    EXPECT_LE(result.o.max_abs, 1e-5) << detail;
    EXPECT_GE(result.o.cosine, 0.99999) << detail;
    EXPECT_LE(result.lse_max_abs, 1e-5) << detail;
  } else {
    EXPECT_LE(result.o.rel_l2, 1e-2) << detail;
    EXPECT_GE(result.o.cosine, 0.9999) << detail;
    EXPECT_LE(result.lse_max_abs, 1e-4) << detail;
  }
  return result;
}

}  // namespace jitk::attn_test

#endif  // JITK_TESTS_LIB_ATTENTION_REFERENCE_CHECK_H_
