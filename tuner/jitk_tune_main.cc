// jitk-tune — sweep kernel configurations on the device, validated, resumable.
//
//   jitk-tune --kernel scaled_add --shape 'f16;n=1048576'      tune on the GPU present
//   jitk-tune --arch gfx942 --all --db gfx942.db               compile-only on a CPU node
//   jitk-tune --shapes shapes.txt --shard 3/16 --resume --db sweep.db
//
// Work: --shape (with --kernel), --shapes FILE ("[kernel] shape" per line),
// --all (every kernel with a tuning problem × its standard shapes). With
// --arch naming an architecture that is not the GPU present (or no GPU),
// candidates are compiled and checked against that architecture's
// resources only: code objects and resource reports go into the DB, and
// timing needs the device. Results go to --db FILE (one cache DB per
// architecture) or, by default, the user cache get_kernel reads.
// Progress goes to stderr (a bar with ETA on a terminal, plain lines
// otherwise); the summary table, or with --json the full results, to stdout.
// Exit status: 0 every shape done (a spent budget included), 1 a shape
// failed, 2 bad usage.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cache/kernel_cache.h"
#include "jitk/jitk.h"
#include "lib/internal/device_impl.h"
#include "lib/internal/status_macros.h"
#include "tuner/budget.h"
#include "tuner/problem.h"
#include "tuner/progress.h"
#include "tuner/result_store.h"
#include "tuner/strategy.h"
#include "tuner/sweep_file.h"
#include "tuner/tuner.h"
#include "tuner/work_list.h"

namespace jitk::tuner {
namespace {

struct Flags {
  std::string arch;
  std::string kernel;
  std::vector<std::string> shapes;
  std::string shapes_file;
  bool all = false;
  std::string db;
  std::string strategy = "guided";
  std::string budget;
  std::string shard = "0/1";
  bool resume = false;
  bool json = false;
  bool compile_only = false;
  int device = -1;
  uint64_t seed = 1;
  int threads = 0;
  bool list_strategies = false;
};

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "jitk-tune: %s\n", std::string(status.message()).c_str());
  return absl::IsInvalidArgument(status) ? 2 : 1;
}

absl::StatusOr<std::vector<WorkItem>> Work(const Flags& flags) {
  std::vector<WorkItem> items;
  if (!flags.shapes.empty() && flags.kernel.empty()) {
    return absl::InvalidArgumentError("--shape needs --kernel (e.g. --kernel scaled_add)");
  }
  for (const std::string& text : flags.shapes) {
    JITK_ASSIGN_OR_RETURN(Shape shape, Shape::Parse(text));
    items.push_back({flags.kernel, shape});
  }
  if (!flags.shapes_file.empty()) {
    JITK_ASSIGN_OR_RETURN(std::vector<WorkItem> more,
                          ReadShapesFile(flags.shapes_file, flags.kernel));
    items.insert(items.end(), more.begin(), more.end());
  }
  if (flags.all) {
    JITK_ASSIGN_OR_RETURN(std::vector<WorkItem> more, StandardWork(flags.kernel));
    items.insert(items.end(), more.begin(), more.end());
    for (const std::string& name : KernelNames()) {
      if ((flags.kernel.empty() || flags.kernel == name) && !FindProblem(name).ok()) {
        std::fprintf(stderr,
                     "jitk-tune: %s has no tuning problem (inputs + reference) yet, so no standard "
                     "shapes: skipped by --all (compile-only sweeps: --kernel %s --shape ...)\n",
                     name.c_str(), name.c_str());
      }
    }
  }
  if (items.empty() && !flags.kernel.empty() && flags.shapes.empty() && flags.shapes_file.empty()) {
    JITK_ASSIGN_OR_RETURN(items,
                          StandardWork(flags.kernel));  // --kernel alone: its standard shapes
  }
  if (items.empty()) {
    return absl::InvalidArgumentError(
        "nothing to tune: give --kernel K [--shape S]..., --shapes FILE or --all");
  }
  return items;
}

// The device to time on, or nullopt (compile-only) with the reason.
std::optional<Device> PickDevice(const Flags& flags, const Target* target, std::string& why) {
  const Inventory& inventory = jitk::internal::CachedInventory();  // what Device::Open sees
  std::vector<std::string> found;
  for (const DeviceInfo& d : inventory.devices)
    found.push_back(absl::StrCat(d.name, " (", d.arch, ")"));
  const std::string present = found.empty() ? "none" : absl::StrJoin(found, ", ");
  for (const DeviceInfo& d : inventory.devices) {
    if (flags.device >= 0 && d.ordinal != flags.device) continue;
    if (target != nullptr && !DeviceRunsArch(d, *target)) continue;
    absl::StatusOr<Device> device = Device::Open(d.ordinal);
    if (device.ok()) return *device;
    why = std::string(device.status().message());
    return std::nullopt;
  }
  why = absl::StrCat("no ", target != nullptr ? target->arch : "", " GPU here (found: ", present,
                     ")");
  return std::nullopt;
}

int Main(int argc, char** argv) {
  Flags flags;
  CLI::App app{"jitk-tune: sweep kernel configurations on the device, validated and resumable"};
  app.add_option("--arch", flags.arch,
                 "target architecture (gfx90a, gfx942, sm_90, ...); default: the GPU's. "
                 "Another arch than the GPU present means compile-only");
  app.add_option("--kernel", flags.kernel, "kernel template (scaled_add, sparse_attn, ...)");
  app.add_option("--shape", flags.shapes, "shape key, e.g. 'f16;n=1048576' (repeatable)");
  app.add_option("--shapes", flags.shapes_file, "file of '[kernel] shape' lines");
  app.add_flag("--all", flags.all, "every kernel with a tuning problem, its standard shapes");
  app.add_option("--db", flags.db, "cache DB file for the results (default: the user cache)");
  app.add_option("--strategy", flags.strategy, "exhaustive, random or guided (default)");
  app.add_option("--budget", flags.budget, "per shape: candidates (40), wall time (30s) or both");
  app.add_option("--shard", flags.shard, "K/N: this job's deterministic share (0 <= K < N)");
  app.add_flag("--resume", flags.resume, "continue from the DB: skip tuned shapes, reuse code");
  app.add_flag("--json", flags.json, "print the results as JSON (a replayable sweep)");
  app.add_flag("--compile-only", flags.compile_only, "compile and prune only, even with a GPU");
  app.add_option("--device", flags.device, "GPU ordinal to time on (default: the first that fits)");
  app.add_option("--seed", flags.seed, "seed of the strategy and the input data");
  app.add_option("--threads", flags.threads, "compile threads (default: one per core)");
  app.add_flag("--list-strategies", flags.list_strategies, "list the strategies and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  if (flags.list_strategies) {
    for (const StrategyInfo& s : ListStrategies()) {
      std::printf("%-12s %s\n", s.name.c_str(), s.description.c_str());
    }
    return 0;
  }

  TuneOptions options;
  options.strategy = flags.strategy;
  options.seed = flags.seed;
  options.measure.seed = flags.seed;
  options.compile_threads = flags.threads;
  options.compile_only = flags.compile_only;
  options.resume = flags.resume;
  if (absl::StatusOr<std::unique_ptr<Strategy>> s = MakeStrategy(flags.strategy); !s.ok()) {
    return Fail(s.status());
  }
  if (!flags.budget.empty()) {
    absl::StatusOr<Budget> budget = ParseBudget(flags.budget);
    if (!budget.ok()) return Fail(budget.status());
    options.budget = *budget;
  }
  absl::StatusOr<Shard> shard = ParseShard(flags.shard);
  if (!shard.ok()) return Fail(shard.status());
  absl::StatusOr<std::vector<WorkItem>> all = Work(flags);
  if (!all.ok()) return Fail(all.status());
  const size_t total = all->size();
  std::vector<WorkItem> items = SelectShard(*std::move(all), *shard);

  std::optional<Target> target;
  if (!flags.arch.empty()) {
    absl::StatusOr<Target> parsed = ParseTarget(flags.arch);
    if (!parsed.ok()) return Fail(parsed.status());
    if (absl::Status known = LookupArch(flags.arch).status(); !known.ok()) return Fail(known);
    target = *parsed;
  }
  std::string why;
  std::optional<Device> device =
      flags.compile_only ? std::nullopt : PickDevice(flags, target ? &*target : nullptr, why);
  if (flags.compile_only) why = "--compile-only";
  if (!target.has_value()) {
    if (!device.has_value()) {
      return Fail(absl::NotFoundError(absl::StrCat(
          why, ". Pass --arch (e.g. --arch gfx942 or --arch sm_90) for a compile-only sweep")));
    }
    absl::StatusOr<Target> parsed =
        ParseTarget(device->info().target.empty() ? device->info().arch : device->info().target);
    if (!parsed.ok()) return Fail(parsed.status());
    target = *parsed;
  }
  const std::string arch_text = flags.arch.empty() ? target->ToString() : flags.arch;

  std::unique_ptr<ResultStore> store;
  if (!flags.db.empty()) {
    absl::StatusOr<std::unique_ptr<ResultStore>> opened = OpenDbResultStore(flags.db, target->arch);
    if (!opened.ok()) return Fail(opened.status());
    store = *std::move(opened);
  } else {
    store = NewKernelCacheResultStore(cache::DefaultKernelCache());
  }
  options.store = store.get();

  std::fprintf(stderr, "jitk-tune: %zu shape%s", items.size(), items.size() == 1 ? "" : "s");
  if (shard->count > 1)
    std::fprintf(stderr, " (shard %d/%d of %zu)", shard->index, shard->count, total);
  if (device.has_value()) {
    std::fprintf(stderr, " on %s (%s), strategy %s, budget %s, results to %s\n",
                 device->info().name.c_str(), device->info().arch.c_str(), flags.strategy.c_str(),
                 BudgetToString(options.budget).c_str(), store->Describe().c_str());
  } else {
    std::fprintf(stderr,
                 " for %s, compile-only (%s): code objects and resource reports go to %s; "
                 "timing needs the %s device\n",
                 arch_text.c_str(), why.c_str(), store->Describe().c_str(), target->arch.c_str());
  }

  ProgressPrinter progress(stderr, isatty(STDERR_FILENO) != 0, items.size());
  options.observer = &progress;
  std::vector<TuneResult> results;
  int failures = 0;
  for (const WorkItem& item : items) {
    TuneTarget where{.arch = arch_text, .device = device};
    absl::StatusOr<TuneResult> result = Tune(item.kernel, item.shape, where, options);
    if (!result.ok()) {
      progress.OnRunError(absl::StrCat(item.kernel, " ", item.shape.Key()), result.status());
      ++failures;
      continue;
    }
    results.push_back(*std::move(result));
  }
  progress.Finish();

  if (flags.json) {
    std::fputs(TuneResultsToJson(results).c_str(), stdout);
  } else {
    std::fputs(FormatSummary(results).c_str(), stdout);
    if (!device.has_value()) {
      std::printf(
          "compile-only for %s: timing needs the %s device (run jitk-tune there with "
          "--resume to reuse these code objects)\n",
          arch_text.c_str(), target->arch.c_str());
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace jitk::tuner

int main(int argc, char** argv) { return jitk::tuner::Main(argc, argv); }
