#include "lib/backend/cuda/nvrtc_compiler.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/backend/cuda/cubin.h"
#include "lib/backend/cuda/cuda_backend.h"
#include "lib/internal/embedded_templates.h"
#include "tests/lib/backend/cuda/cuda_test_util.h"

namespace jitk::internal {
namespace {

using ::jitk::internal::testing::IsOk;
using ::jitk::internal::testing::kAxpyFloat128;
using ::jitk::internal::testing::kAxpyFloat128Lowered;
using ::jitk::internal::testing::kAxpySource;
using ::jitk::internal::testing::kRegisterSource;
using ::jitk::internal::testing::Request;
using ::jitk::internal::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsSupersetOf;

class NvrtcCompilerTest : public ::testing::Test {
 protected:
  NvrtcCompiler nvrtc_;
};

TEST_F(NvrtcCompilerTest, ReportsItsVersionAndTargets) {
  absl::StatusOr<CompilerInfo> info = nvrtc_.Info();
  ASSERT_THAT(info, IsOk());
  EXPECT_EQ(info->name, "nvrtc");
  EXPECT_THAT(info->version, ::testing::MatchesRegex("[0-9]+\\.[0-9]+"));
  EXPECT_THAT(info->ToString(), HasSubstr("nvrtc "));

  absl::StatusOr<std::vector<std::string>> targets = nvrtc_.Targets();
  ASSERT_THAT(targets, IsOk());
  EXPECT_THAT(*targets, IsSupersetOf({"sm_80", "sm_90"}));
  for (const std::string& target : *targets) EXPECT_TRUE(absl::StartsWith(target, "sm_"));
}

TEST_F(NvrtcCompilerTest, CompilesATemplateForSm90AndSm80) {
  for (const char* arch : {"sm_90", "sm_80"}) {
    SCOPED_TRACE(arch);
    absl::StatusOr<CodeObject> code =
        nvrtc_.Compile(Request(arch, kAxpySource, {kAxpyFloat128, "axpy<64, double>"}));
    ASSERT_THAT(code, IsOk());
    EXPECT_EQ(code->target, arch);
    EXPECT_EQ(code->isa_name, arch);
    EXPECT_EQ(*CubinArch(code->binary), arch);
    EXPECT_GT(code->compile_ms, 0);
    EXPECT_THAT(code->log, HasSubstr("ptxas info"));

    ASSERT_EQ(code->symbols.size(), 2u);  // in request order
    EXPECT_EQ(code->symbols[0].name_expression, kAxpyFloat128);
    EXPECT_EQ(code->symbols[0].lowered_name, kAxpyFloat128Lowered);
    EXPECT_EQ(code->symbols[1].name_expression, "axpy<64, double>");
    EXPECT_EQ(code->symbols[1].lowered_name, "_Z4axpyILi64EdEvPT0_PKS0_S0_i");

    const ResourceUsage& usage = code->symbols[0].resources;
    EXPECT_GT(usage.registers, 0);
    EXPECT_EQ(usage.lds_bytes, 128 * 4);
    EXPECT_EQ(usage.scratch_bytes, 0);
    EXPECT_EQ(usage.spills, 0);
    EXPECT_EQ(usage.wave_size, 32);
    EXPECT_EQ(usage.max_threads_per_block, 1024);
    EXPECT_EQ(code->symbols[1].resources.lds_bytes, 64 * 8);
  }
}

TEST_F(NvrtcCompilerTest, CompilesArchSpecificHopper) {
  absl::StatusOr<CodeObject> code = nvrtc_.Compile(Request(
      "sm_90a",
      // setmaxnreg exists only for sm_90a.
      "extern \"C\" __global__ void k(int* p) { asm volatile(\"setmaxnreg.inc.sync.aligned.u32 "
      "240;\"); p[threadIdx.x] = 1; }",
      {"k"}));
  ASSERT_THAT(code, IsOk());
  EXPECT_EQ(code->target, "sm_90a");
  EXPECT_EQ(*CubinArch(code->binary), "sm_90a");

  EXPECT_THAT(nvrtc_.Compile(Request(
                  "sm_90",
                  "extern \"C\" __global__ void k(int* p) { asm volatile(\"setmaxnreg.inc.sync."
                  "aligned.u32 240;\"); p[threadIdx.x] = 1; }",
                  {"k"})),
              StatusIs(absl::StatusCode::kInvalidArgument, "setmaxnreg"));
}

TEST_F(NvrtcCompilerTest, ReportsRegistersSpillsAndLaunchBounds) {
  absl::StatusOr<CodeObject> code =
      nvrtc_.Compile(Request("sm_90", kRegisterSource, {"wide", "spilled", "bounded"}));
  ASSERT_THAT(code, IsOk());
  ASSERT_EQ(code->symbols.size(), 3u);
  // NVRTC's own cache is off (--no-cache), so ptxas reports every compile;
  // without a report the registers and local memory would come from the
  // cubin, and spill bytes would be unknown.
  const bool reported = code->log.find("ptxas") != std::string::npos;
  const ResourceUsage& wide = code->symbols[0].resources;
  const ResourceUsage& spilled = code->symbols[1].resources;
  const ResourceUsage& bounded = code->symbols[2].resources;

  EXPECT_GT(wide.registers, 96) << code->log;
  EXPECT_EQ(wide.spills, 0);
  EXPECT_EQ(wide.max_threads_per_block, MaxThreadsForRegisters(wide.registers, 0));
  EXPECT_LT(wide.max_threads_per_block, 1024);

  EXPECT_GT(spilled.registers, 0);
  EXPECT_LE(spilled.registers, 32);
  if (reported) EXPECT_GT(spilled.spills, 0);
  EXPECT_GT(spilled.scratch_bytes, 0);
  EXPECT_EQ(spilled.max_threads_per_block, 1024);

  EXPECT_EQ(bounded.max_threads_per_block, 384);
}

TEST(MaxThreadsForRegistersTest, FollowsTheRegisterFile) {
  EXPECT_EQ(MaxThreadsForRegisters(0, 0), 1024);  // unknown: the hardware limit
  EXPECT_EQ(MaxThreadsForRegisters(32, 0), 1024);
  EXPECT_EQ(MaxThreadsForRegisters(64, 0), 1024);  // 64 * 1024 = 65536
  EXPECT_EQ(MaxThreadsForRegisters(65, 0), 896);   // 72 per thread after rounding: 28 warps
  EXPECT_EQ(MaxThreadsForRegisters(80, 0), 768);   // 25.6 warps, rounded down to 4s: 24
  EXPECT_EQ(MaxThreadsForRegisters(128, 0), 512);
  EXPECT_EQ(MaxThreadsForRegisters(255, 0), 256);
  EXPECT_EQ(MaxThreadsForRegisters(40, 256), 256);  // declared bound wins when lower
  EXPECT_EQ(MaxThreadsForRegisters(128, 768), 512);
}

TEST_F(NvrtcCompilerTest, UsesInMemoryHeadersAndExtraOptions) {
  CompileRequest request = Request("sm_90",
                                   "#include \"params.h\"\n"
                                   "extern \"C\" __global__ void k(int* p) { p[0] = kValue + "
                                   "EXTRA; }",
                                   {"k"});
  request.headers = {{"params.h", "constexpr int kValue = 41;\n"}};
  request.options = {"-DEXTRA=1"};
  EXPECT_THAT(nvrtc_.Compile(request), IsOk());

  request.options = {};
  EXPECT_THAT(nvrtc_.Compile(request), StatusIs(absl::StatusCode::kInvalidArgument, "EXTRA"));
}

TEST_F(NvrtcCompilerTest, ACompileErrorCarriesTheLogAndOptions) {
  absl::StatusOr<CodeObject> code =
      nvrtc_.Compile(Request("sm_90", "__global__ void k(int* p) { p[0] = not_declared; }", {"k"}));
  EXPECT_THAT(code, StatusIs(absl::StatusCode::kInvalidArgument, "test_kernel.cu"));
  EXPECT_THAT(code, StatusIs(absl::StatusCode::kInvalidArgument, "\"not_declared\" is undefined"));
  EXPECT_THAT(code, StatusIs(absl::StatusCode::kInvalidArgument, "--gpu-architecture=sm_90"));
  EXPECT_THAT(code, StatusIs(absl::StatusCode::kInvalidArgument, "NVRTC_ERROR_COMPILATION"));
}

TEST_F(NvrtcCompilerTest, RejectedOptionsAreInvalidArgument) {
  CompileRequest request = Request("sm_90", "__global__ void k() {}", {"k"});
  request.options = {"-O3"};
  EXPECT_THAT(nvrtc_.Compile(request), StatusIs(absl::StatusCode::kInvalidArgument, "-O3"));
}

// NVRTC lets a later architecture option win, so the request's target is
// the only way to choose one.
TEST_F(NvrtcCompilerTest, ArchitectureOptionsAreRefused) {
  CompileRequest request = Request("sm_90", "__global__ void k() {}", {"k"});
  for (const char* option : {"--gpu-architecture=compute_80", "-arch=sm_80", "-arch"}) {
    request.options = {option};
    EXPECT_THAT(nvrtc_.Compile(request),
                StatusIs(absl::StatusCode::kInvalidArgument, "CompileRequest::target"));
  }
}

TEST_F(NvrtcCompilerTest, AFamilyTargetBuildsThePlainArchitecture) {
  absl::StatusOr<std::vector<std::string>> targets = nvrtc_.Targets();
  ASSERT_THAT(targets, IsOk());
  if (std::find(targets->begin(), targets->end(), "sm_100") == targets->end()) {
    GTEST_SKIP() << "this NVRTC does not build for sm_100";
  }
  absl::StatusOr<CodeObject> code =
      nvrtc_.Compile(Request("sm_100f", "__global__ void k() {}", {"k"}));
  ASSERT_THAT(code, IsOk());
  EXPECT_EQ(code->target, "sm_100");
}

TEST_F(NvrtcCompilerTest, AStandardInTheRequestReplacesTheDefault) {
  CompileRequest request =
      Request("sm_90",
              "#if __cplusplus < 202002L\n#error not c++20\n#endif\n__global__ void k() {}", {"k"});
  EXPECT_THAT(nvrtc_.Compile(request), StatusIs(absl::StatusCode::kInvalidArgument, "not c++20"));
  request.options = {"--std=c++20"};
  EXPECT_THAT(nvrtc_.Compile(request), IsOk());
}

TEST_F(NvrtcCompilerTest, AnUnknownNameExpressionIsACompileError) {
  EXPECT_THAT(nvrtc_.Compile(Request("sm_90", kAxpySource, {"axpy_typo<1, float>"})),
              StatusIs(absl::StatusCode::kInvalidArgument, "axpy_typo"));
}

TEST_F(NvrtcCompilerTest, UnsupportedArchsListTheSupportedOnes) {
  for (const char* arch : {"sm_1000", "sm_5", "sm_35"}) {
    SCOPED_TRACE(arch);
    absl::StatusOr<CodeObject> code = nvrtc_.Compile(Request(arch, "__global__ void k() {}", {}));
    EXPECT_THAT(code, StatusIs(absl::StatusCode::kInvalidArgument, arch));
    EXPECT_THAT(code, StatusIs(absl::StatusCode::kInvalidArgument, "sm_80, "));
    EXPECT_THAT(code, StatusIs(absl::StatusCode::kInvalidArgument, "sm_90"));
  }
  for (const char* arch : {"gfx90a", "sm_", "sm_9x", "sm_090", "compute_90", ""}) {
    SCOPED_TRACE(arch);
    EXPECT_THAT(nvrtc_.Compile(Request(arch, "__global__ void k() {}", {})),
                StatusIs(absl::StatusCode::kInvalidArgument, "is not an NVIDIA architecture"));
  }
  CompileRequest with_features = Request("sm_90", "__global__ void k() {}", {});
  with_features.target.features = ":xnack-";
  EXPECT_THAT(nvrtc_.Compile(with_features),
              StatusIs(absl::StatusCode::kInvalidArgument, "sm_90:xnack-"));
}

TEST_F(NvrtcCompilerTest, CompilesFromManyThreadsAtOnce) {
  NvrtcCompiler fresh;  // loads NVRTC inside the race
  std::vector<absl::StatusOr<CodeObject>> results(4, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] {
      results[i] = fresh.Compile(Request(i % 2 ? "sm_80" : "sm_90", kAxpySource, {kAxpyFloat128}));
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (size_t i = 0; i < results.size(); ++i) {
    ASSERT_THAT(results[i], IsOk());
    EXPECT_EQ(results[i]->target, i % 2 ? "sm_80" : "sm_90");
    EXPECT_EQ(results[i]->symbols.at(0).lowered_name, kAxpyFloat128Lowered);
  }
}

TEST(NvrtcCompilerLibraryTest, AMissingLibraryIsUnavailableNamingTheFile) {
  NvrtcCompiler nvrtc({"libnvrtc-does-not-exist.so.99"});
  EXPECT_THAT(nvrtc.Info(),
              StatusIs(absl::StatusCode::kUnavailable, "libnvrtc-does-not-exist.so.99"));
  EXPECT_THAT(nvrtc.Targets(), StatusIs(absl::StatusCode::kUnavailable, "CUDA toolkit"));
  EXPECT_THAT(nvrtc.Compile(Request("sm_90", "__global__ void k() {}", {})),
              StatusIs(absl::StatusCode::kUnavailable, "libnvrtc-does-not-exist.so.99"));
}

// The portability layer every kernel template includes must build with
// NVRTC exactly as the library embeds it.
std::vector<std::pair<std::string, std::string>> TemplateHeaders() {
  std::vector<std::pair<std::string, std::string>> headers;
  for (const EmbeddedFile& file : EmbeddedTemplates()) {
    headers.emplace_back(std::string(file.name), std::string(file.text));
  }
  return headers;
}

TEST_F(NvrtcCompilerTest, CompilesThePrelude) {
  CompileRequest request = Request(
      "sm_90", R"(
#include "prelude.h"
namespace jitk {
template <typename T>
__global__ void round_trip(T* out, const T* in, float* sums) {
  float v = to_float(in[threadIdx.x]);
  out[threadIdx.x] = from_float<T>(v * 2.0f);
  float total = wave_sum(v);
  float top = wave_max(v);
  block_sync();
  if (lane_id() == 0) sums[threadIdx.x / kWaveSize] = total + top;
}
}  // namespace jitk
)",
      {"jitk::round_trip<float>", "jitk::round_trip<jitk::f16>", "jitk::round_trip<jitk::bf16>"});
  request.headers = TemplateHeaders();
  ASSERT_FALSE(request.headers.empty());
  absl::StatusOr<CodeObject> code = nvrtc_.Compile(request);
  ASSERT_THAT(code, IsOk());
  ASSERT_EQ(code->symbols.size(), 3u);
  for (const CompiledSymbol& symbol : code->symbols) EXPECT_GT(symbol.resources.registers, 0);
}

TEST_F(NvrtcCompilerTest, CompilesScaledAdd) {
  CompileRequest request =
      Request("sm_90", "#include \"scaled_add.h\"\n",
              {"jitk::scaled_add<256, 4, 4, float>", "jitk::scaled_add<128, 2, 8, jitk::f16>",
               "jitk::scaled_add<512, 1, 8, jitk::bf16>"});
  request.headers = TemplateHeaders();
  bool has_scaled_add = false;
  for (const auto& [name, text] : request.headers) has_scaled_add |= name == "scaled_add.h";
  if (!has_scaled_add) GTEST_SKIP() << "scaled_add.h is not embedded";
  absl::StatusOr<CodeObject> code = nvrtc_.Compile(request);
  ASSERT_THAT(code, IsOk());
  for (const CompiledSymbol& symbol : code->symbols) {
    EXPECT_GT(symbol.resources.registers, 0) << symbol.name_expression;
    EXPECT_EQ(symbol.resources.spills, 0) << symbol.name_expression;
  }
  EXPECT_EQ(code->symbols[0].resources.max_threads_per_block, 256);
}

// NVRTC opens libnvrtc-builtins by name only. With CUDA on no loader path
// (no ld.so.cache entry, no LD_LIBRARY_PATH) a compile must still work when
// libnvrtc itself was found in /usr/local/cuda/lib64: run one compile test
// in a child process whose loader ignores the cache.
TEST(NvrtcCompilerLibraryTest, FindsTheBuiltinsBesideLibnvrtcOffTheLoaderPath) {
  constexpr char kLoader[] = "/lib64/ld-linux-x86-64.so.2";
  if (access(kLoader, X_OK) != 0) GTEST_SKIP() << "no " << kLoader;
  NvrtcCompiler defaults;
  bool in_cuda_dir = false;
  for (const std::string& dir : defaults.extra_dirs()) {
    for (const std::string& name : defaults.file_names()) {
      in_cuda_dir |= access(absl::StrCat(dir, "/", name).c_str(), R_OK) == 0;
    }
  }
  if (!in_cuda_dir) GTEST_SKIP() << "NVRTC is not installed under /usr/local/cuda";
  char self[4096] = {};
  ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  ASSERT_GT(length, 0);
  // Some systems' programs cannot even start without the loader cache (their
  // libstdc++ lives only on cache-listed paths); nothing to check there.
  if (std::system(absl::StrCat("env -u LD_LIBRARY_PATH ", kLoader, " --inhibit-cache ", self,
                               " --gtest_list_tests > /dev/null 2>&1")
                      .c_str()) != 0) {
    GTEST_SKIP() << "this system's programs need the loader cache to start";
  }
  std::string command = absl::StrCat(
      "env -u LD_LIBRARY_PATH ", kLoader, " --inhibit-cache ", self,
      " --gtest_filter=NvrtcCompilerTest.CompilesATemplateForSm90AndSm80 > /dev/null 2>&1");
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
}

}  // namespace
}  // namespace jitk::internal
