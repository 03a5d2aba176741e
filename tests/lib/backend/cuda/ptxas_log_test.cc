#include "lib/backend/cuda/ptxas_log.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace jitk::internal {
namespace {

// As NVRTC 13.0 prints it for sm_80 with --ptxas-options=-v, plus a
// warning and a non-inlined device function.
constexpr char kLog[] =
    "ptxas warning : For profile sm_80 adjusting per thread register count of 16 to lower "
    "bound of 24\n"
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z4axpyILi128EfEvPT0_PKS0_S0_i' for 'sm_80'\n"
    "ptxas info    : Function properties for _Z4axpyILi128EfEvPT0_PKS0_S0_i\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 10 registers, used 1 barriers, 512 bytes smem, 376 bytes cmem[0]\n"
    "ptxas info    : Compile time = 4.640 ms\n"
    "ptxas info    : Compiling entry function '_Z5spillPfi' for 'sm_80'\n"
    "ptxas info    : Function properties for _Z5spillPfi\n"
    "ptxas         .     176 bytes stack frame, 48 bytes spill stores, 52 bytes spill loads\n"
    "ptxas info    : Used 64 registers, used 0 barriers, 208 bytes cumulative stack size, "
    "364 bytes cmem[0]\n"
    "ptxas info    : Compile time = 26.201 ms\n"
    "ptxas info    : Function properties for _Z6helperPfi\n"
    "ptxas         .     32 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";

TEST(PtxasLogTest, ReadsEveryFunction) {
  auto functions = ParsePtxasLog(kLog);
  ASSERT_EQ(functions.size(), 3u);

  const PtxasFunctionInfo& axpy = functions.at("_Z4axpyILi128EfEvPT0_PKS0_S0_i");
  EXPECT_EQ(axpy.registers, 10);
  EXPECT_EQ(axpy.barriers, 1);
  EXPECT_EQ(axpy.shared_bytes, 512);
  EXPECT_EQ(axpy.stack_frame_bytes, 0);
  EXPECT_EQ(axpy.spill_store_bytes, 0);

  const PtxasFunctionInfo& spill = functions.at("_Z5spillPfi");
  EXPECT_EQ(spill.registers, 64);
  EXPECT_EQ(spill.shared_bytes, 0);
  EXPECT_EQ(spill.stack_frame_bytes, 176);
  EXPECT_EQ(spill.cumulative_stack_bytes, 208);
  EXPECT_EQ(spill.spill_store_bytes, 48);
  EXPECT_EQ(spill.spill_load_bytes, 52);

  // A device function: stack only, and its lines do not leak into the kernel before it.
  const PtxasFunctionInfo& helper = functions.at("_Z6helperPfi");
  EXPECT_EQ(helper.registers, 0);
  EXPECT_EQ(helper.stack_frame_bytes, 32);
}

TEST(PtxasLogTest, IgnoresLogsWithoutResourceLines) {
  EXPECT_TRUE(ParsePtxasLog("").empty());
  EXPECT_TRUE(ParsePtxasLog("test.cu(3): error: identifier \"x\" is undefined\n").empty());
  // Resource lines before any function name belong to nobody.
  EXPECT_TRUE(ParsePtxasLog("ptxas info    : Used 10 registers\n").empty());
}

TEST(PtxasLogTest, ToleratesMalformedNumbers) {
  auto functions = ParsePtxasLog(
      "ptxas info    : Function properties for f\n"
      "ptxas info    : Used lots of registers, 12 bytes smem\n");
  ASSERT_EQ(functions.count("f"), 1u);
  EXPECT_EQ(functions.at("f").registers, 0);
  EXPECT_EQ(functions.at("f").shared_bytes, 12);
}

}  // namespace
}  // namespace jitk::internal
