// sparse_attn_persistent.h — which query tiles a block of a persistent grid
// computes (the warp-specialized wgmma engine's grid: one or two blocks per
// SM walking the query tiles, or, in a split launch, the key ranges of each).
#pragma once

#include "prelude.h"
#include "sparse_attn_common.h"
#include "sparse_attn_params.h"
#include "sparse_attn_split.h"

namespace jitk {
namespace attn {

// One query tile of a persistent block: its first row, head and batch; in a
// split launch, b is the "batch" of the partial results (sparse_attn_split.h:
// key range b / batch of input batch b % batch).
struct QueryTile {
  int q0, h, b;
};

// Query tile `item` of a grid of tiles in the launch's order (TileOrder):
// head-major, the query tiles of one head adjacent, longest first, then
// heads, then batches, then key ranges (`lanes` = items / num_q_tiles of
// those); or, under a causal mask, rank-major, every head's and batch's
// longest tile, then every one's next. Its first row, head and batch.
template <int BLOCK_M, int MASK>
JITK_DEVICE QueryTile query_tile(const SparseAttnParams& p, int num_q_tiles, int lanes, int item) {
  int rank, hb;
  if (MASK == kMaskCausal && p.tile_order == kOrderRankMajor) {
    rank = item / lanes;
    hb = item - rank * lanes;
  } else {
    hb = item / num_q_tiles;
    rank = item - hb * num_q_tiles;
  }
  return QueryTile{(num_q_tiles - 1 - rank) * BLOCK_M, hb % p.heads_q, hb / p.heads_q};
}

// The query tiles one block of a persistent grid computes: that order dealt
// out in rounds of gridDim.x with every other round reversed, so that a
// block with a long tile of a causal mask in one round takes a short one in
// the next. Rounds of head-major order that span several heads' tiles are
// not sorted, so a block may take two long tiles; the host picks rank-major
// order where that would hold up the launch (sparse_attn_template.cc).
struct QueryTileWalk {
  int round = 0;
  int item = int(blockIdx.x);

  // The next tile of this block and its key tiles (SPLIT: its range of
  // them); false when none is left.
  template <int BLOCK_M, int BLOCK_N, bool SPLIT, int MASK>
  JITK_DEVICE bool take(const SparseAttnParams& p, int num_q_tiles, int items, QueryTile* qt,
                        KvSchedule* sched) {
    // Items past the end exist only in the last round's reversed part.
    while (round * int(gridDim.x) < items && item >= items) next();
    if (round * int(gridDim.x) >= items) return false;
    *qt = query_tile<BLOCK_M, MASK>(p, num_q_tiles, items / num_q_tiles, item);
    *sched = query_schedule(p, qt->q0, qt->h, input_batch<SPLIT>(p, qt->b), BLOCK_N);
    if (SPLIT) *sched = key_range(p, *sched, qt->b / p.batch);
    next();
    return true;
  }

 private:
  JITK_DEVICE void next() {
    ++round;
    const int in_round = round % 2 == 0 ? int(blockIdx.x) : int(gridDim.x) - 1 - int(blockIdx.x);
    item = round * int(gridDim.x) + in_round;
  }
};

}  // namespace attn
}  // namespace jitk
