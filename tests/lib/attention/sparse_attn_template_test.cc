#include "lib/attention/sparse_attn_template.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jitk/arch.h"
#include "jitk/block_mask.h"
#include "kernel_templates/sparse_attn_params.h"
#include "tests/testing/status_matchers.h"

namespace jitk::internal {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;

const KernelTemplate& T() { return SparseAttnKernelTemplate(); }

int64_t KvSplitsOf(const KernelConfig& config) {
  auto it = config.find("KV_SPLITS");
  return it == config.end() ? 1 : it->second;
}

ArchInfo Arch(const char* name) {
  absl::StatusOr<ArchInfo> arch = LookupArch(name);
  EXPECT_TRUE(arch.ok()) << arch.status();
  return *arch;
}

Shape AttnShape(DType dtype, int d = 128, int layout = 1, int64_t block = 128) {
  return Shape(dtype)
      .Set("b", 2)
      .Set("hq", 8)
      .Set("hkv", 2)
      .Set("lq", 1000)
      .Set("lk", 1000)
      .Set("d", d)
      .Set("block", block)
      .Set("layout", layout);
}

TEST(SparseAttnTemplateTest, Names) {
  EXPECT_EQ(T().name(), "sparse_attn");
  EXPECT_EQ(T().source_file(), "sparse_attn.h");
}

TEST(SparseAttnTemplateTest, ValidateShapeAcceptsAllLayoutsAndDtypes) {
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (int layout = 0; layout <= 5; ++layout) {
      EXPECT_THAT(T().ValidateShape(AttnShape(dtype, 64, layout)), IsOk());
    }
  }
  // block and layout have defaults.
  EXPECT_THAT(T().ValidateShape(Shape(DType::kF16)
                                    .Set("b", 1)
                                    .Set("hq", 1)
                                    .Set("hkv", 1)
                                    .Set("lq", 7)
                                    .Set("lk", 9)
                                    .Set("d", 16)),
              IsOk());
}

TEST(SparseAttnTemplateTest, ValidateShapeRejects) {
  const auto code = absl::StatusCode::kInvalidArgument;
  Shape s = AttnShape(DType::kF16);
  EXPECT_THAT(T().ValidateShape(Shape(s).Set("n", 3)), StatusIs(code, "no dimension 'n'"));
  EXPECT_THAT(T().ValidateShape(Shape(s).Set("hkv", 3)), StatusIs(code, "multiple of hkv=3"));
  EXPECT_THAT(T().ValidateShape(Shape(s).Set("d", 72)), StatusIs(code, "d=72"));
  EXPECT_THAT(T().ValidateShape(Shape(s).Set("d", 272)), StatusIs(code, "at most 256"));
  EXPECT_THAT(T().ValidateShape(Shape(s).Set("lq", 0)), StatusIs(code, "lq must be >= 1"));
  EXPECT_THAT(T().ValidateShape(Shape(s).Set("block", 40)), StatusIs(code, "block=40"));
  EXPECT_THAT(T().ValidateShape(Shape(s).Set("layout", 9)), StatusIs(code, "layout=9"));
  EXPECT_THAT(T().ValidateShape(Shape(s).Set("mask", 4)), StatusIs(code, "mask=4"));
  EXPECT_THAT(T().ValidateShape(Shape(s).Set("mask_per_head", 8)),
              StatusIs(code, "mask_per_head=8 must be 0 (one block mask for every head) or 1"));
  EXPECT_THAT(T().ValidateShape(Shape(s).Set("mask_per_head", 1)), IsOk());
  EXPECT_THAT(T().ValidateShape(Shape(s).Set("b", 70000)), StatusIs(code, "at most 65535"));
  EXPECT_THAT(T().ValidateShape(Shape(s).Set("lq", 1 << 30).Set("lk", 1 << 30)),
              StatusIs(code, "below 2^31"));
  Shape missing(DType::kF16);
  missing.Set("b", 1).Set("hq", 1).Set("hkv", 1).Set("lq", 1).Set("d", 64);
  EXPECT_THAT(T().ValidateShape(missing), StatusIs(code, "lk"));
}

TEST(SparseAttnTemplateTest, EngineSelection) {
  EXPECT_EQ(SparseAttnEngine(AttnShape(DType::kF16), Arch("sm_90")), attn::kEngineMma);
  EXPECT_EQ(SparseAttnEngine(AttnShape(DType::kBF16), Arch("sm_90a")), attn::kEngineWgmma);
  EXPECT_EQ(SparseAttnEngine(AttnShape(DType::kF32), Arch("sm_90a")), attn::kEngineFma);
  EXPECT_EQ(SparseAttnEngine(AttnShape(DType::kBF16), Arch("sm_80")), attn::kEngineMma);
  EXPECT_EQ(SparseAttnEngine(AttnShape(DType::kF32), Arch("sm_90")), attn::kEngineFma);
  EXPECT_EQ(SparseAttnEngine(AttnShape(DType::kF16, 256), Arch("sm_90")), attn::kEngineFma);
  EXPECT_EQ(SparseAttnEngine(AttnShape(DType::kF16), Arch("gfx90a")), attn::kEngineMfma);
  EXPECT_EQ(SparseAttnEngine(AttnShape(DType::kBF16), Arch("gfx942")), attn::kEngineMfma);
  EXPECT_EQ(SparseAttnEngine(AttnShape(DType::kBF16), Arch("gfx908")), attn::kEngineFma);
  EXPECT_EQ(SparseAttnEngine(AttnShape(DType::kF16, 48), Arch("gfx90a")), attn::kEngineFma);
  EXPECT_EQ(SparseAttnEngine(AttnShape(DType::kF16), Arch("gfx1100")), attn::kEngineFma);
  EXPECT_EQ(SparseAttnEngine(AttnShape(DType::kF32), Arch("gfx90a")), attn::kEngineFma);
}

// The default must be valid for every arch, dtype, head dim and block size.
TEST(SparseAttnTemplateTest, DefaultConfigAlwaysValid) {
  std::vector<ArchInfo> archs(KnownArchs().begin(), KnownArchs().end());
  archs.push_back(Arch("sm_90a"));
  for (const ArchInfo& arch : archs) {
    for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
      for (int d : {16, 32, 48, 64, 128, 192, 256}) {
        for (int64_t block : {16, 64, 128}) {
          Shape shape = AttnShape(dtype, d, 1, block);
          KernelConfig config = T().DefaultConfig(shape, arch);
          EXPECT_THAT(T().ValidateConfig(config, shape, arch), IsOk())
              << arch.name << " " << DTypeName(dtype) << " d=" << d << " block=" << block;
        }
      }
    }
  }
}

// AttnShape with enough query tiles to fill any GPU: no key-range split.
Shape LongShape(DType dtype, int d = 128, int layout = 1, int64_t block = 128) {
  return AttnShape(dtype, d, layout, block).Set("b", 16);
}

TEST(SparseAttnTemplateTest, DefaultsPerArchitecture) {
  // mma.sync: 64-key tiles, one pass each, for every mask.
  for (AttentionLayout layout :
       {AttentionLayout::kCausal, AttentionLayout::kDense, AttentionLayout::kSlidingWindow}) {
    KernelConfig c = T().DefaultConfig(LongShape(DType::kBF16, 128, int(layout)), Arch("sm_90"));
    EXPECT_EQ(KernelConfigToString(c), "BLOCK_M=128,BLOCK_N=64,STAGES=2,WAVES=4")
        << AttentionLayoutName(layout);
  }
  // Two 128x64 blocks (102 KiB each at d=128) do not fit Ampere's 164 KiB:
  // 128x32 (68 KiB) keeps two blocks per SM; at d=64 128x64 fits twice.
  KernelConfig ampere = T().DefaultConfig(LongShape(DType::kF16), Arch("sm_80"));
  EXPECT_EQ(KernelConfigToString(ampere), "BLOCK_M=128,BLOCK_N=32,STAGES=2,WAVES=4");
  KernelConfig ampere64 = T().DefaultConfig(LongShape(DType::kF16, 64), Arch("sm_80"));
  EXPECT_EQ(KernelConfigToString(ampere64), "BLOCK_M=128,BLOCK_N=64,STAGES=2,WAVES=4");
  KernelConfig cdna = T().DefaultConfig(LongShape(DType::kF16), Arch("gfx90a"));
  EXPECT_EQ(KernelConfigToString(cdna), "BLOCK_M=128,BLOCK_N=64,STAGES=2,WAVES=4");
  // 64-token mask blocks: at d = 128 64x64's registers would leave one wave
  // per SIMD, so 64x32 (two per SIMD, four blocks' LDS) comes first.
  KernelConfig cdna64 =
      T().DefaultConfig(LongShape(DType::kF16, 128, 1, 64), Arch("gfx942"));
  EXPECT_EQ(KernelConfigToString(cdna64), "BLOCK_M=64,BLOCK_N=32,STAGES=2,WAVES=2");
  KernelConfig cdna64d64 = T().DefaultConfig(LongShape(DType::kF16, 64, 1, 64), Arch("gfx942"));
  EXPECT_EQ(KernelConfigToString(cdna64d64), "BLOCK_M=64,BLOCK_N=64,STAGES=2,WAVES=2");
  // 64-token blocks at d = 96: 64x32 holds two waves per SIMD where 64x64's
  // LDS would leave fewer blocks.
  EXPECT_EQ(
      KernelConfigToString(T().DefaultConfig(LongShape(DType::kF16, 96, 1, 64), Arch("gfx942"))),
      "BLOCK_M=64,BLOCK_N=32,STAGES=2,WAVES=2");
  // d = 160: one wave per SIMD whatever the tiles (AGPR accumulators), so the
  // 128-row tile keeps its place.
  EXPECT_EQ(KernelConfigToString(T().DefaultConfig(LongShape(DType::kF16, 160), Arch("gfx942"))),
            "BLOCK_M=128,BLOCK_N=64,STAGES=2,WAVES=4");
  // gfx908 (CDNA1, separate AGPR file): staged 128x64 as on its successors.
  EXPECT_EQ(KernelConfigToString(T().DefaultConfig(LongShape(DType::kF16, 64), Arch("gfx908"))),
            "BLOCK_M=128,BLOCK_N=64,STAGES=2,WAVES=4");
  // d = 256: no staged tile fits the registers, and four waves still run.
  KernelConfig cdna256 = T().DefaultConfig(LongShape(DType::kF16, 256), Arch("gfx942"));
  EXPECT_EQ(KernelConfigToString(cdna256), "BLOCK_M=128,BLOCK_N=32,STAGES=1,WAVES=4");
  // Phi-3-small's block 64 limits BLOCK_M.
  KernelConfig phi3 = T().DefaultConfig(LongShape(DType::kBF16, 128, 4, 64), Arch("sm_90"));
  EXPECT_EQ(phi3.at("BLOCK_M"), 64);
  // sm_90a: warp-specialized, two computing warpgroups and a copying one,
  // sliding windows included; where 128-row tiles do not divide the blocks,
  // one computing warpgroup, two blocks per SM.
  KernelConfig wgmma = T().DefaultConfig(LongShape(DType::kF16), Arch("sm_90a"));
  EXPECT_EQ(KernelConfigToString(wgmma), "BLOCK_M=128,BLOCK_N=128,STAGES=3,WAVES=12");
  KernelConfig sliding = T().DefaultConfig(
      LongShape(DType::kF16, 128, int(AttentionLayout::kSlidingWindow)), Arch("sm_90a"));
  EXPECT_EQ(KernelConfigToString(sliding), "BLOCK_M=128,BLOCK_N=128,STAGES=3,WAVES=12");
  KernelConfig block64 = T().DefaultConfig(LongShape(DType::kBF16, 128, 4, 64), Arch("sm_90a"));
  EXPECT_EQ(KernelConfigToString(block64), "BLOCK_M=64,BLOCK_N=64,STAGES=3,WAVES=8");
  KernelConfig sliding64 = T().DefaultConfig(
      LongShape(DType::kBF16, 128, int(AttentionLayout::kSlidingWindow), 64), Arch("sm_90a"));
  EXPECT_EQ(KernelConfigToString(sliding64), "BLOCK_M=64,BLOCK_N=64,STAGES=3,WAVES=8");
  EXPECT_EQ(attn::WgmmaBlocksPerSm(
                64, attn::SmemBytes(attn::kEngineWgmma, 64, 64, 3, 128, DTypeSize(DType::kBF16))),
            2);
}

// A decode step (one query row per head, B * H = 32) splits its key range:
// on sm_90a one warpgroup of 64 rows, the group's heads packed as rows. The
// split fills at most the blocks the GPU holds at once, and the tuner sweeps
// it.
Shape DecodeShape(int64_t lk) {
  return Shape(DType::kF16)
      .Set("b", 1).Set("hq", 32).Set("hkv", 8).Set("lq", 1).Set("lk", lk).Set("d", 128)
      .Set("layout", 0).Set("mask", 0);
}

TEST(SparseAttnTemplateTest, DecodeDefaultsSplitKeyRanges) {
  for (const char* name : {"sm_90a", "sm_90", "sm_80", "gfx942"}) {
    SCOPED_TRACE(name);
    const ArchInfo arch = Arch(name);
    const KernelConfig config = T().DefaultConfig(DecodeShape(32768), arch);
    ASSERT_THAT(T().ValidateConfig(config, DecodeShape(32768), arch), IsOk());
    ASSERT_TRUE(config.contains("KV_SPLITS")) << KernelConfigToString(config);
    const int64_t splits = config.at("KV_SPLITS");
    EXPECT_GE(splits, 2);
    // The 32 heads are packed into the tiles of their 8 K / V heads.
    EXPECT_LE(8 * splits, 4 * arch.compute_units) << KernelConfigToString(config);
    absl::StatusOr<std::string> expression = T().NameExpression(config, DecodeShape(32768), arch);
    ASSERT_TRUE(expression.ok()) << expression.status();
    EXPECT_THAT(*expression, ::testing::HasSubstr("split_fwd<"));
    // The tuner sweeps the split.
    bool swept = false;
    for (const TunableParam& param : T().SearchSpace(DecodeShape(32768), arch)) {
      swept = swept || (param.name == "KV_SPLITS" && param.values.size() > 2);
    }
    EXPECT_TRUE(swept);
    // A few key tiles are not shared out; a long launch has no split; a
    // short prefill at batch 1 with four heads leaves most SMs idle: it
    // splits too.
    EXPECT_FALSE(T().DefaultConfig(DecodeShape(64), arch).contains("KV_SPLITS"));
    EXPECT_FALSE(T().DefaultConfig(LongShape(DType::kF16), arch).contains("KV_SPLITS"));
    const Shape prefill = DecodeShape(1024).Set("lq", 1024).Set("hq", 4).Set("hkv", 4);
    const KernelConfig prefill_config = T().DefaultConfig(prefill, arch);
    EXPECT_GE(KvSplitsOf(prefill_config), 2) << KernelConfigToString(prefill_config);
    bool prefill_swept = false;
    for (const TunableParam& param : T().SearchSpace(prefill, arch)) {
      prefill_swept = prefill_swept || param.name == "KV_SPLITS";
    }
    EXPECT_TRUE(prefill_swept);
  }
  // 8 packed tiles: 16 ranges put a block on 128 of the 132 SMs, and more
  // than 16 take at most one block per SM; on an MI300X's 304 CUs, 32.
  EXPECT_EQ(KernelConfigToString(T().DefaultConfig(DecodeShape(32768), Arch("sm_90a"))),
            "BLOCK_M=64,BLOCK_N=64,KV_SPLITS=16,STAGES=2,WAVES=4");
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(DecodeShape(32768), Arch("gfx942"))), 32);
  // Fewer packed tiles go on past 16 ranges while a block per SM is left:
  // 4 tiles to 32 ranges (128 blocks), 1 tile (a tensor-parallel rank's
  // one K / V head) to the most, 64.
  const Shape four_heads = DecodeShape(131072).Set("hq", 16).Set("hkv", 4);
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(four_heads, Arch("sm_90a"))), 32);
  const Shape one_head = DecodeShape(131072).Set("hq", 4).Set("hkv", 1);
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(one_head, Arch("sm_90a"))), 64);
  // Eight times the batch: 64 packed tiles, four ranges each.
  EXPECT_EQ(KernelConfigToString(
                T().DefaultConfig(DecodeShape(8192).Set("b", 8), Arch("sm_90a"))),
            "BLOCK_M=64,BLOCK_N=64,KV_SPLITS=4,STAGES=2,WAVES=4");
  // One query row packs under an element mask too.
  EXPECT_EQ(KernelConfigToString(T().DefaultConfig(
                DecodeShape(8192).Set("b", 8).Set("layout", 2).Set("mask", 3), Arch("sm_90a"))),
            "BLOCK_M=64,BLOCK_N=64,KV_SPLITS=4,STAGES=2,WAVES=4");
  // Unpacked (an element mask over five rows), 256 tiles fill the GPU
  // unsplit: one computing warpgroup of 64 rows, warp-specialized, two
  // blocks per SM.
  EXPECT_EQ(KernelConfigToString(T().DefaultConfig(
                DecodeShape(8192).Set("b", 8).Set("lq", 5).Set("layout", 2).Set("mask", 3),
                Arch("sm_90a"))),
            "BLOCK_M=64,BLOCK_N=64,STAGES=3,WAVES=8");
}

// A block mask per query head keeps a decode step's grouped heads unpacked
// (the launch packs only under one mask for every head), so its default is
// the unpacked one: the warp-specialized 64-row tiles, split until the 32
// query tiles fill sm_90a's two blocks per SM (eight ranges), where the
// packed rule's 64/64/4/2 with 32 ranges ran 1.6x slower unpacked on the
// H100; at B = 8 the 256 tiles fill it unsplit.
TEST(SparseAttnTemplateTest, DecodeWithAMaskPerHeadTakesTheUnpackedDefault) {
  const ArchInfo arch = Arch("sm_90a");
  const Shape per_head = DecodeShape(32768).Set("mask_per_head", 1);
  EXPECT_EQ(KernelConfigToString(T().DefaultConfig(per_head, arch)),
            "BLOCK_M=64,BLOCK_N=64,KV_SPLITS=8,STAGES=3,WAVES=8");
  EXPECT_EQ(KernelConfigToString(T().DefaultConfig(Shape(per_head).Set("b", 8), arch)),
            "BLOCK_M=64,BLOCK_N=64,STAGES=3,WAVES=8");
  // One mask for every head, said or not, packs.
  EXPECT_EQ(T().DefaultConfig(Shape(per_head).Set("mask_per_head", 0), arch),
            T().DefaultConfig(DecodeShape(32768), arch));
}

// A prefill chunk at the end of a long cache: 128-row tiles of 32 heads
// fill half of sm_90a's 132 SMs, so the warp-specialized default splits
// its key ranges in two (its persistent grid walks every range); with
// eight heads (a tensor-parallel rank's) and 512 rows into four (128
// blocks). 512 rows of 32 heads fill the GPU unsplit; 640 overfill it.
TEST(SparseAttnTemplateTest, PrefillChunksSplitWhereSmsWouldIdle) {
  const ArchInfo arch = Arch("sm_90a");
  const Shape chunk = DecodeShape(32768).Set("lq", 256).Set("layout", 1).Set("mask", 1);
  EXPECT_EQ(KernelConfigToString(T().DefaultConfig(chunk, arch)),
            "BLOCK_M=128,BLOCK_N=128,KV_SPLITS=2,STAGES=3,WAVES=12");
  absl::StatusOr<std::string> expression =
      T().NameExpression(T().DefaultConfig(chunk, arch), chunk, arch);
  ASSERT_TRUE(expression.ok()) << expression.status();
  EXPECT_EQ(*expression, "jitk::sparse_attn_ws_split_fwd<128, 128, 12, 3, 128, jitk::f16, 1>");
  const Shape rank = Shape(chunk).Set("hq", 8).Set("hkv", 1).Set("lq", 512);
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(rank, arch)), 4);
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(Shape(chunk).Set("lq", 512), arch)), 1);
  // 120 tiles leave 12 of 132 SMs idle: no split saves a tenth.
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(Shape(chunk).Set("hq", 40).Set("lq", 384), arch)), 1);
  // Tiles of equal length that just overfill the GPU (the H100's fastest
  // in 2026-12-06-h100-overfill-chunks): 160 tiles take four ranges, 192
  // two; 256 fill two rounds unsplit, and 320 gain too little.
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(Shape(chunk).Set("lq", 640), arch)), 4);
  auto swept = [&](const Shape& shape) {
    for (const TunableParam& param : T().SearchSpace(shape, arch)) {
      if (param.name == "KV_SPLITS") return true;
    }
    return false;
  };
  EXPECT_TRUE(swept(Shape(chunk).Set("lq", 640)));  // the tuner can correct it
  EXPECT_FALSE(swept(Shape(chunk).Set("lq", 1024)));
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(Shape(chunk).Set("hq", 40).Set("lq", 512), arch)), 4);
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(Shape(chunk).Set("lq", 768), arch)), 2);
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(Shape(chunk).Set("lq", 1024), arch)), 1);
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(Shape(chunk).Set("lq", 1280), arch)), 1);
  // A dense launch's tiles are of equal length: 160 of them over 32768
  // keys split as the causal chunk's, not under an element mask, and not
  // where a range would keep five key tiles (2560 keys: the H100 tuner's
  // best there is unsplit, 1.18x over four ranges).
  const Shape dense = Shape(chunk).Set("lq", 640).Set("layout", 0).Set("mask", 0);
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(dense, arch)), 4);
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(Shape(dense).Set("mask", 1), arch)), 1);
  const Shape prefill = Shape(dense).Set("hq", 8).Set("hkv", 8).Set("lq", 2560).Set("lk", 2560);
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(prefill, arch)), 1);
  // A causal launch's tiles count as equal up to a quarter of its keys
  // (160 tiles of 10240 rows of two heads).
  const Shape quarter = Shape(chunk).Set("hq", 2).Set("hkv", 2).Set("lq", 10240);
  EXPECT_GT(KvSplitsOf(T().DefaultConfig(Shape(quarter).Set("lk", 40960), arch)), 1);
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(Shape(quarter).Set("lk", 40959), arch)), 1);
  // Block-sparse layouts visit an unknown share of the keys.
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(Shape(chunk).Set("layout", 5), arch)), 1);
  // sm_80's mma tiles (two blocks per SM, 32-key tiles): 64 tiles on 108
  // SMs; rounds count SMs, a range's cost counts keys, not tiles, so eight
  // ranges (five rounds of 128 + 10 key tiles), not the 64 that 32-key
  // tiles of no cost would take.
  EXPECT_EQ(KvSplitsOf(T().DefaultConfig(chunk, Arch("sm_80"))), 8);
}

TEST(SparseAttnTemplateTest, KvSplitsAreChecked) {
  const Shape decode = DecodeShape(4096);
  const ArchInfo arch = Arch("sm_90a");
  KernelConfig ws = {{"BLOCK_M", 128}, {"BLOCK_N", 128}, {"WAVES", 12}, {"STAGES", 3}};
  ASSERT_THAT(T().ValidateConfig(ws, decode, arch), IsOk());
  ws["KV_SPLITS"] = 4;
  EXPECT_THAT(T().ValidateConfig(ws, decode, arch), IsOk()) << "the persistent grid splits too";
  KernelConfig one = {{"BLOCK_M", 64}, {"BLOCK_N", 64}, {"WAVES", 4}, {"STAGES", 2}};
  for (int64_t bad : {0, 65}) {
    one["KV_SPLITS"] = bad;
    EXPECT_THAT(T().ValidateConfig(one, decode, arch).message(),
                ::testing::HasSubstr("KV_SPLITS must be in [1, 64]"));
  }
}

// The second compile after spills drops the request of two waves per SIMD,
// only where the kernel makes it: the MFMA engine from CDNA2 on, at tiles
// MfmaWavesPerSimd passes.
TEST(SparseAttnTemplateTest, SpillFallbackDropsTheWavesPerSimdRequest) {
  const Shape f16 = AttnShape(DType::kF16);
  const ArchInfo gfx90a = Arch("gfx90a");
  const KernelConfig config = T().DefaultConfig(f16, gfx90a);
  ASSERT_EQ(attn::MfmaWavesPerSimd(attn::kEngineMfma, int(config.at("BLOCK_N")), 128,
                                   int(config.at("STAGES")), int(config.at("WAVES")) * 64),
            2);
  EXPECT_THAT(T().SpillFallbackOptions(config, f16, gfx90a),
              ::testing::ElementsAre("-DJITK_ATTN_NO_WAVES_PER_SIMD"));
  // CDNA1 accumulates in AGPRs anyway; NVIDIA and fp32 (FMA engine) never ask.
  EXPECT_THAT(T().SpillFallbackOptions(config, f16, Arch("gfx908")), ::testing::IsEmpty());
  for (const char* nvidia : {"sm_80", "sm_90"}) {
    const ArchInfo arch = Arch(nvidia);
    EXPECT_THAT(T().SpillFallbackOptions(T().DefaultConfig(f16, arch), f16, arch),
                ::testing::IsEmpty())
        << nvidia;
  }
  const Shape f32 = AttnShape(DType::kF32);
  EXPECT_THAT(T().SpillFallbackOptions(T().DefaultConfig(f32, gfx90a), f32, gfx90a),
              ::testing::IsEmpty());
  // Tiles past the rule's bound: no request, nothing to drop.
  const KernelConfig wide = {{"BLOCK_M", 64}, {"BLOCK_N", 64}, {"WAVES", 2}, {"STAGES", 2}};
  ASSERT_THAT(T().ValidateConfig(wide, f16, gfx90a), IsOk());
  EXPECT_THAT(T().SpillFallbackOptions(wide, f16, gfx90a), ::testing::IsEmpty());
}

TEST(SparseAttnTemplateTest, SearchSpaceHasTheTunables) {
  for (const char* arch : {"sm_90", "gfx90a", "gfx1100"}) {
    // A launch that fills the GPU: no key-range splits to sweep.
    std::vector<TunableParam> space = T().SearchSpace(LongShape(DType::kF16), Arch(arch));
    std::vector<std::string> names;
    for (const TunableParam& p : space) {
      names.push_back(p.name);
      EXPECT_FALSE(p.values.empty());
    }
    EXPECT_THAT(names, ::testing::ElementsAre("BLOCK_M", "BLOCK_N", "WAVES", "STAGES"));
  }
}

TEST(SparseAttnTemplateTest, ValidateConfigRejects) {
  const auto code = absl::StatusCode::kInvalidArgument;
  const Shape s = AttnShape(DType::kF16);
  const ArchInfo sm90 = Arch("sm_90"), gfx90a = Arch("gfx90a");
  auto cfg = [](int64_t bm, int64_t bn, int64_t w, int64_t st) {
    return KernelConfig{{"BLOCK_M", bm}, {"BLOCK_N", bn}, {"WAVES", w}, {"STAGES", st}};
  };
  EXPECT_THAT(T().ValidateConfig({{"BLOCK_M", 64}}, s, sm90), StatusIs(code, "BLOCK_N"));
  KernelConfig extra = cfg(64, 64, 4, 2);
  extra["VEC"] = 4;
  EXPECT_THAT(T().ValidateConfig(extra, s, sm90), StatusIs(code, "no parameter VEC"));
  EXPECT_THAT(T().ValidateConfig(cfg(96, 64, 2, 2), s, sm90), StatusIs(code, "divide"));
  EXPECT_THAT(T().ValidateConfig(cfg(64, 64, 8, 2), s, sm90),
              StatusIs(code, "multiple of 16 * WAVES"));
  EXPECT_THAT(T().ValidateConfig(cfg(128, 128, 8, 4), s, sm90),
              StatusIs(code, "bytes of shared memory"));
  EXPECT_THAT(T().ValidateConfig(cfg(128, 64, 4, 2), s, sm90), IsOk());
  EXPECT_THAT(T().ValidateConfig(cfg(64, 64, 1, 2), s, sm90), StatusIs(code, "would spill"));
  // Two m-tiles per warp compute 64 keys per pass: wider tiles take whole passes.
  EXPECT_THAT(T().ValidateConfig(cfg(64, 96, 2, 2), Shape(s).Set("block", 192), sm90),
              StatusIs(code, "multiple of 64"));
  EXPECT_THAT(T().ValidateConfig(cfg(96, 48, 3, 2), Shape(s).Set("block", 96), sm90), IsOk());
  EXPECT_THAT(T().ValidateConfig(cfg(64, 64, 4, 1), s, gfx90a), StatusIs(code, "32 * WAVES"));
  EXPECT_THAT(T().ValidateConfig(cfg(128, 64, 4, 3), s, gfx90a),
              StatusIs(code, "STAGES must be 1 or 2"));
  // The MFMA engine's second stage waits in registers, not in LDS: it costs
  // a wave of 32 rows 128 registers for a 128x64 tile pair (d = 64).
  EXPECT_EQ(attn::SmemBytes(attn::kEngineMfma, 128, 64, 2, 128, 2),
            attn::SmemBytes(attn::kEngineMfma, 128, 64, 1, 128, 2));
  EXPECT_THAT(T().ValidateConfig(cfg(128, 64, 4, 2), s, gfx90a), IsOk());
  EXPECT_THAT(T().ValidateConfig(cfg(32, 128, 1, 1), AttnShape(DType::kF16, 64), gfx90a), IsOk());
  EXPECT_THAT(T().ValidateConfig(cfg(32, 128, 1, 2), AttnShape(DType::kF16, 64), gfx90a),
              StatusIs(code, "would spill"));
  EXPECT_THAT(T().ValidateConfig(cfg(128, 128, 4, 1), AttnShape(DType::kF16, 256), gfx90a),
              StatusIs(code, "shared memory"));
  EXPECT_THAT(T().ValidateConfig(cfg(64, 64, 32, 1), AttnShape(DType::kF32), sm90),
              StatusIs(code, "WAVES in [1, 16]"));
  const ArchInfo sm90a = Arch("sm_90a");
  EXPECT_THAT(T().ValidateConfig(cfg(128, 64, 8, 2), s, sm90a), IsOk());
  EXPECT_THAT(T().ValidateConfig(cfg(128, 64, 4, 2), s, sm90a), StatusIs(code, "warpgroups"));
  EXPECT_THAT(T().ValidateConfig(cfg(64, 32, 4, 2), s, sm90a), StatusIs(code, "BLOCK_N 64 or 128"));
  EXPECT_THAT(T().ValidateConfig(cfg(192, 64, 12, 2), Shape(s).Set("block", 192), sm90a),
              StatusIs(code, "rows per step"));
  // A fourth warpgroup beyond BLOCK_M / 16 warps only copies.
  EXPECT_THAT(T().ValidateConfig(cfg(128, 128, 12, 2), s, sm90a), IsOk());
  EXPECT_THAT(T().ValidateConfig(cfg(64, 64, 8, 3), s, sm90a), IsOk());
  EXPECT_THAT(T().ValidateConfig(cfg(128, 128, 12, 1), s, sm90a), StatusIs(code, "STAGES >= 2"));
  EXPECT_THAT(T().ValidateConfig(cfg(128, 64, 16, 2), s, sm90a), StatusIs(code, "warpgroups"));
}

TEST(SparseAttnTemplateTest, NameExpression) {
  KernelConfig c = {{"BLOCK_M", 64}, {"BLOCK_N", 64}, {"WAVES", 4}, {"STAGES", 2}};
  absl::StatusOr<std::string> name = T().NameExpression(c, AttnShape(DType::kF16), Arch("sm_80"));
  ASSERT_THAT(name, IsOk());
  EXPECT_EQ(*name, "jitk::sparse_attn_fwd<64, 64, 4, 2, 128, jitk::f16, 1, 1>");
  // From sm_90 on, the mma engine's kernel copies with tensor maps.
  name = T().NameExpression(c, AttnShape(DType::kF16), Arch("sm_90"));
  ASSERT_THAT(name, IsOk());
  EXPECT_EQ(*name, "jitk::sparse_attn_tma_fwd<64, 64, 4, 2, 128, jitk::f16, 1>");
  // On sm_90a too, for the head dims the wgmma engine does not take.
  name = T().NameExpression(c, AttnShape(DType::kF16, 96), Arch("sm_90a"));
  ASSERT_THAT(name, IsOk());
  EXPECT_EQ(*name, "jitk::sparse_attn_tma_fwd<64, 64, 4, 2, 96, jitk::f16, 1>");
  // The sliding-window layout selects its element mask; fp32 the FMA engine.
  KernelConfig f = {{"BLOCK_M", 64}, {"BLOCK_N", 32}, {"WAVES", 4}, {"STAGES", 2}};
  name = T().NameExpression(f, AttnShape(DType::kF32, 128, 2), Arch("sm_90"));
  ASSERT_THAT(name, IsOk());
  EXPECT_EQ(*name, "jitk::sparse_attn_fwd<64, 32, 4, 2, 128, float, 2, 0>");
  Shape bidir = AttnShape(DType::kBF16, 64, 2).Set("mask", 3);
  KernelConfig m = {{"BLOCK_M", 128}, {"BLOCK_N", 64}, {"WAVES", 4}, {"STAGES", 1}};
  name = T().NameExpression(m, bidir, Arch("gfx90a"));
  ASSERT_THAT(name, IsOk());
  EXPECT_EQ(*name, "jitk::sparse_attn_fwd<128, 64, 4, 1, 64, jitk::bf16, 3, 2>");
  // A copying warpgroup beyond the computing ones: the persistent kernel.
  KernelConfig ws = {{"BLOCK_M", 128}, {"BLOCK_N", 128}, {"WAVES", 12}, {"STAGES", 3}};
  name = T().NameExpression(ws, AttnShape(DType::kF16), Arch("sm_90a"));
  ASSERT_THAT(name, IsOk());
  EXPECT_EQ(*name, "jitk::sparse_attn_ws_fwd<128, 128, 12, 3, 128, jitk::f16, 1>");
}

// Fake device addresses: PlanLaunch only checks and packs them.
const void* Addr(uintptr_t a) { return reinterpret_cast<const void*>(a); }

LaunchArgs GoodArgs(int64_t mask_heads = 8) {
  LaunchArgs args;
  args.Ptr("q", Addr(0x10000)).Ptr("k", Addr(0x20000)).Ptr("v", Addr(0x30000));
  args.Ptr("o", Addr(0x40000)).Ptr("lse", Addr(0x50000));
  args.Ptr("kv_num_blocks", Addr(0x60000)).Ptr("kv_indices", Addr(0x70000));
  args.Ptr("full_kv_num_blocks", Addr(0x80000)).Ptr("full_kv_indices", Addr(0x90000));
  args.Int("mask_batch", 1).Int("mask_heads", mask_heads);
  return args;
}

TEST(SparseAttnTemplateTest, PlanLaunchPacksOneStruct) {
  const Shape s = AttnShape(DType::kF16);
  const ArchInfo sm80 = Arch("sm_80");
  const KernelConfig c = {{"BLOCK_M", 128}, {"BLOCK_N", 32}, {"WAVES", 4}, {"STAGES", 2}};
  LaunchPlan plan;
  LaunchArgs args = GoodArgs();
  // BLHD strides for q.
  args.Int("q_stride_b", 1000 * 8 * 128).Int("q_stride_h", 128).Int("q_stride_l", 8 * 128);
  ASSERT_THAT(T().PlanLaunch(c, s, sm80, args, plan), IsOk());
  EXPECT_EQ(plan.grid.x, 8u) << "rank-major: heads first";
  EXPECT_EQ(plan.grid.y, (1000u + 127) / 128);
  EXPECT_EQ(plan.grid.z, 2u);
  EXPECT_EQ(plan.block.x, 4u * 32);
  EXPECT_EQ(plan.dynamic_shared_bytes,
            uint32_t(attn::SmemBytes(attn::kEngineMma, int(c.at("BLOCK_M")), int(c.at("BLOCK_N")),
                                     int(c.at("STAGES")), 128, 2)));
  ASSERT_EQ(plan.args.count(), 1u);
  SparseAttnParams p;
  std::memcpy(&p, plan.args.pointers()[0], sizeof(p));
  EXPECT_EQ(p.q, Addr(0x10000));
  EXPECT_EQ(p.full_kv_indices, static_cast<const int*>(Addr(0x90000)));
  EXPECT_EQ(p.q_stride_h, 128);
  EXPECT_EQ(p.q_stride_l, 8 * 128);
  EXPECT_EQ(p.k_stride_h, 1000 * 128) << "default: contiguous BHLD";
  EXPECT_EQ(p.num_q_blocks, 8);
  EXPECT_EQ(p.num_kv_blocks, 8);
  EXPECT_EQ(p.mask_stride_b, 0) << "mask_batch 1 broadcasts";
  EXPECT_EQ(p.mask_stride_h, 8);
  EXPECT_NEAR(p.scale_log2, 1.4426950408889634 / std::sqrt(128.0), 1e-7);
  EXPECT_EQ(p.tile_order, attn::kOrderRankMajor);
  EXPECT_EQ(p.q_offset, 0) << "default: top-left aligned";
  EXPECT_EQ(p.q_row_mask, -1) << "every row at its own position";
  ASSERT_THAT(T().PlanLaunch(c, s, sm80, GoodArgs().Int("q_offset", 1000), plan), IsOk());
  std::memcpy(&p, plan.args.pointers()[0], sizeof(p));
  EXPECT_EQ(p.q_offset, 1000);
  // AMD: static LDS, no dynamic shared memory.
  const ArchInfo gfx90a = Arch("gfx90a");
  ASSERT_THAT(T().PlanLaunch(T().DefaultConfig(s, gfx90a), s, gfx90a, GoodArgs(), plan), IsOk());
  EXPECT_EQ(plan.dynamic_shared_bytes, 0u);
  EXPECT_EQ(plan.block.x, 4u * 64);
}

// A decode step's grouped heads as the rows of one tile: the launch's grid
// and parameters have one head per K / V head, with the group's heads as its
// rows, where the block mask is every head's and q's and o's rows stay evenly
// spaced; the split pass's scratch is laid out the same way.
TEST(SparseAttnTemplateTest, PlanLaunchPacksGroupedHeadsAsRows) {
  const ArchInfo arch = Arch("sm_90a");
  KernelConfig split = {{"BLOCK_M", 64}, {"BLOCK_N", 64}, {"WAVES", 4}, {"STAGES", 2}};
  split["KV_SPLITS"] = 4;
  auto planned = [&](const KernelConfig& c, const Shape& s, const LaunchArgs& args) {
    LaunchPlan plan;
    EXPECT_THAT(T().PlanLaunch(c, s, arch, args, plan), IsOk());
    SparseAttnParams p;
    std::memcpy(&p, plan.args.pointers()[0], sizeof(p));
    return std::make_pair(plan.grid, p);
  };
  const Shape one_row = DecodeShape(4096);  // hq 32, hkv 8, lq 1, d 128
  auto [grid, p] = planned(split, one_row, GoodArgs(/*mask_heads=*/1));
  EXPECT_EQ(grid.x, 1u);
  EXPECT_EQ(grid.y, 8u);
  EXPECT_EQ(grid.z, 4u) << "one batch, four key ranges";
  EXPECT_EQ(p.heads_q, 8);
  EXPECT_EQ(p.len_q, 4);
  EXPECT_EQ(p.q_stride_l, 128) << "one row per head: the head stride";
  EXPECT_EQ(p.q_stride_h, 4 * 128);
  EXPECT_EQ(p.o_stride_h, 4 * 128) << "the scratch's rows, packed";
  // A mask per head: every head its own tile.
  std::tie(grid, p) = planned(split, one_row, GoodArgs(/*mask_heads=*/32));
  EXPECT_EQ(grid.y, 32u);
  EXPECT_EQ(p.heads_q, 32);
  EXPECT_EQ(p.len_q, 1);
  // Five rows: packed when a head's rows are contiguous, not when heads
  // interleave ([B, L, H, D]).
  const Shape five_rows = DecodeShape(4096).Set("lq", 5);
  std::tie(grid, p) = planned(split, five_rows, GoodArgs(1));
  EXPECT_EQ(p.len_q, 20);
  EXPECT_EQ(p.q_stride_l, 128);
  EXPECT_EQ(p.q_stride_h, 4 * 5 * 128);
  LaunchArgs blhd = GoodArgs(1);
  blhd.Int("q_stride_b", 5 * 32 * 128).Int("q_stride_h", 128).Int("q_stride_l", 32 * 128);
  std::tie(grid, p) = planned(split, five_rows, blhd);
  EXPECT_EQ(p.heads_q, 32);
  EXPECT_EQ(p.len_q, 5);
  // The warp-specialized engine reads q and o by tensor maps: unpacked.
  const KernelConfig ws = {{"BLOCK_M", 64}, {"BLOCK_N", 64}, {"WAVES", 8}, {"STAGES", 3}};
  std::tie(grid, p) = planned(ws, one_row, GoodArgs(1));
  EXPECT_EQ(p.heads_q, 32);
  EXPECT_EQ(p.q_row_mask, -1);
  // An element mask sees a position per row: one query row packs, every
  // row of a group at q_offset (the sliding masks fold them onto it);
  // head-major, as packed launches are.
  const Shape sliding_one_row = DecodeShape(4096).Set("layout", 2).Set("mask", 2);
  LaunchArgs window = GoodArgs(1).Int("window", 1024).Int("global_tokens", 0);
  std::tie(grid, p) = planned(split, sliding_one_row, window.Int("q_offset", 4000));
  EXPECT_EQ(p.heads_q, 8);
  EXPECT_EQ(p.len_q, 4);
  EXPECT_EQ(p.q_row_mask, 0);
  EXPECT_EQ(p.q_offset, 4000);
  EXPECT_EQ(p.tile_order, attn::kOrderHeadMajor);
  EXPECT_EQ(grid.x, 1u);
  EXPECT_EQ(grid.y, 8u);
  // A causal step packs where its mask hides no key (a row at the last key
  // or after it): the causal mask takes the packed rows' positions as they
  // come.
  const Shape causal_one_row = DecodeShape(4096).Set("layout", 1).Set("mask", 1);
  const KernelConfig unsplit = {{"BLOCK_M", 64}, {"BLOCK_N", 64}, {"WAVES", 4}, {"STAGES", 2}};
  std::tie(grid, p) = planned(unsplit, causal_one_row, GoodArgs(1).Int("q_offset", 4095));
  EXPECT_EQ(p.heads_q, 8);
  EXPECT_EQ(p.tile_order, attn::kOrderHeadMajor) << "rank-major reads the grid's x as the head";
  EXPECT_EQ(grid.y, 8u);
  std::tie(grid, p) = planned(unsplit, causal_one_row, GoodArgs(1).Int("q_offset", 4094));
  EXPECT_EQ(p.heads_q, 32);
  EXPECT_EQ(p.q_row_mask, -1);
  // Five rows are five positions: unpacked.
  std::tie(grid, p) =
      planned(split, DecodeShape(4096).Set("lq", 5).Set("layout", 1).Set("mask", 1), GoodArgs(1));
  EXPECT_EQ(p.heads_q, 32);
  EXPECT_EQ(p.q_row_mask, -1);
  // Under a sliding mask a power-of-two count of rows packs, packed row r
  // at q_offset + r mod 4 (speculative tokens at the end of the keys); five
  // rows do not, nor four under a causal mask that hides keys from them.
  auto sliding_rows = [&](int64_t lq) {
    return planned(
        split, DecodeShape(4096).Set("lq", lq).Set("layout", 2).Set("mask", 2),
        GoodArgs(1).Int("window", 1024).Int("global_tokens", 0).Int("q_offset", 4096 - lq));
  };
  std::tie(grid, p) = sliding_rows(4);
  EXPECT_EQ(p.heads_q, 8);
  EXPECT_EQ(p.len_q, 16);
  EXPECT_EQ(p.q_row_mask, 3);
  EXPECT_EQ(p.q_stride_h, 4 * 4 * 128);
  std::tie(grid, p) = sliding_rows(5);
  EXPECT_EQ(p.heads_q, 32);
  EXPECT_EQ(p.q_row_mask, -1);
  std::tie(grid, p) = planned(split, DecodeShape(4096).Set("lq", 4).Set("layout", 1).Set("mask", 1),
                              GoodArgs(1).Int("q_offset", 4092));
  EXPECT_EQ(p.heads_q, 32);
  EXPECT_EQ(p.q_row_mask, -1);
  // The rows a warp masks together must lie in one fold or span whole ones:
  // 32-row warps over 32 positions pack, 48-row warps do not (three heads
  // of 32 rows in 96-token mask blocks, on sm_80's mma engine).
  const Shape three_heads = DecodeShape(4096)
                                .Set("hq", 24)
                                .Set("lq", 32)
                                .Set("block", 96)
                                .Set("layout", 2)
                                .Set("mask", 2);
  const LaunchArgs at_the_end =
      GoodArgs(1).Int("window", 1024).Int("global_tokens", 0).Int("q_offset", 4096 - 32);
  auto heads_on_sm80 = [&](int64_t block_m) {
    LaunchPlan plan;
    const KernelConfig c = {{"BLOCK_M", block_m}, {"BLOCK_N", 32}, {"WAVES", 1}, {"STAGES", 2}};
    EXPECT_THAT(T().PlanLaunch(c, three_heads, Arch("sm_80"), at_the_end, plan), IsOk());
    SparseAttnParams planned_params;
    std::memcpy(&planned_params, plan.args.pointers()[0], sizeof(planned_params));
    return planned_params.heads_q;
  };
  EXPECT_EQ(heads_on_sm80(32), 8);
  EXPECT_EQ(heads_on_sm80(48), 24);
}

// Under a sliding mask a split launch takes at most one key range per key
// tile the kernel visits: every 64-key tile of each 128-token mask block the
// window (and the global tokens) touch at the launch's query position. Both
// passes see the same count, the scratch stays the config's. A query that
// visits three tiles or fewer (kOnePassWindowTiles, from decode steps timed
// on an H100) is one pass of the split kernel.
TEST(SparseAttnTemplateTest, SlidingSplitsAtMostTheKeyTilesTheKernelVisits) {
  const ArchInfo arch = Arch("sm_90a");
  KernelConfig split = {{"BLOCK_M", 64}, {"BLOCK_N", 64}, {"WAVES", 4}, {"STAGES", 2}};
  split["KV_SPLITS"] = 32;
  const Shape sliding = DecodeShape(32768).Set("layout", 2).Set("mask", 2);
  auto ranges = [&](int64_t window, int64_t global_tokens, int64_t q_offset) {
    LaunchPlan plan;
    LaunchArgs args = GoodArgs(1).Int("window", window).Int("global_tokens", global_tokens);
    EXPECT_THAT(T().PlanLaunch(split, sliding, arch, args.Int("q_offset", q_offset), plan), IsOk());
    SparseAttnParams part, merge;
    std::memcpy(&part, plan.args.pointers()[0], sizeof(part));
    if (plan.next == nullptr) {  // one pass, into the caller's o and lse
      EXPECT_EQ(part.kv_splits, 1);
      EXPECT_EQ(part.o, Addr(0x40000));
      EXPECT_EQ(plan.scratch_bytes, 0u);
      EXPECT_EQ(plan.grid.z, 1u) << "batch 1, no ranges";
      return 1;
    }
    std::memcpy(&merge, plan.next->args.pointers()[0], sizeof(merge));
    EXPECT_EQ(part.kv_splits, merge.kv_splits);
    EXPECT_EQ(plan.grid.z, uint32_t(part.kv_splits)) << "batch 1";
    // Partial O (f16) and LSE (fp32) of 32 rows, one per query head, per range.
    EXPECT_EQ(plan.scratch_bytes, size_t(32 * 32 * (128 * 2 + 4))) << "the config's 32 ranges";
    return part.kv_splits;
  };
  // The 64-key tiles of the 128-token blocks a query at q sees keys of.
  auto visited_tiles = [](int64_t window, int64_t global_tokens, int64_t q) {
    std::set<int64_t> blocks;
    for (int64_t k = 0; k < global_tokens; ++k) blocks.insert(k / 128);
    for (int64_t k = std::max<int64_t>(0, q - window + 1); k <= q; ++k) blocks.insert(k / 128);
    return 2 * int64_t(blocks.size());
  };
  const std::pair<int64_t, int64_t> windows_and_global_tokens[] = {
      {1, 0},   {2, 0},   {64, 0},  {65, 0},   {128, 0},    {129, 0},
      {130, 0}, {512, 0}, {576, 0}, {1000, 0}, {1024, 128}, {300, 5}};
  for (auto [window, global_tokens] : windows_and_global_tokens) {
    for (int64_t q : {32767, 32730}) {
      SCOPED_TRACE(absl::StrCat("window ", window, " global ", global_tokens, " query at ", q));
      const int64_t visited = visited_tiles(window, global_tokens, q);
      EXPECT_EQ(ranges(window, global_tokens, q), visited <= 3 ? 1 : visited);
    }
  }
  EXPECT_EQ(ranges(128, 0, 32767), 1) << "two tiles of one block: one pass";
  EXPECT_EQ(ranges(128, 0, 32730), 4) << "128 keys across two blocks: their four tiles";
  EXPECT_EQ(ranges(130, 0, 32767), 4) << "parts of three tiles in two blocks: their four tiles";
  EXPECT_EQ(ranges(512, 0, 32767), 8) << "512 keys ending on a block edge: four blocks";
  EXPECT_EQ(ranges(512, 0, 32730), 10) << "512 keys across five blocks";
  EXPECT_EQ(ranges(8192, 0, 32767), 32) << "the config's";
  EXPECT_EQ(ranges(200, 300, 250), 4)
      << "global tokens 0-250 seen: blocks 0-1, not the three of 300";
  // The two-sided window counts both sides.
  const Shape two_sided = DecodeShape(32768).Set("layout", 2).Set("mask", 3);
  LaunchPlan plan;
  ASSERT_THAT(
      T().PlanLaunch(split, two_sided, arch,
                     GoodArgs(1).Int("window", 256).Int("global_tokens", 0).Int("q_offset", 4000),
                     plan),
      IsOk());
  EXPECT_EQ(plan.grid.z, uint32_t(10)) << "511 keys about the query, across five blocks";
  ASSERT_THAT(T().PlanLaunch(split, two_sided, arch,
                             GoodArgs(1).Int("window", 65).Int("global_tokens", 0), plan),
              IsOk());
  EXPECT_EQ(plan.next, nullptr) << "65 keys at the end (none after the query), two tiles: one pass";
  ASSERT_THAT(
      T().PlanLaunch(split, two_sided, arch,
                     GoodArgs(1).Int("window", 64).Int("global_tokens", 300).Int("q_offset", 100),
                     plan),
      IsOk());
  EXPECT_EQ(plan.grid.z, 32u) << "a global token's row sees all 512 tiles: the config's ranges";
}

// A window of four key tiles is one pass where the split's blocks would
// share SMs (kOnePassSharedWindowTiles): the packed query tiles (8 per batch)
// times the ranges against the H100's 132 SMs.
TEST(SparseAttnTemplateTest, FewWindowTilesAreOnePassWhereRangesWouldShareSms) {
  const ArchInfo arch = Arch("sm_90a");
  ASSERT_EQ(arch.compute_units, 132);
  KernelConfig split = {{"BLOCK_M", 64}, {"BLOCK_N", 64}, {"WAVES", 4}, {"STAGES", 2}};
  split["KV_SPLITS"] = 8;
  auto ranges = [&](int64_t batch, int64_t window) {
    const Shape sliding = DecodeShape(32768).Set("b", batch).Set("layout", 2).Set("mask", 2);
    LaunchPlan plan;
    LaunchArgs args = GoodArgs(1).Int("window", window).Int("global_tokens", 0);
    EXPECT_THAT(T().PlanLaunch(split, sliding, arch, args.Int("q_offset", 32767), plan), IsOk());
    SparseAttnParams p;
    std::memcpy(&p, plan.args.pointers()[0], sizeof(p));
    EXPECT_EQ(plan.next == nullptr, p.kv_splits == 1);
    EXPECT_EQ(plan.grid.z, uint32_t(batch * p.kv_splits));
    return p.kv_splits;
  };
  EXPECT_EQ(ranges(8, 192), 1) << "64 tiles x 4 ranges share SMs";
  EXPECT_EQ(ranges(5, 192), 1) << "40 tiles x 4 ranges";
  EXPECT_EQ(ranges(4, 192), 4) << "32 tiles x 4 ranges fit the SMs";
  EXPECT_EQ(ranges(8, 256), 4) << "five tiles by the window: split, over the four of two blocks";
  EXPECT_EQ(ranges(1, 128), 1) << "128 keys ending on a block edge: two tiles, one pass";
}

// The combine pass waits for the split pass on the GPU where the kernel
// can (sm_90 and later: griddepcontrol), so its launch may start early
// there; elsewhere, and for the split pass itself, launches are plain.
TEST(SparseAttnTemplateTest, CombinePassIsADependentLaunchFromSm90) {
  KernelConfig split = {{"BLOCK_M", 64}, {"BLOCK_N", 64}, {"WAVES", 4}, {"STAGES", 2}};
  split["KV_SPLITS"] = 8;
  auto dependent = [&](const char* arch) -> std::pair<bool, bool> {
    LaunchPlan plan;
    EXPECT_THAT(T().PlanLaunch(split, DecodeShape(32768), Arch(arch), GoodArgs(1), plan), IsOk());
    EXPECT_NE(plan.next, nullptr) << arch;
    if (plan.next == nullptr) return {true, false};
    return {plan.dependent, plan.next->dependent};
  };
  EXPECT_EQ(dependent("sm_90a"), std::make_pair(false, true));
  EXPECT_EQ(dependent("sm_90"), std::make_pair(false, true));
  EXPECT_EQ(dependent("sm_80"), std::make_pair(false, false));
  EXPECT_EQ(dependent("gfx942"), std::make_pair(false, false));
  // An unsplit launch is one plain pass.
  split["KV_SPLITS"] = 1;
  LaunchPlan plan;
  ASSERT_THAT(T().PlanLaunch(split, DecodeShape(32768), Arch("sm_90a"), GoodArgs(1), plan), IsOk());
  EXPECT_EQ(plan.next, nullptr);
  EXPECT_FALSE(plan.dependent);
}

// The combine pass merges a row's ranges with one thread per four columns
// up to eight ranges, two past that: a group's four packed rows of d = 128
// take one block of 128 threads, or two.
TEST(SparseAttnTemplateTest, CombinePassTakesASecondLanePastEightRanges) {
  KernelConfig split = {{"BLOCK_M", 64}, {"BLOCK_N", 64}, {"WAVES", 4}, {"STAGES", 2}};
  for (auto [splits, blocks] : {std::pair{2, 1u}, {8, 1u}, {9, 2u}, {16, 2u}}) {
    SCOPED_TRACE(splits);
    split["KV_SPLITS"] = splits;
    LaunchPlan plan;
    ASSERT_THAT(T().PlanLaunch(split, DecodeShape(32768), Arch("sm_90a"), GoodArgs(1), plan),
                IsOk());
    ASSERT_NE(plan.next, nullptr);
    EXPECT_EQ(plan.next->block.x, 128u);
    EXPECT_EQ(plan.next->grid.x, blocks);
    EXPECT_EQ(plan.next->grid.y, 8u) << "the packed launch's heads";
  }
}

// Rank-major order (grid heads x query tiles x batch) for a causal mask
// where at least four blocks per head are resident and the launch is at
// most 32 waves of resident blocks; head-major otherwise and for other
// masks. The persistent grid's walk takes rank-major order by the same
// rules (heads of every batch counted) where it would shorten its busiest
// block by 5 %.
TEST(SparseAttnTemplateTest, PlanLaunchPicksTheTileOrder) {
  struct Planned {
    Dim3 grid;
    int tile_order;
  };
  auto plan_for = [](const KernelConfig& c, const Shape& s, const ArchInfo& arch) {
    LaunchPlan plan;
    EXPECT_THAT(T().PlanLaunch(c, s, arch, GoodArgs(/*mask_heads=*/1), plan), IsOk());
    SparseAttnParams p;
    std::memcpy(&p, plan.args.pointers()[0], sizeof(p));
    return Planned{plan.grid, p.tile_order};
  };
  auto shape = [](int64_t batch, int64_t heads, int64_t len, int layout = 1) {
    return AttnShape(DType::kF16, 128, layout)
        .Set("b", batch)
        .Set("hq", heads)
        .Set("hkv", heads)
        .Set("lq", len);
  };
  auto order_of = [&](const KernelConfig& c, const Shape& s, const ArchInfo& arch) {
    return plan_for(c, s, arch).tile_order;
  };
  ArchInfo sm90 = Arch("sm_90");
  // 128x64x4x2: two blocks on each of 132 SMs (registers and shared memory),
  // 264 resident: 66 heads at most, 32 * 264 blocks at most.
  const KernelConfig mma = {{"BLOCK_M", 128}, {"BLOCK_N", 64}, {"WAVES", 4}, {"STAGES", 2}};
  Planned got = plan_for(mma, shape(4, 32, 2048), sm90);
  EXPECT_EQ(got.tile_order, attn::kOrderRankMajor);
  EXPECT_EQ(got.grid.x, 32u) << "heads";
  EXPECT_EQ(got.grid.y, 2048u / 128) << "query tiles";
  EXPECT_EQ(got.grid.z, 4u);
  // Blocks per head: 8 query tiles, 66 * 4 = 264.
  EXPECT_EQ(order_of(mma, shape(1, 66, 1024), sm90), attn::kOrderRankMajor);
  got = plan_for(mma, shape(1, 67, 1024), sm90);
  EXPECT_EQ(got.tile_order, attn::kOrderHeadMajor);
  EXPECT_EQ(got.grid.x, 1024u / 128) << "query tiles";
  EXPECT_EQ(got.grid.y, 67u) << "heads";
  EXPECT_EQ(got.grid.z, 1u);
  // Waves: 264 query tiles x 32 heads = 32 * 264 blocks.
  EXPECT_EQ(order_of(mma, shape(1, 32, 264 * 128), sm90), attn::kOrderRankMajor);
  EXPECT_EQ(order_of(mma, shape(1, 32, 264 * 128 + 1), sm90), attn::kOrderHeadMajor);
  for (int layout : {0, 3, 5}) {  // dense, bigbird, custom: no element mask
    EXPECT_EQ(order_of(mma, shape(4, 8, 4096, layout), sm90), attn::kOrderHeadMajor) << layout;
  }
  // The warp-specialized default: one persistent block on each of 132 SMs.
  const KernelConfig ws = {{"BLOCK_M", 128}, {"BLOCK_N", 128}, {"WAVES", 12}, {"STAGES", 3}};
  const ArchInfo sm90a = Arch("sm_90a");
  auto self = [&](int64_t batch, int64_t heads, int64_t len, int layout = 1) {
    return shape(batch, heads, len, layout).Set("lk", len);  // from the first key
  };
  got = plan_for(ws, self(1, 8, 2560), sm90a);
  EXPECT_EQ(got.tile_order, attn::kOrderRankMajor) << "a block took 37 key tiles, now 20";
  EXPECT_EQ(got.grid.x, 132u);
  EXPECT_EQ(order_of(ws, self(2, 8, 2560), sm90a), attn::kOrderRankMajor);
  EXPECT_EQ(order_of(ws, self(1, 8, 2560, /*layout=*/0), sm90a), attn::kOrderHeadMajor);
  // At least four blocks per head: 33 heads, not 34.
  EXPECT_EQ(order_of(ws, self(1, 33, 2560), sm90a), attn::kOrderRankMajor);
  EXPECT_EQ(order_of(ws, self(1, 34, 2560), sm90a), attn::kOrderHeadMajor);
  // 32 heads of 4096 rows: head-major's rounds hold four heads' tiles each,
  // its busiest block within 5 % of rank-major's.
  EXPECT_EQ(order_of(ws, self(1, 32, 4096), sm90a), attn::kOrderHeadMajor);
  // 32 rounds at most: 8 x 527 tiles (1.42x by the model) but not 8 x 533
  // (1.06x).
  EXPECT_EQ(order_of(ws, self(1, 8, 527 * 128), sm90a), attn::kOrderRankMajor);
  EXPECT_EQ(order_of(ws, self(1, 8, 533 * 128), sm90a), attn::kOrderHeadMajor);
  // Tiles that fit one round.
  EXPECT_EQ(order_of(ws, self(1, 8, 16 * 128), sm90a), attn::kOrderHeadMajor);
  KernelConfig ws_split = ws;
  ws_split["KV_SPLITS"] = 2;
  EXPECT_EQ(order_of(ws_split, self(1, 8, 2560), sm90a), attn::kOrderHeadMajor);

  sm90.compute_units = 100;  // the device's own count: 200 resident, 50 heads at most
  EXPECT_EQ(order_of(mma, shape(1, 50, 1024), sm90), attn::kOrderRankMajor);
  EXPECT_EQ(order_of(mma, shape(1, 51, 1024), sm90), attn::kOrderHeadMajor);
  // 128x128x4x2 needs 170 KiB of shared memory: one block per SM, 100
  // resident, 25 heads at most.
  const KernelConfig wide = {{"BLOCK_M", 128}, {"BLOCK_N", 128}, {"WAVES", 4}, {"STAGES", 2}};
  EXPECT_EQ(order_of(wide, shape(1, 25, 1024), sm90), attn::kOrderRankMajor);
  EXPECT_EQ(order_of(wide, shape(1, 26, 1024), sm90), attn::kOrderHeadMajor);
  // Grid y holds at most 65535 query tiles.
  sm90.compute_units = 1 << 20;
  got = plan_for(mma, shape(1, 1, 65535 * 128), sm90);
  EXPECT_EQ(got.tile_order, attn::kOrderRankMajor);
  EXPECT_EQ(got.grid.y, 65535u);
  got = plan_for(mma, shape(1, 1, 65536 * 128), sm90);
  EXPECT_EQ(got.tile_order, attn::kOrderHeadMajor);
  EXPECT_EQ(got.grid.x, 65536u);
}

// The mma engine from sm_90 on reads K and V (not Q, not O) through tensor
// maps whose boxes are as wide as its padded shared-memory rows, unswizzled,
// for any head dim it takes; sm_80 copies with cp.async and takes the
// parameters alone.
TEST(SparseAttnTemplateTest, PlanLaunchMmaCopiesPaddedBoxes) {
  for (int64_t d : {16, 48, 64, 112, 128}) {
    const Shape s = AttnShape(DType::kBF16, int(d));
    const KernelConfig c = {{"BLOCK_M", 128}, {"BLOCK_N", 64}, {"WAVES", 4}, {"STAGES", 2}};
    LaunchArgs args = GoodArgs();
    args.Int("v_stride_b", 1000 * 2 * d).Int("v_stride_h", d).Int("v_stride_l", 2 * d);  // BLHD
    LaunchPlan plan;
    ASSERT_THAT(T().PlanLaunch(c, s, Arch("sm_90"), args, plan), IsOk());
    ASSERT_EQ(plan.args.count(), 2u) << d;
    ASSERT_EQ(plan.tensor_maps.size(), 2u) << d;
    const size_t maps = size_t(static_cast<std::byte*>(plan.args.pointers()[1]) - plan.args.bytes(0));
    const TensorMapRequest& k = plan.tensor_maps[0];
    const TensorMapRequest& v = plan.tensor_maps[1];
    EXPECT_EQ(k.offset, maps + offsetof(SparseAttnTensorMaps, k));
    EXPECT_EQ(v.offset, maps + offsetof(SparseAttnTensorMaps, v));
    EXPECT_EQ(k.base, Addr(0x20000));
    EXPECT_EQ(v.base, Addr(0x30000));
    const uint32_t row = uint32_t(attn::PaddedRow(int(d), 2));
    EXPECT_GT(row, uint32_t(d)) << "the padding columns lie outside the tensor: zeros";
    EXPECT_EQ(row * 2 % 16, 0u) << "a box row is whole 16-byte pieces";
    EXPECT_THAT(std::vector<uint32_t>(k.box, k.box + 4), ::testing::ElementsAre(row, 64, 1, 1));
    EXPECT_THAT(std::vector<uint32_t>(v.box, v.box + 4), ::testing::ElementsAre(row, 64, 1, 1));
    EXPECT_THAT(std::vector<uint64_t>(k.dims, k.dims + 4), ::testing::ElementsAre(d, 1000, 2, 2));
    EXPECT_THAT(std::vector<uint64_t>(v.dims, v.dims + 4), ::testing::ElementsAre(d, 1000, 2, 2));
    EXPECT_THAT(std::vector<uint64_t>(v.strides, v.strides + 3),
                ::testing::ElementsAre(2 * d * 2, d * 2, 1000 * 2 * d * 2))
        << "v's own BLHD strides, in bytes";
    EXPECT_FALSE(k.swizzle_128b);
    EXPECT_FALSE(v.swizzle_128b);
    EXPECT_EQ(plan.dynamic_shared_bytes,
              uint32_t(attn::SmemBytes(attn::kEngineMma, 128, 64, 2, int(d), 2)));

    ASSERT_THAT(T().PlanLaunch(c, s, Arch("sm_80"), args, plan), IsOk());
    EXPECT_EQ(plan.args.count(), 1u) << d;
    EXPECT_TRUE(plan.tensor_maps.empty()) << d;
  }
}

// O leaves the warp-specialized kernel through its own map: o's length,
// heads and strides (here BLHD while q stays BHLD), BLOCK_M rows per box.
TEST(SparseAttnTemplateTest, PlanLaunchWarpSpecializedMapsOutput) {
  const Shape s = AttnShape(DType::kBF16).Set("lq", 600).Set("lk", 1000);
  const KernelConfig ws = {{"BLOCK_M", 64}, {"BLOCK_N", 128}, {"WAVES", 8}, {"STAGES", 2}};
  ASSERT_TRUE(attn::WgmmaWarpSpecialized(64, 8));
  LaunchArgs args = GoodArgs();
  args.Int("o_stride_b", 600 * 8 * 128).Int("o_stride_h", 128).Int("o_stride_l", 8 * 128);
  LaunchPlan plan;
  ASSERT_THAT(T().PlanLaunch(ws, s, Arch("sm_90a"), args, plan), IsOk());
  ASSERT_EQ(plan.tensor_maps.size(), 4u);
  const TensorMapRequest& q = plan.tensor_maps[0];
  const TensorMapRequest& k = plan.tensor_maps[1];
  const TensorMapRequest& o = plan.tensor_maps[3];
  EXPECT_EQ(o.base, Addr(0x40000));
  EXPECT_THAT(std::vector<uint64_t>(o.dims, o.dims + 4), ::testing::ElementsAre(128, 600, 8, 2))
      << "len_q, heads_q";
  EXPECT_THAT(std::vector<uint64_t>(o.strides, o.strides + 3),
              ::testing::ElementsAre(8 * 128 * 2, 128 * 2, 600 * 8 * 128 * 2))
      << "o's own strides, in bytes";
  EXPECT_THAT(std::vector<uint32_t>(o.box, o.box + 4), ::testing::ElementsAre(64, 64, 1, 1))
      << "BLOCK_M rows";
  EXPECT_THAT(std::vector<uint64_t>(q.strides, q.strides + 3),
              ::testing::ElementsAre(128 * 2, 600 * 128 * 2, 8 * 600 * 128 * 2));
  EXPECT_THAT(std::vector<uint32_t>(k.box, k.box + 4), ::testing::ElementsAre(64, 128, 1, 1))
      << "BLOCK_N rows";
}

TEST(SparseAttnTemplateTest, PlanLaunchWarpSpecializedGridIsPersistent) {
  const Shape s = AttnShape(DType::kF16);  // 8 query tiles of 128 rows x 8 heads x 2 batches
  ArchInfo sm90a = Arch("sm_90a");
  const KernelConfig ws = {{"BLOCK_M", 128}, {"BLOCK_N", 128}, {"WAVES", 12}, {"STAGES", 2}};
  ASSERT_TRUE(attn::WgmmaWarpSpecialized(128, 12));
  LaunchPlan plan;
  ASSERT_THAT(T().PlanLaunch(ws, s, sm90a, GoodArgs(), plan), IsOk());
  EXPECT_EQ(plan.grid.x, 128u) << "fewer query tiles than SMs: one block each";
  EXPECT_EQ(plan.grid.y, 1u);
  EXPECT_EQ(plan.grid.z, 1u);
  EXPECT_EQ(plan.block.x, 12u * 32);
  // 32 + 2 * 64 KiB would let two blocks share an SM; the request keeps one.
  EXPECT_GT(plan.dynamic_shared_bytes, uint32_t(sm90a.lds_bytes_per_cu / 2));
  EXPECT_LE(plan.dynamic_shared_bytes, uint32_t(sm90a.lds_bytes_per_block));
  // Q, K and V in and O out through tensor maps: a second argument, encoded
  // at launch.
  ASSERT_EQ(plan.args.count(), 2u);
  ASSERT_EQ(plan.tensor_maps.size(), 4u);
  const TensorMapRequest& q = plan.tensor_maps[0];
  const TensorMapRequest& k = plan.tensor_maps[1];
  const TensorMapRequest& o = plan.tensor_maps[3];
  const size_t maps = size_t(static_cast<std::byte*>(plan.args.pointers()[1]) - plan.args.bytes(0));
  EXPECT_EQ(maps % 64, 0u) << "CUtensorMap is 64-byte aligned";
  EXPECT_EQ(q.offset, maps + offsetof(SparseAttnTensorMaps, q));
  EXPECT_EQ(k.offset, maps + offsetof(SparseAttnTensorMaps, k));
  EXPECT_EQ(plan.tensor_maps[2].offset, maps + offsetof(SparseAttnTensorMaps, v));
  EXPECT_EQ(o.offset, maps + offsetof(SparseAttnTensorMaps, o));
  EXPECT_EQ(q.base, Addr(0x10000));
  EXPECT_EQ(q.rank, 4);
  EXPECT_THAT(std::vector<uint64_t>(q.dims, q.dims + 4), ::testing::ElementsAre(128, 1000, 8, 2));
  EXPECT_THAT(std::vector<uint64_t>(k.dims, k.dims + 4), ::testing::ElementsAre(128, 1000, 2, 2))
      << "k has hkv heads";
  EXPECT_THAT(std::vector<uint64_t>(q.strides, q.strides + 3),
              ::testing::ElementsAre(128 * 2, 1000 * 128 * 2, 8 * 1000 * 128 * 2));
  EXPECT_THAT(std::vector<uint32_t>(q.box, q.box + 4), ::testing::ElementsAre(64, 128, 1, 1));
  EXPECT_THAT(std::vector<uint32_t>(k.box, k.box + 4), ::testing::ElementsAre(64, 128, 1, 1));
  EXPECT_TRUE(k.swizzle_128b) << "wgmma reads the 128-byte swizzle";
  EXPECT_EQ(o.base, Addr(0x40000));
  EXPECT_THAT(std::vector<uint64_t>(o.dims, o.dims + 4), ::testing::ElementsAre(128, 1000, 8, 2));
  EXPECT_THAT(std::vector<uint64_t>(o.strides, o.strides + 3),
              ::testing::ElementsAre(128 * 2, 1000 * 128 * 2, 8 * 1000 * 128 * 2));
  EXPECT_THAT(std::vector<uint32_t>(o.box, o.box + 4), ::testing::ElementsAre(64, 128, 1, 1))
      << "BLOCK_M rows, as q";

  sm90a.compute_units = 100;  // the device's own count, as ArchForDevice sets it
  ASSERT_THAT(T().PlanLaunch(ws, s, sm90a, GoodArgs(), plan), IsOk());
  EXPECT_EQ(plan.grid.x, 100u);

  const KernelConfig synchronous = {{"BLOCK_M", 64}, {"BLOCK_N", 64}, {"WAVES", 4}, {"STAGES", 1}};
  ASSERT_THAT(T().PlanLaunch(synchronous, s, sm90a, GoodArgs(), plan), IsOk());
  EXPECT_EQ(plan.grid.x, 8u) << "rank-major: heads first";
  EXPECT_EQ(plan.grid.y, (1000u + 63) / 64);
  EXPECT_EQ(plan.grid.z, 2u);
  EXPECT_TRUE(plan.tensor_maps.empty()) << "copied with cp.async";
  EXPECT_EQ(plan.args.count(), 1u) << "a plan is refilled, not appended to";
  EXPECT_EQ(plan.dynamic_shared_bytes,
            uint32_t(attn::SmemBytes(attn::kEngineWgmma, 64, 64, 1, 128, 2)));
}

// One computing warpgroup runs two persistent blocks per SM where both
// blocks' shared memory fits beside the system's 1 KiB each; where it does
// not, one block, kept alone by its shared-memory request.
TEST(SparseAttnTemplateTest, PlanLaunchWarpSpecializedTwoBlocksPerSm) {
  const Shape s = AttnShape(DType::kF16).Set("lq", 4096).Set("lk", 4096);  // 1024 query tiles of 64
  const ArchInfo sm90a = Arch("sm_90a");
  auto ws64 = [](int64_t bn, int64_t stages) {
    return KernelConfig{{"BLOCK_M", 64}, {"BLOCK_N", bn}, {"WAVES", 8}, {"STAGES", stages}};
  };
  LaunchPlan plan;
  // 16 KiB of Q + 3 x 32 KiB of K / V + barriers: 2 x (112.1 + 1) KiB <= 228 KiB.
  const int three = attn::SmemBytes(attn::kEngineWgmma, 64, 64, 3, 128, 2);
  ASSERT_LE(2 * (three + 1024), sm90a.lds_bytes_per_cu);
  ASSERT_THAT(T().PlanLaunch(ws64(64, 3), s, sm90a, GoodArgs(), plan), IsOk());
  EXPECT_EQ(plan.grid.x, 2u * 132);
  EXPECT_EQ(plan.dynamic_shared_bytes, uint32_t(three)) << "no more than its own";
  EXPECT_EQ(plan.block.x, 256u);
  EXPECT_EQ(attn::WgmmaComputeRegisters(64, 2), 216) << "half an SM's registers, 40 copying";

  // 16 KiB + 2 x 64 KiB: one block.
  ASSERT_THAT(T().PlanLaunch(ws64(128, 2), s, sm90a, GoodArgs(), plan), IsOk());
  EXPECT_EQ(plan.grid.x, 132u);
  EXPECT_GT(plan.dynamic_shared_bytes, uint32_t(sm90a.lds_bytes_per_cu / 2));
  EXPECT_EQ(attn::WgmmaComputeRegisters(64, 1), 255) << "no hand-over";

  // Two blocks need 2 x (smem + 1 KiB) within the SM: one byte over keeps one.
  const int limit = sm90a.lds_bytes_per_cu / 2 - 1024;
  EXPECT_EQ(attn::WgmmaBlocksPerSm(64, limit), 2);
  EXPECT_EQ(attn::WgmmaBlocksPerSm(64, limit + 1), 1);
  EXPECT_EQ(attn::WgmmaBlocksPerSm(128, three), 1) << "two computing warpgroups fill the registers";

  // Fewer query tiles than two per SM: one block each.
  ASSERT_THAT(T().PlanLaunch(ws64(64, 2), AttnShape(DType::kF16), sm90a, GoodArgs(), plan),
              IsOk());
  EXPECT_EQ(plan.grid.x, 16u * 8 * 2);
}

// A kernel's planner is made once and plans every launch: each plan is the
// one PlanLaunch makes for that launch's arguments alone, whatever came
// before it (other pointers and strides, an optional argument left out, a
// launch refused).
TEST(SparseAttnTemplateTest, OnePlannerPlansEachLaunchFromItsOwnArguments) {
  const Shape s = AttnShape(DType::kF16);
  const ArchInfo sm90a = Arch("sm_90a");
  const KernelConfig ws = {{"BLOCK_M", 128}, {"BLOCK_N", 128}, {"WAVES", 12}, {"STAGES", 3}};
  absl::StatusOr<std::unique_ptr<const LaunchPlanner>> planner = T().NewLaunchPlanner(ws, s, sm90a);
  ASSERT_THAT(planner, IsOk());
  LaunchArgs first = GoodArgs();
  first.Int("k_stride_l", 256).Float("scale", 0.5f);
  LaunchArgs second;
  second.Ptr("q", Addr(0x110000)).Ptr("k", Addr(0x120000)).Ptr("v", Addr(0x130000));
  second.Ptr("o", Addr(0x140000));  // no lse, no full blocks
  second.Ptr("kv_num_blocks", Addr(0x160000)).Ptr("kv_indices", Addr(0x170000));
  second.Int("mask_batch", 2).Int("mask_heads", 1).Int("q_stride_h", 128);
  LaunchArgs refused = GoodArgs();
  refused.Ptr("q", Addr(0x10008));  // not 16-byte aligned

  LaunchPlan plan;
  ASSERT_THAT((*planner)->Plan(first, plan), IsOk());
  EXPECT_THAT((*planner)->Plan(refused, plan), StatusIs(absl::StatusCode::kInvalidArgument, "q"));
  for (const LaunchArgs* args : {&second, &first}) {
    ASSERT_THAT((*planner)->Plan(*args, plan), IsOk());
    LaunchPlan fresh;
    ASSERT_THAT(T().PlanLaunch(ws, s, sm90a, *args, fresh), IsOk());
    EXPECT_EQ(plan.grid.x, fresh.grid.x);
    EXPECT_EQ(plan.block.x, fresh.block.x);
    EXPECT_EQ(plan.dynamic_shared_bytes, fresh.dynamic_shared_bytes);
    ASSERT_EQ(plan.args.count(), fresh.args.count());
    EXPECT_EQ(
        std::memcmp(plan.args.pointers()[0], fresh.args.pointers()[0], sizeof(SparseAttnParams)),
        0);
    ASSERT_EQ(plan.tensor_maps.size(), fresh.tensor_maps.size());
    for (size_t i = 0; i < plan.tensor_maps.size(); ++i) {
      const TensorMapRequest& a = plan.tensor_maps[i];
      const TensorMapRequest& b = fresh.tensor_maps[i];
      EXPECT_EQ(a.offset, b.offset);
      EXPECT_EQ(a.base, b.base);
      EXPECT_EQ(std::vector<uint64_t>(a.strides, a.strides + 3),
                std::vector<uint64_t>(b.strides, b.strides + 3));
      EXPECT_EQ(std::vector<uint64_t>(a.dims, a.dims + 4),
                std::vector<uint64_t>(b.dims, b.dims + 4));
      EXPECT_EQ(std::vector<uint32_t>(a.box, a.box + 4), std::vector<uint32_t>(b.box, b.box + 4));
    }
  }
  // The second launch's own values, not the first's.
  ASSERT_THAT((*planner)->Plan(second, plan), IsOk());
  SparseAttnParams p;
  std::memcpy(&p, plan.args.pointers()[0], sizeof(p));
  EXPECT_EQ(p.lse, nullptr);
  EXPECT_EQ(p.full_kv_num_blocks, nullptr);
  EXPECT_EQ(p.k_stride_l, 128) << "default, not the first launch's 256";
  EXPECT_NEAR(p.scale_log2, 1.4426950408889634 / std::sqrt(128.0), 1e-7);
  EXPECT_EQ(p.mask_stride_h, 0);
  EXPECT_EQ(p.mask_stride_b, 8) << "one mask per batch";
  EXPECT_EQ(plan.tensor_maps[0].base, Addr(0x110000));
}

TEST(SparseAttnTemplateTest, PlannerNeedsEveryConfigParameter) {
  const KernelConfig no_stages = {{"BLOCK_M", 128}, {"BLOCK_N", 128}, {"WAVES", 12}};
  EXPECT_THAT(T().NewLaunchPlanner(no_stages, AttnShape(DType::kF16), Arch("sm_90a")),
              StatusIs(absl::StatusCode::kInvalidArgument, "STAGES"));
}

TEST(SparseAttnTemplateTest, PlanLaunchRejectsBadArguments) {
  const auto code = absl::StatusCode::kInvalidArgument;
  const Shape s = AttnShape(DType::kF16);
  const ArchInfo sm90 = Arch("sm_90");
  const KernelConfig c = T().DefaultConfig(s, sm90);
  LaunchPlan plan;
  auto plan_with = [&](const LaunchArgs& args) { return T().PlanLaunch(c, s, sm90, args, plan); };

  LaunchArgs no_v;
  no_v.Ptr("q", Addr(0x10000)).Ptr("k", Addr(0x20000));
  EXPECT_THAT(plan_with(no_v), StatusIs(code, "'v'"));
  LaunchArgs misaligned = GoodArgs().Ptr("q", Addr(0x10008));
  EXPECT_THAT(plan_with(misaligned), StatusIs(code, "q must be a non-null 16-byte aligned"));
  LaunchArgs half_full;
  const LaunchArgs good = GoodArgs();
  for (const LaunchArgs::Arg& a : good.args()) {
    if (a.name == "full_kv_indices") continue;
    if (a.kind == LaunchArgs::Kind::kPointer) half_full.Ptr(a.name, a.pointer);
    if (a.kind == LaunchArgs::Kind::kInt) half_full.Int(a.name, a.integer);
  }
  EXPECT_THAT(plan_with(half_full), StatusIs(code, "both full_kv_num_blocks and full_kv_indices"));
  // A misspelt stride would leave the contiguous default in place.
  EXPECT_THAT(plan_with(GoodArgs().Int("k_stride_L", 64)),
              StatusIs(code, "sparse_attn takes no launch argument 'k_stride_L'; it takes q, k"));
  EXPECT_THAT(plan_with(GoodArgs().Int("k_stride_l", 100)),
              StatusIs(code, "k_stride_l=100 must be a non-negative multiple of 8"));
  EXPECT_THAT(plan_with(GoodArgs().Float("scale", -1.0f)), StatusIs(code, "scale must be"));
  EXPECT_THAT(plan_with(GoodArgs().Int("mask_heads", 4)), StatusIs(code, "mask_heads=4"));
  EXPECT_THAT(plan_with(GoodArgs().Float("mask_batch", 1.0f)), StatusIs(code, "mask_batch"));
  // Sliding-window masks need their window.
  const Shape sliding = AttnShape(DType::kF16, 128, 2);
  EXPECT_THAT(T().PlanLaunch(c, sliding, sm90, GoodArgs(), plan), StatusIs(code, "'window'"));
  EXPECT_THAT(
      T().PlanLaunch(c, sliding, sm90, GoodArgs().Int("window", 0).Int("global_tokens", 0), plan),
      StatusIs(code, "window=0 must be >= 1"));
  EXPECT_THAT(T().PlanLaunch(c, sliding, sm90,
                             GoodArgs().Int("window", 1024).Int("global_tokens", 128), plan),
              IsOk());
  // The queries' offset lies among the keys.
  EXPECT_THAT(plan_with(GoodArgs().Int("q_offset", -1)),
              StatusIs(code, "q_offset=-1 must be in [0, lk=1000]"));
  EXPECT_THAT(plan_with(GoodArgs().Int("q_offset", 1001)),
              StatusIs(code, "lk - lq puts the queries at the end of the keys"));
  EXPECT_THAT(plan_with(GoodArgs().Int("q_offset", 1000)), IsOk());
}

}  // namespace
}  // namespace jitk::internal
