// HipBackend's compile side against the real hiprtc and comgr (no GPU).
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/backend/hip/hip_backend.h"
#include "lib/internal/embedded_templates.h"
#include "tests/testing/status_matchers.h"

namespace jitk::internal {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;
using ::testing::Contains;
using ::testing::HasSubstr;

constexpr char kAxpy[] = R"(
template <int BLOCK, typename T>
__global__ __launch_bounds__(BLOCK) void axpy(T* out, const T* x, T a, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) out[i] = a * x[i] + out[i];
}
)";

Target Amd(const std::string& arch, const std::string& features = "") {
  return Target{arch, features, Vendor::kAmd};
}

CompileRequest AxpyRequest(const Target& target) {
  CompileRequest request;
  request.target = target;
  request.program_name = "axpy.hip";
  request.source = kAxpy;
  request.name_expressions = {"axpy<256, float>"};
  return request;
}

bool IsElf(const std::string& binary) {
  return binary.compare(0, 4,
                        "\x7f"
                        "ELF") == 0;
}

// One backend for the whole suite: loading hiprtc once keeps the tests fast.
Backend& Hip() {
  static Backend* const backend = NewHipBackend().release();
  return *backend;
}

bool CanCompile(const std::string& arch) {
  absl::StatusOr<std::vector<std::string>> targets = Hip().CompileTargets();
  return targets.ok() && std::find(targets->begin(), targets->end(), arch) != targets->end();
}

// The HIP backend is only built where the ROCm development packages are,
// and they bring hiprtc and comgr, so a compiler that does not load is a
// failure here, not a reason to skip.
class HipCompilerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_THAT(Hip().Compiler(), IsOk()); }
};

TEST_F(HipCompilerTest, CompilerNamesHiprtcAndComgrVersions) {
  absl::StatusOr<CompilerInfo> compiler = Hip().Compiler();
  ASSERT_THAT(compiler, IsOk());
  EXPECT_EQ(compiler->name, "hiprtc");
  EXPECT_THAT(compiler->version, HasSubstr("comgr "));
  EXPECT_THAT(compiler->version, HasSubstr("(api "));
  EXPECT_THAT(compiler->version, HasSubstr("-O3 -std=c++17"));
  EXPECT_TRUE(absl::StartsWith(compiler->ToString(), "hiprtc "));
}

TEST_F(HipCompilerTest, CompileTargetsAreBareArchNames) {
  absl::StatusOr<std::vector<std::string>> targets = Hip().CompileTargets();
  ASSERT_THAT(targets, IsOk());
  EXPECT_THAT(*targets, Contains("gfx90a"));
  EXPECT_THAT(*targets, Contains("gfx1030"));
  for (const std::string& arch : *targets) {
    EXPECT_TRUE(absl::StartsWith(arch, "gfx")) << arch;
    EXPECT_FALSE(absl::StrContains(arch, ":")) << arch;
    EXPECT_EQ(std::count(targets->begin(), targets->end(), arch), 1) << arch;
  }
}

TEST_F(HipCompilerTest, CompilesTemplatedKernelForGfx90a) {
  absl::StatusOr<CodeObject> code = Hip().Compile(AxpyRequest(Amd("gfx90a")));
  ASSERT_THAT(code, IsOk());
  EXPECT_TRUE(IsElf(code->binary));
  EXPECT_THAT(code->isa_name, HasSubstr("gfx90a"));
  EXPECT_EQ(code->target, "gfx90a");
  EXPECT_GT(code->compile_ms, 0);
  ASSERT_EQ(code->symbols.size(), 1u);
  const CompiledSymbol& symbol = code->symbols[0];
  EXPECT_EQ(symbol.name_expression, "axpy<256, float>");
  // axpy<256, float>(float*, const float*, float, int)
  EXPECT_EQ(symbol.lowered_name, "_Z4axpyILi256EfEvPT0_PKS0_S0_i");
  EXPECT_GT(symbol.resources.registers, 0);
  EXPECT_LE(symbol.resources.registers, 256);
  EXPECT_GT(symbol.resources.scalar_registers, 0);
  EXPECT_LE(symbol.resources.scalar_registers, 112);
  EXPECT_EQ(symbol.resources.accum_registers, 0);
  EXPECT_EQ(symbol.resources.lds_bytes, 0);
  EXPECT_EQ(symbol.resources.spills, 0);
  EXPECT_EQ(symbol.resources.wave_size, 64);
  EXPECT_EQ(symbol.resources.max_threads_per_block, 256);  // __launch_bounds__(BLOCK)
}

TEST_F(HipCompilerTest, KeepsTargetFeaturesInIsaAndTarget) {
  absl::StatusOr<CodeObject> code = Hip().Compile(AxpyRequest(Amd("gfx90a", ":sramecc+:xnack-")));
  ASSERT_THAT(code, IsOk());
  EXPECT_EQ(code->isa_name, "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-");
  EXPECT_EQ(code->target, "gfx90a:sramecc+:xnack-");
}

TEST_F(HipCompilerTest, NameExpressionsKeepTheirOrder) {
  CompileRequest request = AxpyRequest(Amd("gfx90a"));
  request.name_expressions = {"axpy<128, double>", "axpy<64, int>"};
  absl::StatusOr<CodeObject> code = Hip().Compile(request);
  ASSERT_THAT(code, IsOk());
  ASSERT_EQ(code->symbols.size(), 2u);
  EXPECT_EQ(code->symbols[0].name_expression, "axpy<128, double>");
  EXPECT_EQ(code->symbols[0].lowered_name, "_Z4axpyILi128EdEvPT0_PKS0_S0_i");
  EXPECT_EQ(code->symbols[0].resources.max_threads_per_block, 128);
  EXPECT_EQ(code->symbols[1].lowered_name, "_Z4axpyILi64EiEvPT0_PKS0_S0_i");
  EXPECT_EQ(code->symbols[1].resources.max_threads_per_block, 64);
}

TEST_F(HipCompilerTest, PlainKernelNameExpression) {
  CompileRequest request = AxpyRequest(Amd("gfx90a"));
  request.source =
      "__global__ void scale(float* data, float factor, int n) { data[0] *= factor; }\n";
  request.name_expressions = {"scale"};
  absl::StatusOr<CodeObject> code = Hip().Compile(request);
  ASSERT_THAT(code, IsOk());
  EXPECT_EQ(code->symbols[0].lowered_name, "_Z5scalePffi");
  EXPECT_EQ(code->symbols[0].resources.max_threads_per_block, 1024);  // no launch bounds
}

TEST_F(HipCompilerTest, ResolvesInMemoryHeadersAndReportsLds) {
  CompileRequest request;
  request.target = Amd("gfx90a");
  request.program_name = "reverse.hip";
  request.headers = {{"jitk_test/twice.h",
                      "template <typename T> __device__ T twice(T v) { "
                      "return v + v; }\n"}};
  request.source = R"(
#include "jitk_test/twice.h"
template <int BLOCK>
__global__ void reverse_twice(float* data) {
  __shared__ float tile[BLOCK];
  tile[threadIdx.x] = data[blockIdx.x * BLOCK + threadIdx.x];
  __syncthreads();
  data[blockIdx.x * BLOCK + threadIdx.x] = twice(tile[BLOCK - 1 - threadIdx.x]);
}
)";
  request.name_expressions = {"reverse_twice<256>"};
  absl::StatusOr<CodeObject> code = Hip().Compile(request);
  ASSERT_THAT(code, IsOk());
  ASSERT_EQ(code->symbols.size(), 1u);
  EXPECT_EQ(code->symbols[0].lowered_name, "_Z13reverse_twiceILi256EEvPf");
  EXPECT_EQ(code->symbols[0].resources.lds_bytes, 256 * 4);
}

TEST_F(HipCompilerTest, PassesRequestOptions) {
  CompileRequest request = AxpyRequest(Amd("gfx90a"));
  request.source =
      absl::StrCat("#if JITK_TEST_VALUE != 7\n#error JITK_TEST_VALUE not passed\n#endif\n", kAxpy);
  request.options = {"-DJITK_TEST_VALUE=7"};
  EXPECT_THAT(Hip().Compile(request), IsOk());
}

TEST_F(HipCompilerTest, WavefrontSizeMacroFollowsTheArch) {
  CompileRequest request = AxpyRequest(Amd("gfx90a"));
  request.source =
      absl::StrCat("static_assert(__AMDGCN_WAVEFRONT_SIZE == 64, \"wave64\");\n", kAxpy);
  EXPECT_THAT(Hip().Compile(request), IsOk());
  request.target = Amd("gfx1030");
  request.source =
      absl::StrCat("static_assert(__AMDGCN_WAVEFRONT_SIZE == 32, \"wave32\");\n", kAxpy);
  absl::StatusOr<CodeObject> code = Hip().Compile(request);
  ASSERT_THAT(code, IsOk());
  EXPECT_EQ(code->symbols[0].resources.wave_size, 32);
}

TEST_F(HipCompilerTest, CompilesThePrelude) {
  const EmbeddedFile* prelude = nullptr;
  for (const EmbeddedFile& file : EmbeddedTemplates()) {
    if (file.name == "prelude.h") prelude = &file;
  }
  ASSERT_NE(prelude, nullptr) << "prelude.h is not embedded";
  CompileRequest request;
  request.program_name = "prelude_check.hip";
  request.headers = {{"prelude.h", std::string(prelude->text)}};
  request.source = R"(
#include "prelude.h"
template <typename T>
__global__ void wave_sums(T* out, const T* in) {
  float v = jitk::to_float(in[threadIdx.x]);
  float s = jitk::wave_sum(v) + jitk::wave_max(v) + float(jitk::lane_id());
  jitk::block_sync();
  out[threadIdx.x] = jitk::from_float<T>(s + jitk::shuffle_xor(v, 1));
}
)";
  request.name_expressions = {"wave_sums<float>", "wave_sums<jitk::f16>", "wave_sums<jitk::bf16>"};
  for (const char* arch : {"gfx90a", "gfx1030"}) {
    request.target = Amd(arch);
    absl::StatusOr<CodeObject> code = Hip().Compile(request);
    ASSERT_THAT(code, IsOk()) << arch;
    ASSERT_EQ(code->symbols.size(), 3u);
    EXPECT_EQ(code->symbols[1].lowered_name, "_Z9wave_sumsIN4jitk3f16EEvPT_PKS2_");
    EXPECT_EQ(code->symbols[0].resources.wave_size, std::string(arch) == "gfx90a" ? 64 : 32);
  }
}

TEST_F(HipCompilerTest, CompileErrorCarriesTheLog) {
  CompileRequest request = AxpyRequest(Amd("gfx90a"));
  request.program_name = "broken.hip";
  request.source = "__global__ void broken(float* out) { out[0] = jitk_undeclared_value; }\n";
  request.name_expressions = {};
  absl::StatusOr<CodeObject> code = Hip().Compile(request);
  EXPECT_THAT(code, StatusIs(absl::StatusCode::kInvalidArgument, "jitk_undeclared_value"));
  EXPECT_THAT(code, StatusIs(absl::StatusCode::kInvalidArgument, "broken.hip"));
  EXPECT_THAT(code, StatusIs(absl::StatusCode::kInvalidArgument, "error:"));
}

TEST_F(HipCompilerTest, UnknownNameExpressionIsInvalidArgument) {
  CompileRequest request = AxpyRequest(Amd("gfx90a"));
  request.name_expressions = {"jitk_no_such_kernel<3>"};
  EXPECT_THAT(Hip().Compile(request),
              StatusIs(absl::StatusCode::kInvalidArgument, "jitk_no_such_kernel"));
}

TEST_F(HipCompilerTest, NonKernelNameExpressionIsInvalidArgument) {
  CompileRequest request = AxpyRequest(Amd("gfx90a"));
  request.source = absl::StrCat(kAxpy, "template <int N> __device__ int helper() { return N; }\n",
                                "__global__ void use(int* o) { o[0] = helper<5>(); }\n");
  request.name_expressions = {"helper<5>"};
  // hiprtc either finds no lowered name or one that is not a kernel.
  EXPECT_THAT(Hip().Compile(request), StatusIs(absl::StatusCode::kInvalidArgument, "helper<5>"));
}

// ROCm 5.2's hiprtc aborts the process for architectures comgr does not know
// (gfx942 among them); the backend must refuse before calling it.
TEST_F(HipCompilerTest, ArchUnknownToComgrIsRefusedBeforeHiprtc) {
  if (CanCompile("gfx942")) GTEST_SKIP() << "this ROCm compiles gfx942";
  absl::StatusOr<CodeObject> code = Hip().Compile(AxpyRequest(Amd("gfx942")));
  EXPECT_THAT(code, StatusIs(absl::StatusCode::kInvalidArgument, "cannot compile for gfx942"));
  EXPECT_THAT(code, StatusIs(absl::StatusCode::kInvalidArgument, "gfx90a"));  // lists known ones
  EXPECT_THAT(code, StatusIs(absl::StatusCode::kInvalidArgument, "newer ROCm"));
  // Still alive, and the compiler still works.
  EXPECT_THAT(Hip().Compile(AxpyRequest(Amd("gfx90a"))), IsOk());
}

TEST_F(HipCompilerTest, FeatureTheArchLacksIsRefusedBeforeHiprtc) {
  EXPECT_THAT(Hip().Compile(AxpyRequest(Amd("gfx1030", ":xnack+"))),
              StatusIs(absl::StatusCode::kInvalidArgument, "gfx1030:xnack+"));
  EXPECT_THAT(Hip().Compile(AxpyRequest(Amd("gfx1030", ":xnack+"))),
              StatusIs(absl::StatusCode::kInvalidArgument, "no target features"));
  absl::StatusOr<CodeObject> bogus = Hip().Compile(AxpyRequest(Amd("gfx90a", ":bogus+")));
  EXPECT_THAT(bogus, StatusIs(absl::StatusCode::kInvalidArgument, "gfx90a:bogus+"));
  EXPECT_THAT(bogus, StatusIs(absl::StatusCode::kInvalidArgument, "sramecc, xnack"));
}

TEST_F(HipCompilerTest, TargetOptionsAreRefused) {
  CompileRequest request = AxpyRequest(Amd("gfx90a"));
  request.options = {"--offload-arch=gfx90a"};
  EXPECT_THAT(Hip().Compile(request),
              StatusIs(absl::StatusCode::kInvalidArgument, "--offload-arch=gfx90a"));
}

TEST_F(HipCompilerTest, NvidiaTargetIsRefused) {
  EXPECT_THAT(Hip().Compile(AxpyRequest(Target{"sm_90", "", Vendor::kNvidia})),
              StatusIs(absl::StatusCode::kInvalidArgument, "sm_90"));
}

TEST_F(HipCompilerTest, ConcurrentCompilesOnAFreshBackend) {
  std::unique_ptr<Backend> hip = NewHipBackend();  // first use races on the lazy load
  constexpr int kThreads = 8;
  std::vector<absl::StatusOr<CodeObject>> results(kThreads, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      CompileRequest request = AxpyRequest(Amd("gfx90a"));
      request.name_expressions = {absl::StrCat("axpy<", 64 * (i + 1), ", float>")};
      results[i] = hip->Compile(request);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int i = 0; i < kThreads; ++i) {
    ASSERT_THAT(results[i], IsOk()) << i;
    EXPECT_EQ(results[i]->symbols[0].resources.max_threads_per_block, 64 * (i + 1));
  }
}

}  // namespace
}  // namespace jitk::internal
