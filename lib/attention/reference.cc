#include "lib/attention/reference.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/internal/status_macros.h"

namespace jitk::internal {
namespace {

// Per (b, h, query block): 0 skip, 1 partial, 2 full, for each key block.
std::vector<uint8_t> BlockTable(const BlockMask& mask) {
  const size_t rows = mask.kv_num_blocks().size();
  const int nkb = mask.num_kv_blocks();
  std::vector<uint8_t> table(rows * nkb, 0);
  for (size_t row = 0; row < rows; ++row) {
    for (int i = 0; i < mask.kv_num_blocks()[row]; ++i) {
      table[row * nkb + mask.kv_indices()[row * nkb + i]] = 1;
    }
    if (!mask.full_kv_num_blocks().empty()) {
      for (int i = 0; i < mask.full_kv_num_blocks()[row]; ++i) {
        table[row * nkb + mask.full_kv_indices()[row * nkb + i]] = 2;
      }
    }
  }
  return table;
}

}  // namespace

ReferenceRow ReferenceAttentionRow(absl::Span<const double> q, absl::Span<const double> k,
                                   absl::Span<const double> v, double scale,
                                   absl::FunctionRef<bool(int)> allowed) {
  const size_t hd = q.size();
  const int len_k = int(k.size() / hd);
  constexpr double kNoKey = -std::numeric_limits<double>::infinity();
  ReferenceRow row{std::vector<double>(hd, 0.0), std::vector<double>(hd, 0.0), kNoKey};
  std::vector<double> scores(size_t(len_k), kNoKey);
  double mx = kNoKey;
  for (int j = 0; j < len_k; ++j) {
    if (!allowed(j)) continue;
    double s = 0;
    for (size_t x = 0; x < hd; ++x) s += q[x] * k[size_t(j) * hd + x];
    scores[size_t(j)] = s * scale;
    mx = std::max(mx, scores[size_t(j)]);
  }
  if (mx == kNoKey) return row;
  double sum = 0;
  for (int j = 0; j < len_k; ++j) {
    if (scores[size_t(j)] == kNoKey) continue;
    const double p = std::exp(scores[size_t(j)] - mx);
    sum += p;
    for (size_t x = 0; x < hd; ++x) {
      row.o[x] += p * v[size_t(j) * hd + x];
      row.abs_o[x] += p * std::fabs(v[size_t(j) * hd + x]);
    }
  }
  for (size_t x = 0; x < hd; ++x) {
    row.o[x] /= sum;
    row.abs_o[x] /= sum;
  }
  row.lse = mx + std::log(sum);
  return row;
}

absl::StatusOr<ReferenceOutput> ReferenceSparseAttention(const AttentionDims& d, double scale,
                                                         const BlockMask& mask,
                                                         absl::Span<const double> q,
                                                         absl::Span<const double> k,
                                                         absl::Span<const double> v) {
  if (d.batch < 1 || d.heads_q < 1 || d.heads_kv < 1 || d.len_q < 1 || d.len_k < 1 ||
      d.head_dim < 1 || d.heads_q % d.heads_kv != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reference: bad dims batch=", d.batch, " heads_q=", d.heads_q, " heads_kv=", d.heads_kv,
        " len_q=", d.len_q, " len_k=", d.len_k, " head_dim=", d.head_dim));
  }
  const size_t nq = size_t(d.batch) * d.heads_q * d.len_q * d.head_dim;
  const size_t nk = size_t(d.batch) * d.heads_kv * d.len_k * d.head_dim;
  if (q.size() != nq || k.size() != nk || v.size() != nk) {
    return absl::InvalidArgumentError(absl::StrCat("reference: q has ", q.size(), " values (want ",
                                                   nq, "), k ", k.size(), " and v ", v.size(),
                                                   " (want ", nk, ")"));
  }
  JITK_RETURN_IF_ERROR(mask.CheckCompatible(d.batch, d.heads_q, d.len_q, d.len_k));

  const std::vector<uint8_t> table = BlockTable(mask);
  const int nqb = mask.num_q_blocks(), nkb = mask.num_kv_blocks(), bs = mask.block_size();
  const int group = d.heads_q / d.heads_kv;
  const int hd = d.head_dim;
  ReferenceOutput out;
  out.o.assign(nq, 0.0);
  out.lse.assign(size_t(d.batch) * d.heads_q * d.len_q, -std::numeric_limits<double>::infinity());
  for (int b = 0; b < d.batch; ++b) {
    for (int h = 0; h < d.heads_q; ++h) {
      const size_t kv = (size_t(b) * d.heads_kv + h / group) * d.len_k * hd;
      const absl::Span<const double> kh = k.subspan(kv, size_t(d.len_k) * hd);
      const absl::Span<const double> vh = v.subspan(kv, size_t(d.len_k) * hd);
      const size_t mrow0 =
          (size_t(mask.batch() == 1 ? 0 : b) * mask.heads() + (mask.heads() == 1 ? 0 : h)) * nqb;
      for (int i = 0; i < d.len_q; ++i) {
        const size_t qrow = (size_t(b) * d.heads_q + h) * d.len_q + i;
        const uint8_t* kinds = table.data() + (mrow0 + i / bs) * nkb;
        ReferenceRow row = ReferenceAttentionRow(
            q.subspan(qrow * hd, hd), kh, vh, scale, [&](int j) {
              const uint8_t kind = kinds[j / bs];
              return kind == 2 || (kind == 1 && mask.element_mask().Allows(i, j));
            });
        std::copy(row.o.begin(), row.o.end(), out.o.begin() + qrow * hd);
        out.lse[qrow] = row.lse;
      }
    }
  }
  return out;
}

}  // namespace jitk::internal
