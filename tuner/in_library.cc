#include "tuner/in_library.h"

#include "jitk/tuning.h"
#include "lib/internal/miss_tuner.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "absl/base/call_once.h"
#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "cache/kernel_cache.h"

namespace jitk::tuner {
namespace {

struct Entry {
  absl::Notification done;
  absl::StatusOr<TuneResult> result = absl::UnknownError("not tuned yet");
};

class InLibraryTuner {
 public:
  absl::StatusOr<TuneResult> Run(const Device& device, absl::string_view kernel, const Shape& shape,
                                 const TuneOptions& options) ABSL_LOCKS_EXCLUDED(mu_) {
    const DeviceInfo& info = device.info();
    const std::string key = absl::StrCat(info.backend, "#", info.backend_ordinal, "|", info.name,
                                         "|", kernel, "|", shape.Key());
    std::shared_ptr<Entry> entry;
    std::shared_ptr<absl::Mutex> device_mu;
    bool first = false;
    {
      absl::MutexLock lock(&mu_);
      std::shared_ptr<Entry>& slot = entries_[key];
      if (slot == nullptr) {
        slot = std::make_shared<Entry>();
        first = true;
      }
      entry = slot;
      std::shared_ptr<absl::Mutex>& dm =
          device_mu_[absl::StrCat(info.backend, "#", info.backend_ordinal)];
      if (dm == nullptr) dm = std::make_shared<absl::Mutex>();
      device_mu = dm;
    }
    if (first) {
      {
        absl::MutexLock serial(device_mu.get());
        entry->result = Tune(kernel, shape, TuneTarget{.device = device}, options);
      }
      entry->done.Notify();
    } else {
      entry->done.WaitForNotification();
    }
    return entry->result;
  }

  void Reset() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    entries_.clear();
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<Entry>> entries_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<absl::Mutex>> device_mu_ ABSL_GUARDED_BY(mu_);
};

InLibraryTuner& TheTuner() {
  static InLibraryTuner* const kTuner = new InLibraryTuner();
  return *kTuner;
}

// The process-wide cache, opened on first use (not when options are made,
// so JITK_CACHE_DIR set before the first tuning still counts).
class LazyCacheStore final : public ResultStore {
 public:
  std::string Describe() const override { return Get().Describe(); }
  absl::StatusOr<std::optional<cache::CodeObjectRecord>> FindCodeObject(
      absl::string_view arch, absl::string_view key) override {
    return Get().FindCodeObject(arch, key);
  }
  absl::Status PutCodeObject(absl::string_view arch,
                             const cache::CodeObjectRecord& record) override {
    return Get().PutCodeObject(arch, record);
  }
  absl::StatusOr<std::optional<cache::TuningRecord>> FindTuning(const RunKey& key) override {
    return Get().FindTuning(key);
  }
  absl::Status PutTuning(const RunKey& key, const cache::TuningRecord& record) override {
    return Get().PutTuning(key, record);
  }

 private:
  static ResultStore& Get() {
    static ResultStore* const kStore =
        NewKernelCacheResultStore(cache::DefaultKernelCache()).release();
    return *kStore;
  }
};

ResultStore& CacheStore() {
  static LazyCacheStore* const kStore = new LazyCacheStore();
  return *kStore;
}

}  // namespace

absl::string_view TuneModeName(TuneMode mode) {
  switch (mode) {
    case TuneMode::kOff:
      return "off";
    case TuneMode::kLazy:
      return "lazy";
    case TuneMode::kForce:
      return "force";
  }
  return "?";
}

absl::StatusOr<TuneMode> ParseTuneMode(absl::string_view text) {
  const std::string t = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  if (t == "off" || t == "0" || t.empty()) return TuneMode::kOff;
  if (t == "lazy" || t == "1") return TuneMode::kLazy;
  if (t == "force") return TuneMode::kForce;
  return absl::InvalidArgumentError(
      absl::StrCat("JITK_TUNE='", text, "' is not one of off, lazy, force"));
}

TuneMode TuneModeFromEnv() {
  const char* value = std::getenv("JITK_TUNE");
  if (value == nullptr) return TuneMode::kOff;
  absl::StatusOr<TuneMode> mode = ParseTuneMode(value);
  if (mode.ok()) return *mode;
  static absl::once_flag warned;
  absl::call_once(warned, [&] {
    std::fprintf(stderr, "jitk: %s; tuning stays off\n",
                 std::string(mode.status().message()).c_str());
  });
  return TuneMode::kOff;
}

TuneOptions InLibraryTuneOptions(TuneMode mode) {
  TuneOptions options;
  options.strategy = "guided";
  options.budget.max_time = absl::Seconds(60);
  options.store = &CacheStore();
  options.resume = mode != TuneMode::kForce;
  return options;
}

absl::StatusOr<TuneResult> TuneOnDevice(const Device& device, absl::string_view kernel,
                                        const Shape& shape, const TuneOptions& options) {
  return TheTuner().Run(device, kernel, shape, options);
}

absl::StatusOr<std::optional<KernelConfig>> TunedConfigForMiss(const Device& device,
                                                               absl::string_view kernel,
                                                               const Shape& shape) {
  const TuneMode mode = TuneModeFromEnv();
  if (mode == TuneMode::kOff) return std::optional<KernelConfig>();
  absl::StatusOr<TuneResult> tuned =
      TuneOnDevice(device, kernel, shape, InLibraryTuneOptions(mode));
  if (!tuned.ok()) return tuned.status();
  if (!tuned->best.has_value()) return std::optional<KernelConfig>();
  return std::optional<KernelConfig>(tuned->best->config);
}

void ResetInLibraryTuning() { TheTuner().Reset(); }

}  // namespace jitk::tuner

namespace jitk {

void EnableInLibraryTuning() {
  internal::SetMissTuner([](const Device& device, absl::string_view kernel, const Shape& shape,
                            bool have_tuned) -> absl::StatusOr<std::optional<KernelConfig>> {
    // lazy keeps a stored winner; force re-tunes regardless.
    if (have_tuned && tuner::TuneModeFromEnv() != tuner::TuneMode::kForce) {
      return std::optional<KernelConfig>();
    }
    return tuner::TunedConfigForMiss(device, kernel, shape);
  });
}

}  // namespace jitk
