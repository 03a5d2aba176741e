// Compiles sparse_attn for every layout x dtype x head dim at the default
// config, for sm_90 and sm_90a (NVRTC) and gfx90a (hiprtc), without a GPU, and checks
// what the compilers report: registers within budget, no spills, LDS as laid
// out. Prints one line per kernel (the resource table of docs/sparse_attn.md).
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jitk/arch.h"
#include "jitk/block_mask.h"
#include "kernel_templates/sparse_attn_params.h"
#include "lib/attention/sparse_attn_template.h"
#include "lib/backend/backend.h"
#include "lib/internal/kernel_impl.h"
#include "lib/occupancy.h"

namespace jitk::internal {
namespace {

class SparseAttnCompileTest : public ::testing::TestWithParam<const char*> {};

constexpr int kSpecializedSpillBytes = 96;
// The mma.sync engine's 64-key passes at d=128 use all 255 registers and
// keep one 8-byte mask-row pointer in local memory (16 bytes stored and
// loaded), loaded once per key block (SASS in
// bench/results/2026-12-04-h200-mma-sync/run2).
constexpr int kMmaSpillBytes = 16;
// From sm_90 on, the mma engine's kernel waits for its tensor copies on an
// mbarrier in the tile loop. ptxas then loads the 8-byte pointer once more
// (24 bytes stored and loaded), and keeps 64 bytes of the two-sided
// sliding-window kernel at d=128 in local memory (238 stored and loaded);
// that kernel still runs 1.08x faster than with cp.async
// (bench/results/2026-12-04-h200-mma-tma/run2).
constexpr int kMmaTmaSpillBytes = 24;
constexpr int kMmaTmaSlidingSpillBytes = 256;

// ptxas's word that wgmma will not overlap: it serializes them (C7514,
// C7515, C7518) or waits for one in flight where registers it writes are
// touched (C7517). Said only in its log, which is kept when not empty.
::testing::Matcher<const std::string&> SerializesWgmma() {
  return ::testing::AnyOf(::testing::HasSubstr("are serialized"),
                          ::testing::HasSubstr("warpgroup.wait is injected"));
}

// What a test compiles with: the target and the arch of a name.
struct CompileFor {
  Target target;
  ArchInfo arch;
};

// CompileFor `name`; *skip says why its compiler cannot run here (empty
// when it can).
absl::StatusOr<CompileFor> ForCompiling(const std::string& name, std::string* skip) {
  absl::StatusOr<Target> target = ParseTarget(name);
  if (!target.ok()) return target.status();
  absl::StatusOr<ArchInfo> arch = LookupArch(name);
  if (!arch.ok()) return arch.status();
  absl::StatusOr<Backend*> backend = BackendFor(target->vendor);
  absl::Status compiler = backend.ok() ? (*backend)->Compiler().status() : backend.status();
  skip->assign(compiler.ok() ? "" : std::string(compiler.message()));
  return CompileFor{*target, *arch};
}

// Spills (bytes, or registers on AMD) a default config may report: none,
// but where the constants above say why.
int AllowedSpillBytes(const Shape& shape, const KernelConfig& config, const ArchInfo& arch) {
  const int engine = SparseAttnEngine(shape, arch);
  // The warp-specialized wgmma engine's computing warpgroups (232
  // registers after setmaxnreg) spill a few values at d=128 and run
  // fastest anyway (bench/results/2026-12-03-h200-wgmma-ws/); the
  // bound catches a config that starts spilling its tiles.
  const bool specialized =
      engine == attn::kEngineWgmma &&
      attn::WgmmaWarpSpecialized(int(config.at("BLOCK_M")), int(config.at("WAVES")));
  const bool mma128 = engine == attn::kEngineMma && *shape.Get("d") == 128;
  const bool tma = SparseAttnMmaTensorCopies(shape, arch);
  const bool sliding = shape.GetOr("layout", 0) == int64_t(AttentionLayout::kSlidingWindow);
  return specialized                ? kSpecializedSpillBytes
         : mma128 && tma && sliding ? kMmaTmaSlidingSpillBytes
         : mma128 && tma            ? kMmaTmaSpillBytes
         : mma128                   ? kMmaSpillBytes
                                    : 0;
}

// An attention shape of one batch, 8 heads, 4096 queries and keys.
Shape AttnShape(DType dtype, int d, int layout, int block = 128) {
  return Shape(dtype)
      .Set("b", 1)
      .Set("hq", 8)
      .Set("hkv", 8)
      .Set("lq", 4096)
      .Set("lk", 4096)
      .Set("d", d)
      .Set("block", block)
      .Set("layout", layout);
}

TEST_P(SparseAttnCompileTest, EveryLayoutDtypeAndHeadDim) {
  const std::string arch_name = GetParam();
  std::string skip;
  absl::StatusOr<CompileFor> c = ForCompiling(arch_name, &skip);
  ASSERT_TRUE(c.ok()) << c.status();
  if (!skip.empty()) GTEST_SKIP() << skip;
  const Target& target = c->target;
  const ArchInfo& arch = c->arch;

  const KernelTemplate& t = SparseAttnKernelTemplate();
  for (int layout = 0; layout <= int(AttentionLayout::kCustom); ++layout) {
    const bool block64 =
        layout == int(AttentionLayout::kBigBird) || layout == int(AttentionLayout::kStrided);
    for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
      for (int d : {64, 128}) {
        const Shape shape = AttnShape(dtype, d, layout, block64 ? 64 : 128);
        const KernelConfig config = t.DefaultConfig(shape, arch);
        const std::string what = absl::StrCat(
            arch_name, " ", std::string(AttentionLayoutName(AttentionLayout(layout))), " ",
            std::string(DTypeName(dtype)), " d=", d, " {", KernelConfigToString(config), "}");
        absl::StatusOr<CompiledKernel> compiled =
            CompileTemplate(t, shape, config, target, arch, CodeObjectCache::kBypass);
        ASSERT_TRUE(compiled.ok()) << what << ": " << compiled.status();
        const ResourceUsage& r = compiled->resources;
        const int engine = SparseAttnEngine(shape, arch);
        std::printf("%-60s regs %3d agprs %3d sgprs %3d lds %6d scratch %4d spills %d\n",
                    what.c_str(), r.registers, r.accum_registers, r.scalar_registers, r.lds_bytes,
                    r.scratch_bytes, r.spills);
        EXPECT_GT(r.registers, 0) << what;
        EXPECT_LE(r.registers, arch.max_registers_per_thread) << what;
        const int allowed = AllowedSpillBytes(shape, config, arch);
        EXPECT_LE(r.spills, allowed) << what;
        EXPECT_LE(r.scratch_bytes, allowed) << what;
        if (engine == attn::kEngineWgmma) {
          EXPECT_THAT(compiled->log, ::testing::Not(SerializesWgmma()))
              << what << ": " << compiled->log;
        }
        if (arch.vendor == Vendor::kAmd) {
          // 256 VGPRs per lane, and VGPRs and AGPRs within the 512 of the file.
          EXPECT_LE(r.registers, 256) << what;
          EXPECT_LE(r.registers + r.accum_registers, arch.max_registers_per_thread) << what;
          EXPECT_EQ(r.wave_size, 64) << what;
          EXPECT_EQ(r.lds_bytes,
                    attn::SmemBytes(engine, int(config.at("BLOCK_M")), int(config.at("BLOCK_N")),
                                    int(config.at("STAGES")), d, int(DTypeSize(dtype))))
              << what;
          EXPECT_LE(r.lds_bytes, arch.lds_bytes_per_block) << what;
        } else {
          EXPECT_EQ(r.lds_bytes, 0) << what << ": NVIDIA takes shared memory as dynamic";
        }
      }
    }
  }
}

// Decode steps: one query row at the end of a long K / V cache under every
// mask, d = 128, each dtype. Their defaults split the keys where the grouped
// heads pack (batch 1) and run unsplit with a block mask per head at batch
// 8: both kernels compile within the allowances above. A split kernel that
// also holds the unsplit code spilled on sm_80, for fp32 and on gfx90a
// (bench/results/2026-12-07-cpu-decode-spills/).
TEST_P(SparseAttnCompileTest, EveryDecodeDefault) {
  const std::string arch_name = GetParam();
  std::string skip;
  absl::StatusOr<CompileFor> c = ForCompiling(arch_name, &skip);
  ASSERT_TRUE(c.ok()) << c.status();
  if (!skip.empty()) GTEST_SKIP() << skip;
  const KernelTemplate& t = SparseAttnKernelTemplate();
  const std::pair<AttentionLayout, int> masks[] = {
      {AttentionLayout::kDense, attn::kMaskNone},
      {AttentionLayout::kCausal, attn::kMaskCausal},
      {AttentionLayout::kSlidingWindow, attn::kMaskSlidingCausal},
      {AttentionLayout::kSlidingWindow, attn::kMaskSliding}};
  bool split = false, unsplit = false;
  for (auto [layout, mask] : masks) {
    for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
      for (int64_t batch : {1, 8}) {
        Shape shape = Shape(dtype)
                          .Set("b", batch)
                          .Set("hq", 32)
                          .Set("hkv", 8)
                          .Set("lq", 1)
                          .Set("lk", 32768)
                          .Set("d", 128)
                          .Set("layout", int64_t(layout))
                          .Set("mask", mask);
        if (batch == 8) shape.Set("mask_per_head", 1);
        const KernelConfig config = t.DefaultConfig(shape, c->arch);
        const bool splits = config.contains("KV_SPLITS") && config.at("KV_SPLITS") > 1;
        (splits ? split : unsplit) = true;
        const std::string what =
            absl::StrCat(arch_name, " ", shape.Key(), " {", KernelConfigToString(config), "}");
        absl::StatusOr<CompiledKernel> compiled =
            CompileTemplate(t, shape, config, c->target, c->arch, CodeObjectCache::kBypass);
        ASSERT_TRUE(compiled.ok()) << what << ": " << compiled.status();
        const ResourceUsage& r = compiled->resources;
        std::printf("%-90s regs %3d spills %d scratch %d\n", what.c_str(), r.registers, r.spills,
                    r.scratch_bytes);
        const int allowed = AllowedSpillBytes(shape, config, c->arch);
        EXPECT_LE(r.spills, allowed) << what;
        EXPECT_LE(r.scratch_bytes, allowed) << what;
      }
    }
  }
  EXPECT_TRUE(split && unsplit) << "both kernels compiled";
}

// The MFMA engine takes any head dim that is a multiple of 32: the CDNA
// default of each compiles for gfx90a within the register file, unspilled,
// and keeps every SIMD of a CU busy, two waves each up to d = 128.
TEST(SparseAttnMfmaCompileTest, EveryHeadDimDefaultFits) {
  std::string skip;
  absl::StatusOr<CompileFor> c = ForCompiling("gfx90a", &skip);
  ASSERT_TRUE(c.ok()) << c.status();
  if (!skip.empty()) GTEST_SKIP() << skip;
  const Target& target = c->target;
  const ArchInfo& arch = c->arch;
  const KernelTemplate& t = SparseAttnKernelTemplate();
  for (int d : {32, 64, 96, 128, 160, 192, 224, 256}) {
    for (int block : {64, 128}) {
      const Shape shape = AttnShape(DType::kF16, d, int(AttentionLayout::kCausal), block);
      ASSERT_EQ(SparseAttnEngine(shape, arch), attn::kEngineMfma);
      const KernelConfig config = t.DefaultConfig(shape, arch);
      const std::string what =
          absl::StrCat("d=", d, " block ", block, " {", KernelConfigToString(config), "}");
      absl::StatusOr<CompiledKernel> compiled = CompileTemplate(t, shape, config, target, arch);
      ASSERT_TRUE(compiled.ok()) << what << ": " << compiled.status();
      const ResourceUsage& r = compiled->resources;
      EXPECT_LE(r.registers, 256) << what;
      EXPECT_LE(r.registers + r.accum_registers, arch.max_registers_per_thread) << what;
      EXPECT_EQ(r.spills, 0) << what;
      EXPECT_EQ(r.scratch_bytes, 0) << what;
      // Only where the kernel asks for two waves per SIMD do its MFMAs
      // accumulate in VGPRs (unless the compiler spilled with the request
      // and the code of the second compile, without it, was kept).
      const int waves_per_simd = attn::MfmaWavesPerSimd(
          attn::kEngineMfma, int(config.at("BLOCK_N")), d, int(config.at("STAGES")),
          int(config.at("WAVES")) * arch.wave_size);
      if (waves_per_simd != 2) EXPECT_GT(r.accum_registers, 0) << what;
      // By the compiler's counts, two waves per SIMD up to d = 128 (eight
      // per CU, registers and LDS), one beyond.
      const int waves = int(config.at("WAVES"));
      const int per_cu = EstimateOccupancy(r, waves * 64, arch).blocks_per_cu * waves;
      EXPECT_GE(per_cu, d <= 128 ? 8 : 4) << what;
    }
  }
}

// The second compile after spills (SpillFallbackOptions) fits every layout's
// d = 128 default on gfx90a unspilled, its MFMAs accumulating in AGPRs.
TEST(SparseAttnMfmaCompileTest, TheSpillFallbackFitsUnspilled) {
  std::string skip;
  absl::StatusOr<CompileFor> c = ForCompiling("gfx90a", &skip);
  ASSERT_TRUE(c.ok()) << c.status();
  if (!skip.empty()) GTEST_SKIP() << skip;
  const ArchInfo& arch = c->arch;
  const KernelTemplate& t = SparseAttnKernelTemplate();
  absl::StatusOr<Backend*> backend = BackendFor(Vendor::kAmd);
  ASSERT_TRUE(backend.ok()) << backend.status();
  for (int layout : {int(AttentionLayout::kDense), int(AttentionLayout::kCausal),
                     int(AttentionLayout::kSlidingWindow), int(AttentionLayout::kCustom)}) {
    for (DType dtype : {DType::kF16, DType::kBF16}) {
      const Shape shape = AttnShape(dtype, 128, layout);
      const KernelConfig config = t.DefaultConfig(shape, arch);
      const std::string what = absl::StrCat("layout ", layout, " ", DTypeName(dtype), " {",
                                            KernelConfigToString(config), "}");
      const std::vector<std::string> fallback = t.SpillFallbackOptions(config, shape, arch);
      ASSERT_FALSE(fallback.empty()) << what;
      absl::StatusOr<CompileRequest> request = InstanceRequest(t, shape, config, c->target, arch);
      ASSERT_TRUE(request.ok()) << request.status();
      request->options.insert(request->options.end(), fallback.begin(), fallback.end());
      absl::StatusOr<CodeObject> code = (*backend)->Compile(*request);
      ASSERT_TRUE(code.ok()) << what << ": " << code.status();
      const ResourceUsage& r = code->symbols.at(0).resources;
      EXPECT_EQ(r.spills, 0) << what;
      EXPECT_EQ(r.scratch_bytes, 0) << what;
      EXPECT_GT(r.accum_registers, 0) << what;
      EXPECT_LE(r.registers + r.accum_registers, arch.max_registers_per_thread) << what;
    }
  }
}

// Every warp-specialized wgmma config the tuner may pick keeps its MMAs
// asynchronous and its register hand-over: ptxas reports no serialized wgmma
// and says nothing about setmaxnreg (which it can ignore), for any mask.
TEST(SparseAttnWgmmaCompileTest, NoWarpSpecializedConfigIsSerialized) {
  std::string skip;
  absl::StatusOr<CompileFor> c = ForCompiling("sm_90a", &skip);
  ASSERT_TRUE(c.ok()) << c.status();
  if (!skip.empty()) GTEST_SKIP() << skip;
  const Target& target = c->target;
  const ArchInfo& arch = c->arch;
  const KernelTemplate& t = SparseAttnKernelTemplate();
  int compiled_configs = 0;
  for (int layout : {int(AttentionLayout::kDense), int(AttentionLayout::kCausal),
                     int(AttentionLayout::kSlidingWindow)}) {
    for (int d : {64, 128}) {
      const Shape shape = AttnShape(DType::kBF16, d, layout);
      for (int64_t bm : {64, 128}) {
        for (int64_t bn : {64, 128}) {
          for (int64_t stages : {2, 3}) {
            const KernelConfig config = {
                {"BLOCK_M", bm}, {"BLOCK_N", bn}, {"WAVES", bm / 16 + 4}, {"STAGES", stages}};
            const std::string what =
                absl::StrCat("layout ", layout, " d=", d, " {", KernelConfigToString(config), "}");
            if (!t.ValidateConfig(config, shape, arch).ok()) continue;
            absl::StatusOr<CompiledKernel> compiled =
                CompileTemplate(t, shape, config, target, arch, CodeObjectCache::kBypass);
            ASSERT_TRUE(compiled.ok()) << what << ": " << compiled.status();
            EXPECT_THAT(compiled->log, ::testing::Not(SerializesWgmma())) << what;
            EXPECT_THAT(compiled->log, ::testing::Not(::testing::HasSubstr("setmaxnreg"))) << what;
            // A block starts with its share of the SM's registers (the
            // launch bounds: as many blocks as the host's persistent grid
            // puts on an SM); the hand-over's setmaxnreg counts on exactly
            // that share, a multiple of 8.
            const int per_sm = attn::WgmmaBlocksPerSm(
                int(bm), attn::SmemBytes(attn::kEngineWgmma, int(bm), int(bn), int(stages), d, 2));
            const int threads = int(bm / 16 + 4) * 32;
            if (bm > 64 || per_sm > 1) {
              EXPECT_EQ(compiled->resources.registers, 65536 / (threads * per_sm) / 8 * 8)
                  << what << ": " << per_sm << " blocks per SM";
            } else {
              EXPECT_LE(compiled->resources.registers, 255) << what;
            }
            ++compiled_configs;
          }
        }
      }
    }
  }
  EXPECT_EQ(compiled_configs, 48);  // all 8 per mask and d fit the shared memory and registers
}

INSTANTIATE_TEST_SUITE_P(Archs, SparseAttnCompileTest,
                         ::testing::Values("sm_80", "sm_90", "sm_90a", "gfx90a"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace jitk::internal
