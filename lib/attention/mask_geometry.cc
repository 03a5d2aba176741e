#include "lib/attention/mask_geometry.h"

#include <algorithm>
#include <cstdint>

namespace jitk::internal {
namespace {

int64_t Overlap(int64_t lo1, int64_t hi1, int64_t lo2, int64_t hi2) {
  return std::max<int64_t>(0, std::min(hi1, hi2) - std::max(lo1, lo2));
}

}  // namespace

RowKeys AllowedKeys(const ElementMask& mask, int64_t q, int64_t len_k) {
  RowKeys r{{0, 0}, {0, 0}, 0};
  auto add = [&](int64_t lo, int64_t hi) {
    lo = std::max<int64_t>(lo, 0);
    hi = std::min(hi, len_k);
    if (lo < hi) {
      r.lo[r.count] = lo;
      r.hi[r.count] = hi;
      ++r.count;
    }
  };
  const int64_t w = mask.window, g = mask.global_tokens;
  q += mask.q_offset;
  switch (mask.kind) {
    case MaskMod::kNone:
      add(0, len_k);
      break;
    case MaskMod::kCausal:
      add(0, q + 1);
      break;
    case MaskMod::kSlidingWindowCausal:
      add(0, std::min(g, q + 1));
      add(std::max(q - w + 1, std::min(g, q + 1)), q + 1);  // disjoint from the first
      break;
    case MaskMod::kSlidingWindow:
      if (q < g) {
        add(0, len_k);
      } else {
        add(0, g);
        add(std::max(q - w + 1, g), q + w);
      }
      break;
  }
  return r;
}

BlockKind ClassifyBlock(const ElementMask& mask, int len_q, int len_k, int block, int qb, int kb) {
  const int64_t q0 = int64_t(qb) * block, q1 = std::min<int64_t>(q0 + block, len_q);
  const int64_t k0 = int64_t(kb) * block, k1 = std::min<int64_t>(k0 + block, len_k);
  if (q0 >= q1 || k0 >= k1) return BlockKind::kEmpty;
  int64_t allowed = 0;
  for (int64_t q = q0; q < q1; ++q) {
    RowKeys r = AllowedKeys(mask, q, len_k);
    for (int i = 0; i < r.count; ++i) allowed += Overlap(r.lo[i], r.hi[i], k0, k1);
  }
  if (allowed == 0) return BlockKind::kEmpty;
  if (allowed == (q1 - q0) * (k1 - k0)) return BlockKind::kFull;
  return BlockKind::kPartial;
}

}  // namespace jitk::internal
