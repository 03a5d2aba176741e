#include "lib/backend/internal/stream_capture.h"

#include <utility>

#include "gtest/gtest.h"

namespace jitk::internal {
namespace {

// A runtime's capture modes and result codes, as the vendors spell theirs.
enum FakeMode { kGlobal, kThreadLocal, kRelaxed };
enum FakeResult { kOk, kNotInitialized };
using Relaxed = ScopedRelaxedCaptureMode<FakeMode, FakeResult, kOk, kRelaxed>;

// The thread's mode, as the runtime keeps it.
thread_local FakeMode thread_mode = kGlobal;
int exchanges = 0;

FakeResult Exchange(FakeMode* mode) {
  ++exchanges;
  std::swap(*mode, thread_mode);
  return kOk;
}

FakeResult Refuse(FakeMode*) {
  ++exchanges;
  return kNotInitialized;
}

TEST(ScopedRelaxedCaptureModeTest, RelaxesTheThreadWhileAliveAndRestoresItsMode) {
  for (FakeMode before : {kGlobal, kThreadLocal}) {
    thread_mode = before;
    {
      Relaxed relaxed(Exchange);
      EXPECT_EQ(thread_mode, kRelaxed);
      {
        Relaxed nested(Exchange);
        EXPECT_EQ(thread_mode, kRelaxed);
      }
      EXPECT_EQ(thread_mode, kRelaxed);  // the nested scope restored relaxed
    }
    EXPECT_EQ(thread_mode, before);
  }
}

TEST(ScopedRelaxedCaptureModeTest, LeavesTheThreadAloneWithoutCaptureModesOrOnRefusal) {
  thread_mode = kGlobal;
  exchanges = 0;
  { Relaxed relaxed(nullptr); }  // a runtime without the entry point
  EXPECT_EQ(exchanges, 0);
  { Relaxed relaxed(Refuse); }
  EXPECT_EQ(exchanges, 1);  // refused: nothing to restore
  EXPECT_EQ(thread_mode, kGlobal);
}

}  // namespace
}  // namespace jitk::internal
