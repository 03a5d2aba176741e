// The sparse_attn template compiled by g++ for 32-lane waves and run on the
// SIMT emulator: the NVIDIA mma.sync engine (fragment layouts of the PTX
// ISA) and the FMA engine, on every layout, against the fp64 reference.
// The mma.sync cases plan for sm_80, whose kernel copies with cp.async; the
// MmaTma cases, and the second run of some Mma cases, plan for sm_90, whose
// kernel (sparse_attn_tma_fwd) brings K and V by tensor-memory copies on
// mbarriers (emulated_tma.h).
#include <algorithm>
#include <iterator>
#include <vector>

#include "jitk/block_mask.h"
#include "tests/lib/attention/emulated_runner.h"

#define jitk jitk_emu32
#define __HIP__ 1
#define __AMDGCN_WAVEFRONT_SIZE 32
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

using E = jitk_emu32::SparseAttnParams;
using Maps = jitk_emu32::SparseAttnTensorMaps;

// sparse_attn_tma_fwd's block on a shared-memory buffer of the emulator's:
// the entry point itself takes dynamic shared memory, which g++ has not.
template <int BM, int BN, int W, int S, int D, typename T, int MASK, bool SPLIT = false>
void MmaTmaFwd(const E& p, const Maps& maps) {
  namespace attn = jitk_emu32::attn;
  constexpr int kSmem = attn::SmemBytes(attn::kEngineMma, BM, BN, S, D, int(sizeof(T)));
  alignas(128) static char smem[kSmem];
  attn::mma_tma_block<BM, BN, W, S, D, T, MASK, SPLIT>(p, maps, smem);
}

// Every engine's element mask (row_keys / key_visible) keeps exactly the
// keys ElementMask::Allows does (the definition the reference uses), in
// bounds, for every mask kind: narrow and wide windows, global tokens, more
// queries than keys, queries from the first key's position to the last's
// (q_offset) and all at one (packed rows, q_row_mask 0, at the last key as
// the host packs causal launches), packed rows of four positions each
// (q_row_mask 3, sliding masks only, as the host packs them), rows past
// len_q (padding of the last
// tile, never stored) up to position len_q + len_k, where the range clamps
// its window, and keys past either end. The engines pass each row's
// position (row + q_offset). Then mask_scores, which applies it to the
// mma.sync C fragments, keeps them too.
struct MaskCase {
  int len_q, len_k, window, global, q_offset, q_row_mask;
};
std::vector<MaskCase> MaskCases(int mask) {
  const bool sliding =
      mask == jitk_emu32::attn::kMaskSliding || mask == jitk_emu32::attn::kMaskSlidingCausal;
  std::vector<MaskCase> cases;
  for (int len_q : {1, 40, 90}) {
    for (int len_k : {1, 33, 70}) {
      for (int window : {1, 3, 8, 37, 1000, 1 << 30}) {
        for (int global : {0, 3, 1 << 30}) {
          for (int q_offset : {0, len_k / 2, len_k}) {
            cases.push_back({len_q, len_k, window, global, q_offset, -1});
          }
          cases.push_back({len_q, len_k, window, global, len_k - 1, 0});
          if (sliding && len_k >= 4) cases.push_back({len_q, len_k, window, global, len_k - 4, 3});
        }
      }
    }
  }
  return cases;
}

E MaskParams(const MaskCase& c) {
  E p = {};
  p.len_q = c.len_q;
  p.len_k = c.len_k;
  p.window = c.window;
  p.global_tokens = c.global;
  p.q_offset = c.q_offset;
  p.q_row_mask = c.q_row_mask;
  return p;
}

bool Wanted(const MaskCase& c, int mask, bool apply_mod, int row, int key) {
  const ElementMask element{MaskMod(mask), c.window, c.global, c.q_offset};
  return key >= 0 && key < c.len_k && (!apply_mod || element.Allows(row & c.q_row_mask, key));
}

// Rows whose positions lie below len_q + len_k.
int RowsChecked(const MaskCase& c) {
  return c.q_row_mask == 0 ? c.len_q : c.len_q + c.len_k - c.q_offset;
}

template <int MASK>
void ExpectRowKeysMatchElementMask() {
  for (const MaskCase& c : MaskCases(MASK)) {
    const E p = MaskParams(c);
    for (int row = 0; row < RowsChecked(c); ++row) {
      for (bool apply_mod : {false, true}) {
        const auto keys = jitk_emu32::attn::row_keys<MASK>(row + c.q_offset, apply_mod, p);
        for (int key = -16; key < c.len_k + 16; ++key) {
          ASSERT_EQ(jitk_emu32::attn::key_visible(key, keys), Wanted(c, MASK, apply_mod, row, key))
              << "mask " << MASK << " row " << row << " key " << key << " len_q " << c.len_q
              << " len_k " << c.len_k << " window " << c.window << " global " << c.global
              << " q_offset " << c.q_offset << " q_row_mask " << c.q_row_mask << " apply_mod "
              << apply_mod;
        }
      }
    }
  }
}

template <int MASK>
void ExpectMaskScoresMatchElementMask() {
  constexpr int kNT = 4;
  for (const MaskCase& c : MaskCases(MASK)) {
    const E p = MaskParams(c);
    for (int row0 = 0; row0 < c.len_q + 16; row0 += 5) {
      for (int col0 = -16; col0 < c.len_k + 16; col0 += 6) {
        for (bool apply_mod : {false, true}) {
          float s[kNT][4];
          for (auto& tile : s) std::fill(std::begin(tile), std::end(tile), 1.f);
          jitk_emu32::attn::mask_scores<MASK>(s, row0 + c.q_offset, col0, apply_mod, p);
          for (int nt = 0; nt < kNT; ++nt) {
            for (int i = 0; i < 4; ++i) {
              const int row = row0 + (i >> 1) * 8, col = col0 + nt * 8 + (i & 1);
              if (row >= RowsChecked(c)) continue;
              ASSERT_EQ(s[nt][i] == 1.f, Wanted(c, MASK, apply_mod, row, col))
                  << "mask " << MASK << " row " << row << " col " << col << " len_q " << c.len_q
                  << " len_k " << c.len_k << " window " << c.window << " global " << c.global
                  << " q_offset " << c.q_offset << " q_row_mask " << c.q_row_mask
                  << " apply_mod " << apply_mod;
            }
          }
        }
      }
    }
  }
}

// Row ranges for the corner tests: any, or, where rows fold (q_row_mask >
// 0), ranges aligned to their power-of-two size, as the engines ask them
// (a tile's, a warpgroup's, a warp's or a wave's rows).
std::vector<std::pair<int, int>> RowRanges(const MaskCase& c) {
  std::vector<std::pair<int, int>> ranges;
  if (c.q_row_mask > 0) {
    for (int size = 1; size <= 32; size *= 2) {
      for (int lo = 0; lo < RowsChecked(c); lo += size) ranges.push_back({lo, lo + size - 1});
    }
    return ranges;
  }
  for (int lo = 0; lo < RowsChecked(c); lo += 7) {
    for (int hi = lo; hi < std::min(RowsChecked(c), lo + 24); hi += 6) ranges.push_back({lo, hi});
  }
  return ranges;
}

// The corner tests of causal and sliding-causal tiles (keys_visible): a
// tile they skip has no visible pair, and one they call whole has no
// masked pair, for rows anywhere among the keys (keys past len_k are the
// bounds' to mask, whole tile or not).
template <int MASK>
void ExpectCornerTestsMatchElementMask() {
  for (const MaskCase& c : MaskCases(MASK)) {
    const E p = MaskParams(c);
    const ElementMask element{MaskMod(MASK), c.window, c.global, c.q_offset};
    for (auto [lo, hi] : RowRanges(c)) {
      for (int k_lo = 0; k_lo < c.len_k; k_lo += 5) {
        const int k_hi = k_lo + 7;
        bool partial = true;
        const int pos_lo = lo + c.q_offset, pos_hi = hi + c.q_offset;
        const bool visible = jitk_emu32::attn::keys_visible<MASK>(pos_lo, pos_hi, pos_lo, pos_hi,
                                                                  k_lo, k_hi, p, &partial);
        bool any = false, all = true;
        for (int row = lo; row <= hi; ++row) {
          for (int key = k_lo; key <= std::min(k_hi, c.len_k - 1); ++key) {
            const bool allowed = element.Allows(row & c.q_row_mask, key);
            any = any || allowed;
            all = all && allowed;
          }
        }
        ASSERT_TRUE(visible || !any)
            << "skipped a seen tile: rows " << lo << ".." << hi << " keys " << k_lo << ".." << k_hi
            << " q_offset " << c.q_offset << " q_row_mask " << c.q_row_mask;
        ASSERT_TRUE(partial || all)
            << "unmasked a partial tile: rows " << lo << ".." << hi << " keys " << k_lo << ".."
            << k_hi << " q_offset " << c.q_offset << " q_row_mask " << c.q_row_mask;
      }
    }
  }
}

TEST(EmulatedWave32Test, CornerTestsMatchElementMask) {
  ExpectCornerTestsMatchElementMask<jitk_emu32::attn::kMaskCausal>();
  ExpectCornerTestsMatchElementMask<jitk_emu32::attn::kMaskSlidingCausal>();
}

TEST(EmulatedWave32Test, RowKeysMatchElementMask) {
  ExpectRowKeysMatchElementMask<jitk_emu32::attn::kMaskNone>();
  ExpectRowKeysMatchElementMask<jitk_emu32::attn::kMaskCausal>();
  ExpectRowKeysMatchElementMask<jitk_emu32::attn::kMaskSlidingCausal>();
  ExpectRowKeysMatchElementMask<jitk_emu32::attn::kMaskSliding>();
}

TEST(EmulatedWave32Test, MaskScoresMatchElementMask) {
  ExpectMaskScoresMatchElementMask<jitk_emu32::attn::kMaskNone>();
  ExpectMaskScoresMatchElementMask<jitk_emu32::attn::kMaskCausal>();
  ExpectMaskScoresMatchElementMask<jitk_emu32::attn::kMaskSlidingCausal>();
  ExpectMaskScoresMatchElementMask<jitk_emu32::attn::kMaskSliding>();
}

// The persistent grid's walk (QueryTileWalk, the wgmma engine's): block x
// of G takes, in round r, item r G + x (r even) or r G + G - 1 - x (r odd)
// while items remain, where item i of the order is query tile
// nq - 1 - rank (longest first) of head hb % H of "batch" z = hb / H, with
// rank = i % nq and hb = i / nq head-major, or rank = i / (Z H) and
// hb = i % (Z H) rank-major (a causal mask only); every tile goes to one
// block, with its key tiles from the block mask. SPLIT, z spans
// kv_splits * batch: key range z / batch of input batch z % batch
// (sparse_attn_split.h).
template <bool SPLIT, int MASK>
void ExpectWalkDealsEveryQueryTileOnce(int splits, int tile_order) {
  namespace attn = jitk_emu32::attn;
  constexpr int kBM = 32, kBN = 16, kHeads = 3, kBatch = 2, kLen = 100;
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(kLen, kLen, kBM);
  ASSERT_TRUE(mask.ok()) << mask.status();
  E p = {};
  p.batch = kBatch;
  p.heads_q = kHeads;
  p.heads_kv = 1;
  p.len_q = p.len_k = kLen;
  p.block = kBM;
  p.kv_splits = splits;
  p.tile_order = tile_order;
  const int nq = (kLen + kBM - 1) / kBM;
  p.num_q_blocks = p.num_kv_blocks = nq;
  p.kv_num_blocks = mask->kv_num_blocks().data();
  p.kv_indices = mask->kv_indices().data();
  p.full_kv_num_blocks = mask->full_kv_num_blocks().data();
  p.full_kv_indices = mask->full_kv_indices().data();
  const int lanes = kHeads * kBatch * splits, items = nq * lanes;
  const bool rank_major = MASK == attn::kMaskCausal && tile_order == attn::kOrderRankMajor;
  simt::Emulator& e = simt::Emulator::Get();
  for (unsigned grid : {1u, 5u, 7u, 24u, 30u}) {
    SCOPED_TRACE(grid);
    e.grid_dim = {grid, 1, 1};
    std::vector<int> taken(items, 0);
    for (unsigned x = 0; x < grid; ++x) {
      e.block_idx = {x, 0, 0};
      attn::QueryTileWalk walk;
      attn::QueryTile qt;
      attn::KvSchedule sched;
      std::vector<int> expected;
      for (int r = 0; r * int(grid) < items; ++r) {
        const int item = r * int(grid) + (r % 2 == 0 ? int(x) : int(grid) - 1 - int(x));
        if (item < items) expected.push_back(item);
      }
      size_t n = 0;
      while (walk.take<kBM, kBN, SPLIT, MASK>(p, nq, items, &qt, &sched)) {
        ASSERT_LT(n, expected.size());
        const int item = expected[n++];
        ++taken[item];
        const int rank = rank_major ? item / lanes : item % nq;
        const int hb = rank_major ? item % lanes : item / nq;
        EXPECT_EQ(qt.q0, (nq - 1 - rank) * kBM) << "item " << item;
        EXPECT_EQ(qt.h, hb % kHeads) << "item " << item;
        EXPECT_EQ(qt.b, hb / kHeads) << "item " << item;
        // Causal: key blocks 0..q0 / block, range z / batch of them.
        const int tiles = (qt.q0 / kBM + 1) * (kBM / kBN), range = qt.b / kBatch;
        EXPECT_EQ(sched.first, range * tiles / splits) << "item " << item;
        EXPECT_EQ(sched.n_tiles, (range + 1) * tiles / splits - range * tiles / splits)
            << "item " << item;
      }
      EXPECT_EQ(n, expected.size());
    }
    for (int i = 0; i < items; ++i) EXPECT_EQ(taken[i], 1) << "item " << i;
  }
}

TEST(EmulatedWave32Test, PersistentWalkDealsEveryQueryTileOnce) {
  namespace attn = jitk_emu32::attn;
  ExpectWalkDealsEveryQueryTileOnce<false, attn::kMaskCausal>(1, attn::kOrderHeadMajor);
}

TEST(EmulatedWave32Test, PersistentWalkRanksCausalTilesAcrossHeadsAndBatches) {
  namespace attn = jitk_emu32::attn;
  ExpectWalkDealsEveryQueryTileOnce<false, attn::kMaskCausal>(1, attn::kOrderRankMajor);
}

// Other masks keep head-major order whatever the field says (their tiles'
// lengths do not fall with their rank).
TEST(EmulatedWave32Test, PersistentWalkIgnoresRankMajorWithoutACausalMask) {
  namespace attn = jitk_emu32::attn;
  ExpectWalkDealsEveryQueryTileOnce<false, attn::kMaskNone>(1, attn::kOrderRankMajor);
}

TEST(EmulatedWave32Test, PersistentSplitWalkDealsEveryKeyRangeOnce) {
  namespace attn = jitk_emu32::attn;
  ExpectWalkDealsEveryQueryTileOnce<true, attn::kMaskCausal>(3, attn::kOrderHeadMajor);
  ExpectWalkDealsEveryQueryTileOnce<true, attn::kMaskCausal>(3, attn::kOrderRankMajor);
}

TEST(EmulatedWave32Test, MmaF16CausalGqaOddLengths) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(100, 100, 32);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 2, 1, 100, 100, 64), Config(32, 32, 2, 2), "sm_80",
                  "jitk::sparse_attn_fwd<32, 32, 2, 2, 64, jitk::f16, 1, 1>"};
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<32, 32, 2, 2, 64, jitk_emu32::f16, 1, 1>, run, *mask);
}

TEST(EmulatedWave32Test, MmaBf16SlidingWindowBlhd) {
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(90, 130, 40, 8, true, 32);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kBF16, 2, 2, 90, 130, 32, /*blhd=*/true), Config(32, 16, 2, 3),
                  "sm_80", "jitk::sparse_attn_fwd<32, 16, 2, 3, 32, jitk::bf16, 2, 1>"};
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<32, 16, 2, 3, 32, jitk_emu32::bf16, 2, 1>, run,
                 *mask);
  // The same tiles by tensor-memory copies (sm_90).
  run.arch = "sm_90";
  run.expected_name = "jitk::sparse_attn_tma_fwd<32, 16, 2, 3, 32, jitk::bf16, 2>";
  RunEmulated<E, Maps>(&MmaTmaFwd<32, 16, 2, 3, 32, jitk_emu32::bf16, 2>, run, *mask);
}

// Both tile orders (TileOrder) cover every query tile of every head and
// batch: rank-major where the table's 132 SMs leave enough blocks per head,
// head-major on one SM.
TEST(EmulatedWave32Test, MmaF16CausalTileOrders) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(100, 100, 32);
  ASSERT_TRUE(mask.ok()) << mask.status();
  for (int compute_units : {0, 1}) {
    SCOPED_TRACE(compute_units == 0 ? "rank-major" : "head-major");
    EmulatedRun run{Make(DType::kF16, 3, 1, 100, 100, 32), Config(32, 32, 2, 2), "sm_80",
                    "jitk::sparse_attn_fwd<32, 32, 2, 2, 32, jitk::f16, 1, 1>"};
    run.problem.batch = 2;
    run.compute_units = compute_units;
    run.expected_tile_order =
        compute_units == 0 ? jitk_emu32::attn::kOrderRankMajor : jitk_emu32::attn::kOrderHeadMajor;
    RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<32, 32, 2, 2, 32, jitk_emu32::f16, 1, 1>, run,
                   *mask);
  }
}

TEST(EmulatedWave32Test, MmaF16DenseTwoMTilesPerWarp) {
  absl::StatusOr<BlockMask> mask = BlockMask::Dense(70, 75, 64);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 1, 1, 70, 75, 64), Config(64, 32, 2, 1), "sm_80",
                  "jitk::sparse_attn_fwd<64, 32, 2, 1, 64, jitk::f16, 0, 1>"};
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<64, 32, 2, 1, 64, jitk_emu32::f16, 0, 1>, run, *mask);
}

// Two m-tiles per warp and 128-key stages computed in two 64-key passes
// (the causal mask's full tiles in their own loop); a large scale makes row
// maxima jump by more and by less than the rescale slack from tile to tile,
// so both sides of the deferred rescale run.
TEST(EmulatedWave32Test, MmaF16CausalTwoPassStagesLargeScores) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(150, 150, 128);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 2, 1, 150, 150, 64), Config(64, 128, 2, 2), "sm_80",
                  "jitk::sparse_attn_fwd<64, 128, 2, 2, 64, jitk::f16, 1, 1>"};
  run.scale = 4.0f;
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<64, 128, 2, 2, 64, jitk_emu32::f16, 1, 1>, run,
                 *mask);
  // The same tiles by tensor-memory copies (sm_90).
  run.arch = "sm_90";
  run.expected_name = "jitk::sparse_attn_tma_fwd<64, 128, 2, 2, 64, jitk::f16, 1>";
  RunEmulated<E, Maps>(&MmaTmaFwd<64, 128, 2, 2, 64, jitk_emu32::f16, 1>, run, *mask);
}

// Two m-tiles per warp under the two-sided sliding mask (one pass of 64
// keys): a window that ends inside the keys, and one wider than both lengths.
TEST(EmulatedWave32Test, MmaF16SlidingBidirectionalTwoMTiles) {
  for (int window : {37, 1000}) {
    absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(150, 170, window, 6, false, 64);
    ASSERT_TRUE(mask.ok()) << mask.status();
    EmulatedRun run{Make(DType::kF16, 1, 1, 150, 170, 64), Config(64, 64, 2, 2), "sm_80",
                    "jitk::sparse_attn_fwd<64, 64, 2, 2, 64, jitk::f16, 3, 1>"};
    RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<64, 64, 2, 2, 64, jitk_emu32::f16, 3, 1>, run,
                   *mask);
  }
}

TEST(EmulatedWave32Test, MmaBf16DenseTwoPassStages) {
  absl::StatusOr<BlockMask> mask = BlockMask::Dense(130, 200, 128);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kBF16, 1, 1, 130, 200, 32), Config(64, 128, 2, 3), "sm_80",
                  "jitk::sparse_attn_fwd<64, 128, 2, 3, 32, jitk::bf16, 0, 1>"};
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<64, 128, 2, 3, 32, jitk_emu32::bf16, 0, 1>, run,
                 *mask);
}

TEST(EmulatedWave32Test, MmaF16StridedPerHead) {
  BlockMask::StridedOptions opts;
  opts.block_size = 16;
  opts.local_blocks = 3;
  opts.vertical_stride = 4;
  absl::StatusOr<BlockMask> mask = BlockMask::Strided(4, 120, 120, opts);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 4, 2, 120, 120, 32), Config(16, 16, 1, 2), "sm_80",
                  "jitk::sparse_attn_fwd<16, 16, 1, 2, 32, jitk::f16, 1, 1>"};
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<16, 16, 1, 2, 32, jitk_emu32::f16, 1, 1>, run, *mask);
}

// Key-range splits (sparse_attn_split.h): the split pass's partial results
// in the plan's scratch, merged by the combine pass. A decode step (one
// query row, grouped heads packed as rows, two batches) whose 19 key tiles
// share out unevenly over 4 ranges, 8 (the combine's one lane per columns
// reads them in one group), 9 (two lanes, one group each), over 17 (eight
// at a time: a last group of one), and over 32, most of them empty (there
// in [B, L, H, D], whose packed rows are a head apart); a causal mask whose
// ranges hold rows that see none of their keys.
TEST(EmulatedWave32Test, MmaF16KeyRangeSplits) {
  absl::StatusOr<BlockMask> decode = BlockMask::Dense(1, 300, 32);
  ASSERT_TRUE(decode.ok()) << decode.status();
  for (int splits : {4, 8, 9, 17, 32}) {
    SCOPED_TRACE(splits);
    KernelConfig config = Config(16, 16, 1, 2);
    config["KV_SPLITS"] = splits;
    EmulatedRun run{Make(DType::kF16, 4, 2, 1, 300, 64, /*blhd=*/splits == 32), config, "sm_80",
                    "jitk::sparse_attn_split_fwd<16, 16, 1, 2, 64, jitk::f16, 0, 1>"};
    run.problem.batch = 2;
    RunEmulated<E>(&jitk_emu32::sparse_attn_split_fwd<16, 16, 1, 2, 64, jitk_emu32::f16, 0, 1>,
                   run, *decode);
    run.arch = "sm_90";
    run.expected_name = "jitk::sparse_attn_tma_split_fwd<16, 16, 1, 2, 64, jitk::f16, 0>";
    RunEmulated<E, Maps>(&MmaTmaFwd<16, 16, 1, 2, 64, jitk_emu32::f16, 0, true>, run, *decode);
  }
  absl::StatusOr<BlockMask> causal = BlockMask::Causal(100, 100, 32);
  ASSERT_TRUE(causal.ok()) << causal.status();
  KernelConfig config = Config(32, 32, 2, 2);
  config["KV_SPLITS"] = 3;
  EmulatedRun run{Make(DType::kF16, 2, 1, 100, 100, 64), config, "sm_80",
                  "jitk::sparse_attn_split_fwd<32, 32, 2, 2, 64, jitk::f16, 1, 1>"};
  RunEmulated<E>(&jitk_emu32::sparse_attn_split_fwd<32, 32, 2, 2, 64, jitk_emu32::f16, 1, 1>, run,
                 *causal);
}

// A grouped-query step of five query rows: a group's heads packed as the
// rows of one tile where q and o keep a head's rows together ([B, H, L, D]),
// unpacked where they interleave the heads ([B, L, H, D]); unsplit.
TEST(EmulatedWave32Test, MmaF16GroupedHeadsAsRows) {
  absl::StatusOr<BlockMask> decode = BlockMask::Dense(5, 200, 32);
  ASSERT_TRUE(decode.ok()) << decode.status();
  for (bool blhd : {false, true}) {
    SCOPED_TRACE(blhd ? "BLHD" : "BHLD");
    EmulatedRun run{Make(DType::kF16, 6, 2, 5, 200, 32, blhd), Config(16, 16, 1, 2), "sm_80",
                    "jitk::sparse_attn_fwd<16, 16, 1, 2, 32, jitk::f16, 0, 1>"};
    RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<16, 16, 1, 2, 32, jitk_emu32::f16, 0, 1>, run,
                   *decode);
  }
}

// A prefill chunk at the end of a KV cache: 40 queries at key positions
// 165..204 (q_offset), so the causal diagonal crosses blocks off their
// corners and the first queries already see most keys.
TEST(EmulatedWave32Test, MmaF16CausalChunkAtTheEndOfTheKeys) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(40, 205, 16, 165);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 4, 2, 40, 205, 32), Config(16, 16, 1, 2), "sm_80",
                  "jitk::sparse_attn_fwd<16, 16, 1, 2, 32, jitk::f16, 1, 1>"};
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<16, 16, 1, 2, 32, jitk_emu32::f16, 1, 1>, run,
                 *mask);
  run.arch = "sm_90";
  run.expected_name = "jitk::sparse_attn_tma_fwd<16, 16, 1, 2, 32, jitk::f16, 1>";
  RunEmulated<E, Maps>(&MmaTmaFwd<16, 16, 1, 2, 32, jitk_emu32::f16, 1>, run, *mask);
}

// A causal decode step with the tiles of the mma engine's decode default
// from sm_90 on (64 x 64, four warps of one m-tile): one query at the last
// of 300 keys, a group's four heads packed as rows, the keys in 4 ranges.
TEST(EmulatedWave32Test, MmaTmaCausalDecodeDefaultTiles) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(1, 300, 64, 299);
  ASSERT_TRUE(mask.ok()) << mask.status();
  KernelConfig config = Config(64, 64, 4, 2);
  config["KV_SPLITS"] = 4;
  EmulatedRun run{Make(DType::kF16, 8, 2, 1, 300, 32), config, "sm_90",
                  "jitk::sparse_attn_tma_split_fwd<64, 64, 4, 2, 32, jitk::f16, 1>"};
  run.expected_heads_q = 2;
  run.expected_launches = 2;
  RunEmulated<E, Maps>(&MmaTmaFwd<64, 64, 4, 2, 32, jitk_emu32::f16, 1, true>, run, *mask);
}

// A sliding-window model's decode step: one query at the last key, a
// group's three heads packed as the rows of one tile (all at that
// position), unsplit and split, and a split of one range in one pass.
TEST(EmulatedWave32Test, MmaF16SlidingDecodeGroupedHeadsAsRows) {
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(1, 300, 50, 4, true, 16, 299);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 6, 2, 1, 300, 32), Config(16, 16, 1, 2), "sm_80",
                  "jitk::sparse_attn_fwd<16, 16, 1, 2, 32, jitk::f16, 2, 1>"};
  run.expected_heads_q = 2;
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<16, 16, 1, 2, 32, jitk_emu32::f16, 2, 1>, run,
                 *mask);
  run.expected_name = "jitk::sparse_attn_split_fwd<16, 16, 1, 2, 32, jitk::f16, 2, 1>";
  // Three ranges, and sixteen: capped at the six key tiles the window and
  // the global tokens can touch (here five).
  for (int splits : {3, 16}) {
    SCOPED_TRACE(splits);
    run.config["KV_SPLITS"] = splits;
    RunEmulated<E>(&jitk_emu32::sparse_attn_split_fwd<16, 16, 1, 2, 32, jitk_emu32::f16, 2, 1>,
                   run, *mask);
  }
  // A window of the query's own key: one range, so one pass.
  absl::StatusOr<BlockMask> narrow = BlockMask::SlidingWindow(1, 300, 1, 0, true, 16, 299);
  ASSERT_TRUE(narrow.ok()) << narrow.status();
  run.problem.batch = 2;  // block z is the batch, not a range
  run.expected_launches = 1;
  RunEmulated<E>(&jitk_emu32::sparse_attn_split_fwd<16, 16, 1, 2, 32, jitk_emu32::f16, 2, 1>, run,
                 *narrow);
}

// Four speculative tokens at keys 296..299 under a sliding window of 50
// (each row its own window), a group's three heads of four rows packed as
// 12 rows of one tile (packed row r at 296 + r mod 4); the two-sided
// window too, whose rows also see keys after them.
TEST(EmulatedWave32Test, MmaF16SlidingStepOfFourRowsPacked) {
  absl::StatusOr<BlockMask> causal = BlockMask::SlidingWindow(4, 300, 50, 4, true, 16, 296);
  ASSERT_TRUE(causal.ok()) << causal.status();
  EmulatedRun run{Make(DType::kF16, 6, 2, 4, 300, 32), Config(16, 16, 1, 2), "sm_80",
                  "jitk::sparse_attn_fwd<16, 16, 1, 2, 32, jitk::f16, 2, 1>"};
  run.expected_heads_q = 2;
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<16, 16, 1, 2, 32, jitk_emu32::f16, 2, 1>, run,
                 *causal);
  absl::StatusOr<BlockMask> two_sided = BlockMask::SlidingWindow(4, 300, 50, 4, false, 16, 250);
  ASSERT_TRUE(two_sided.ok()) << two_sided.status();
  run.expected_name = "jitk::sparse_attn_fwd<16, 16, 1, 2, 32, jitk::f16, 3, 1>";
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<16, 16, 1, 2, 32, jitk_emu32::f16, 3, 1>, run,
                 *two_sided);
  // Over 64-token mask blocks of four tiles: rows at 250..253 see keys 211
  // to 292 and the global tokens; with cp.async copies (sm_80) and tensor
  // copies (sm_90).
  absl::StatusOr<BlockMask> wide = BlockMask::SlidingWindow(4, 300, 40, 4, false, 64, 250);
  ASSERT_TRUE(wide.ok()) << wide.status();
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<16, 16, 1, 2, 32, jitk_emu32::f16, 3, 1>, run, *wide);
  run.arch = "sm_90";
  run.expected_name = "jitk::sparse_attn_tma_fwd<16, 16, 1, 2, 32, jitk::f16, 3>";
  RunEmulated<E, Maps>(&MmaTmaFwd<16, 16, 1, 2, 32, jitk_emu32::f16, 3>, run, *wide);
}

// The two-sided window on the fp32 engine, its queries from key 50 on.
TEST(EmulatedWave32Test, FmaF32SlidingBidirectionalQueryOffset) {
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(30, 100, 20, 3, false, 16, 50);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF32, 2, 1, 30, 100, 32), Config(16, 16, 1, 1), "sm_90",
                  "jitk::sparse_attn_fwd<16, 16, 1, 1, 32, float, 3, 0>"};
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<16, 16, 1, 1, 32, float, 3, 0>, run, *mask);
}

TEST(EmulatedWave32Test, FmaF32KeyRangeSplitsSlidingWindow) {
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(40, 200, 30, 4, true, 16);
  ASSERT_TRUE(mask.ok()) << mask.status();
  KernelConfig config = Config(16, 16, 1, 1);
  config["KV_SPLITS"] = 2;
  EmulatedRun run{Make(DType::kF32, 2, 2, 40, 200, 32), config, "sm_80",
                  "jitk::sparse_attn_split_fwd<16, 16, 1, 1, 32, float, 2, 0>"};
  RunEmulated<E>(&jitk_emu32::sparse_attn_split_fwd<16, 16, 1, 1, 32, float, 2, 0>, run, *mask);
}

TEST(EmulatedWave32Test, MmaTmaF16CausalGqaOddLengths) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(100, 100, 32);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 2, 1, 100, 100, 64), Config(32, 32, 2, 2), "sm_90",
                  "jitk::sparse_attn_tma_fwd<32, 32, 2, 2, 64, jitk::f16, 1>"};
  run.problem.batch = 2;
  RunEmulated<E, Maps>(&MmaTmaFwd<32, 32, 2, 2, 64, jitk_emu32::f16, 1>, run, *mask);
}

// The smallest head dim: boxes of 24 columns over 16, a per-head mask with
// grouped heads, and more tiles than stages so each mbarrier turns phase.
TEST(EmulatedWave32Test, MmaTmaF16HeadDim16StridedPerHead) {
  BlockMask::StridedOptions opts;
  opts.block_size = 16;
  opts.local_blocks = 3;
  opts.vertical_stride = 4;
  absl::StatusOr<BlockMask> mask = BlockMask::Strided(4, 120, 120, opts);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF16, 4, 2, 120, 120, 16), Config(16, 16, 1, 2), "sm_90",
                  "jitk::sparse_attn_tma_fwd<16, 16, 1, 2, 16, jitk::f16, 1>"};
  RunEmulated<E, Maps>(&MmaTmaFwd<16, 16, 1, 2, 16, jitk_emu32::f16, 1>, run, *mask);
}

// A head dim the wgmma engine does not take, with one stage: the copy of
// tile t is issued and waited for in the same iteration.
TEST(EmulatedWave32Test, MmaTmaBf16HeadDim112DenseOneStage) {
  absl::StatusOr<BlockMask> mask = BlockMask::Dense(70, 75, 16);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kBF16, 1, 1, 70, 75, 112), Config(16, 16, 1, 1), "sm_90",
                  "jitk::sparse_attn_tma_fwd<16, 16, 1, 1, 112, jitk::bf16, 0>"};
  RunEmulated<E, Maps>(&MmaTmaFwd<16, 16, 1, 1, 112, jitk_emu32::bf16, 0>, run, *mask);
}

TEST(EmulatedWave32Test, FmaF32BigBird) {
  BlockMask::BigBirdOptions opts;
  opts.block_size = 32;
  opts.window_blocks = 1;
  opts.global_blocks = 1;
  opts.random_blocks = 1;
  absl::StatusOr<BlockMask> mask = BlockMask::BigBird(2, 150, 150, opts);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF32, 2, 1, 150, 150, 32), Config(32, 16, 2, 2), "sm_90",
                  "jitk::sparse_attn_fwd<32, 16, 2, 2, 32, float, 0, 0>"};
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<32, 16, 2, 2, 32, float, 0, 0>, run, *mask);
}

TEST(EmulatedWave32Test, FmaF32SlidingBidirectionalBlhd) {
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(80, 80, 20, 5, false, 16);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF32, 2, 2, 80, 80, 64, true), Config(16, 16, 1, 1), "sm_90",
                  "jitk::sparse_attn_fwd<16, 16, 1, 1, 64, float, 3, 0>"};
  run.scale = 0.3f;
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<16, 16, 1, 1, 64, float, 3, 0>, run, *mask);
}

// The sliding-causal window with global tokens on the fp32 engine, whose
// rows are spread over lanes of a row group.
TEST(EmulatedWave32Test, FmaF32SlidingCausalGlobalTokens) {
  absl::StatusOr<BlockMask> mask = BlockMask::SlidingWindow(90, 110, 24, 7, true, 16);
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF32, 2, 1, 90, 110, 32), Config(16, 16, 1, 2), "sm_90",
                  "jitk::sparse_attn_fwd<16, 16, 1, 2, 32, float, 2, 0>"};
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<16, 16, 1, 2, 32, float, 2, 0>, run, *mask);
}

// Arbitrary indices: query block 1 has no key block at all (zeros, -inf),
// block 0 mixes a partial (causal) and a full block.
TEST(EmulatedWave32Test, FmaF32CustomWithEmptyQueryBlock) {
  const int nqb = 3, nkb = 3;
  std::vector<int32_t> counts = {1, 0, 1}, indices(nqb * nkb, 0);
  std::vector<int32_t> full_counts = {1, 0, 2}, full_indices(nqb * nkb, 0);
  indices[0 * nkb + 0] = 0;
  full_indices[0 * nkb + 0] = 2;
  indices[2 * nkb + 0] = 2;
  full_indices[2 * nkb + 0] = 0;
  full_indices[2 * nkb + 1] = 1;
  absl::StatusOr<BlockMask> mask =
      BlockMask::FromIndices(1, 1, 40, 45, 16, counts, indices, full_counts, full_indices,
                             ElementMask{MaskMod::kCausal, 0, 0});
  ASSERT_TRUE(mask.ok()) << mask.status();
  EmulatedRun run{Make(DType::kF32, 1, 1, 40, 45, 16), Config(16, 16, 1, 2), "sm_90",
                  "jitk::sparse_attn_fwd<16, 16, 1, 2, 16, float, 1, 0>"};
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<16, 16, 1, 2, 16, float, 1, 0>, run, *mask);
}

// Block lists straight from torch are not validated: an index past the key
// blocks, one whose index * block wraps to 0 (it would count block 0 twice)
// and one whose index * block + BLOCK_N overflows are read as masked keys
// (the result is that of the valid entries alone), never out of bounds.
TEST(EmulatedWave32Test, MmaF16OutOfRangeBlockIndicesAreMasked) {
  const int len = 96, block = 32, n = 3;
  std::vector<int32_t> counts(n, 2), indices(n * n, 0);
  for (int qb = 0; qb < n; ++qb) {
    indices[qb * n + 0] = 0;
    indices[qb * n + 1] = 2;
  }
  absl::StatusOr<BlockMask> mask = BlockMask::FromIndices(1, 1, len, len, block, counts, indices,
                                                          {}, {}, ElementMask{MaskMod::kNone, 0, 0});
  ASSERT_TRUE(mask.ok()) << mask.status();
  RawBlockLists raw{std::vector<int32_t>(n, 3), std::vector<int32_t>(n * n, 0)};
  const int32_t bad[n] = {n, 1 << 27, 67108863};  // * 32: 2^32 = 0, and 2^31 - 32
  for (int qb = 0; qb < n; ++qb) {
    raw.kv_indices[qb * n + 0] = 0;
    raw.kv_indices[qb * n + 1] = bad[qb];
    raw.kv_indices[qb * n + 2] = 2;
  }
  EmulatedRun run{Make(DType::kF16, 1, 1, len, len, 32), Config(32, 32, 2, 2), "sm_80",
                  "jitk::sparse_attn_fwd<32, 32, 2, 2, 32, jitk::f16, 0, 1>"};
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<32, 32, 2, 2, 32, jitk_emu32::f16, 0, 1>, run, *mask,
                 &raw);
  // From sm_90 on they become tensor copies outside the tensor, which read zeros.
  run.arch = "sm_90";
  run.expected_name = "jitk::sparse_attn_tma_fwd<32, 32, 2, 2, 32, jitk::f16, 0>";
  RunEmulated<E, Maps>(&MmaTmaFwd<32, 32, 2, 2, 32, jitk_emu32::f16, 0>, run, *mask, &raw);
}

TEST(EmulatedWave32Test, FmaBf16RdnaFallbackCausal) {
  absl::StatusOr<BlockMask> mask = BlockMask::Causal(50, 50, 32);
  ASSERT_TRUE(mask.ok()) << mask.status();
  // RDNA (wave32, no MFMA): the FMA engine serves 16-bit storage there.
  EmulatedRun run{Make(DType::kBF16, 1, 1, 50, 50, 32), Config(32, 16, 2, 1), "gfx1030",
                  "jitk::sparse_attn_fwd<32, 16, 2, 1, 32, jitk::bf16, 1, 0>"};
  RunEmulated<E>(&jitk_emu32::sparse_attn_fwd<32, 16, 2, 1, 32, jitk_emu32::bf16, 1, 0>, run,
                 *mask);
}

}  // namespace
}  // namespace jitk::attn_test
