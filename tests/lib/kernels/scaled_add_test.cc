// scaled_add through the public API: compile for both vendors without a GPU,
// the error paths, and (with a GPU) results against a CPU reference.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "jitk/jitk.h"
#include "lib/internal/kernel_impl.h"
#include "lib/internal/template_sources.h"
#include "lib/kernel_template.h"
#include "tests/testing/gpu.h"
#include "tests/testing/status_matchers.h"

namespace jitk {
namespace {

using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;

Shape F32(int64_t n) { return Shape(DType::kF32).Set("n", n); }

TEST(ScaledAddTest, UnknownKernelListsTheBuiltInOnes) {
  EXPECT_THAT(get_kernel("saxpy", F32(16)),
              StatusIs(absl::StatusCode::kInvalidArgument, "unknown kernel 'saxpy'"));
  EXPECT_THAT(compile_kernel("saxpy", F32(16), {.arch = "gfx90a"}),
              StatusIs(absl::StatusCode::kInvalidArgument, "scaled_add"));
}

TEST(ScaledAddTest, BadShapesAreNamed) {
  EXPECT_THAT(compile_kernel("scaled_add", Shape(), {.arch = "gfx90a"}),
              StatusIs(absl::StatusCode::kInvalidArgument, "'n'"));
  EXPECT_THAT(compile_kernel("scaled_add", F32(-4), {.arch = "gfx90a"}),
              StatusIs(absl::StatusCode::kInvalidArgument, "n must be >= 0"));
  EXPECT_THAT(compile_kernel("scaled_add", F32(4).Set("m", 2), {.arch = "gfx90a"}),
              StatusIs(absl::StatusCode::kInvalidArgument, "'m'"));
}

TEST(ScaledAddTest, BadTemplateParametersAreNamed) {
  CompileOptions options{.arch = "gfx90a", .config = KernelConfig{{"BLOCK", 100}, {"EPT", 4},
                                                                 {"VEC", 4}}};
  EXPECT_THAT(compile_kernel("scaled_add", F32(64), options),
              StatusIs(absl::StatusCode::kInvalidArgument, "BLOCK=100"));
  options.config = KernelConfig{{"BLOCK", 256}, {"EPT", 4}, {"VEC", 8}};
  EXPECT_THAT(compile_kernel("scaled_add", F32(64), options),
              StatusIs(absl::StatusCode::kInvalidArgument, "VEC=8"));
  options.config = KernelConfig{{"BLOCK", 256}, {"EPT", 4}};
  EXPECT_THAT(compile_kernel("scaled_add", F32(64), options),
              StatusIs(absl::StatusCode::kInvalidArgument, "VEC"));
  options.config = KernelConfig{{"BLOCK", 256}, {"EPT", 4}, {"VEC", 4}, {"UNROLL", 2}};
  EXPECT_THAT(compile_kernel("scaled_add", F32(64), options),
              StatusIs(absl::StatusCode::kInvalidArgument, "UNROLL"));
}

// A misspelt argument is refused by name, not ignored (no GPU: planning only).
TEST(ScaledAddTest, UnknownLaunchArgumentIsRefused) {
  absl::StatusOr<const internal::KernelTemplate*> t = internal::FindKernelTemplate("scaled_add");
  ASSERT_THAT(t, IsOk());
  absl::StatusOr<ArchInfo> arch = LookupArch("gfx90a");
  ASSERT_THAT(arch, IsOk());
  const KernelConfig config = (*t)->DefaultConfig(F32(64), *arch);
  int buffer[64];
  LaunchArgs args = LaunchArgs().Ptr("out", buffer).Ptr("x", buffer).Ptr("y", buffer).Int("n", 64);
  internal::LaunchPlan plan;
  EXPECT_THAT((*t)->PlanLaunch(config, F32(64), *arch, LaunchArgs(args).Float("scale", 2), plan),
              IsOk());
  EXPECT_THAT((*t)->PlanLaunch(config, F32(64), *arch, args.Float("alpha", 2), plan),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "scaled_add takes no launch argument 'alpha'; it takes out, x, y, n, scale"));
}

TEST(ScaledAddTest, NoArchitectureIsAClearError) {
  EXPECT_THAT(compile_kernel("scaled_add", F32(64), {}),
              StatusIs(absl::StatusCode::kInvalidArgument, "needs an architecture"));
}

bool BackendBuiltIn(Vendor vendor) { return internal::BackendFor(vendor).ok(); }

class ScaledAddCompileTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ScaledAddCompileTest, CompilesEveryDTypeWithoutAGpu) {
  absl::StatusOr<Target> target = ParseTarget(GetParam());
  ASSERT_THAT(target, IsOk());
  if (!BackendBuiltIn(target->vendor)) GTEST_SKIP() << "backend not built in";
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    absl::StatusOr<CompiledKernel> k =
        compile_kernel("scaled_add", Shape(dtype).Set("n", 1 << 20), {.arch = GetParam()});
    ASSERT_THAT(k, IsOk()) << DTypeName(dtype);
    EXPECT_NE(k->target.find(target->arch), std::string::npos) << k->target;
    EXPECT_GT(k->code_object.size(), 64u);
    EXPECT_EQ(k->code_object.substr(0, 4), "\x7f" "ELF");
    EXPECT_FALSE(k->symbol.empty());
    EXPECT_GT(k->resources.registers, 0);
    EXPECT_EQ(k->resources.spills, 0);
    EXPECT_EQ(k->resources.lds_bytes, 0);  // scaled_add uses no shared memory
    EXPECT_NE(k->name_expression.find("scaled_add<"), std::string::npos);
    // Default: 16-byte vectors.
    EXPECT_EQ(k->config.at("VEC") * int64_t(DTypeSize(dtype)), 16);
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, ScaledAddCompileTest, ::testing::Values("gfx90a", "sm_90"));

// A cached row keeps no compiler log: bypassing the cache compiles again,
// with ptxas's report, even where the code is stored.
TEST(ScaledAddTest, BypassingTheCodeObjectCacheKeepsTheLog) {
  if (!BackendBuiltIn(Vendor::kNvidia)) GTEST_SKIP() << "CUDA backend not built in";
  absl::StatusOr<const internal::KernelTemplate*> t = internal::FindKernelTemplate("scaled_add");
  ASSERT_THAT(t, IsOk());
  absl::StatusOr<Target> target = ParseTarget("sm_90");
  absl::StatusOr<ArchInfo> arch = LookupArch("sm_90");
  ASSERT_THAT(target, IsOk());
  ASSERT_THAT(arch, IsOk());
  const Shape shape = F32(1 << 16);
  const KernelConfig config = (*t)->DefaultConfig(shape, *arch);
  ASSERT_THAT(internal::CompileTemplate(**t, shape, config, *target, *arch), IsOk());
  absl::StatusOr<CompiledKernel> again = internal::CompileTemplate(
      **t, shape, config, *target, *arch, internal::CodeObjectCache::kBypass);
  ASSERT_THAT(again, IsOk());
  EXPECT_NE(again->log.find("registers"), std::string::npos) << again->log;
}

TEST(ScaledAddTest, AmdWaveSizeComesFromTheTarget) {
  if (!BackendBuiltIn(Vendor::kAmd)) GTEST_SKIP() << "HIP backend not built in";
  absl::StatusOr<CompiledKernel> k = compile_kernel("scaled_add", F32(64), {.arch = "gfx90a"});
  ASSERT_THAT(k, IsOk());
  EXPECT_EQ(k->resources.wave_size, 64);
  EXPECT_EQ(k->config.at("BLOCK"), 256);  // 4 wave64s
}

// ROCm 5.2's hiprtc aborts the process for an ISA its comgr does not know;
// jitk must answer with an error instead (and this test must survive).
TEST(ScaledAddTest, UnsupportedAmdArchIsAnErrorNotAnAbort) {
  if (!BackendBuiltIn(Vendor::kAmd)) GTEST_SKIP() << "HIP backend not built in";
  absl::StatusOr<std::vector<std::string>> targets =
      (*internal::BackendFor(Vendor::kAmd))->CompileTargets();
  ASSERT_THAT(targets, IsOk());
  if (std::find(targets->begin(), targets->end(), "gfx942") != targets->end()) {
    GTEST_SKIP() << "this comgr knows gfx942";
  }
  EXPECT_THAT(compile_kernel("scaled_add", F32(64), {.arch = "gfx942"}),
              StatusIs(absl::StatusCode::kInvalidArgument, "gfx942"));
}

class TemplateDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("jitk_template_dir_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    unsetenv("JITK_TEMPLATE_DIR");
    std::filesystem::remove_all(dir_);
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  std::filesystem::path dir_;
};

TEST_F(TemplateDirTest, CompileErrorCarriesTheCompilerLog) {
  if (!BackendBuiltIn(Vendor::kNvidia)) GTEST_SKIP() << "CUDA backend not built in";
  // An override directory whose scaled_add.h does not compile.
  absl::StatusOr<internal::SourceFiles> builtin = internal::TemplateSources();
  ASSERT_THAT(builtin, IsOk());
  for (const auto& [name, text] : *builtin) Write(name, text);
  Write("scaled_add.h",
        "#pragma once\nnamespace jitk { template <int B, int E, int V, typename T>\n"
        "__global__ void scaled_add(T* o, const T* x, const T* y, long long n, float s) {\n"
        "  undeclared_identifier_jitk = 1; } }\n");
  setenv("JITK_TEMPLATE_DIR", dir_.c_str(), 1);
  absl::StatusOr<CompiledKernel> k = compile_kernel("scaled_add", F32(64), {.arch = "sm_90"});
  EXPECT_THAT(k, StatusIs(absl::StatusCode::kInvalidArgument, "undeclared_identifier_jitk"));
  EXPECT_THAT(k, StatusIs(absl::StatusCode::kInvalidArgument, "sm_90"));
}

TEST_F(TemplateDirTest, EmptyOverrideDirectoryIsNamed) {
  setenv("JITK_TEMPLATE_DIR", dir_.c_str(), 1);
  EXPECT_THAT(compile_kernel("scaled_add", F32(64), {.arch = "sm_90"}),
              StatusIs(absl::StatusCode::kNotFound, "JITK_TEMPLATE_DIR"));
}

// --- On a GPU -------------------------------------------------------------

// Host copy of a dtype's values: fp32, or 16-bit patterns.
struct HostTensor {
  DType dtype;
  std::vector<float> values;  // what the device sees, already rounded

  std::vector<uint8_t> Bytes() const {
    std::vector<uint8_t> bytes(values.size() * DTypeSize(dtype));
    for (size_t i = 0; i < values.size(); ++i) {
      if (dtype == DType::kF32) {
        std::memcpy(&bytes[4 * i], &values[i], 4);
      } else {
        uint16_t bits = dtype == DType::kF16 ? testing::FloatToHalf(values[i])
                                             : testing::FloatToBFloat16(values[i]);
        std::memcpy(&bytes[2 * i], &bits, 2);
      }
    }
    return bytes;
  }
};

float Decode(DType dtype, const uint8_t* p) {
  if (dtype == DType::kF32) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  uint16_t bits;
  std::memcpy(&bits, p, 2);
  return dtype == DType::kF16 ? testing::HalfToFloat(bits) : testing::BFloat16ToFloat(bits);
}

float RoundTo(DType dtype, float v) {
  if (dtype == DType::kF16) return testing::HalfToFloat(testing::FloatToHalf(v));
  if (dtype == DType::kBF16) return testing::BFloat16ToFloat(testing::FloatToBFloat16(v));
  return v;
}

// Runs scaled_add on n elements whose x / y / out start `offsets` elements
// into their buffers (to test misaligned pointers), with poisoned output,
// and checks every element against an fp64 reference rounded to the dtype.
void CheckOnDevice(const Device& gpu, DType dtype, int64_t n, int ox, int oy, int oo,
                   std::optional<KernelConfig> config = std::nullopt) {
  SCOPED_TRACE(::testing::Message() << DTypeName(dtype) << " n=" << n << " offsets " << ox << ","
                                    << oy << "," << oo);
  const size_t e = DTypeSize(dtype);
  const uint32_t seed = uint32_t(n * 31 + ox * 7 + oy * 3 + oo + int(dtype));
  HostTensor x{dtype, testing::RandomFloats(n, seed)};
  HostTensor y{dtype, testing::RandomFloats(n, seed + 1)};
  for (float& v : x.values) v = RoundTo(dtype, v);
  for (float& v : y.values) v = RoundTo(dtype, v);
  const float scale = -0.75f;

  const size_t pad = 16;
  absl::StatusOr<DeviceBuffer> dx = gpu.Allocate((n + pad) * e), dy = gpu.Allocate((n + pad) * e),
                               dout = gpu.Allocate((n + pad) * e);
  ASSERT_THAT(dx, IsOk());
  ASSERT_THAT(dy, IsOk());
  ASSERT_THAT(dout, IsOk());
  auto at = [&](const DeviceBuffer& b, int offset) {
    return static_cast<uint8_t*>(b.data()) + offset * e;
  };
  ASSERT_THAT(gpu.CopyToDevice(at(*dx, ox), x.Bytes().data(), n * e), IsOk());
  ASSERT_THAT(gpu.CopyToDevice(at(*dy, oy), y.Bytes().data(), n * e), IsOk());
  ASSERT_THAT(gpu.Memset(dout->data(), 0xff, (n + pad) * e), IsOk());  // NaN poison

  absl::StatusOr<Kernel> kernel =
      get_kernel("scaled_add", Shape(dtype).Set("n", n), {.config = config});
  ASSERT_THAT(kernel, IsOk());
  ASSERT_THAT(kernel->Launch(LaunchArgs()
                                 .Ptr("out", at(*dout, oo))
                                 .Ptr("x", at(*dx, ox))
                                 .Ptr("y", at(*dy, oy))
                                 .Int("n", n)
                                 .Float("scale", scale)),
              IsOk());
  ASSERT_THAT(gpu.Synchronize(), IsOk());
  std::vector<uint8_t> out((n + pad) * e);
  ASSERT_THAT(gpu.CopyToHost(out.data(), dout->data(), out.size()), IsOk());

  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double want = double(x.values[i]) + double(y.values[i]) * scale;
    const float got = Decode(dtype, &out[(oo + i) * e]);
    const double tolerance = dtype == DType::kF32 ? 1e-6 * (1 + std::fabs(want))
                                                  : (dtype == DType::kF16 ? 1e-3 : 8e-3) *
                                                        (1 + std::fabs(want));
    if (!(std::fabs(got - want) <= tolerance) && bad++ < 5) {
      ADD_FAILURE() << "element " << i << ": got " << got << ", want " << want;
    }
  }
  EXPECT_EQ(bad, 0);
  // Nothing outside [oo, oo + n) was written: the poison is intact.
  for (size_t i = 0; i < out.size(); ++i) {
    if (int64_t(i) / int64_t(e) >= oo && int64_t(i) / int64_t(e) < oo + n) continue;
    ASSERT_EQ(out[i], 0xff) << "byte " << i << " outside the output was written";
  }
}

TEST(ScaledAddGpuTest, MatchesReferenceForEveryDTypeAndOddLength) {
  JITK_GPU_OR_SKIP(gpu);
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (int64_t n : {1, 7, 1000, 65537, 1000003}) CheckOnDevice(gpu, dtype, n, 0, 0, 0);
  }
}

TEST(ScaledAddGpuTest, MisalignedPointers) {
  JITK_GPU_OR_SKIP(gpu);
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    CheckOnDevice(gpu, dtype, 100003, 1, 1, 1);  // common misalignment: head + vectors + tail
    CheckOnDevice(gpu, dtype, 100003, 1, 0, 3);  // no common boundary: scalar path
  }
}

TEST(ScaledAddGpuTest, EveryVectorWidthAndBlockSize) {
  JITK_GPU_OR_SKIP(gpu);
  const int wave = gpu.info().wave_size;
  for (int64_t vec : {1, 2, 4, 8}) {
    for (int64_t block : {int64_t(wave), int64_t(1024)}) {
      CheckOnDevice(gpu, DType::kF16, 77777, 0, 0, 0,
                    KernelConfig{{"BLOCK", block}, {"EPT", vec == 8 ? 1 : 8}, {"VEC", vec}});
    }
  }
}

TEST(ScaledAddGpuTest, ZeroLengthLaunchesNothing) {
  JITK_GPU_OR_SKIP(gpu);
  absl::StatusOr<Kernel> kernel = get_kernel("scaled_add", F32(0));
  ASSERT_THAT(kernel, IsOk());
  EXPECT_THAT(kernel->Launch(LaunchArgs().Ptr("out", nullptr).Ptr("x", nullptr).Ptr("y", nullptr)
                                 .Int("n", 0).Float("scale", 1)),
              IsOk());
}

TEST(ScaledAddGpuTest, BadLaunchArgumentsAreNamed) {
  JITK_GPU_OR_SKIP(gpu);
  absl::StatusOr<Kernel> kernel = get_kernel("scaled_add", F32(64));
  ASSERT_THAT(kernel, IsOk());
  absl::StatusOr<DeviceBuffer> buffer = gpu.Allocate(256);
  ASSERT_THAT(buffer, IsOk());
  void* p = buffer->data();
  EXPECT_THAT(kernel->Launch(LaunchArgs().Ptr("out", p).Ptr("x", p).Int("n", 64)),
              StatusIs(absl::StatusCode::kInvalidArgument, "'y'"));
  EXPECT_THAT(kernel->Launch(LaunchArgs().Ptr("out", p).Ptr("x", p).Ptr("y", p).Float("n", 64)
                                 .Float("scale", 1)),
              StatusIs(absl::StatusCode::kInvalidArgument, "'n' must be an integer"));
  EXPECT_THAT(kernel->Launch(LaunchArgs().Ptr("out", static_cast<char*>(p) + 1).Ptr("x", p)
                                 .Ptr("y", p).Int("n", 8).Float("scale", 1)),
              StatusIs(absl::StatusCode::kInvalidArgument, "aligned"));
}

TEST(ScaledAddGpuTest, RepeatedGetKernelIsServedFromMemory) {
  JITK_GPU_OR_SKIP(gpu);
  absl::StatusOr<Kernel> first = get_kernel("scaled_add", F32(4096));
  absl::StatusOr<Kernel> second = get_kernel("scaled_add", F32(4096));
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(first->impl().get(), second->impl().get());
}

// A code object for another architecture is refused before it can reach the
// GPU (where it would die with "Illegal instruction").
TEST(ScaledAddGpuTest, MismatchedCodeObjectIsRefused) {
  JITK_GPU_OR_SKIP(gpu);
  const std::string other = gpu.info().vendor == Vendor::kNvidia
                                ? (gpu.info().arch == "sm_80" ? "sm_90" : "sm_80")
                                : (gpu.info().arch == "gfx90a" ? "gfx908" : "gfx90a");
  absl::StatusOr<CompiledKernel> compiled = compile_kernel("scaled_add", F32(64), {.arch = other});
  ASSERT_THAT(compiled, IsOk());
  if (CheckTargetCompatible(*ParseTarget(compiled->target), *ParseTarget(gpu.info().target)).ok()) {
    GTEST_SKIP() << other << " code runs on " << gpu.info().target;
  }
  absl::StatusOr<const internal::KernelTemplate*> t = internal::FindKernelTemplate("scaled_add");
  ASSERT_THAT(t, IsOk());
  absl::StatusOr<Kernel> loaded =
      internal::LoadCompiled(**t, F32(64), *compiled, ConfigSource::kExplicit, gpu);
  EXPECT_THAT(loaded, StatusIs(absl::StatusCode::kFailedPrecondition, other));
  EXPECT_THAT(loaded, StatusIs(absl::StatusCode::kFailedPrecondition, gpu.info().arch));
}

}  // namespace
}  // namespace jitk
