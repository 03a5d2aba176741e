// The C ABI (include/jitk/jitk_c.h), through libjitk_c.so itself: compiling
// without a GPU, every error path with its code and message, and (with a
// GPU) launches on raw device pointers.
#include "jitk/jitk_c.h"

#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jitk/version.h"
#include "nlohmann/json.hpp"
#include "tests/testing/gpu.h"

namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string LastMessage() { return jitk_last_error_message(); }

// Status and message of one call, for EXPECT_THAT.
struct Result {
  int code;
  std::string message;
};

Result Capture(jitk_status status) {
  EXPECT_EQ(jitk_last_error_code(), status) << "the recorded code differs from the returned one";
  return {status, LastMessage()};
}

MATCHER_P2(Fails, code, substring,
           std::string("fails with ") + jitk_status_name(code) + " and a message with '" +
               substring + "'") {
  *result_listener << jitk_status_name(arg.code) << ": " << arg.message;
  return arg.code == code && arg.message.find(substring) != std::string::npos;
}

MATCHER(Succeeds, "succeeds") {
  *result_listener << jitk_status_name(arg.code) << ": " << arg.message;
  return arg.code == JITK_OK && arg.message.empty();
}

// Compiles or skips the test when the backend is not built in / its
// compiler library is missing (JITK_UNAVAILABLE).
#define COMPILE_OR_SKIP(handle, name, shape, arch, config)                               \
  jitk_compiled* handle = nullptr;                                                       \
  {                                                                                      \
    jitk_status st = jitk_compile_kernel(name, shape, arch, config, &handle);            \
    if (st == JITK_UNAVAILABLE) GTEST_SKIP() << arch << ": " << jitk_last_error_message(); \
    ASSERT_EQ(st, JITK_OK) << jitk_last_error_message();                                 \
  }                                                                                      \
  std::unique_ptr<jitk_compiled, void (*)(jitk_compiled*)> handle##_owner(handle,        \
                                                                          jitk_compiled_release)

nlohmann::json ParseJson(const char* text) {
  EXPECT_NE(text, nullptr);
  return nlohmann::json::parse(text ? text : "null", nullptr, /*allow_exceptions=*/false);
}

bool HasGpu() {
  nlohmann::json inventory = ParseJson(jitk_discover_json());
  return inventory.is_object() && !inventory["devices"].empty();
}

jitk_arg Ptr(const char* name, const void* p) {
  jitk_arg a{};
  a.name = name;
  a.kind = JITK_ARG_POINTER;
  a.pointer = p;
  return a;
}
jitk_arg Int(const char* name, int64_t v) {
  jitk_arg a{};
  a.name = name;
  a.kind = JITK_ARG_INT;
  a.integer = v;
  return a;
}
jitk_arg Float(const char* name, double v) {
  jitk_arg a{};
  a.name = name;
  a.kind = JITK_ARG_FLOAT;
  a.real = v;
  return a;
}

std::vector<jitk_arg> ScaledAddArgs(const void* out, const void* x, const void* y, int64_t n,
                                    double scale) {
  return {Ptr("out", out), Ptr("x", x), Ptr("y", y), Int("n", n), Float("scale", scale)};
}

// --- the library ----------------------------------------------------------

TEST(CApiTest, VersionAbiAndKernelNames) {
  EXPECT_STREQ(jitk_version(), JITK_VERSION_STRING);
  EXPECT_EQ(jitk_abi_version(), JITK_C_ABI_VERSION);
  EXPECT_THAT(std::string(jitk_kernel_names()), HasSubstr("scaled_add"));
}

TEST(CApiTest, StatusNamesMatchAbseilCodes) {
  EXPECT_STREQ(jitk_status_name(JITK_OK), "OK");
  EXPECT_STREQ(jitk_status_name(JITK_INVALID_ARGUMENT), "INVALID_ARGUMENT");
  EXPECT_STREQ(jitk_status_name(JITK_FAILED_PRECONDITION), "FAILED_PRECONDITION");
  EXPECT_STREQ(jitk_status_name(JITK_UNAVAILABLE), "UNAVAILABLE");
  EXPECT_STREQ(jitk_status_name(JITK_UNAUTHENTICATED), "UNAUTHENTICATED");
  EXPECT_STREQ(jitk_status_name(17), "UNKNOWN_CODE");
  EXPECT_STREQ(jitk_status_name(-1), "UNKNOWN_CODE");
}

TEST(CApiTest, ArgumentLayoutIsTheDocumentedOne) {
  // python/jitk declares the same layout with ctypes.
  EXPECT_EQ(sizeof(jitk_arg), 40u);
  EXPECT_EQ(offsetof(jitk_arg, kind), 8u);
  EXPECT_EQ(offsetof(jitk_arg, pointer), 16u);
  EXPECT_EQ(offsetof(jitk_arg, integer), 24u);
  EXPECT_EQ(offsetof(jitk_arg, real), 32u);
  EXPECT_EQ(sizeof(jitk_resources), 32u);
  EXPECT_EQ(sizeof(jitk_launch_dims), 28u);
}

TEST(CApiTest, DiscoverJsonDescribesEveryBackend) {
  nlohmann::json inventory = ParseJson(jitk_discover_json());
  ASSERT_TRUE(inventory.is_object()) << jitk_discover_json();
  EXPECT_EQ(inventory["jitk_version"], JITK_VERSION_STRING);
  ASSERT_TRUE(inventory["backends"].is_array());
  ASSERT_TRUE(inventory["devices"].is_array());
  for (const nlohmann::json& backend : inventory["backends"]) {
    EXPECT_TRUE(backend["backend"] == "hip" || backend["backend"] == "cuda") << backend;
    EXPECT_TRUE(backend["runtime_status"].is_string());
    EXPECT_TRUE(backend["compile_targets"].is_array());
  }
  for (const nlohmann::json& device : inventory["devices"]) {
    EXPECT_TRUE(device["backend_ordinal"].is_number_integer()) << device;
    EXPECT_TRUE(device["arch"].is_string()) << device;
  }
}

// --- compiling without a GPU ----------------------------------------------

class CApiCompileTest : public ::testing::TestWithParam<const char*> {};

TEST_P(CApiCompileTest, CompilesEveryDTypeAndReportsResources) {
  const char* arch = GetParam();
  for (const char* dtype : {"f32", "f16", "bf16"}) {
    SCOPED_TRACE(dtype);
    const std::string shape = std::string(dtype) + ";n=1048576";
    COMPILE_OR_SKIP(compiled, "scaled_add", shape.c_str(), arch, nullptr);
    EXPECT_THAT(Capture(JITK_OK), Succeeds());

    jitk_resources resources{};
    ASSERT_EQ(jitk_compiled_resources(compiled, &resources), JITK_OK);
    EXPECT_GT(resources.registers, 0);
    EXPECT_EQ(resources.spills, 0);
    EXPECT_EQ(resources.lds_bytes, 0);

    const void* code = nullptr;
    size_t size = 0;
    ASSERT_EQ(jitk_compiled_code_object(compiled, &code, &size), JITK_OK);
    ASSERT_GT(size, 64u);
    EXPECT_EQ(std::memcmp(code, "\x7f" "ELF", 4), 0);

    // Default config: 16-byte vectors, four waves per block.
    const std::string config = jitk_compiled_config(compiled);
    const int wave = std::string(arch).rfind("gfx", 0) == 0 ? 64 : 32;
    const int vec = std::string(dtype) == "f32" ? 4 : 8;
    EXPECT_EQ(config, "BLOCK=" + std::to_string(4 * wave) + ",EPT=4,VEC=" + std::to_string(vec));

    nlohmann::json info = ParseJson(jitk_compiled_info_json(compiled));
    ASSERT_TRUE(info.is_object());
    EXPECT_EQ(info["kernel"], "scaled_add");
    EXPECT_EQ(info["shape"], shape);
    EXPECT_EQ(info["config"], config);
    EXPECT_THAT(info["target"].get<std::string>(), HasSubstr(arch));
    EXPECT_THAT(info["name_expression"].get<std::string>(), HasSubstr("scaled_add<"));
    EXPECT_EQ(info["code_bytes"], size);
    EXPECT_EQ(info["resources"]["registers"], resources.registers);
    EXPECT_FALSE(info["compiler"].get<std::string>().empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, CApiCompileTest, ::testing::Values("gfx90a", "sm_90"));

TEST(CApiTest, ExplicitConfigIsCompiledAsGiven) {
  COMPILE_OR_SKIP(compiled, "scaled_add", "f16;n=4096", "sm_90", "BLOCK=64,EPT=2,VEC=2");
  EXPECT_STREQ(jitk_compiled_config(compiled), "BLOCK=64,EPT=2,VEC=2");
}

TEST(CApiTest, LongDTypeNamesAndAnyDimOrderAreAccepted) {
  COMPILE_OR_SKIP(compiled, "scaled_add", "bfloat16;n=77", "sm_90", "");
  nlohmann::json info = ParseJson(jitk_compiled_info_json(compiled));
  EXPECT_EQ(info["shape"], "bf16;n=77");  // canonical key
}

// --- error paths ----------------------------------------------------------

Result Compile(const char* name, const char* shape, const char* arch, const char* config) {
  jitk_compiled* compiled = reinterpret_cast<jitk_compiled*>(0x1);  // must be reset
  jitk_status st = jitk_compile_kernel(name, shape, arch, config, &compiled);
  EXPECT_EQ(compiled, nullptr) << "a failed call must leave *out NULL";
  if (st == JITK_OK) jitk_compiled_release(compiled);
  return Capture(st);
}

TEST(CApiErrorTest, UnknownKernelListsTheBuiltInOnes) {
  EXPECT_THAT(Compile("saxpy", "f32;n=16", "sm_90", nullptr),
              Fails(JITK_INVALID_ARGUMENT, "unknown kernel 'saxpy'"));
  EXPECT_THAT(Compile("saxpy", "f32;n=16", "sm_90", nullptr),
              Fails(JITK_INVALID_ARGUMENT, "scaled_add"));
  jitk_kernel* kernel = nullptr;
  EXPECT_THAT(Capture(jitk_get_kernel("saxpy", "f32;n=16", nullptr, 0, &kernel)),
              Fails(JITK_INVALID_ARGUMENT, "unknown kernel 'saxpy'"));
  EXPECT_EQ(kernel, nullptr);
}

TEST(CApiErrorTest, MalformedShapeKeysAreNamed) {
  EXPECT_THAT(Compile("scaled_add", "f33;n=16", "sm_90", nullptr),
              Fails(JITK_INVALID_ARGUMENT, "bad shape key 'f33;n=16'"));
  EXPECT_THAT(Compile("scaled_add", "", "sm_90", nullptr),
              Fails(JITK_INVALID_ARGUMENT, "bad shape key ''"));
  EXPECT_THAT(Compile("scaled_add", "f32;n", "sm_90", nullptr),
              Fails(JITK_INVALID_ARGUMENT, "got 'n'"));
  EXPECT_THAT(Compile("scaled_add", "f32;n=many", "sm_90", nullptr),
              Fails(JITK_INVALID_ARGUMENT, "got 'n=many'"));
}

TEST(CApiErrorTest, BadShapesAreNamed) {
  EXPECT_THAT(Compile("scaled_add", "f32", "sm_90", nullptr), Fails(JITK_INVALID_ARGUMENT, "'n'"));
  EXPECT_THAT(Compile("scaled_add", "f32;n=-4", "sm_90", nullptr),
              Fails(JITK_INVALID_ARGUMENT, "n must be >= 0"));
  EXPECT_THAT(Compile("scaled_add", "f32;m=2;n=4", "sm_90", nullptr),
              Fails(JITK_INVALID_ARGUMENT, "'m'"));
}

TEST(CApiErrorTest, BadArchitecturesAreNamed) {
  EXPECT_THAT(Compile("scaled_add", "f32;n=16", "banana", nullptr),
              Fails(JITK_INVALID_ARGUMENT, "'banana' is not a GPU target"));
  EXPECT_THAT(Compile("scaled_add", "f32;n=16", "", nullptr),
              Fails(JITK_INVALID_ARGUMENT, "needs an architecture"));
  EXPECT_THAT(Compile("scaled_add", "f32;n=16", "gfx9999", nullptr),
              Fails(JITK_NOT_FOUND, "architecture gfx9999 is not in jitk's table"));
}

TEST(CApiErrorTest, BadConfigsAreNamed) {
  EXPECT_THAT(Compile("scaled_add", "f32;n=16", "sm_90", "BLOCK"),
              Fails(JITK_INVALID_ARGUMENT, "bad kernel config 'BLOCK'"));
  EXPECT_THAT(Compile("scaled_add", "f32;n=16", "sm_90", "BLOCK=100,EPT=4,VEC=4"),
              Fails(JITK_INVALID_ARGUMENT, "BLOCK=100"));
  EXPECT_THAT(Compile("scaled_add", "f32;n=16", "sm_90", "BLOCK=128,EPT=4,VEC=4,UNROLL=2"),
              Fails(JITK_INVALID_ARGUMENT, "UNROLL"));
}

TEST(CApiErrorTest, NullPointersAreNamed) {
  jitk_compiled* compiled = nullptr;
  EXPECT_THAT(Capture(jitk_compile_kernel(nullptr, "f32;n=1", "sm_90", nullptr, &compiled)),
              Fails(JITK_INVALID_ARGUMENT, "jitk_compile_kernel: name is NULL"));
  EXPECT_THAT(Capture(jitk_compile_kernel("scaled_add", nullptr, "sm_90", nullptr, &compiled)),
              Fails(JITK_INVALID_ARGUMENT, "shape_key is NULL"));
  EXPECT_THAT(Capture(jitk_compile_kernel("scaled_add", "f32;n=1", nullptr, nullptr, &compiled)),
              Fails(JITK_INVALID_ARGUMENT, "arch is NULL"));
  EXPECT_THAT(Capture(jitk_compile_kernel("scaled_add", "f32;n=1", "sm_90", nullptr, nullptr)),
              Fails(JITK_INVALID_ARGUMENT, "out is NULL"));

  jitk_kernel* kernel = nullptr;
  EXPECT_THAT(Capture(jitk_get_kernel(nullptr, "f32;n=1", nullptr, 0, &kernel)),
              Fails(JITK_INVALID_ARGUMENT, "jitk_get_kernel: name is NULL"));
  EXPECT_THAT(Capture(jitk_get_kernel("scaled_add", nullptr, nullptr, 0, &kernel)),
              Fails(JITK_INVALID_ARGUMENT, "shape_key is NULL"));
  EXPECT_THAT(Capture(jitk_get_kernel("scaled_add", "f32;n=1", nullptr, 0, nullptr)),
              Fails(JITK_INVALID_ARGUMENT, "out is NULL"));

  jitk_resources resources;
  jitk_launch_dims dims;
  const void* data;
  size_t size;
  EXPECT_THAT(Capture(jitk_compiled_resources(nullptr, &resources)),
              Fails(JITK_INVALID_ARGUMENT, "compiled is NULL"));
  EXPECT_THAT(Capture(jitk_compiled_code_object(nullptr, &data, &size)),
              Fails(JITK_INVALID_ARGUMENT, "compiled is NULL"));
  EXPECT_THAT(Capture(jitk_compiled_plan_launch(nullptr, nullptr, 0, &dims)),
              Fails(JITK_INVALID_ARGUMENT, "compiled is NULL"));
  EXPECT_THAT(Capture(jitk_kernel_resources(nullptr, &resources)),
              Fails(JITK_INVALID_ARGUMENT, "kernel is NULL"));
  EXPECT_THAT(Capture(jitk_kernel_launch(nullptr, nullptr, 0, nullptr)),
              Fails(JITK_INVALID_ARGUMENT, "jitk_kernel_launch: kernel is NULL"));
  EXPECT_THAT(Capture(jitk_malloc(0, 16, nullptr)),
              Fails(JITK_INVALID_ARGUMENT, "jitk_malloc: out is NULL"));
  EXPECT_THAT(Capture(jitk_copy_to_device(0, nullptr, &size, 8)),
              Fails(JITK_INVALID_ARGUMENT, "device_dst is NULL"));
  EXPECT_THAT(Capture(jitk_copy_to_host(0, &size, nullptr, 8)),
              Fails(JITK_INVALID_ARGUMENT, "device_src is NULL"));

  // String accessors answer NULL and record why.
  EXPECT_EQ(jitk_compiled_config(nullptr), nullptr);
  EXPECT_THAT(LastMessage(), HasSubstr("jitk_compiled_config: compiled is NULL"));
  EXPECT_EQ(jitk_compiled_info_json(nullptr), nullptr);
  EXPECT_EQ(jitk_kernel_config(nullptr), nullptr);
  EXPECT_THAT(LastMessage(), HasSubstr("jitk_kernel_config: kernel is NULL"));
  EXPECT_EQ(jitk_kernel_config_source(nullptr), nullptr);
  EXPECT_EQ(jitk_kernel_info_json(nullptr), nullptr);

  // Releasing NULL is allowed.
  jitk_compiled_release(nullptr);
  jitk_kernel_release(nullptr);
  EXPECT_THAT(Capture(jitk_free(0, nullptr)), Succeeds());
}

TEST(CApiErrorTest, SuccessClearsTheLastError) {
  EXPECT_EQ(Compile("saxpy", "f32;n=16", "sm_90", nullptr).code, JITK_INVALID_ARGUMENT);
  ASSERT_FALSE(LastMessage().empty());
  COMPILE_OR_SKIP(compiled, "scaled_add", "f32;n=16", "sm_90", nullptr);
  EXPECT_THAT(Capture(JITK_OK), Succeeds());
}

TEST(CApiErrorTest, TheLastErrorIsPerThread) {
  EXPECT_EQ(Compile("saxpy", "f32;n=16", "sm_90", nullptr).code, JITK_INVALID_ARGUMENT);
  std::string other_thread_message = "unset";
  jitk_status other_thread_code = JITK_UNKNOWN;
  std::thread([&] {
    other_thread_message = jitk_last_error_message();
    other_thread_code = jitk_last_error_code();
  }).join();
  EXPECT_EQ(other_thread_message, "");
  EXPECT_EQ(other_thread_code, JITK_OK);
  EXPECT_THAT(LastMessage(), HasSubstr("saxpy"));  // this thread's is intact
}

TEST(CApiErrorTest, NoGpuIsNotFoundNamingEachBackend) {
  if (HasGpu()) GTEST_SKIP() << "a GPU is present";
  jitk_kernel* kernel = nullptr;
  EXPECT_THAT(Capture(jitk_get_kernel("scaled_add", "f32;n=16", nullptr, 0, &kernel)),
              Fails(JITK_NOT_FOUND, "no GPU 0"));
  EXPECT_EQ(kernel, nullptr);
  void* p = reinterpret_cast<void*>(0x1);
  EXPECT_THAT(Capture(jitk_malloc(0, 16, &p)), Fails(JITK_NOT_FOUND, "no GPU 0"));
  EXPECT_EQ(p, nullptr);
  EXPECT_THAT(Capture(jitk_synchronize(0, nullptr)), Fails(JITK_NOT_FOUND, "no GPU 0"));
}

// --- planning launches (the argument path, no GPU) ------------------------

class CApiPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // BLOCK*EPT*VEC = 64*2*4 = 512 elements per block.
    jitk_status st =
        jitk_compile_kernel("scaled_add", "f32;n=1000", "sm_90", "BLOCK=64,EPT=2,VEC=4", &compiled_);
    if (st == JITK_UNAVAILABLE) GTEST_SKIP() << jitk_last_error_message();
    ASSERT_EQ(st, JITK_OK) << jitk_last_error_message();
  }
  void TearDown() override { jitk_compiled_release(compiled_); }

  Result Plan(const std::vector<jitk_arg>& args) {
    dims_ = {};
    return Capture(jitk_compiled_plan_launch(compiled_, args.data(), args.size(), &dims_));
  }

  jitk_compiled* compiled_ = nullptr;
  jitk_launch_dims dims_{};
  alignas(16) float buffer_[16] = {};
};

TEST_F(CApiPlanTest, GoodArgumentsGiveTheGrid) {
  EXPECT_THAT(Plan(ScaledAddArgs(buffer_, buffer_, buffer_, 1000, 0.5)), Succeeds());
  EXPECT_EQ(dims_.grid[0], 2u);  // ceil(1000 / 512)
  EXPECT_EQ(dims_.grid[1], 1u);
  EXPECT_EQ(dims_.block[0], 64u);
  EXPECT_EQ(dims_.dynamic_shared_bytes, 0u);
  // Order does not matter; names do.
  std::vector<jitk_arg> shuffled = ScaledAddArgs(buffer_, buffer_, buffer_, 1000, 0.5);
  std::swap(shuffled[0], shuffled[4]);
  EXPECT_THAT(Plan(shuffled), Succeeds());
  EXPECT_THAT(Plan(ScaledAddArgs(nullptr, nullptr, nullptr, 0, 1.0)), Succeeds());
  EXPECT_EQ(dims_.grid[0], 0u);  // n = 0 launches nothing
}

TEST_F(CApiPlanTest, MissingArgumentIsNamed) {
  std::vector<jitk_arg> args = ScaledAddArgs(buffer_, buffer_, buffer_, 1000, 0.5);
  args.erase(args.begin() + 2);  // y
  EXPECT_THAT(Plan(args), Fails(JITK_INVALID_ARGUMENT, "'y'"));
}

TEST_F(CApiPlanTest, WrongKindIsNamed) {
  std::vector<jitk_arg> args = ScaledAddArgs(buffer_, buffer_, buffer_, 1000, 0.5);
  args[3] = Float("n", 1000);
  EXPECT_THAT(Plan(args), Fails(JITK_INVALID_ARGUMENT, "'n' must be an integer"));
  args = ScaledAddArgs(buffer_, buffer_, buffer_, 1000, 0.5);
  args[0] = Int("out", 0);
  EXPECT_THAT(Plan(args), Fails(JITK_INVALID_ARGUMENT, "'out'"));
}

TEST_F(CApiPlanTest, UnknownKindIsNamed) {
  std::vector<jitk_arg> args = ScaledAddArgs(buffer_, buffer_, buffer_, 1000, 0.5);
  args[4].kind = 7;
  EXPECT_THAT(Plan(args), Fails(JITK_INVALID_ARGUMENT, "argument 'scale' has unknown kind 7"));
  args[4].kind = 0;  // zero-initialised, kind forgotten
  EXPECT_THAT(Plan(args), Fails(JITK_INVALID_ARGUMENT, "argument 'scale' has unknown kind 0"));
}

TEST_F(CApiPlanTest, NullOrEmptyOrRepeatedNamesAreRefused) {
  std::vector<jitk_arg> args = ScaledAddArgs(buffer_, buffer_, buffer_, 1000, 0.5);
  args[2].name = nullptr;
  EXPECT_THAT(Plan(args), Fails(JITK_INVALID_ARGUMENT, "argument 2 has a NULL name"));
  args[2].name = "";
  EXPECT_THAT(Plan(args), Fails(JITK_INVALID_ARGUMENT, "argument 2 has an empty name"));
  args[2].name = "x";
  EXPECT_THAT(Plan(args), Fails(JITK_INVALID_ARGUMENT, "argument 'x' is given twice"));
  EXPECT_THAT(Capture(jitk_compiled_plan_launch(compiled_, nullptr, 5, &dims_)),
              Fails(JITK_INVALID_ARGUMENT, "args is NULL but num_args is 5"));
}

TEST_F(CApiPlanTest, BadPointersAndLengthsAreNamed) {
  const char* bytes = reinterpret_cast<const char*>(buffer_);
  EXPECT_THAT(Plan(ScaledAddArgs(bytes + 1, buffer_, buffer_, 8, 0.5)),
              Fails(JITK_INVALID_ARGUMENT, "aligned"));
  EXPECT_THAT(Plan(ScaledAddArgs(nullptr, buffer_, buffer_, 8, 0.5)),
              Fails(JITK_INVALID_ARGUMENT, "non-null"));
  EXPECT_THAT(Plan(ScaledAddArgs(buffer_, buffer_, buffer_, -1, 0.5)),
              Fails(JITK_INVALID_ARGUMENT, "n = -1"));
}

// The named arguments of sparse_attn as the Python package passes them,
// checked by the template (skipped until the kernel is built in).
TEST(CApiSparseAttnTest, PlansALaunchFromNamedArguments) {
  if (std::string(jitk_kernel_names()).find("sparse_attn") == std::string::npos) {
    GTEST_SKIP() << "no sparse_attn kernel in " << jitk_kernel_names();
  }
  COMPILE_OR_SKIP(compiled, "sparse_attn",
                  "f16;b=4;block=128;d=128;hkv=8;hq=32;layout=1;lk=4096;lq=4096", "sm_90", nullptr);
  alignas(16) static char memory[16 * 9];
  std::vector<jitk_arg> args;
  int i = 0;
  for (const char* name : {"q", "k", "v", "o", "lse", "kv_num_blocks", "kv_indices",
                           "full_kv_num_blocks", "full_kv_indices"}) {
    args.push_back(Ptr(name, memory + 16 * i++));
  }
  args.push_back(Int("mask_batch", 1));
  args.push_back(Int("mask_heads", 1));
  jitk_launch_dims dims{};
  ASSERT_EQ(jitk_compiled_plan_launch(compiled, args.data(), args.size(), &dims), JITK_OK)
      << LastMessage();
  // A causal launch of a few waves: rank-major, heads first.
  EXPECT_EQ(dims.grid[0], 32u);  // heads
  EXPECT_GT(dims.grid[1], 0u);   // query tiles
  EXPECT_EQ(dims.grid[2], 4u);   // batch
  args.push_back(Int("mask_heads", 3));
  EXPECT_THAT(Capture(jitk_compiled_plan_launch(compiled, args.data(), args.size(), &dims)),
              Fails(JITK_INVALID_ARGUMENT, "argument 'mask_heads' is given twice"));
  args.pop_back();
  args[args.size() - 1] = Int("mask_heads", 3);
  EXPECT_THAT(Capture(jitk_compiled_plan_launch(compiled, args.data(), args.size(), &dims)),
              Fails(JITK_INVALID_ARGUMENT, "mask_heads=3"));
}

// --- on a GPU -------------------------------------------------------------

class CApiGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HasGpu()) GTEST_SKIP() << "needs a GPU (jitk_discover_json lists no devices)";
  }
  void TearDown() override {
    for (void* p : allocations_) jitk_free(0, p);
  }
  void* Alloc(size_t bytes) {
    void* p = nullptr;
    EXPECT_EQ(jitk_malloc(0, bytes, &p), JITK_OK) << jitk_last_error_message();
    allocations_.push_back(p);
    return p;
  }
  std::vector<void*> allocations_;
};

TEST_F(CApiGpuTest, ScaledAddMatchesTheReference) {
  const int64_t n = 1000003;  // odd: vector body plus scalar tail
  std::vector<float> x = jitk::testing::RandomFloats(n, 1), y = jitk::testing::RandomFloats(n, 2);
  const size_t bytes = n * sizeof(float);
  void* dx = Alloc(bytes);
  void* dy = Alloc(bytes);
  void* dout = Alloc(bytes);
  ASSERT_EQ(jitk_copy_to_device(0, dx, x.data(), bytes), JITK_OK) << LastMessage();
  ASSERT_EQ(jitk_copy_to_device(0, dy, y.data(), bytes), JITK_OK) << LastMessage();

  const std::string shape = "f32;n=" + std::to_string(n);
  jitk_kernel* kernel = nullptr;
  ASSERT_EQ(jitk_get_kernel("scaled_add", shape.c_str(), nullptr, 0, &kernel), JITK_OK)
      << LastMessage();
  std::unique_ptr<jitk_kernel, void (*)(jitk_kernel*)> owner(kernel, jitk_kernel_release);
  EXPECT_THAT(std::string(jitk_kernel_config(kernel)), StartsWith("BLOCK="));
  EXPECT_FALSE(std::string(jitk_kernel_config_source(kernel)).empty());
  nlohmann::json info = ParseJson(jitk_kernel_info_json(kernel));
  EXPECT_EQ(info["kernel"], "scaled_add");
  EXPECT_EQ(info["device"]["ordinal"], 0);
  jitk_resources resources{};
  ASSERT_EQ(jitk_kernel_resources(kernel, &resources), JITK_OK);
  EXPECT_GT(resources.registers, 0);

  std::vector<jitk_arg> args = ScaledAddArgs(dout, dx, dy, n, -0.75);
  EXPECT_THAT(Capture(jitk_kernel_launch(kernel, args.data(), args.size(), nullptr)), Succeeds());
  ASSERT_EQ(jitk_synchronize(0, nullptr), JITK_OK) << LastMessage();
  std::vector<float> out(n);
  ASSERT_EQ(jitk_copy_to_host(0, out.data(), dout, bytes), JITK_OK) << LastMessage();
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double want = double(x[i]) - 0.75 * double(y[i]);
    if (!(std::fabs(out[i] - want) <= 1e-6 * (1 + std::fabs(want))) && bad++ < 5) {
      ADD_FAILURE() << "element " << i << ": got " << out[i] << ", want " << want;
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST_F(CApiGpuTest, BadLaunchArgumentsAreNamedAndNothingRuns) {
  jitk_kernel* kernel = nullptr;
  ASSERT_EQ(jitk_get_kernel("scaled_add", "f32;n=64", nullptr, 0, &kernel), JITK_OK)
      << LastMessage();
  std::unique_ptr<jitk_kernel, void (*)(jitk_kernel*)> owner(kernel, jitk_kernel_release);
  void* p = Alloc(256);
  std::vector<jitk_arg> args = ScaledAddArgs(p, p, p, 64, 1.0);
  args[3] = Float("n", 64);
  EXPECT_THAT(Capture(jitk_kernel_launch(kernel, args.data(), args.size(), nullptr)),
              Fails(JITK_INVALID_ARGUMENT, "'n' must be an integer"));
  args[3] = Int("n", 64);
  args[1].kind = 9;
  EXPECT_THAT(Capture(jitk_kernel_launch(kernel, args.data(), args.size(), nullptr)),
              Fails(JITK_INVALID_ARGUMENT, "argument 'x' has unknown kind 9"));
  args[1].kind = JITK_ARG_POINTER;
  EXPECT_THAT(Capture(jitk_kernel_launch(kernel, args.data(), 2, nullptr)),
              Fails(JITK_INVALID_ARGUMENT, "'y'"));
}

TEST_F(CApiGpuTest, RepeatedGetKernelGivesIndependentHandles) {
  jitk_kernel* a = nullptr;
  jitk_kernel* b = nullptr;
  ASSERT_EQ(jitk_get_kernel("scaled_add", "f16;n=4096", nullptr, 0, &a), JITK_OK);
  ASSERT_EQ(jitk_get_kernel("scaled_add", "f16;n=4096", nullptr, 0, &b), JITK_OK);
  EXPECT_NE(a, b);
  EXPECT_STREQ(jitk_kernel_config(a), jitk_kernel_config(b));
  jitk_kernel_release(a);
  EXPECT_FALSE(std::string(jitk_kernel_config(b)).empty());  // b outlives a
  jitk_kernel_release(b);
}

TEST_F(CApiGpuTest, ExplicitConfigIsUsed) {
  jitk_kernel* kernel = nullptr;
  ASSERT_EQ(jitk_get_kernel("scaled_add", "f32;n=4096", "BLOCK=64,EPT=1,VEC=2", 0, &kernel),
            JITK_OK)
      << LastMessage();
  EXPECT_STREQ(jitk_kernel_config(kernel), "BLOCK=64,EPT=1,VEC=2");
  EXPECT_STREQ(jitk_kernel_config_source(kernel), "explicit");
  jitk_kernel_release(kernel);
}

}  // namespace
