#include "tuner/strategy.h"

#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"

namespace jitk::tuner {
namespace {

struct Entry {
  StrategyInfo info;
  StrategyFactory factory;
};

class Registry {
 public:
  Registry() {
    // Explicit, so a static link keeps them.
    entries_.push_back({{"exhaustive", "every valid configuration, in index order"},
                        [] { return NewExhaustiveStrategy(); }});
    entries_.push_back({{"random", "a seeded random order until the budget is spent"},
                        [] { return NewRandomStrategy(); }});
    entries_.push_back({{"guided", "additive log-time model + local search; <= 30 % of the space"},
                        [] { return NewGuidedStrategy(); }});
  }

  absl::Status Add(Entry entry) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    for (const Entry& e : entries_) {
      if (e.info.name == entry.info.name) {
        return absl::AlreadyExistsError(
            absl::StrCat("a strategy named '", entry.info.name, "' is already registered"));
      }
    }
    entries_.push_back(std::move(entry));
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Strategy>> Make(absl::string_view name) ABSL_LOCKS_EXCLUDED(mu_) {
    StrategyFactory factory;
    std::vector<std::string> names;
    {
      absl::MutexLock lock(&mu_);
      for (const Entry& e : entries_) {
        if (e.info.name == name) factory = e.factory;
        names.push_back(e.info.name);
      }
    }
    if (!factory) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown strategy '", name, "' (known: ", absl::StrJoin(names, ", "), ")"));
    }
    return factory();
  }

  std::vector<StrategyInfo> List() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    std::vector<StrategyInfo> out;
    for (const Entry& e : entries_) out.push_back(e.info);
    return out;
  }

 private:
  absl::Mutex mu_;
  std::vector<Entry> entries_ ABSL_GUARDED_BY(mu_);
};

Registry& TheRegistry() {
  static Registry* const kRegistry = new Registry();
  return *kRegistry;
}

}  // namespace

absl::Status RegisterStrategy(absl::string_view name, absl::string_view description,
                              StrategyFactory factory) {
  if (name.empty() || !factory) {
    return absl::InvalidArgumentError("a strategy needs a name and a factory");
  }
  return TheRegistry().Add({{std::string(name), std::string(description)}, std::move(factory)});
}

absl::StatusOr<std::unique_ptr<Strategy>> MakeStrategy(absl::string_view name) {
  return TheRegistry().Make(name);
}

std::vector<StrategyInfo> ListStrategies() { return TheRegistry().List(); }

}  // namespace jitk::tuner
