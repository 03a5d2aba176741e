// LaunchScratch: the scratch device memory of one loaded kernel's launches
// (LaunchPlan::scratch_bytes), one buffer per stream.
//
// Launches on one stream run in order, so they can share a buffer; launches
// on two streams may run at once, so each stream has its own. A buffer
// grows to the largest request and lives as long as the kernel.
#ifndef JITK_LIB_INTERNAL_LAUNCH_SCRATCH_H_
#define JITK_LIB_INTERNAL_LAUNCH_SCRATCH_H_

#include <cstddef>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "lib/backend/backend.h"

namespace jitk::internal {

class LaunchScratch {
 public:
  LaunchScratch(Backend* backend, int device) : backend_(backend), device_(device) {}
  ~LaunchScratch();
  LaunchScratch(const LaunchScratch&) = delete;
  LaunchScratch& operator=(const LaunchScratch&) = delete;

  // At least `bytes` of device memory for launches on `stream`.
  absl::StatusOr<void*> ForStream(Stream stream, size_t bytes);

 private:
  struct Buffer {
    void* pointer = nullptr;
    size_t bytes = 0;
  };
  Backend* const backend_;
  const int device_;
  absl::Mutex mu_;
  absl::flat_hash_map<Stream, Buffer> buffers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace jitk::internal

#endif  // JITK_LIB_INTERNAL_LAUNCH_SCRATCH_H_
