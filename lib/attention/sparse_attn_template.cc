// The sparse_attn KernelTemplate: shape and config rules, defaults per
// architecture, and the packing of one SparseAttnParams launch argument.
#include "lib/attention/sparse_attn_template.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "jitk/block_mask.h"
#include "kernel_templates/sparse_attn_params.h"
#include "lib/internal/status_macros.h"
#include "lib/occupancy.h"

namespace jitk::internal {
namespace {

constexpr int64_t kMaxGridYZ = 65535;
constexpr int64_t kMaxLength = 1 << 30;
constexpr int64_t kSimdsPerCu = 4;  // CDNA

struct Tiles {
  int64_t block_m, block_n, waves, stages;
};

// The warp-specialized wgmma engine (its own kernel, sparse_attn_ws_fwd).
bool WarpSpecialized(int engine, int64_t block_m, int64_t waves) {
  return engine == attn::kEngineWgmma && attn::WgmmaWarpSpecialized(int(block_m), int(waves));
}
bool WarpSpecialized(int engine, const KernelConfig& config) {
  return WarpSpecialized(engine, config.at("BLOCK_M"), config.at("WAVES"));
}

int NvidiaSm(const ArchInfo& arch) {
  absl::string_view name = arch.name;
  if (!absl::ConsumePrefix(&name, "sm_")) return 0;
  std::string digits;
  for (char c : name) {
    if (c < '0' || c > '9') break;
    digits.push_back(c);
  }
  int sm = 0;
  return absl::SimpleAtoi(digits, &sm) ? sm : 0;
}

// The mma engine copying K and V with the tensor-memory engine (its own
// kernel, sparse_attn_tma_fwd, taking tensor maps): on sm_90 and later.
bool MmaTensorCopies(int engine, const ArchInfo& arch) {
  return engine == attn::kEngineMma && NvidiaSm(arch) >= 90;
}

absl::string_view DeviceType(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "float";
    case DType::kF16:
      return "jitk::f16";
    case DType::kBF16:
      return "jitk::bf16";
  }
  return "?";
}

int MaskKindOf(const Shape& shape) {
  int64_t layout = shape.GetOr("layout", 0);
  return int(shape.GetOr("mask", int64_t(DefaultMaskMod(AttentionLayout(layout)))));
}

bool IsSlidingMask(int mask) {
  return mask == attn::kMaskSliding || mask == attn::kMaskSlidingCausal;
}

// Registers per thread of `engine` at these tiles (SparseAttnRegisterEstimate).
int RegisterEstimate(int engine, int64_t bm, int64_t bn, int64_t waves, int64_t stages,
                     int64_t d, const ArchInfo& arch) {
  switch (engine) {
    case attn::kEngineWgmma:
      // O (d / 2), S (bn / 2), packed P (bn / 4). ptxas at d=128: 148 for
      // 128x64x8, 211 for 128x128x8.
      return int(d / 2 + bn / 2 + bn / 4 + 50);
    case attn::kEngineMma: {
      const int64_t mt = std::max<int64_t>(1, bm / (16 * waves));
      // One m-tile keeps Q's fragments in registers (d / 4); more re-read
      // them from shared memory per k-step (4 per m-tile) and hold S for 64
      // keys at a time. ptxas at d=128, 4 warps: 245 registers for 128x32
      // (estimate 216), 255 for 128x64 with 8 bytes spilled (estimate 248;
      // the spill is a mask-row pointer, loaded once per key block).
      if (mt == 1) return int(d / 4 + d / 2 + bn / 2 + 90);
      return int(mt * (d / 2 + std::min<int64_t>(bn, 64) / 2 + 4) + 48);
    }
    case attn::kEngineMfma: {
      // Beside Q (d / 4), S and O, the next K / V tile staged in registers
      // (STAGES = 2) as the kernel holds it: K in 16-byte chunks over the
      // block's threads, V in units of four such chunks.
      const int64_t threads = waves * arch.wave_size;
      auto per_thread = [&](int64_t n) { return (n + threads - 1) / threads; };
      const int64_t staged = 4 * per_thread(bn * d / 8) + 16 * per_thread(bn * d / 32);
      return int(d / 4 + bn / 2 + d / 2 + 48 + (stages > 1 ? staged : 0));
    }
    default: {
      const int64_t tpr = attn::FmaThreadsPerRow(int(d));
      const int64_t groups = std::max<int64_t>(1, waves * arch.wave_size / tpr);
      const int64_t rm = std::max<int64_t>(1, bm / groups), cn = std::max<int64_t>(1, bn / tpr);
      const int64_t dc = std::max<int64_t>(1, d / (4 * tpr));
      return int(rm * cn + rm * dc * 4 + rm * 4 + 60);
    }
  }
}

// Whether the kernel asks the compiler for two waves per SIMD, so that its
// MFMAs accumulate in VGPRs (MfmaWavesPerSimd: the MFMA engine only; from
// CDNA2 on).
bool AsksTwoWavesPerSimd(int engine, int64_t bn, int64_t waves, int64_t stages, int64_t d,
                         const ArchInfo& arch) {
  return arch.family != "cdna1" && attn::MfmaWavesPerSimd(engine, int(bn), int(d), int(stages),
                                                          int(waves * arch.wave_size)) > 1;
}

// Accumulation registers (AGPRs) per thread: the MFMA engine's
// accumulators, d / 2 (hiprtc's report), unless they live in VGPRs.
int AccumEstimate(int engine, int64_t bn, int64_t waves, int64_t stages, int64_t d,
                  const ArchInfo& arch) {
  if (engine != attn::kEngineMfma) return 0;
  return AsksTwoWavesPerSimd(engine, bn, waves, stages, d, arch) ? 0 : int(d / 2);
}

// Resident blocks per CU / SM of `engine` at these tiles, from the register
// estimates and the shared memory of a block.
int BlocksPerCu(int engine, int64_t bm, int64_t bn, int64_t waves, int64_t stages, int64_t d,
                int64_t smem, const ArchInfo& arch) {
  ResourceUsage usage;
  usage.registers = RegisterEstimate(engine, bm, bn, waves, stages, d, arch);
  usage.accum_registers = AccumEstimate(engine, bn, waves, stages, d, arch);
  usage.lds_bytes = int(smem);
  return EstimateOccupancy(usage, int(waves * arch.wave_size), arch).blocks_per_cu;
}

// Register budget per thread the estimate must stay within.
int RegisterBudget(const ArchInfo& arch) {
  // AMD: 256 architectural VGPRs (CDNA's AGPRs hold only MFMA results).
  return arch.vendor == Vendor::kAmd ? std::min(256, arch.max_registers_per_thread)
                                     : arch.max_registers_per_thread;
}

// Key-range splits (KV_SPLITS, sparse_attn_split.h): at most this many per
// query tile, and each range keeps at least kMinTilesPerSplit key tiles.
constexpr int64_t kMaxKvSplits = 64;
constexpr int64_t kMinTilesPerSplit = 4;

int64_t KvSplits(const KernelConfig& config) {
  auto it = config.find("KV_SPLITS");
  return it == config.end() ? 1 : it->second;
}

// Whether a launch of `shape` takes a grouped-query step's heads as rows of
// one query tile: the hq / hkv query heads of a K / V head, lq rows each, as
// hq / hkv * lq rows of one head, so that a tile's K / V is read once per
// group and a one-row query fills hq / hkv rows of the tile instead of one.
// Only where the element mask sees one position per packed row: without
// one, for one query row (a decode step: every packed row at q_offset), or
// under a sliding mask for a power-of-two count of rows (a few speculative
// tokens: the kernel folds packed row r onto position q_offset + r mod lq,
// mask_position); with every row of a group in the mask's first query
// block; and with one
// block mask for every head (no "mask_per_head" dimension of 1). The launch
// packs only where the block mask it is given is every head's and the rows
// of q and o are evenly spaced (SparseAttnPlanner::Fill), and never with
// the warp-specialized engine, whose tensor maps read q and o unpacked.
bool PacksGroupedHeads(const Shape& shape) {
  const int64_t lq = *shape.Get("lq");
  const int mask = MaskKindOf(shape);
  const bool rows_fold = lq == 1 || (IsSlidingMask(mask) && std::has_single_bit(uint64_t(lq)));
  return (mask == attn::kMaskNone || rows_fold) && shape.GetOr("mask_per_head", 0) == 0 &&
         GroupedRowsFitOneBlock(*shape.Get("hq"), *shape.Get("hkv"), lq, shape.GetOr("block", 128));
}

// Query tiles of a launch: per (batch, query head), or per (batch, K / V
// head) where the grouped heads are packed.
int64_t QueryTiles(const Shape& shape, int64_t block_m, bool packed) {
  const int64_t hq = *shape.Get("hq"), hkv = *shape.Get("hkv"), lq = *shape.Get("lq");
  const int64_t heads = packed ? hkv : hq, rows = packed ? hq / hkv * lq : lq;
  return *shape.Get("b") * heads * ((rows + block_m - 1) / block_m);
}

// Query rows up to which a launch takes the decode step's split: a decode
// step, or a few rows of one. Longer launches split only where their query
// tiles leave SMs idle (a prefill chunk at batch 1), in the first round or
// the last.
constexpr int64_t kMaxSplitQueryRows = 64;

// What a key range costs beyond its key tiles, in keys: its query tile's
// fill and drain (about a 128-key tile's time on the warp-specialized
// engine, bench/results/2026-12-06-h100-prefill-chunks/) and its partial O's
// write and the combine's read of it (4 bytes per element where an MMA
// engine computes 4 FLOP per element and key: ~190 keys at the H100's
// ~630 TFLOP/s and 3.35 TB/s); and what a split launch costs beyond that, a
// share of the time (split launches of 96 to 320 tiles still ran 1.08-1.23x
// the time this count gives them on the H100's warp-specialized engine,
// 2026-12-06-h100-overfill-chunks/; 1.15 keeps the fastest config measured
// in each of the ten shapes timed there, a dense launch of 20 key tiles per
// query tile, unsplit, among them; other engines take it untimed). A split
// must save a tenth of the time by that count to be taken.
constexpr int64_t kRangeCostKeys = 320;
constexpr double kSplitCostShare = 1.15;
constexpr double kMinSplitGain = 0.9;

// A decode step's ranges beyond this many put at most one block on each SM.
// At batch 1 with 8 K / V heads on an H100, 16 ranges (128 blocks) against
// 32 (256, two per SM; 17 under a window of 1024 keys, one per key tile):
// windows of 1024 and 4096 keys 6.43-6.59 and 9.95-10.15 us against
// 6.99-7.09 and 10.60-10.68, no window 50.66-50.72 against 50.69-50.73; at
// batch 8, four ranges (256 blocks) beat two by 2-8 %
// (bench/results/2026-12-07-h100-decode-ranges/). Past a few key tiles per
// range a second block per SM hides little, and the combine reads each row's
// ranges eight at a time, an L2 round trip per eight.
constexpr int64_t kDecodeRangesSharingSms = 16;

// The split a launch of these tiles takes by default.
// A decode step: ranges are doubled while the launch's blocks fill at most
// half the blocks the GPU holds at once (one query tile per head), so that
// it fills the GPU instead of streaming each head's K / V through one SM;
// past kDecodeRangesSharingSms, at most one block per SM.
// Longer launches whose query tiles leave SMs idle (a prefill chunk at batch
// 1, or with a tensor-parallel rank's few heads) under a dense, causal or
// sliding layout, or whose last round would (160 tiles of equal length on
// 132 SMs take two rounds): the split that finishes soonest, counting
// rounds of blocks over the SMs (1.2 rounds take two; two blocks sharing an
// SM run at about half speed each) times the longest block's key tiles per
// range plus kRangeCostKeys' worth, times kSplitCostShare for a split (a
// causal launch's last query tile sees every key; a sliding one's split is
// capped at launch by its window). 1 where the query tiles fill the GPU and
// may differ in length (under an element mask, save a causal chunk of at
// most a quarter of its keys, taken to sit at their end as the tuner times
// it: the hardware or the persistent walk balances those), where there are
// too few key tiles to share out, or for block-sparse layouts, whose tiles
// visit an unknown share of the keys.
int64_t DefaultKvSplits(int engine, const Tiles& t, const Shape& shape, const ArchInfo& arch) {
  const int64_t d = *shape.Get("d"), lq = *shape.Get("lq"), lk = *shape.Get("lk");
  const bool specialized = WarpSpecialized(engine, t.block_m, t.waves);
  const int64_t blocks = QueryTiles(shape, t.block_m, !specialized && PacksGroupedHeads(shape));
  const int smem = attn::SmemBytes(engine, int(t.block_m), int(t.block_n), int(t.stages), int(d),
                                   int(DTypeSize(shape.dtype())));
  // The warp-specialized engine's registers are handed over at run time
  // (setmaxnreg): its blocks per SM are its own rule's.
  const int per_cu =
      specialized
          ? attn::WgmmaBlocksPerSm(int(t.block_m), smem)
          : BlocksPerCu(engine, t.block_m, t.block_n, t.waves, t.stages, d, smem, arch);
  const int64_t resident = int64_t(std::max(1, per_cu)) * std::max(1, arch.compute_units);
  const int64_t key_tiles = (lk + t.block_n - 1) / t.block_n;
  const int64_t sms = std::max(1, arch.compute_units);
  int64_t splits = 1;
  if (lq <= kMaxSplitQueryRows) {
    while (2 * splits <= kMaxKvSplits &&
           2 * blocks * splits <= (2 * splits <= kDecodeRangesSharingSms ? resident : sms) &&
           key_tiles >= 2 * splits * kMinTilesPerSplit) {
      splits *= 2;
    }
    return splits;
  }
  const int64_t layout = shape.GetOr("layout", 0);
  const bool even_tiles =
      (layout == int64_t(AttentionLayout::kDense) && MaskKindOf(shape) == attn::kMaskNone) ||
      (layout == int64_t(AttentionLayout::kCausal) && 4 * lq <= lk);
  if ((blocks >= resident && !even_tiles) || layout > int64_t(AttentionLayout::kSlidingWindow)) {
    return 1;
  }
  const int64_t range_tiles = (kRangeCostKeys + t.block_n - 1) / t.block_n;
  auto cost = [&](int64_t s) {
    const int64_t rounds = (blocks * s + sms - 1) / sms;
    return double(rounds * ((key_tiles + s - 1) / s + range_tiles)) * (s > 1 ? kSplitCostShare : 1);
  };
  for (int64_t s = 2; s <= kMaxKvSplits && key_tiles >= s * kMinTilesPerSplit; s *= 2) {
    if (cost(s) < kMinSplitGain * cost(splits)) splits = s;
  }
  return splits;
}

// A query tile that visits at most this many key tiles under a sliding
// window (counted as the kernel walks them, SlidingBlockTiles) is read in one
// pass (of the split kernel, which then runs the unsplit code). One-row
// decode steps on an H100: over two 64-key tiles one pass took 4.4 us at B=1
// and 4.8 at B=8 (bench/results/2026-12-07-h100-one-range/), where three
// ranges had taken 5.7 and 7.0 (2026-12-07-h100-s0-decode/). Over the four
// tiles of two 128-token blocks at B=1, four ranges took 5.3 us and one pass
// 6.1 (192 keys, 2026-12-07-h100-combine-one-pass/); 128 keys that cross a
// block edge walk the same four tiles, in one pass 6.2 us
// (2026-12-07-h100-edge-tiles/).
constexpr int64_t kOnePassWindowTiles = 3;

// A window whose worst count over the positions (SlidingKeyTiles) is at
// most this many key tiles is one pass too where the split's blocks would
// share SMs: those wait for a second round, and the combine reads their
// rows. One-row steps on an H100 (2026-12-07-h100-one-pass-rule/), 64 packed
// query tiles (B=8): 192 keys (four tiles) 6.27-6.32 us in one pass against
// 6.83-6.87 split four ways. 256 keys ending on a block edge (five tiles by
// that count, four visited) split four ways in 7.20-7.21 us, where the
// unsplit kernel took 7.38-7.39 (2026-12-07-h100-edge-tiles/aligned.txt).
constexpr int64_t kOnePassSharedWindowTiles = 4;

// Key tiles a query tile of `rows` positions can visit under a sliding
// mask, at most: its window's band of keys (window + rows - 1 positions, or
// 2 * window + rows - 2 for the two-sided mask), which tile edges may cut at
// both ends, and the global tokens', which start at key 0.
int64_t SlidingKeyTiles(int mask, int64_t window, int64_t global_tokens, int64_t rows,
                        int64_t block_n) {
  const int64_t band = mask == attn::kMaskSliding ? 2 * window + rows - 2 : window + rows - 1;
  return (band - 1 + block_n - 1) / block_n + 1 + (global_tokens + block_n - 1) / block_n;
}

// Key tiles the kernel visits for query rows at positions [first_row,
// first_row + rows) under a sliding mask: it walks the block mask's blocks
// whole, every BLOCK_N tile of each block the window's band or the global
// tokens touch (under the two-sided mask a global token's row sees every
// key; under the sliding-causal one no row sees a global token past it).
// Where a window's keys cross one more block edge than SlidingKeyTiles'
// tiles show, ranges capped by that count took two tiles each in some of
// them: one query row, 512 keys at key 32730, 10 tiles in 9 ranges 7.10 us,
// in 8 6.60; 576 keys, 10 tiles in 10 ranges 6.22-6.27
// (bench/results/2026-12-07-h100-range-tiles/).
int64_t SlidingBlockTiles(int mask, int64_t window, int64_t global_tokens, int64_t first_row,
                          int64_t rows, int64_t len_k, int64_t block, int64_t block_n) {
  const int64_t last_row = first_row + rows - 1;
  const bool global_row = mask == attn::kMaskSliding && first_row < global_tokens;
  const int64_t first_key = global_row ? 0 : std::max<int64_t>(0, first_row - window + 1);
  int64_t last_key = last_row;
  if (mask == attn::kMaskSliding) last_key = global_row ? len_k - 1 : last_row + window - 1;
  last_key = std::min(len_k - 1, last_key);
  const int64_t global_blocks = (std::min(global_tokens, len_k) + block - 1) / block;
  const int64_t seen_global =
      mask == attn::kMaskSlidingCausal ? std::min(global_tokens, last_row + 1) : global_tokens;
  const int64_t global_walked = (std::min(seen_global, len_k) + block - 1) / block;
  const int64_t first_band_block = std::max(first_key / block, global_blocks);
  const int64_t band_blocks = std::max<int64_t>(0, last_key / block - first_band_block + 1);
  return (global_walked + band_blocks) * (block / block_n);
}

// Built-in defaults, first valid one wins; from the H200 sweeps under
// bench/results/ that each case names (a tuned DB overrides them).
std::vector<Tiles> DefaultCandidates(int engine, const Shape& shape, const ArchInfo& arch) {
  switch (engine) {
    case attn::kEngineWgmma:
      // H200 sweeps (bench/results/2026-12-03-h200-wgmma-ws/,
      // 2026-12-04-h200-mma-sync/): the warp-specialized engine with two
      // computing warpgroups, three stages and 128-key tiles (sliding
      // windows included since the element mask takes per-row key ranges).
      // Where 128-row tiles do not divide the mask blocks (64-token blocks),
      // one computing warpgroup of 64 rows, warp-specialized with three
      // stages, two blocks per SM (2026-12-04-h200-two-blocks/, run 2, over
      // the defaults taken before, 64x64x4x1 and for sliding windows
      // 64x64x4x2: 1.21-1.26x causal, 1.38-1.39x the sliding window,
      // 1.16-1.17x random blocks at 10 %).
      // Decode steps (a query tile of at most 64 rows; H100 sweeps in
      // bench/results/2026-12-06-h100-decode/): 64-row tiles, half the
      // wasted rows of 128-row ones (1.72x at B = 8 unpacked, splits/);
      // where a group's heads pack into one tile's rows, one computing
      // warpgroup with two stages, its key range split (packed/: 0.0964 ms
      // at B = 8 against 0.1087 for 64/64/8/3 in splits/; at B = 1 the
      // split alone is 1.33x over one stage).
      if (*shape.Get("lq") <= kMaxSplitQueryRows) {
        if (PacksGroupedHeads(shape)) {
          return {{64, 64, 4, 2}, {64, 64, 8, 3}, {128, 128, 12, 3}, {64, 64, 4, 1}};
        }
        return {{64, 64, 8, 3}, {64, 64, 4, 2}, {128, 128, 12, 3}, {64, 64, 4, 1}};
      }
      if (IsSlidingMask(MaskKindOf(shape))) {
        return {{128, 128, 12, 3}, {64, 64, 8, 3}, {64, 64, 4, 2}};
      }
      return {{128, 128, 12, 3}, {64, 64, 8, 3}, {64, 64, 4, 1}, {64, 64, 4, 2}};
    case attn::kEngineMma: {
      // 128x64 with 4 warps of 32 rows (two m-tiles, Q re-read from shared
      // memory once per 64-key pass), two blocks per SM. Over 128x32 (H200,
      // same build): 1.11x dense, 1.08x causal (full tiles in their own
      // loop), 1.08x the sliding window. Where two such blocks do not fit an
      // SM's shared memory (sm_80's 164 KiB at d = 128), 128x32 (68 KiB)
      // keeps two.
      std::vector<Tiles> tiles = {{128, 64, 4, 2}, {128, 32, 4, 2}, {64, 64, 4, 2},
                                  {64, 32, 4, 2},  {64, 64, 4, 1},  {32, 32, 2, 1},
                                  {16, 16, 1, 1}};
      const int d = int(shape.GetOr("d", 128)), elem = int(DTypeSize(shape.dtype()));
      if (2 * attn::SmemBytes(attn::kEngineMma, 128, 64, 2, d, elem) > arch.lds_bytes_per_cu) {
        std::swap(tiles[0], tiles[1]);
      }
      // Decode steps with tensor copies (sm_90 and later): 64-row tiles, as
      // the wgmma engine's; there 128x64 spills at d = 128 (258 bytes in the
      // causal split kernel, 234 in the unsplit sliding one; 64x64 none,
      // bench/results/2026-12-07-cpu-decode-spills/). Run on an H100 (B=1
      // over 32768 keys: 57.0 us, bench/results/2026-12-07-h100-retune/),
      // not ranked against other tiles.
      if (*shape.Get("lq") <= kMaxSplitQueryRows && MmaTensorCopies(engine, arch)) {
        std::swap(tiles[0], tiles[2]);  // {64, 64, 4, 2} first
      }
      return tiles;
    }
    case attn::kEngineMfma: {
      // The next K / V tile loaded under the MFMAs (STAGES = 2,
      // sparse_attn_staged.h): 128x64 at d = 128 takes 32 KiB of a CU's
      // 64 KiB of LDS, so two blocks of four waves share a CU, as the
      // kernel's two waves per SIMD ask; STAGES = 1 where the staged
      // registers would not fit (d = 224 and 256; 192 with 64-token mask
      // blocks), 128-row tiles first (half the K / V traffic of 64-row
      // ones). Tiles that would leave a CU fewer than four waves (one per
      // SIMD) by the occupancy estimate, registers and LDS, go last; staged
      // tiles with two waves per SIMD (one wave's barriers and LDS waits
      // under the other's MFMAs, as the kernel asks the compiler for) go
      // first: at d = 128 with 64-token mask blocks, 64x64 (whose registers
      // leave one wave per SIMD) yields to 64x32. Not yet timed on AMD
      // hardware.
      std::vector<Tiles> tiles = {{128, 64, 4, 2}, {64, 64, 2, 2},  {64, 32, 2, 2}, {128, 32, 4, 2},
                                  {128, 64, 4, 1}, {128, 32, 4, 1}, {64, 64, 2, 1}, {64, 32, 2, 1},
                                  {32, 32, 1, 2},  {32, 32, 1, 1}};
      const int d = int(shape.GetOr("d", 128)), elem = int(DTypeSize(shape.dtype()));
      auto rank = [&](const Tiles& t) {
        const int smem = attn::SmemBytes(attn::kEngineMfma, int(t.block_m), int(t.block_n),
                                         int(t.stages), d, elem);
        const int64_t waves =
            BlocksPerCu(attn::kEngineMfma, t.block_m, t.block_n, t.waves, t.stages, d, smem, arch) *
            t.waves;
        if (waves < kSimdsPerCu) return 2;
        return t.stages > 1 && waves >= 2 * kSimdsPerCu ? 0 : 1;
      };
      std::vector<std::pair<int, Tiles>> ranked;
      for (const Tiles& t : tiles) ranked.push_back({rank(t), t});
      std::stable_sort(ranked.begin(), ranked.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t i = 0; i < tiles.size(); ++i) tiles[i] = ranked[i].second;
      return tiles;
    }
    default:
      if (arch.vendor == Vendor::kNvidia) {
        return {{128, 64, 8, 1}, {64, 32, 4, 2}, {64, 32, 4, 1}, {32, 32, 4, 1}, {32, 16, 2, 1},
                {16, 16, 1, 1}};
      }
      return {{32, 32, 4, 1}, {32, 16, 4, 1}, {16, 16, 2, 1}, {16, 16, 1, 1}};
  }
}

// The launch arguments, by position: the tensors, the block mask's lists
// (BlockMask::AddLaunchArgs), strides in elements (default: contiguous
// [B, H, L, D]), the softmax scale (default 1/sqrt(d)), the sliding
// window's sizes and the element mask's query offset (default 0).
// clang-format off
enum SparseAttnArg {
  kQ, kK, kV, kO, kLse,
  kKvNumBlocks, kKvIndices, kFullKvNumBlocks, kFullKvIndices, kMaskBatch, kMaskHeads,
  kQStrideB, kQStrideH, kQStrideL, kKStrideB, kKStrideH, kKStrideL,
  kVStrideB, kVStrideH, kVStrideL, kOStrideB, kOStrideH, kOStrideL,
  kScale, kWindow, kGlobalTokens, kQOffset, kNumArgs
};
constexpr absl::string_view kArgNames[kNumArgs] = {
    "q", "k", "v", "o", "lse",
    "kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices", "mask_batch",
    "mask_heads",
    "q_stride_b", "q_stride_h", "q_stride_l", "k_stride_b", "k_stride_h", "k_stride_l",
    "v_stride_b", "v_stride_h", "v_stride_l", "o_stride_b", "o_stride_h", "o_stride_l",
    "scale", "window", "global_tokens", "q_offset"};
// clang-format on
static_assert(kNumArgs <= LaunchArgNames::kMaxNames, "LaunchArgNames holds at most kMaxNames");

class SparseAttnTemplate final : public KernelTemplate {
 public:
  absl::string_view name() const override { return "sparse_attn"; }
  absl::string_view description() const override {
    return "block-sparse flash attention forward (FlexAttention BlockMask), O and LSE; "
           "fp16/bf16 on matrix units, exact fp32 on FMA";
  }
  absl::string_view source_file() const override { return "sparse_attn.h"; }

  // Head dim, mask block size and mask kind change the kernel's shape; only
  // sequence lengths and head counts may differ in a borrowed configuration.
  std::vector<std::string> ExactDims() const override {
    return {"d", "block", "layout", "mask"};
  }

  absl::Status ValidateShape(const Shape& shape) const override {
    static constexpr absl::string_view kDims[] = {"b", "hq",    "hkv",    "lq",   "lk",
                                                  "d", "block", "layout", "mask", "mask_per_head"};
    for (const auto& [dim, value] : shape.dims()) {
      bool known = false;
      for (absl::string_view d : kDims) known = known || dim == d;
      if (!known) {
        return absl::InvalidArgumentError(absl::StrCat(
            "sparse_attn has no dimension '", dim,
            "' (dimensions: b, hq, hkv, lq, lk, d, block, layout, mask, mask_per_head)"));
      }
    }
    for (absl::string_view dim : {"b", "hq", "hkv", "lq", "lk", "d"}) {
      JITK_ASSIGN_OR_RETURN(int64_t value, shape.Get(dim));
      if (value < 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("sparse_attn: ", dim, " must be >= 1, got ", value));
      }
    }
    const int64_t b = *shape.Get("b"), hq = *shape.Get("hq"), hkv = *shape.Get("hkv");
    const int64_t lq = *shape.Get("lq"), lk = *shape.Get("lk"), d = *shape.Get("d");
    if (b > kMaxGridYZ || hq > kMaxGridYZ) {
      return absl::InvalidArgumentError(
          absl::StrCat("sparse_attn: b=", b, " and hq=", hq, " must each be at most ", kMaxGridYZ));
    }
    if (hq % hkv != 0) {
      return absl::InvalidArgumentError(absl::StrCat("sparse_attn: hq=", hq,
                                                     " must be a multiple of hkv=", hkv,
                                                     " (grouped-query attention)"));
    }
    if (lq > kMaxLength || lk > kMaxLength) {
      return absl::InvalidArgumentError(absl::StrCat("sparse_attn: lq=", lq, " and lk=", lk,
                                                     " must each be at most ", kMaxLength));
    }
    if (lq + lk > std::numeric_limits<int32_t>::max()) {  // the element mask adds them as ints
      return absl::InvalidArgumentError(absl::StrCat("sparse_attn: lq + lk = ", lq + lk,
                                                     " must be below 2^31"));
    }
    if (d % 16 != 0 || d > 256) {
      return absl::InvalidArgumentError(
          absl::StrCat("sparse_attn: d=", d, " must be a multiple of 16 and at most 256"));
    }
    const int64_t block = shape.GetOr("block", 128);
    if (block < 16 || block % 16 != 0 || block > 4096) {
      return absl::InvalidArgumentError(
          absl::StrCat("sparse_attn: block=", block, " must be a multiple of 16 in [16, 4096]"));
    }
    const int64_t layout = shape.GetOr("layout", 0);
    if (layout < 0 || layout > int64_t(AttentionLayout::kCustom)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sparse_attn: layout=", layout,
          " is not one of 0 dense, 1 causal, 2 sliding_window, 3 bigbird, 4 strided, 5 custom"));
    }
    if (const int64_t per_head = shape.GetOr("mask_per_head", 0); per_head != 0 && per_head != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("sparse_attn: mask_per_head=", per_head,
                       " must be 0 (one block mask for every head) or 1 (a mask per query head)"));
    }
    const int64_t mask = shape.GetOr("mask", 0);
    if (mask < 0 || mask > int64_t(MaskMod::kSlidingWindow)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sparse_attn: mask=", mask,
          " is not one of 0 none, 1 causal, 2 sliding_window_causal, 3 sliding_window"));
    }
    return absl::OkStatus();
  }

  std::vector<TunableParam> SearchSpace(const Shape& shape, const ArchInfo& arch) const override {
    const int engine = SparseAttnEngine(shape, arch);
    std::vector<TunableParam> space = TileSearchSpace(engine, arch);
    // Key-range splits where 64-row query tiles (grouped heads packed where
    // they can be) leave SMs idle at two blocks per SM (the defaults split
    // where 128-row tiles leave them idle at one), or where the default
    // splits (tiles that just overfill the GPU).
    const int64_t lk = *shape.Get("lk");
    if (QueryTiles(shape, 64, PacksGroupedHeads(shape)) < 2 * std::max(1, arch.compute_units) ||
        KvSplits(DefaultConfig(shape, arch)) > 1) {
      TunableParam& splits = space.emplace_back(TunableParam{"KV_SPLITS", {1}});
      while (2 * splits.values.back() <= kMaxKvSplits &&
             (lk + 63) / 64 >= 2 * splits.values.back() * kMinTilesPerSplit) {
        splits.values.push_back(2 * splits.values.back());
      }
    }
    return space;
  }

  static std::vector<TunableParam> TileSearchSpace(int engine, const ArchInfo& arch) {
    switch (engine) {
      case attn::kEngineWgmma:
        // WAVES = BLOCK_M / 16 + 4: warp-specialized (a copying warpgroup).
        return {{"BLOCK_M", {64, 128}},
                {"BLOCK_N", {64, 128}},
                {"WAVES", {4, 8, 12}},
                {"STAGES", {1, 2, 3}}};
      case attn::kEngineMma:
        return {{"BLOCK_M", {16, 32, 64, 128, 256}},
                {"BLOCK_N", {16, 32, 64, 128}},
                {"WAVES", {1, 2, 4, 8}},
                {"STAGES", {1, 2, 3, 4}}};
      case attn::kEngineMfma:
        return {{"BLOCK_M", {32, 64, 128, 256}},
                {"BLOCK_N", {32, 64, 128}},
                {"WAVES", {1, 2, 4, 8}},
                {"STAGES", {1, 2}}};
      default:
        return {{"BLOCK_M", {16, 32, 64, 128}},
                {"BLOCK_N", {16, 32, 64}},
                {"WAVES", {1, 2, 4, 8}},
                {"STAGES", arch.vendor == Vendor::kNvidia ? std::vector<int64_t>{1, 2, 3}
                                                          : std::vector<int64_t>{1}}};
    }
  }

  absl::Status ValidateConfig(const KernelConfig& config, const Shape& shape,
                              const ArchInfo& arch) const override {
    for (const auto& [param, value] : config) {
      if (param != "BLOCK_M" && param != "BLOCK_N" && param != "WAVES" && param != "STAGES" &&
          param != "KV_SPLITS") {
        return absl::InvalidArgumentError(
            absl::StrCat("sparse_attn has no parameter ", param,
                         " (parameters: BLOCK_M, BLOCK_N, WAVES, STAGES, KV_SPLITS)"));
      }
    }
    JITK_ASSIGN_OR_RETURN(int64_t bm, ConfigValue(config, "BLOCK_M"));
    JITK_ASSIGN_OR_RETURN(int64_t bn, ConfigValue(config, "BLOCK_N"));
    JITK_ASSIGN_OR_RETURN(int64_t waves, ConfigValue(config, "WAVES"));
    JITK_ASSIGN_OR_RETURN(int64_t stages, ConfigValue(config, "STAGES"));
    JITK_RETURN_IF_ERROR(ValidateShape(shape));
    const int64_t d = *shape.Get("d"), block = shape.GetOr("block", 128);
    const int engine = SparseAttnEngine(shape, arch);
    const bool specialized = WarpSpecialized(engine, config);
    auto fail = [&](auto&&... why) {
      return absl::InvalidArgumentError(absl::StrCat("sparse_attn {", KernelConfigToString(config),
                                                     "} on ", arch.name, ": ", why...));
    };
    if (bm < 16 || bm > 256 || bn < 16 || bn > 256 || waves < 1 || waves > 16 || stages < 1 ||
        stages > 4) {
      return fail("need BLOCK_M, BLOCK_N in [16, 256], WAVES in [1, 16], STAGES in [1, 4]");
    }
    if (block % bm != 0 || block % bn != 0) {
      return fail("BLOCK_M and BLOCK_N must divide the mask block size ", block);
    }
    if (const int64_t splits = KvSplits(config); splits > 1) {
      if (splits > kMaxKvSplits || *shape.Get("b") * splits > kMaxGridYZ) {
        return fail("KV_SPLITS must be in [1, ", kMaxKvSplits, "] with b * KV_SPLITS at most ",
                    kMaxGridYZ);
      }
    } else if (splits < 1) {
      return fail("KV_SPLITS must be in [1, ", kMaxKvSplits, "]");
    }
    const int64_t threads = waves * arch.wave_size;
    if (threads > arch.max_threads_per_block) {
      return fail("WAVES * wave size = ", threads, " threads exceeds ", arch.max_threads_per_block);
    }
    switch (engine) {
      case attn::kEngineWgmma: {
        if (bm % 64 != 0 || (bm != 16 * waves && !specialized) || (bn != 64 && bn != 128)) {
          return fail("the wgmma engine needs whole warpgroups of 64 rows (BLOCK_M = 16 * WAVES, ",
                      "or 16 * (WAVES - 4) with a copying warpgroup) and BLOCK_N 64 or 128");
        }
        if (specialized && (bm > 128 || stages < 2)) {
          return fail("the warp-specialized wgmma engine takes one or two computing warpgroups ",
                      "(BLOCK_M 64 or 128) and STAGES >= 2 (a buffer is freed a tile late)");
        }
        // The swizzled copy: each copying thread steps a whole number of
        // 8-row swizzle atoms through every tile.
        const int64_t copiers = specialized ? 128 : threads;
        if (const int64_t step = copiers / (d / 8); step % 8 != 0 || bn % step != 0) {
          return fail("the wgmma engine's copy needs ", copiers, " / (d / 8) = ", step,
                      " rows per step to be a multiple of 8 dividing BLOCK_N");
        }
        break;
      }
      case attn::kEngineMma:
        if (bm % (16 * waves) != 0 || bn % 16 != 0) {
          return fail("the mma engine needs BLOCK_M a multiple of 16 * WAVES and BLOCK_N of 16");
        }
        if (bm / (16 * waves) >= 2 && bn > 64 && bn % 64 != 0) {
          return fail("with two or more m-tiles per warp the mma engine computes 64 keys at a ",
                      "time: BLOCK_N above 64 must be a multiple of 64");
        }
        break;
      case attn::kEngineMfma:
        if (bm != 32 * waves || bn % 32 != 0) {
          return fail("the mfma engine needs BLOCK_M = 32 * WAVES and BLOCK_N a multiple of 32");
        }
        if (stages > 2) {
          return fail("the mfma engine keeps one K / V tile in LDS and at most one more in ",
                      "registers: STAGES must be 1 or 2");
        }
        break;
      default: {
        const int64_t tpr = attn::FmaThreadsPerRow(int(d));
        const int64_t groups = threads / tpr;
        if (bm % groups != 0 || bn % tpr != 0) {
          return fail("the fma engine needs BLOCK_M a multiple of ", groups,
                      " (threads / threads per row) and BLOCK_N of ", tpr);
        }
        if (arch.vendor == Vendor::kAmd && stages != 1) {
          return fail("copies are synchronous on AMD: STAGES must be 1");
        }
        break;
      }
    }
    const int64_t smem = attn::SmemBytes(engine, int(bm), int(bn), int(stages), int(d),
                                         int(DTypeSize(shape.dtype())));
    if (smem > arch.lds_bytes_per_block) {
      return fail("needs ", smem, " bytes of shared memory, more than the ",
                  arch.lds_bytes_per_block, " a block may use");
    }
    const int regs = SparseAttnRegisterEstimate(config, shape, arch);
    const int budget =
        specialized
            ? attn::WgmmaComputeRegisters(int(bm), attn::WgmmaBlocksPerSm(int(bm), int(smem)))
            : RegisterBudget(arch);
    if (regs > budget) {
      return fail("needs about ", regs, " registers per thread, more than ", budget,
                  " (would spill)");
    }
    return absl::OkStatus();
  }

  KernelConfig DefaultConfig(const Shape& shape, const ArchInfo& arch) const override {
    const int engine = SparseAttnEngine(shape, arch);
    KernelConfig last;
    for (const Tiles& t : DefaultCandidates(engine, shape, arch)) {
      last = {
          {"BLOCK_M", t.block_m}, {"BLOCK_N", t.block_n}, {"WAVES", t.waves}, {"STAGES", t.stages}};
      if (!ValidateConfig(last, shape, arch).ok()) continue;
      // Tiles that should split their key ranges but cannot yield to the
      // next that can.
      const int64_t splits = DefaultKvSplits(engine, t, shape, arch);
      if (splits == 1) return last;
      last["KV_SPLITS"] = splits;
      if (ValidateConfig(last, shape, arch).ok()) return last;
    }
    return last;
  }

  absl::StatusOr<std::string> NameExpression(const KernelConfig& config, const Shape& shape,
                                             const ArchInfo& arch) const override {
    JITK_RETURN_IF_ERROR(ValidateConfig(config, shape, arch));
    const int engine = SparseAttnEngine(shape, arch);
    const std::string tiles =
        absl::StrCat(config.at("BLOCK_M"), ", ", config.at("BLOCK_N"), ", ", config.at("WAVES"),
                     ", ", config.at("STAGES"), ", ", *shape.Get("d"), ", ",
                     DeviceType(shape.dtype()), ", ", MaskKindOf(shape));
    const absl::string_view split = KvSplits(config) > 1 ? "split_" : "";
    if (WarpSpecialized(engine, config)) {
      return absl::StrCat("jitk::sparse_attn_ws_", split, "fwd<", tiles, ">");
    }
    if (MmaTensorCopies(engine, arch)) {
      return absl::StrCat("jitk::sparse_attn_tma_", split, "fwd<", tiles, ">");
    }
    return absl::StrCat("jitk::sparse_attn_", split, "fwd<", tiles, ", ", engine, ">");
  }

  // The request of two waves per SIMD was fitted on ROCm 5.2's compiler;
  // ROCm 5.7's spills a few registers with it in some d = 128 defaults.
  // Without it the MFMAs accumulate in AGPRs, unspilled.
  std::vector<std::string> SpillFallbackOptions(const KernelConfig& config, const Shape& shape,
                                                const ArchInfo& arch) const override {
    if (!ValidateConfig(config, shape, arch).ok() ||
        !AsksTwoWavesPerSimd(SparseAttnEngine(shape, arch), config.at("BLOCK_N"),
                             config.at("WAVES"), config.at("STAGES"), *shape.Get("d"), arch)) {
      return {};
    }
    return {"-DJITK_ATTN_NO_WAVES_PER_SIMD"};
  }

  const LaunchArgNames& LaunchArguments() const override {
    static const LaunchArgNames* const kNames = new LaunchArgNames(name(), kArgNames);
    return *kNames;
  }

  absl::StatusOr<std::unique_ptr<const LaunchPlanner>> NewLaunchPlanner(
      const KernelConfig& config, const Shape& shape, const ArchInfo& arch) const override;
};

// Blocks of a launch resident on the device at once.
int64_t ResidentBlocks(int engine, int64_t bm, int64_t bn, int64_t waves, int64_t stages,
                       int64_t d, const ArchInfo& arch, int64_t smem) {
  return int64_t(BlocksPerCu(engine, bm, bn, waves, stages, d, smem, arch)) *
         std::max(1, arch.compute_units);
}

// Rank-major order (attn::kOrderRankMajor) sorts a causal launch's query
// tiles longest first across heads, so the launch does not end with a last
// head's longest tiles running while the other SMs wait. The planner
// takes it only under a causal mask (whose tile lengths it sorts), and
// only where
//  - at least this many blocks per head are resident at once: rank-major
//    order runs resident blocks / heads blocks of a head together, and
//    those are the ones that share its K / V in L2 (head-major order runs
//    most of a head's blocks together);
//  - the launch is at most this many waves of resident blocks: the tail
//    it removes shrinks as the launch grows (bench/launch_order_sim.py:
//    5.9 % of the launch at 15.5 waves, 1.2 % at 62). The mma.sync engine
//    on the H200 (B x H=32, causal; bench/results/2026-12-04-h200-tile-order/):
//    1.10x at 7.8 waves (B=1, L=8192), 1.05x at 15.5 (B=4, L=4096; B=1,
//    L=16384), 1.03x at 31 (B=4, L=8192), but 0.96x at 62 (B=4, L=16384).
constexpr int64_t kRankMajorMinBlocksPerHead = 4;
constexpr int64_t kRankMajorMaxWaves = 32;

// Those two rules, for `resident` blocks of a launch of `tiles` query tiles
// whose rank-major order runs `heads` heads side by side.
bool RankMajorKeepsKvShared(int64_t resident, int64_t heads, int64_t tiles) {
  return resident >= kRankMajorMinBlocksPerHead * heads && tiles <= kRankMajorMaxWaves * resident;
}

// The persistent grid (QueryTileWalk) deals its query tiles in rounds of
// its blocks, every other round reversed. That balances a causal launch
// where each round holds one head's tiles longest first; where a round
// spans several heads' tiles, a block may take a long tile in two rounds
// running (8 heads of 2560 rows on 132 SMs: 37 key tiles where the longest
// tile has 20). Rank-major order sorts every round. The planner takes it
// where, by this model, the busiest block's work shrinks by at least
// kRankMajorMinGain, with the rules above (blocks per head counted over
// every batch: the walk ranks all of them together).
constexpr double kRankMajorMinGain = 1.05;

// The busiest block's work in the walk of a causal launch from the first
// key (`lanes` heads and batches of `q_tiles` tiles over `blocks` blocks;
// the order is chosen with the kernel, before a launch's q_offset, so a
// chunk at the end of its keys is modeled as if it started them: its tiles
// are of about one length and either order balances them):
// each tile's keys, BLOCK_N at a time, plus 128 for what a tile costs
// besides its key tiles (its first S and last P V, O's stores).
int64_t BusiestWalkBlock(attn::TileOrder order, int64_t lanes, int64_t q_tiles, int64_t bm,
                         int64_t bn, int64_t lk, int64_t blocks) {
  std::vector<int64_t> work(blocks, 0);
  const int64_t items = lanes * q_tiles;
  for (int64_t item = 0; item < items; ++item) {
    const int64_t rank = order == attn::kOrderRankMajor ? item / lanes : item % q_tiles;
    const int64_t keys = std::min((q_tiles - rank) * bm, lk);
    const int64_t round = item / blocks, in_round = item % blocks;
    work[round % 2 == 0 ? in_round : blocks - 1 - in_round] += (keys + bn - 1) / bn * bn + 128;
  }
  return *std::max_element(work.begin(), work.end());
}

// Launches of one compiled sparse_attn kernel: grid, block, shared memory
// and every SparseAttnParams field the shape fixes are worked out once;
// a launch checks and packs its pointers, strides, scale and mask sizes.
class SparseAttnPlanner final : public LaunchPlanner {
 public:
  SparseAttnPlanner(const LaunchArgNames& names, const Shape& shape, const ArchInfo& arch,
                    int64_t bm, int64_t bn, int64_t waves, int64_t stages, int64_t splits);

 protected:
  absl::Status Fill(const BoundLaunchArgs& args, LaunchPlan& plan) const override;

 private:
  // Whether q's or o's rows (strides per head and per row) stay evenly
  // spaced with a group's heads as rows: one row per head, or a head's rows
  // right after the previous head's.
  bool EvenGroupRows(long long stride_h, long long stride_l) const {
    return lq_ == 1 || stride_h == lq_ * stride_l;
  }
  // Query tiles of a launch of p (its rows packed or not), per key range.
  int64_t QueryTilesOf(const SparseAttnParams& p) const {
    return (p.len_q + bm_ - 1) / bm_ * p.heads_q * p.batch;
  }
  // A split launch (splits_ > 1): the split pass into the scratch, then
  // the combine pass into o and lse; p.kv_splits ranges.
  void FillSplit(const SparseAttnParams& p, Dim3 grid, LaunchPlan& plan) const;
  // The kernel's tensor-map argument, its maps of p's tensors; the split
  // pass's o map covers the partial results in the scratch.
  void AddTensorMaps(const SparseAttnParams& p, bool split_pass, LaunchPlan& plan) const;

  DType dtype_;
  int64_t b_, hq_;
  int64_t elem_;
  int mask_;  // attn::MaskKind
  float default_scale_;
  // The shape's fields and the default (contiguous [B, H, L, D]) strides;
  // a launch sets the pointers and any strides it gives.
  SparseAttnParams base_ = {};
  Dim3 grid_, block_;
  uint32_t dynamic_shared_bytes_ = 0;
  // A persistent grid's blocks: those the GPU holds at once (0: not persistent).
  int64_t persistent_blocks_ = 0;
  int64_t splits_;
  int64_t sms_;  // the GPU's SMs (CUs)
  int64_t bm_, bn_, lq_, d_;
  int64_t group_;        // query heads per K / V head
  bool packs_ = false;   // PacksGroupedHeads, not warp-specialized
  // A packed launch's q_row_mask: packed row r at position q_offset + r mod
  // lq where lq is a power of two (as an element mask needs it,
  // PacksGroupedHeads), else -1.
  int packed_row_mask_ = -1;
  // The combine pass may start while the split pass ends: its kernel waits
  // for it (griddepcontrol.wait, sparse_attn_split.h) on sm_90 and later.
  bool dependent_combine_ = false;
  size_t partial_o_bytes_ = 0;  // the scratch: partial O, then partial LSE
  size_t partial_lse_bytes_ = 0;
  // Tensor maps of q, k, v and o (their fields of SparseAttnTensorMaps),
  // all but base and strides: the engine reads k and v alone (the mma
  // engine's copies) or all four (warp-specialized); none otherwise.
  enum MapOperand { kMapQ, kMapK, kMapV, kMapO };
  struct MapTemplate {
    MapOperand operand;
    TensorMapRequest request;  // offset within SparseAttnTensorMaps
  };
  absl::InlinedVector<MapTemplate, 4> maps_;
};

SparseAttnPlanner::SparseAttnPlanner(const LaunchArgNames& names, const Shape& shape,
                                     const ArchInfo& arch, int64_t bm, int64_t bn, int64_t waves,
                                     int64_t stages, int64_t splits)
    : LaunchPlanner(names),
      dtype_(shape.dtype()),
      b_(*shape.Get("b")),
      hq_(*shape.Get("hq")),
      elem_(int64_t(DTypeSize(shape.dtype()))),
      mask_(MaskKindOf(shape)),
      splits_(splits),
      sms_(std::max(1, arch.compute_units)),
      bm_(bm),
      bn_(bn),
      lq_(*shape.Get("lq")),
      d_(*shape.Get("d")),
      group_(*shape.Get("hq") / *shape.Get("hkv")) {
  const int64_t hkv = *shape.Get("hkv"), lq = *shape.Get("lq"), lk = *shape.Get("lk");
  const int64_t d = *shape.Get("d");
  const int64_t block = shape.GetOr("block", 128);
  default_scale_ = 1.0f / std::sqrt(float(d));
  base_.batch = int(b_);
  base_.heads_q = int(hq_);
  base_.heads_kv = int(hkv);
  base_.len_q = int(lq);
  base_.len_k = int(lk);
  base_.block = int(block);
  base_.num_q_blocks = int((lq + block - 1) / block);
  base_.num_kv_blocks = int((lk + block - 1) / block);
  base_.q_stride_b = base_.o_stride_b = hq_ * lq * d;
  base_.q_stride_h = base_.o_stride_h = lq * d;
  base_.k_stride_b = base_.v_stride_b = hkv * lk * d;
  base_.k_stride_h = base_.v_stride_h = lk * d;
  base_.q_stride_l = base_.k_stride_l = base_.v_stride_l = base_.o_stride_l = d;
  base_.q_row_mask = -1;

  const int engine = SparseAttnEngine(shape, arch);
  const int64_t q_tiles = (lq + bm - 1) / bm;
  const int smem = attn::SmemBytes(engine, int(bm), int(bn), int(stages), int(d), int(elem_));
  const bool persistent = WarpSpecialized(engine, bm, waves);
  const bool padded_boxes = MmaTensorCopies(engine, arch);
  bool rank_major = false;
  if (mask_ == attn::kMaskCausal && !persistent && q_tiles <= kMaxGridYZ) {
    const int64_t resident = ResidentBlocks(engine, bm, bn, waves, stages, d, arch, smem);
    rank_major = RankMajorKeepsKvShared(resident, hq_, q_tiles * b_ * hq_);
  }
  base_.tile_order = rank_major ? attn::kOrderRankMajor : attn::kOrderHeadMajor;
  base_.kv_splits = int(splits_);
  grid_ = rank_major ? Dim3{uint32_t(hq_), uint32_t(q_tiles), uint32_t(b_)}
                     : Dim3{uint32_t(q_tiles), uint32_t(hq_), uint32_t(b_)};
  block_ = {uint32_t(waves * arch.wave_size)};
  dynamic_shared_bytes_ = arch.vendor == Vendor::kNvidia ? uint32_t(smem) : 0;
  if (persistent) {
    // Persistent: one block per SM, or two (attn::WgmmaBlocksPerSm), walks
    // the query tiles. With one, asking for more than half an SM's shared
    // memory keeps a second block off it, which the computing warpgroups'
    // setmaxnreg relies on; with two, their registers keep a third off.
    const int64_t tiles = q_tiles * hq_ * b_;
    const int per_sm = attn::WgmmaBlocksPerSm(int(bm), smem);
    persistent_blocks_ = int64_t(per_sm) * std::max(1, arch.compute_units);
    grid_ = {uint32_t(std::min(tiles, persistent_blocks_)), 1, 1};
    const int64_t lanes = hq_ * b_;  // heads and batches, ranked together
    auto busiest = [&](attn::TileOrder order) {
      return double(BusiestWalkBlock(order, lanes, q_tiles, bm, bn, lk, persistent_blocks_));
    };
    if (mask_ == attn::kMaskCausal && splits_ == 1 &&
        RankMajorKeepsKvShared(persistent_blocks_, lanes, tiles) &&
        busiest(attn::kOrderHeadMajor) >= kRankMajorMinGain * busiest(attn::kOrderRankMajor)) {
      base_.tile_order = attn::kOrderRankMajor;
    }
    if (per_sm == 1) {
      dynamic_shared_bytes_ =
          std::max(dynamic_shared_bytes_, uint32_t(arch.lds_bytes_per_cu / 2 + 1));
    }
  }
  // Tensor maps as [b][heads][len][d]: boxes of 64 columns (the 128-byte
  // swizzle's width) by one tile of rows. The mma engine reads k and v
  // through maps of unswizzled boxes as wide as its padded rows (the
  // columns past d read as zeros).
  auto map = [&](MapOperand operand, size_t field, int64_t len, int64_t heads, int64_t rows) {
    TensorMapRequest r;
    r.offset = field;
    r.rank = 4;
    const uint64_t dims[4] = {uint64_t(d), uint64_t(len), uint64_t(heads), uint64_t(b_)};
    std::copy(dims, dims + 4, r.dims);
    r.box[0] = padded_boxes ? uint32_t(attn::PaddedRow(int(d), int(elem_))) : 64;
    r.box[1] = uint32_t(rows);
    r.box[2] = r.box[3] = 1;
    r.swizzle_128b = !padded_boxes;
    maps_.push_back({operand, r});
  };
  if (persistent) map(kMapQ, offsetof(SparseAttnTensorMaps, q), lq, hq_, bm);
  if (persistent || padded_boxes) {
    map(kMapK, offsetof(SparseAttnTensorMaps, k), lk, hkv, bn);
    map(kMapV, offsetof(SparseAttnTensorMaps, v), lk, hkv, bn);
  }
  if (persistent) map(kMapO, offsetof(SparseAttnTensorMaps, o), lq, hq_, bm);
  // Packed rows that fold onto lq positions (a sliding mask over lq > 1
  // rows) need the row ranges whose masks the engines test together
  // (keys_visible: BLOCK_M / WAVES rows, or 64 and 16 with wgmma) to lie in
  // one fold or span whole ones; a config whose ranges cross folds (48-row
  // warps with lq = 32) runs unpacked.
  const int64_t range_rows = bm / waves;
  const bool folds_steps = lq > 1 && IsSlidingMask(mask_);
  packs_ = !persistent && PacksGroupedHeads(shape) &&
           (!folds_steps || range_rows % lq == 0 || lq % range_rows == 0);
  if (std::has_single_bit(uint64_t(lq))) packed_row_mask_ = int(lq - 1);
  if (splits_ > 1) {
    dependent_combine_ = NvidiaSm(arch) >= 90;
    const size_t rows_total = size_t(splits_ * b_ * hq_ * lq);
    constexpr size_t kAlign = 256;
    partial_o_bytes_ = (rows_total * size_t(d * elem_) + kAlign - 1) / kAlign * kAlign;
    partial_lse_bytes_ = rows_total * sizeof(float);
  }
}

absl::Status SparseAttnPlanner::Fill(const BoundLaunchArgs& args, LaunchPlan& plan) const {
  SparseAttnParams p = base_;
  JITK_ASSIGN_OR_RETURN(p.q, args.Pointer(kQ));
  JITK_ASSIGN_OR_RETURN(p.k, args.Pointer(kK));
  JITK_ASSIGN_OR_RETURN(p.v, args.Pointer(kV));
  JITK_ASSIGN_OR_RETURN(const void* o, args.Pointer(kO));
  p.o = const_cast<void*>(o);
  JITK_ASSIGN_OR_RETURN(const void* lse, args.PointerOr(kLse, nullptr));
  p.lse = static_cast<float*>(const_cast<void*>(lse));
  JITK_ASSIGN_OR_RETURN(const void* counts, args.Pointer(kKvNumBlocks));
  JITK_ASSIGN_OR_RETURN(const void* indices, args.Pointer(kKvIndices));
  JITK_ASSIGN_OR_RETURN(const void* full_counts, args.PointerOr(kFullKvNumBlocks, nullptr));
  JITK_ASSIGN_OR_RETURN(const void* full_indices, args.PointerOr(kFullKvIndices, nullptr));
  if ((full_counts == nullptr) != (full_indices == nullptr)) {
    return absl::InvalidArgumentError(
        "sparse_attn: pass both full_kv_num_blocks and full_kv_indices, or neither");
  }
  p.kv_num_blocks = static_cast<const int*>(counts);
  p.kv_indices = static_cast<const int*>(indices);
  p.full_kv_num_blocks = static_cast<const int*>(full_counts);
  p.full_kv_indices = static_cast<const int*>(full_indices);

  for (auto [name, ptr] :
       {std::pair<const char*, const void*>{"q", p.q}, {"k", p.k}, {"v", p.v}, {"o", p.o}}) {
    if (ptr == nullptr || reinterpret_cast<uintptr_t>(ptr) % 16 != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("sparse_attn: ", name, " must be a non-null 16-byte aligned pointer"));
    }
  }
  for (auto [name, ptr] : {std::pair<const char*, const void*>{"lse", p.lse},
                           {"kv_num_blocks", counts},
                           {"kv_indices", indices},
                           {"full_kv_num_blocks", full_counts},
                           {"full_kv_indices", full_indices}}) {
    if (reinterpret_cast<uintptr_t>(ptr) % 4 != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("sparse_attn: ", name, " must be 4-byte aligned"));
    }
  }

  // Strides in elements; base_ holds the defaults.
  const std::pair<int, long long*> strides[] = {
      {kQStrideB, &p.q_stride_b}, {kQStrideH, &p.q_stride_h}, {kQStrideL, &p.q_stride_l},
      {kKStrideB, &p.k_stride_b}, {kKStrideH, &p.k_stride_h}, {kKStrideL, &p.k_stride_l},
      {kVStrideB, &p.v_stride_b}, {kVStrideH, &p.v_stride_h}, {kVStrideL, &p.v_stride_l},
      {kOStrideB, &p.o_stride_b}, {kOStrideH, &p.o_stride_h}, {kOStrideL, &p.o_stride_l},
  };
  const int64_t chunk = 16 / elem_;  // elements per 16-byte copy
  for (const auto& [arg, out] : strides) {
    JITK_ASSIGN_OR_RETURN(const int64_t value, args.IntOr(arg, *out));
    if (value < 0 || value % chunk != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sparse_attn: ", kArgNames[arg], "=", value, " must be a non-negative multiple of ",
          chunk, " elements (16 bytes of ", DTypeName(dtype_), ")"));
    }
    *out = value;
  }

  JITK_ASSIGN_OR_RETURN(const float scale, args.FloatOr(kScale, default_scale_));
  if (!(scale > 0.0f) || !std::isfinite(scale)) {
    return absl::InvalidArgumentError(
        absl::StrCat("sparse_attn: scale must be finite and > 0, got ", scale));
  }
  p.scale_log2 = scale * 1.4426950408889634f;

  JITK_ASSIGN_OR_RETURN(const int64_t mask_batch, args.Int(kMaskBatch));
  JITK_ASSIGN_OR_RETURN(const int64_t mask_heads, args.Int(kMaskHeads));
  if ((mask_batch != 1 && mask_batch != b_) || (mask_heads != 1 && mask_heads != hq_)) {
    return absl::InvalidArgumentError(
        absl::StrCat("sparse_attn: mask_batch=", mask_batch, " must be 1 or b=", b_,
                     ", mask_heads=", mask_heads, " must be 1 or hq=", hq_));
  }
  p.mask_stride_h = mask_heads == 1 ? 0 : p.num_q_blocks;
  p.mask_stride_b = mask_batch == 1 ? 0 : int(mask_heads) * p.num_q_blocks;
  if (IsSlidingMask(mask_)) {
    JITK_ASSIGN_OR_RETURN(const int64_t window, args.Int(kWindow));
    JITK_ASSIGN_OR_RETURN(const int64_t global_tokens, args.Int(kGlobalTokens));
    if (window < 1 || window > kMaxLength || global_tokens < 0 || global_tokens > kMaxLength) {
      return absl::InvalidArgumentError(
          absl::StrCat("sparse_attn: window=", window,
                       " must be >= 1 and global_tokens=", global_tokens, " >= 0"));
    }
    p.window = int(window);
    p.global_tokens = int(global_tokens);
  }
  JITK_ASSIGN_OR_RETURN(const int64_t q_offset, args.IntOr(kQOffset, 0));
  if (q_offset < 0 || q_offset > base_.len_k) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sparse_attn: q_offset=", q_offset, " must be in [0, lk=", base_.len_k,
        "] (lk - lq puts the queries at the end of the keys, as in a KV cache)"));
  }
  p.q_offset = int(q_offset);

  // A group's heads as rows of one tile (PacksGroupedHeads) where the
  // block mask is every head's and the rows stay evenly spaced; under a
  // causal mask only where it hides no key (mask_position).
  Dim3 grid = grid_;
  if (packs_ && mask_heads == 1 && EvenGroupRows(p.q_stride_h, p.q_stride_l) &&
      EvenGroupRows(p.o_stride_h, p.o_stride_l) &&
      (mask_ != attn::kMaskCausal || p.q_offset >= p.len_k - 1)) {
    for (auto [stride_h, stride_l] : {std::pair{&p.q_stride_h, &p.q_stride_l},
                                      std::pair{&p.o_stride_h, &p.o_stride_l}}) {
      if (lq_ == 1) *stride_l = *stride_h;
      *stride_h *= group_;
    }
    p.heads_q = p.heads_kv;
    p.len_q = int(group_ * lq_);
    p.q_row_mask = packed_row_mask_;
    p.tile_order = attn::kOrderHeadMajor;
    grid = {uint32_t((p.len_q + bm_ - 1) / bm_), uint32_t(p.heads_q), uint32_t(b_)};
  }
  if (IsSlidingMask(mask_) && splits_ > 1) {
    // At most one range per key tile the window leaves a query tile (more
    // would stay empty and still cost their blocks and the combine's reads),
    // and one pass where those tiles are few. Where the launch's rows sit in
    // one query tile (a decode step) the ranges and the first one-pass test
    // count the tiles the kernel will visit from their positions.
    const int64_t tiles =
        SlidingKeyTiles(mask_, p.window, p.global_tokens, std::min(bm_, lq_), bn_);
    const int64_t visited = lq_ <= bm_ ? SlidingBlockTiles(mask_, p.window, p.global_tokens,
                                                           p.q_offset, lq_, p.len_k, p.block, bn_)
                                       : tiles;
    const bool one_pass =
        visited <= kOnePassWindowTiles ||
        (tiles <= kOnePassSharedWindowTiles && QueryTilesOf(p) * std::min(splits_, tiles) > sms_);
    p.kv_splits = int(one_pass ? 1 : std::min(splits_, visited));
  }
  // A split kernel over one range is one pass: block z's range is every key
  // tile and its "batch" the input's, so it writes o and lse itself.
  if (p.kv_splits > 1) {
    FillSplit(p, grid, plan);
    return absl::OkStatus();
  }
  plan.grid = grid;
  plan.block = block_;
  plan.dynamic_shared_bytes = dynamic_shared_bytes_;
  plan.args.Add(p);
  AddTensorMaps(p, /*split_pass=*/false, plan);
  return absl::OkStatus();
}

void SparseAttnPlanner::FillSplit(const SparseAttnParams& p, Dim3 grid, LaunchPlan& plan) const {
  // The split pass: o and lse are the partial results, contiguous, with
  // kv_splits * batch "batches" (sparse_attn_split.h).
  SparseAttnParams part = p;
  part.o = nullptr;
  part.lse = nullptr;
  part.o_stride_l = d_;
  part.o_stride_h = p.len_q * d_;
  part.o_stride_b = p.heads_q * part.o_stride_h;
  // A persistent grid walks every range of every query tile (its launches
  // are never packed: p's rows are the query's).
  const int64_t items = QueryTilesOf(p) * p.kv_splits;
  plan.grid = persistent_blocks_ > 0
                  ? Dim3{uint32_t(std::min(items, persistent_blocks_)), 1, 1}
                  : Dim3{grid.x, grid.y, uint32_t(grid.z * p.kv_splits)};
  plan.block = block_;
  plan.dynamic_shared_bytes = dynamic_shared_bytes_;
  plan.scratch_bytes = partial_o_bytes_ + partial_lse_bytes_;
  const size_t at = plan.args.Add(part);
  plan.scratch_pointers.push_back({at + offsetof(SparseAttnParams, o), 0});
  plan.scratch_pointers.push_back({at + offsetof(SparseAttnParams, lse), partial_o_bytes_});
  AddTensorMaps(part, /*split_pass=*/true, plan);

  // The combine pass, into the caller's o and lse. The tensor copies'
  // kernel takes its maps argument, unread there.
  LaunchPlan& combine = *(plan.next = std::make_unique<LaunchPlan>());
  SparseAttnParams merge = p;
  merge.combine = 1;
  const int rows =
      attn::CombineRowsPerBlock(int(d_), int(block_.x), attn::CombineLanes(p.kv_splits));
  combine.grid = {uint32_t((p.len_q + rows - 1) / rows), uint32_t(p.heads_q), uint32_t(b_)};
  combine.block = block_;
  combine.dependent = dependent_combine_;
  const size_t merge_at = combine.args.Add(merge);
  combine.scratch_pointers.push_back({merge_at + offsetof(SparseAttnParams, o_partial), 0});
  combine.scratch_pointers.push_back(
      {merge_at + offsetof(SparseAttnParams, lse_partial), partial_o_bytes_});
  if (!maps_.empty()) combine.args.Add(SparseAttnTensorMaps{});
}

void SparseAttnPlanner::AddTensorMaps(const SparseAttnParams& p, bool split_pass,
                                      LaunchPlan& plan) const {
  if (!maps_.empty()) {
    const size_t at = plan.args.Add(SparseAttnTensorMaps{});
    const void* const bases[] = {p.q, p.k, p.v, p.o};
    const long long strides[][3] = {{p.q_stride_l, p.q_stride_h, p.q_stride_b},
                                    {p.k_stride_l, p.k_stride_h, p.k_stride_b},
                                    {p.v_stride_l, p.v_stride_h, p.v_stride_b},
                                    {p.o_stride_l, p.o_stride_h, p.o_stride_b}};
    for (const MapTemplate& m : maps_) {
      TensorMapRequest& r = plan.tensor_maps.emplace_back(m.request);
      r.offset += at;
      r.base = bases[m.operand];
      for (int i = 0; i < 3; ++i) r.strides[i] = uint64_t(strides[m.operand][i] * elem_);
      if (split_pass && m.operand == kMapO) {  // kv_splits * batch "batches" at the scratch's start
        r.dims[3] = uint64_t(b_ * p.kv_splits);
        plan.scratch_pointers.push_back({r.offset, 0, /*tensor_map_base=*/true});
      }
    }
  }
}

absl::StatusOr<std::unique_ptr<const LaunchPlanner>> SparseAttnTemplate::NewLaunchPlanner(
    const KernelConfig& config, const Shape& shape, const ArchInfo& arch) const {
  JITK_ASSIGN_OR_RETURN(const int64_t bm, ConfigValue(config, "BLOCK_M"));
  JITK_ASSIGN_OR_RETURN(const int64_t bn, ConfigValue(config, "BLOCK_N"));
  JITK_ASSIGN_OR_RETURN(const int64_t waves, ConfigValue(config, "WAVES"));
  JITK_ASSIGN_OR_RETURN(const int64_t stages, ConfigValue(config, "STAGES"));
  return std::make_unique<const SparseAttnPlanner>(LaunchArguments(), shape, arch, bm, bn, waves,
                                                   stages, KvSplits(config));
}

}  // namespace

int SparseAttnEngine(const Shape& shape, const ArchInfo& arch) {
  const DType dtype = shape.dtype();
  if (dtype == DType::kF32) return attn::kEngineFma;
  const int64_t d = shape.GetOr("d", 0), block = shape.GetOr("block", 128);
  if (arch.vendor == Vendor::kNvidia) {
    // wgmma needs the arch-specific target (sm_90a); its tiles are 64 wide.
    if (arch.matrix_isa == "wgmma" && (d == 64 || d == 128) && block % 64 == 0) {
      return attn::kEngineWgmma;
    }
    return NvidiaSm(arch) >= 80 && d <= 128 ? attn::kEngineMma : attn::kEngineFma;
  }
  if (arch.matrix_isa == "mfma" && arch.wave_size == 64 && d % 32 == 0 && block % 32 == 0 &&
      !(dtype == DType::kBF16 && arch.name == "gfx908")) {
    return attn::kEngineMfma;
  }
  return attn::kEngineFma;
}

bool SparseAttnMmaTensorCopies(const Shape& shape, const ArchInfo& arch) {
  return MmaTensorCopies(SparseAttnEngine(shape, arch), arch);
}

bool GroupedRowsFitOneBlock(int64_t hq, int64_t hkv, int64_t lq, int64_t block) {
  return hq > hkv && hq / hkv * lq <= block;
}

int SparseAttnRegisterEstimate(const KernelConfig& config, const Shape& shape,
                               const ArchInfo& arch) {
  auto get = [&](const char* name) {
    auto it = config.find(name);
    return it == config.end() ? int64_t(1) : std::max<int64_t>(1, it->second);
  };
  return RegisterEstimate(SparseAttnEngine(shape, arch), get("BLOCK_M"), get("BLOCK_N"),
                          get("WAVES"), get("STAGES"), shape.GetOr("d", 64), arch);
}

const KernelTemplate& SparseAttnKernelTemplate() {
  static const SparseAttnTemplate kTemplate;
  return kTemplate;
}

}  // namespace jitk::internal
