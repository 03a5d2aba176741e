// CPU fp64 reference for sparse_attn: what the kernel must compute, for the
// tests and the tuner's validation. Whole tensors are O(batch * heads *
// len_q * len_k * d): small problems only; large ones check sampled rows.
#ifndef JITK_LIB_ATTENTION_REFERENCE_H_
#define JITK_LIB_ATTENTION_REFERENCE_H_

#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "jitk/block_mask.h"

namespace jitk::internal {

struct AttentionDims {
  int batch = 1;
  int heads_q = 1;
  int heads_kv = 1;
  int len_q = 1;
  int len_k = 1;
  int head_dim = 16;
};

struct ReferenceOutput {
  std::vector<double> o;    // [batch, heads_q, len_q, head_dim]
  std::vector<double> lse;  // [batch, heads_q, len_q]; -inf for rows with no key
};

// q: [batch, heads_q, len_q, head_dim], k and v: [batch, heads_kv, len_k,
// head_dim], contiguous. Query head h reads key/value head
// h / (heads_q / heads_kv). Rows whose every key is masked give zeros and an
// LSE of -inf. kInvalidArgument on mismatched sizes or an incompatible mask.
absl::StatusOr<ReferenceOutput> ReferenceSparseAttention(const AttentionDims& dims, double scale,
                                                         const BlockMask& mask,
                                                         absl::Span<const double> q,
                                                         absl::Span<const double> k,
                                                         absl::Span<const double> v);

// One query row against the keys of one kv head: k and v are [len_k,
// head_dim] contiguous, q has head_dim values, allowed(j) says whether key j
// is seen. abs_o is sum_j p_j |v_j| / sum_j p_j, the magnitude an error bound
// for o scales with. A row with no allowed key gives zeros and an LSE of -inf.
struct ReferenceRow {
  std::vector<double> o;
  std::vector<double> abs_o;
  double lse;
};
ReferenceRow ReferenceAttentionRow(absl::Span<const double> q, absl::Span<const double> k,
                                   absl::Span<const double> v, double scale,
                                   absl::FunctionRef<bool(int)> allowed);

}  // namespace jitk::internal

#endif  // JITK_LIB_ATTENTION_REFERENCE_H_
