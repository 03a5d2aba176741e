// Block classification for element masks: which (query block, key block)
// pairs of an ElementMask are empty, partly or fully attended.
//
// Every element mask jitk knows allows, for one query row, a union of at
// most two key intervals, so a block is classified by counting its allowed
// pairs row by row in O(block) instead of O(block^2).
#ifndef JITK_LIB_ATTENTION_MASK_GEOMETRY_H_
#define JITK_LIB_ATTENTION_MASK_GEOMETRY_H_

#include <cstdint>

#include "jitk/block_mask.h"

namespace jitk::internal {

enum class BlockKind : uint8_t { kEmpty = 0, kPartial = 1, kFull = 2 };

// Keys of query row q allowed by `mask` within [0, len_k), as [lo, hi)
// intervals.
struct RowKeys {
  int64_t lo[2];
  int64_t hi[2];
  int count;  // 0, 1 or 2
};
RowKeys AllowedKeys(const ElementMask& mask, int64_t q, int64_t len_k);

// Allowed pairs among the valid (q < len_q, k < len_k) ones of block
// (qb, kb): none → kEmpty, all → kFull, else kPartial.
BlockKind ClassifyBlock(const ElementMask& mask, int len_q, int len_k, int block, int qb, int kb);

}  // namespace jitk::internal

#endif  // JITK_LIB_ATTENTION_MASK_GEOMETRY_H_
