// cache/kernel_cache.h — the cache the core and the tuner use.
//
// KernelCache answers two questions, each in this order:
//   in-process memo → user DB (<cache dir>/<arch>.db) → system DBs
//   (JITK_SYSTEM_DB_PATH, then <prefix>/share/jitk/db) → not found
// * GetCodeObject: the compiled bytes for a key from MakeCodeObjectKey().
// * LookupTuning: the tuned configuration for (device, kernel, shape,
//   compiler); an untuned shape gets the nearest tuned shape of the same
//   kernel and dtype, marked exact = false (see shape_distance.h).
// Not found means: compile / use the built-in default, then Put.
//
// The cache never fails a caller because of its own files: damaged files
// are moved aside and rebuilt, read-only ones are read (writes then stay in
// process memory), a missing shipped DB for an arch is reported once; all
// of it goes to options.warn. Lookups and stores are thread-safe and safe
// across processes sharing the files (see docs/cache.md); after fork() the
// child reopens the files on its next slow-path call.
//
// Example (the core's get_kernel):
//   jitk::cache::KernelCache& cache = jitk::cache::DefaultKernelCache();
//   absl::StatusOr<TuningHit> tuned = cache.LookupTuning(
//       {.arch = "gfx942", .device_name = dev.name, .compute_units = dev.compute_units,
//        .kernel = "scaled_add", .shape_key = key, .compiler = compiler});
//   ...
//   absl::StatusOr<CodeObjectHit> code = cache.GetCodeObject("gfx942", object_key);
//   if (!code.ok()) { /* compile */ cache.PutCodeObject("gfx942", std::move(record)); }
#ifndef JITK_CACHE_KERNEL_CACHE_H_
#define JITK_CACHE_KERNEL_CACHE_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "cache/arch_db.h"
#include "cache/cache_options.h"
#include "cache/code_object_store.h"
#include "cache/lookup_memo.h"
#include "cache/tuning_store.h"

namespace jitk::cache {

class KernelCache {
 public:
  explicit KernelCache(CacheOptions options);
  ~KernelCache();
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  // --- Code objects
  // kNotFound on a miss (also when the cache is disabled); kDataLoss when the
  // stored row was damaged (it has been dropped: compile again and Put);
  // kInvalidArgument for a bad arch name. A memo hit neither allocates nor
  // touches SQLite.
  absl::StatusOr<CodeObjectHit> GetCodeObject(absl::string_view arch, absl::string_view key);
  // Stores in the user DB and the memo. OK also when no user DB is writable
  // (the row then lives in process memory; one warning). kInvalidArgument
  // for a bad arch or an empty key/code; kUnavailable when the DB stayed
  // locked past the busy timeout; kResourceExhausted when the disk is full.
  absl::Status PutCodeObject(absl::string_view arch, CodeObjectRecord record);

  // --- Tuning
  // A hit says where the row came from and whether it is exact. kNotFound
  // when no DB has a row for this kernel, dtype, dimension names and
  // compiler; kInvalidArgument for a malformed arch or shape key.
  absl::StatusOr<TuningHit> LookupTuning(const TuningQuery& query);
  // Stores (replacing the row with the same key) in the user DB; forgets
  // memoized tuning answers. Errors as for PutCodeObject, plus
  // kInvalidArgument for a malformed record (tuning_store.h).
  absl::Status PutTuning(absl::string_view arch, TuningRecord record);

  // Forgets every memoized answer (rows written by other processes are then
  // seen on the next lookup).
  void ClearMemo();

  const CacheOptions& options() const { return options_; }
  // The user DB file for `arch` ("" when there is none: disabled, memory
  // mode, no cache dir).
  std::string UserDbPath(absl::string_view arch) const;
  // The system DB files for `arch` that exist, in search order.
  std::vector<std::string> SystemDbPaths(absl::string_view arch) const;

 private:
  struct Layer {
    std::unique_ptr<ArchDb> db;
    CacheLayer layer;
  };
  struct Source {
    ArchDb* db;
    CacheLayer layer;
  };
  // All DBs for one arch, in lookup order.
  struct ArchLayers {
    // Rows stored while no user DB was writable (searched first).
    std::unique_ptr<ArchDb> overlay;
    std::unique_ptr<ArchDb> user;  // null when none could be opened
    bool user_read_only = false;   // a write was refused: writes go to the overlay
    std::vector<Layer> read_only;  // per-host mode's shared file, then system DBs
    absl::Time retry_user_after;   // a user DB that was locked is tried again
    absl::flat_hash_set<std::string> devices_checked;
  };

  ArchLayers& LayersLocked(absl::string_view arch) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OpenUserLocked(absl::string_view arch, ArchLayers& layers)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The DBs to search, in order.
  std::vector<Source> SearchOrderLocked(ArchLayers& layers) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The DB that takes writes: the user DB, or the in-memory overlay.
  ArchDb* WritableLocked(absl::string_view arch, ArchLayers& layers)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void CheckDeviceLocked(const TuningQuery& query, ArchLayers& layers)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void WarnOnceLocked(const std::string& message) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ArchDbOptions DbOptions(DbRole role, DbMode mode) const;

  const CacheOptions options_;
  LookupMemo memo_;

  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<ArchLayers>> layers_ ABSL_GUARDED_BY(mu_);
  pid_t pid_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<std::string> warned_ ABSL_GUARDED_BY(mu_);
};

// The process-wide cache, configured by CacheOptionsFromEnv() on first use.
// Never destroyed. Thread-safe.
KernelCache& DefaultKernelCache();

}  // namespace jitk::cache

#endif  // JITK_CACHE_KERNEL_CACHE_H_
