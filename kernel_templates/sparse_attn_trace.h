// sparse_attn_trace.h — a timeline of block 0 of the warp-specialized wgmma
// engine, for diagnostics only: compiled in where JITK_ATTN_TRACE (events
// kept per warpgroup) is defined, which bench/device/attention_timeline.sh
// does in a copy of these templates. Without it TraceRecorder is empty and
// the kernels are the same instruction for instruction.
//
// Thread 0 of each warpgroup of block 0 (the computing ones, then the
// copying one) writes (SM clock << 8 | event) into the module variable
// jitk_attn_trace, which the timing test reads back through the backend
// after one launch. Not printf: a call in the kernel makes ptxas serialize
// every wgmma. The store is predicated rather than branched on (a branch
// among the MMAs can serialize them too), and it carries no memory clobber,
// so the code around it is scheduled as without it.
#pragma once

#include "prelude.h"

namespace jitk {
namespace attn {

enum TraceEvent : unsigned {
  // A computing warpgroup.
  kTraceTileStart = 1,   // consume: a query tile begins
  kTraceTurnTaken = 2,   // its turn to issue MMAs (ping-pong)
  kTraceMmaIssued = 3,   // S = Q K^T (and the P V before it) issued, turn passed
  kTraceScoresReady = 4, // S = Q K^T complete
  kTraceSoftmaxDone = 5, // mask and softmax of S done
  kTracePvDone = 6,      // the P V before it complete
  kTraceLastPvDone = 7,  // the query tile's last P V complete
  kTraceStageStart = 8,  // stage_rows: O into a K buffer begins
  kTraceStaged = 9,      // O staged and its stage released
  kTraceLastKRead = 10,  // stage_rows: every warp's last S = Q K^T has read K
  kTraceRowsDone = 11,   // stage_rows: O / l into the K buffer (and the LSE out)
  kTraceFenced = 12,     // stage_rows: the proxy fence before the release
  // The copying thread.
  kTraceCopyTileStart = 16,  // produce: a query tile begins
  kTraceStageEmpty = 17,     // a stage to refill is free (and its O stored)
  kTraceKvIssued = 18,       // a K / V tile's copies issued
  kTraceQFree = 19,          // Q's buffer is free
  kTraceQIssued = 20,        // Q's copies issued
};

#ifdef JITK_ATTN_TRACE
extern "C" __device__ unsigned long long jitk_attn_trace[4][JITK_ATTN_TRACE];

struct TraceRecorder {
  unsigned n = 0;
  JITK_DEVICE void operator()(TraceEvent event) {
    const unsigned on = blockIdx.x == 0 && threadIdx.x % 128 == 0;
    unsigned long long clock;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(clock));
    unsigned long long* slot =
        &jitk_attn_trace[threadIdx.x / 128][n < JITK_ATTN_TRACE ? n : JITK_ATTN_TRACE - 1];
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.u32 p, %2, 0;\n @p st.global.u64 [%0], %1;\n}\n" ::"l"(slot),
        "l"((clock << 8) | event), "r"(on));
    ++n;
  }
};
#else
struct TraceRecorder {
  JITK_DEVICE void operator()(TraceEvent) {}
};
#endif

}  // namespace attn
}  // namespace jitk
