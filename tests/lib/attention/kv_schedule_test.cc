// The key tiles a query tile's schedule walks (KvSchedule, KvCursor and
// key_range of kernel_templates/sparse_attn_common.h and sparse_attn_split.h,
// compiled by g++): every tile of each listed mask block, less the tiles of
// a sliding window's edge blocks that hold none of its keys.
#include <vector>

#include "gtest/gtest.h"
#include "tests/lib/attention/emulated_tma.h"
#include "tests/lib/attention/emulated_wgmma.h"
#include "tests/lib/attention/simt_emulator.h"

#define jitk jitk_emu_schedule
#define __HIP__ 1
#define __AMDGCN_WAVEFRONT_SIZE 64
#define JITK_ATTN_OPS_PROVIDED 1
// Order matters: the emulated ops must precede the kernel.
// clang-format off
#include "kernel_templates/prelude.h"
#include "tests/lib/attention/emulated_ops.h"
#include "kernel_templates/sparse_attn.h"
// clang-format on
#undef jitk

namespace jitk::attn_test {
namespace {

namespace attn = jitk_emu_schedule::attn;
using Params = jitk_emu_schedule::SparseAttnParams;

constexpr int kBlockN = 64;
constexpr int kRows = 64;

// One query row at position `pos` of a cache of len_k keys in 128-token
// mask blocks, its block row listing `full` then `partial`.
struct Step {
  std::vector<int> full, partial;
  int n_full = 0, n_partial = 0;
  Params p{};

  Step(int len_k, int pos, int window, int global_tokens, std::vector<int> full_blocks,
       std::vector<int> partial_blocks, int block = 128)
      : full(std::move(full_blocks)), partial(std::move(partial_blocks)) {
    n_full = int(full.size());
    n_partial = int(partial.size());
    p.len_q = 1;
    p.len_k = len_k;
    p.block = block;
    p.num_q_blocks = 1;
    p.num_kv_blocks = (len_k + block - 1) / block;
    full.resize(p.num_kv_blocks);
    partial.resize(p.num_kv_blocks);
    p.full_kv_num_blocks = &n_full;
    p.full_kv_indices = full.data();
    p.kv_num_blocks = &n_partial;
    p.kv_indices = partial.data();
    p.window = window;
    p.global_tokens = global_tokens;
    p.q_offset = pos;
    p.q_row_mask = -1;
    p.kv_splits = 1;
  }
};

template <int MASK>
attn::KvSchedule Schedule(const Params& p) {
  return attn::query_schedule<MASK>(p, 0, kRows, 0, 0, kBlockN);
}

// The first keys of the tiles a cursor walks, and of each tile by index:
// the two must agree.
template <int MASK>
std::vector<int> Walk(const attn::KvSchedule& s) {
  constexpr bool kCuts = attn::kWindowCuts<MASK>;
  std::vector<int> starts;
  attn::KvCursor<kCuts> cursor;
  cursor.seek(s, 0);
  for (int t = 0; t < s.n_tiles; ++t) {
    bool partial;
    EXPECT_EQ(s.tile_start<kCuts>(t, &partial), cursor.start) << "tile " << t;
    EXPECT_EQ(partial, cursor.partial) << "tile " << t;
    starts.push_back(cursor.start);
    cursor.advance(s);
  }
  return starts;
}

constexpr int kSliding = attn::kMaskSlidingCausal;

// 200 keys to key 959, the last: blocks 5-7, of whose tiles 640-703 lies
// below the window and 960-1023 past the keys.
TEST(KvScheduleTest, SlidingWindowLeavesOutEdgeTilesWithoutKeys) {
  Step step(960, 959, 200, 0, {6}, {5, 7});
  EXPECT_EQ(Walk<kSliding>(Schedule<kSliding>(step.p)), (std::vector<int>{768, 832, 704, 896}));
}

TEST(KvScheduleTest, CutsFollowTheListNotItsOrder) {
  Step highest_first(960, 959, 200, 0, {6}, {7, 5});
  EXPECT_EQ(Walk<kSliding>(Schedule<kSliding>(highest_first.p)),
            (std::vector<int>{768, 832, 896, 704}));
  // A mask that leaves out the lowest block walks the others as before.
  Step two_blocks(960, 959, 200, 0, {6}, {7});
  EXPECT_EQ(Walk<kSliding>(Schedule<kSliding>(two_blocks.p)), (std::vector<int>{768, 832, 896}));
}

// The global tokens' block is walked whole; the window's are cut.
TEST(KvScheduleTest, GlobalTokensBlockIsWalkedWhole) {
  Step step(960, 959, 200, 100, {6}, {0, 5, 7});
  EXPECT_EQ(Walk<kSliding>(Schedule<kSliding>(step.p)),
            (std::vector<int>{768, 832, 0, 64, 704, 896}));
}

// 60 keys to key 900 in one 256-token block: its tiles 832 and 896 only.
TEST(KvScheduleTest, OneBlockCutAtBothEnds) {
  Step step(1000, 900, 60, 0, {}, {3}, 256);
  EXPECT_EQ(Walk<kSliding>(Schedule<kSliding>(step.p)), (std::vector<int>{832, 896}));
}

// Split into ranges, the schedule walks the same tiles, each once.
TEST(KvScheduleTest, KeyRangesSplitTheCutWalk) {
  Step step(960, 959, 200, 100, {6}, {0, 5, 7});
  const attn::KvSchedule whole = Schedule<kSliding>(step.p);
  for (int splits = 2; splits <= whole.n_tiles; ++splits) {
    SCOPED_TRACE(splits);
    step.p.kv_splits = splits;
    std::vector<int> starts;
    for (int range = 0; range < splits; ++range) {
      const std::vector<int> part = Walk<kSliding>(attn::key_range(step.p, whole, range));
      starts.insert(starts.end(), part.begin(), part.end());
    }
    EXPECT_EQ(starts, Walk<kSliding>(whole));
  }
}

// A causal mask's blocks are walked whole (its tiles past the diagonal are
// the element mask's).
TEST(KvScheduleTest, OtherMasksWalkWholeBlocks) {
  Step step(960, 959, 200, 0, {6}, {5, 7});
  EXPECT_EQ(Walk<attn::kMaskCausal>(Schedule<attn::kMaskCausal>(step.p)),
            (std::vector<int>{768, 832, 640, 704, 896, 960}));
}

}  // namespace
}  // namespace jitk::attn_test
