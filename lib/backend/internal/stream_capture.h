// Stream capture (CUDA and HIP graphs) as both backends meet it: a kernel's
// first call may come while the caller captures a graph, and the errors a
// capture raises should say what to do.
#ifndef JITK_LIB_BACKEND_INTERNAL_STREAM_CAPTURE_H_
#define JITK_LIB_BACKEND_INTERNAL_STREAM_CAPTURE_H_

#include "absl/strings/string_view.h"

namespace jitk::internal {

// Appended to the message of a capture error (unsupported during a capture,
// capture invalidated, implicit dependency on a capturing stream).
inline constexpr absl::string_view kCaptureErrorHint =
    "; a graph is being captured (torch.cuda.graph), and timing, copies and synchronization "
    "cannot run inside a capture: call the kernel (and tune it) once before capturing";

// While alive, lets this thread make the runtime calls that the vendors call
// unsafe during a stream capture in global mode (module loads, context
// retains; NVIDIA's 580 driver allows them anyway), as torch's allocator does
// for its own: they are not stream work, so a kernel's first call inside
// torch.cuda.graph(...) loads it instead of invalidating the capture.
// `exchange` is cuThreadExchangeStreamCaptureMode or
// hipThreadExchangeStreamCaptureMode; null (a runtime without capture modes)
// or a failed exchange leaves the thread as it was.
template <typename Mode, typename Result, Result kSuccess, Mode kRelaxed>
class ScopedRelaxedCaptureMode {
 public:
  using Exchange = Result (*)(Mode*);

  explicit ScopedRelaxedCaptureMode(Exchange exchange) : exchange_(exchange) {
    if (exchange_ != nullptr && exchange_(&saved_) != kSuccess) exchange_ = nullptr;
  }
  ~ScopedRelaxedCaptureMode() {
    if (exchange_ != nullptr) (void)exchange_(&saved_);
  }
  ScopedRelaxedCaptureMode(const ScopedRelaxedCaptureMode&) = delete;
  ScopedRelaxedCaptureMode& operator=(const ScopedRelaxedCaptureMode&) = delete;

 private:
  Exchange exchange_;
  Mode saved_ = kRelaxed;  // the thread's mode once exchanged
};

}  // namespace jitk::internal

#endif  // JITK_LIB_BACKEND_INTERNAL_STREAM_CAPTURE_H_
