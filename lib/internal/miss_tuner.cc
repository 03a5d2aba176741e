#include "lib/internal/miss_tuner.h"

#include <utility>

#include "absl/synchronization/mutex.h"

namespace jitk::internal {
namespace {

struct Slot {
  absl::Mutex mu;
  std::shared_ptr<const MissTuner> tuner ABSL_GUARDED_BY(mu);
};

Slot& TheSlot() {
  static Slot* const slot = new Slot();
  return *slot;
}

}  // namespace

void SetMissTuner(MissTuner tuner) {
  auto shared = std::make_shared<const MissTuner>(std::move(tuner));
  absl::MutexLock lock(&TheSlot().mu);
  TheSlot().tuner = std::move(shared);
}

std::shared_ptr<const MissTuner> GetMissTuner() {
  absl::MutexLock lock(&TheSlot().mu);
  return TheSlot().tuner;
}

}  // namespace jitk::internal
