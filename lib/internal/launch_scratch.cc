#include "lib/internal/launch_scratch.h"

#include "lib/internal/status_macros.h"

namespace jitk::internal {

LaunchScratch::~LaunchScratch() {
  for (const auto& [stream, buffer] : buffers_) (void)backend_->Free(device_, buffer.pointer);
}

absl::StatusOr<void*> LaunchScratch::ForStream(Stream stream, size_t bytes) {
  absl::MutexLock lock(&mu_);
  Buffer& buffer = buffers_[stream];
  if (buffer.bytes < bytes) {
    // The stream's earlier launches may still read the old buffer. (A
    // kernel's launches all ask for the same size: a stream's first launch,
    // which may be captured, has nothing to wait for.)
    if (buffer.pointer != nullptr) {
      JITK_RETURN_IF_ERROR(backend_->Synchronize(device_, stream));
      JITK_RETURN_IF_ERROR(backend_->Free(device_, buffer.pointer));
      buffer = Buffer{};
    }
    JITK_ASSIGN_OR_RETURN(buffer.pointer, backend_->Allocate(device_, bytes));
    buffer.bytes = bytes;
  }
  return buffer.pointer;
}

}  // namespace jitk::internal
