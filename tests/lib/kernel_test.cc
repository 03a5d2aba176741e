// CompileInstance: the second compile a template asks for when the first
// spills registers (KernelTemplate::SpillFallbackOptions), on the fake
// backend, whose model reports spills by the request's options.
#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jitk/arch.h"
#include "lib/attention/sparse_attn_template.h"
#include "lib/internal/kernel_impl.h"
#include "tests/testing/fake_backend.h"

namespace jitk::internal {
namespace {

using ::testing::HasSubstr;

constexpr char kFallback[] = "-DJITK_ATTN_NO_WAVES_PER_SIMD";

// sparse_attn on an MI250X-like fake: the d = 128 default asks for two
// waves per SIMD, so the template offers kFallback after spills.
class CompileInstanceTest : public ::testing::Test {
 protected:
  CompileInstanceTest() : fake_(jitk::testing::FakeBackendOptions{.vendor = Vendor::kAmd}) {
    arch_ = *LookupArch("gfx90a");
    target_ = *ParseTarget("gfx90a");
    config_ = kernel_template_.DefaultConfig(shape_, arch_);
  }

  // The compiler reports `spills` registers spilled, and `fallback_spills`
  // with kFallback among the options (then with AGPR accumulators).
  void SpillsWithAndWithout(int spills, int fallback_spills) {
    jitk::testing::FakeKernelModel model;
    model.resources = [=](const jitk::testing::FakeInstance& instance) {
      const bool fallback =
          std::count(instance.options.begin(), instance.options.end(), std::string(kFallback)) > 0;
      ResourceUsage usage;
      usage.wave_size = 64;
      usage.registers = fallback ? 222 : 256;
      usage.accum_registers = fallback ? 64 : 0;
      usage.spills = fallback ? fallback_spills : spills;
      usage.scratch_bytes = 6 * usage.spills;
      return usage;
    };
    fake_.SetModel("sparse_attn_fwd", model);
  }

  absl::StatusOr<CodeObject> Compile() {
    absl::StatusOr<CompileRequest> request =
        InstanceRequest(kernel_template_, shape_, config_, target_, arch_);
    if (!request.ok()) return request.status();
    return CompileInstance(kernel_template_, fake_, *request, config_, shape_, arch_);
  }

  const KernelTemplate& kernel_template_ = SparseAttnKernelTemplate();
  const Shape shape_ = Shape(DType::kF16)
                           .Set("b", 1)
                           .Set("hq", 8)
                           .Set("hkv", 8)
                           .Set("lq", 4096)
                           .Set("lk", 4096)
                           .Set("d", 128)
                           .Set("layout", 1);
  jitk::testing::FakeBackend fake_;
  ArchInfo arch_;
  Target target_;
  KernelConfig config_;
};

TEST_F(CompileInstanceTest, CodeWithoutSpillsIsCompiledOnce) {
  SpillsWithAndWithout(0, 0);
  absl::StatusOr<CodeObject> code = Compile();
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(fake_.compiles(), 1);
  EXPECT_EQ(code->symbols[0].resources.accum_registers, 0);
}

TEST_F(CompileInstanceTest, SpillsBringTheFallbackWhichIsKeptWhenItSpillsLess) {
  SpillsWithAndWithout(2, 0);
  absl::StatusOr<CodeObject> code = Compile();
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(fake_.compiles(), 2);
  const ResourceUsage& r = code->symbols[0].resources;
  EXPECT_EQ(r.spills, 0);
  EXPECT_EQ(r.accum_registers, 64);
  EXPECT_THAT(code->log, HasSubstr(absl::StrCat("compiled again with ", kFallback,
                                                ": the first compile spilled 2 registers")));
}

TEST_F(CompileInstanceTest, AFallbackThatSpillsAsMuchLeavesTheFirstCode) {
  SpillsWithAndWithout(2, 2);
  absl::StatusOr<CodeObject> code = Compile();
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(fake_.compiles(), 2);
  EXPECT_EQ(code->symbols[0].resources.accum_registers, 0);
  EXPECT_THAT(code->log, ::testing::Not(HasSubstr("compiled again")));
}

TEST_F(CompileInstanceTest, AFailingFallbackLeavesTheFirstCode) {
  jitk::testing::FakeKernelModel model;
  model.resources =
      [](const jitk::testing::FakeInstance& instance) -> absl::StatusOr<ResourceUsage> {
    if (!instance.options.empty()) return absl::InvalidArgumentError("error: unknown option");
    ResourceUsage usage;
    usage.registers = 256;
    usage.spills = 2;
    return usage;
  };
  fake_.SetModel("sparse_attn_fwd", model);
  absl::StatusOr<CodeObject> code = Compile();
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(fake_.compiles(), 2);
  EXPECT_EQ(code->symbols[0].resources.spills, 2);
}

// A config whose template offers no fallback keeps its spills, one compile.
TEST_F(CompileInstanceTest, NoFallbackNoSecondCompile) {
  SpillsWithAndWithout(2, 0);
  config_ = {{"BLOCK_M", 64}, {"BLOCK_N", 64}, {"WAVES", 2}, {"STAGES", 2}};
  ASSERT_TRUE(kernel_template_.SpillFallbackOptions(config_, shape_, arch_).empty());
  absl::StatusOr<CodeObject> code = Compile();
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(fake_.compiles(), 1);
  EXPECT_EQ(code->symbols[0].resources.spills, 2);
}

}  // namespace
}  // namespace jitk::internal
