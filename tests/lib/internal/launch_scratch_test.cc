#include "lib/internal/launch_scratch.h"

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fake_backend.h"

namespace jitk::internal {
namespace {

Stream StreamHandle(uintptr_t id) { return reinterpret_cast<Stream>(id); }

// One buffer per stream, reused by the stream's later launches.
TEST(LaunchScratchTest, OneBufferPerStream) {
  testing::FakeBackend backend;
  {
    LaunchScratch scratch(&backend, 0);
    absl::StatusOr<void*> a = scratch.ForStream(StreamHandle(1), 4096);
    absl::StatusOr<void*> b = scratch.ForStream(StreamHandle(2), 4096);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_NE(*a, *b);
    absl::StatusOr<void*> again = scratch.ForStream(StreamHandle(1), 1024);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *a);
    EXPECT_EQ(backend.live_allocations(), 2u);
  }
  EXPECT_EQ(backend.live_allocations(), 0u) << "freed with the kernel";
}

// A stream's first buffer needs no synchronize, so a first launch inside a
// stream capture (where synchronizing fails) gets its scratch; a larger
// request waits for the stream before freeing the old buffer, and says so
// when it cannot.
TEST(LaunchScratchTest, FirstBufferWithoutSynchronize) {
  testing::FakeBackend base;
  testing::FaultInjectingBackend backend(&base);
  backend.FailSynchronize(absl::FailedPreconditionError("stream is capturing"));
  LaunchScratch scratch(&backend, 0);
  absl::StatusOr<void*> first = scratch.ForStream(StreamHandle(7), 4096);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(backend.injected(), 0);
  absl::StatusOr<void*> larger = scratch.ForStream(StreamHandle(7), 8192);
  EXPECT_THAT(larger.status().message(), ::testing::HasSubstr("stream is capturing"));
  backend.FailSynchronize(absl::OkStatus());
  larger = scratch.ForStream(StreamHandle(7), 8192);
  ASSERT_TRUE(larger.ok()) << larger.status();
  EXPECT_EQ(base.live_allocations(), 1u) << "the old buffer is freed";
}

}  // namespace
}  // namespace jitk::internal
