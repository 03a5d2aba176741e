// The shared test double itself: the fake backend behaves like a backend,
// and the fault injector injects what it is told to.
#include "tests/testing/fake_backend.h"

#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/internal/device_impl.h"
#include "lib/internal/status_macros.h"
#include "tests/testing/status_matchers.h"

namespace jitk::testing {
namespace {

using jitk::internal::CodeObject;
using jitk::internal::CompileRequest;
using ::jitk::testing::IsOk;
using ::jitk::testing::StatusIs;
using ::testing::HasSubstr;

CompileRequest Request(const std::string& arch, std::vector<std::string> expressions) {
  CompileRequest r;
  r.target = *ParseTarget(arch);
  r.name_expressions = std::move(expressions);
  return r;
}

TEST(FakeBackendTest, CompilesReportsResourcesAndRefusesUnknownTargets) {
  FakeBackend fake;
  absl::StatusOr<CodeObject> code =
      fake.Compile(Request("sm_90", {"jitk::scaled_add<1024, 8, 4, float>", "other<3>"}));
  ASSERT_THAT(code, IsOk());
  ASSERT_EQ(code->symbols.size(), 2u);
  EXPECT_EQ(code->target, "sm_90");
  // 12 + 8 * 4 * 4 / 2 = 76 registers, capped at 64 by the launch bounds.
  EXPECT_EQ(code->symbols[0].resources.registers, 64);
  EXPECT_EQ(code->symbols[0].resources.spills, 48);
  EXPECT_EQ(code->symbols[1].resources.registers, 32);  // no model: the default
  EXPECT_THAT(fake.Compile(Request("gfx90a", {"k<1>"})),
              StatusIs(absl::StatusCode::kInvalidArgument, "cannot build for gfx90a"));
  EXPECT_THAT(fake.Compile(Request("sm_90", {"not_a_template"})),
              StatusIs(absl::StatusCode::kInvalidArgument, "not a template instantiation"));
  EXPECT_EQ(fake.compiles(), 3);
}

TEST(FakeBackendTest, RunsScaledAddOnHostMemoryAndTimesItWithoutRunning) {
  FakeBackend fake;
  Device device = fake.OpenDevice();
  absl::StatusOr<CodeObject> code =
      fake.Compile(Request("sm_90", {"jitk::scaled_add<256, 1, 1, float>"}));
  ASSERT_THAT(code, IsOk());
  absl::StatusOr<std::unique_ptr<jitk::internal::Module>> module = fake.Load(0, *code);
  ASSERT_THAT(module, IsOk());
  absl::StatusOr<jitk::internal::FunctionHandle> f =
      (*module)->GetFunction(code->symbols[0].lowered_name);
  ASSERT_THAT(f, IsOk());
  // Fake kernels run on the host: their modules hold no device variables.
  EXPECT_THAT((*module)->GetGlobal("jitk_attn_trace"),
              StatusIs(absl::StatusCode::kNotFound, "jitk_attn_trace"));

  const int64_t n = 1000;
  void* buffers[3];
  for (void*& b : buffers) b = *fake.Allocate(0, n * 4);
  std::vector<float> x(n, 1.5f), y(n, 2.0f), out(n, 0);
  ASSERT_THAT(fake.CopyToDevice(0, buffers[1], x.data(), n * 4), IsOk());
  ASSERT_THAT(fake.CopyToDevice(0, buffers[2], y.data(), n * 4), IsOk());
  float scale = 0.25f;
  int64_t count = n;
  void* args[] = {&buffers[0], &buffers[1], &buffers[2], &count, &scale};
  ASSERT_THAT(fake.Launch(0, *f, {4}, {256}, 0, nullptr, args), IsOk());
  ASSERT_THAT(fake.CopyToHost(0, out.data(), buffers[0], n * 4), IsOk());
  EXPECT_EQ(out[0], 2.0f);
  EXPECT_EQ(out[n - 1], 2.0f);

  absl::StatusOr<double> ms = fake.TimeMs(0, nullptr, [&]() -> absl::Status {
    for (int i = 0; i < 10; ++i)
      JITK_RETURN_IF_ERROR(fake.Launch(0, *f, {4}, {256}, 0, nullptr, args));
    return absl::OkStatus();
  });
  ASSERT_THAT(ms, IsOk());
  EXPECT_GT(*ms, 10 * 0.0025);  // ten launches, at least the launch overhead each
  EXPECT_EQ(fake.launches(), 11);
  EXPECT_EQ(fake.executed(), 1);

  // Out-of-range copies are errors, not crashes.
  EXPECT_THAT(fake.CopyToHost(0, out.data(), buffers[0], n * 4 + 4),
              StatusIs(absl::StatusCode::kInvalidArgument, "not inside one device allocation"));
  // Too many threads for the code object.
  EXPECT_THAT(fake.Launch(0, *f, {1}, {2048}, 0, nullptr, args),
              StatusIs(absl::StatusCode::kInvalidArgument, "2048 threads"));
  for (void* b : buffers) EXPECT_THAT(fake.Free(0, b), IsOk());
  EXPECT_EQ(fake.live_allocations(), 0u);
}

TEST(FakeBackendTest, CodeForAnotherTargetIsRefusedAtLoad) {
  FakeBackend fake;
  absl::StatusOr<CodeObject> code = fake.Compile(Request("sm_90a", {"k<1>"}));
  ASSERT_THAT(code, IsOk());
  FakeBackendOptions ampere;
  FakeGpu a100 = FakeH200();
  a100.info.arch = a100.info.target = "sm_80";
  ampere.gpus = {a100};
  FakeBackend old(ampere);
  EXPECT_THAT(old.Load(0, *code), StatusIs(absl::StatusCode::kFailedPrecondition, "sm_90a"));
  CodeObject garbage;
  garbage.binary =
      "\x7f"
      "ELF";
  EXPECT_THAT(fake.Load(0, garbage),
              StatusIs(absl::StatusCode::kInvalidArgument, "not a fake code object"));
}

TEST(FakeBackendTest, TimingNoiseIsDeterministic) {
  FakeBackendOptions noisy;
  noisy.timing_noise = 0.05;
  FakeBackend a(noisy), b(noisy);
  std::vector<double> ta, tb;
  for (int i = 0; i < 5; ++i) {
    ta.push_back(*a.TimeMs(0, nullptr, [] { return absl::OkStatus(); }));
    tb.push_back(*b.TimeMs(0, nullptr, [] { return absl::OkStatus(); }));
  }
  EXPECT_EQ(ta, tb);
  EXPECT_NE(ta[0], ta[1]);
}

TEST(FaultInjectingBackendTest, InjectsWhatItIsToldAndForwardsTheRest) {
  FakeBackend fake;
  FaultInjectingBackend faults(&fake);
  faults.FailCompile("bad<", absl::InvalidArgumentError("error: injected"));
  faults.EditResources("big<", [](ResourceUsage& u) { u.registers = 999; });
  EXPECT_THAT(faults.Compile(Request("sm_90", {"bad<1>"})),
              StatusIs(absl::StatusCode::kInvalidArgument, "injected"));
  absl::StatusOr<CodeObject> big = faults.Compile(Request("sm_90", {"big<1>"}));
  ASSERT_THAT(big, IsOk());
  EXPECT_EQ(big->symbols[0].resources.registers, 999);
  absl::StatusOr<CodeObject> fine = faults.Compile(Request("sm_90", {"fine<1>"}));
  ASSERT_THAT(fine, IsOk());
  EXPECT_EQ(fine->symbols[0].resources.registers, 32);
  absl::StatusOr<std::unique_ptr<jitk::internal::Module>> module = faults.Load(0, *fine);
  ASSERT_THAT(module, IsOk());
  EXPECT_THAT((*module)->GetGlobal("jitk_attn_trace"),
              StatusIs(absl::StatusCode::kNotFound, "no variable named jitk_attn_trace"));
  EXPECT_EQ(faults.injected(), 2);
  EXPECT_EQ(faults.name(), "fake");
  Device device = faults.OpenDevice(fake.OpenDevice());
  EXPECT_EQ(device.impl()->backend, &faults);
  EXPECT_EQ(device.info().name, "Fake H200");
}

}  // namespace
}  // namespace jitk::testing
