// cache/arch_db.h — one architecture's DB file, kept usable.
//
// ArchDb owns the connection to <dir>/<arch>.db and everything that can go
// wrong with the file, so that the layers above only see rows or misses:
//
//   * A user DB that is damaged (not SQLite, truncated, malformed pages, a
//     row that fails its checksum), foreign (not a jitk DB, another arch) or
//     written by a newer jitk is moved aside to
//     <path>.corrupt-<UTC time>-<pid> (with its -wal/-journal) under an
//     flock on <path>.lock, a fresh file takes its place, the verified rows
//     of the old file are copied over, and one warning says so. The call that
//     hit the damage returns kDataLoss; later calls use the fresh file.
//     With ArchDbOptions::refuse_foreign, such a file is refused instead.
//   * A user DB or directory that cannot be written opens read-only with a
//     warning; writes then return kPermissionDenied.
//   * When the file at `path` is replaced or deleted by another process
//     (e.g. it moved a corrupt file aside), the next call reopens it.
//   * A system DB is opened immutable (no locks, nothing written: replace
//     shipped files by rename, never in place) and is never changed;
//     damage there is returned, not repaired.
//
// Thread-safe: every call holds the DB's mutex (calls are short).
#ifndef JITK_CACHE_ARCH_DB_H_
#define JITK_CACHE_ARCH_DB_H_

#include <sys/types.h>

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "cache/cache_options.h"
#include "cache/code_object_store.h"
#include "cache/sqlite_db.h"
#include "cache/tuning_store.h"
#include "cache/warning_sink.h"

namespace jitk::cache {

enum class DbRole {
  kUser,    // read-write, repaired when damaged
  kSystem,  // shipped, read-only, never changed
};

struct ArchDbOptions {
  DbRole role = DbRole::kUser;
  // kWal → WAL journal; kNfs and kPerHost → rollback journal (DELETE);
  // kReadOnly → opened read-only. (kMemory: use OpenInMemory.)
  DbMode mode = DbMode::kWal;
  absl::Duration busy_timeout = absl::Seconds(30);
  WarningSink warn = StderrWarningSink();
  // A user DB that, when opened, is not a sound jitk DB this run can use
  // (damaged or not SQLite: kDataLoss; another program's: kDataLoss; another
  // arch or a newer schema: kFailedPrecondition) is refused with the reason
  // and left untouched (read before any write: no journal switch, no
  // migration) instead of moved aside: for a file the user named
  // (jitk-tune --db). Damage a later read finds is still repaired.
  bool refuse_foreign = false;
};

class ArchDb {
 public:
  // Opens (kUser: creates, with its directory) the DB for `arch` at `path`.
  // Errors only when no DB can be used at all: kNotFound (system or
  // read-only DB absent), kPermissionDenied / kUnavailable (cannot create),
  // kDataLoss / kFailedPrecondition (a system DB that is damaged or of
  // another schema or arch).
  static absl::StatusOr<std::unique_ptr<ArchDb>> Open(std::string path, std::string arch,
                                                      ArchDbOptions options);
  // A DB in process memory, for JITK_DB_MODE=memory and tests.
  static absl::StatusOr<std::unique_ptr<ArchDb>> OpenInMemory(std::string arch,
                                                              ArchDbOptions options);

  ~ArchDb();
  ArchDb(const ArchDb&) = delete;
  ArchDb& operator=(const ArchDb&) = delete;

  const std::string& path() const { return path_; }
  const std::string& arch() const { return arch_; }
  DbRole role() const { return options_.role; }
  bool writable() const;

  // Row access; see code_object_store.h and tuning_store.h for the codes.
  // Writes on a read-only DB return kPermissionDenied naming the file.
  absl::StatusOr<CodeObjectRecord> GetCodeObject(absl::string_view key);
  absl::Status PutCodeObject(const CodeObjectRecord& record);
  absl::StatusOr<TuningRecord> GetTuning(const TuningKey& key);
  absl::StatusOr<TuningFamily> FindTuningFamily(absl::string_view kernel,
                                                absl::string_view compiler,
                                                absl::string_view shape_key);
  absl::StatusOr<bool> HasTuningForDevice(absl::string_view device_name, int compute_units);
  absl::StatusOr<bool> PutTuning(const TuningRecord& record,
                                 TuningConflict conflict = TuningConflict::kReplace);

  // Runs `fn` on the connection under the DB's mutex (maintenance: merge,
  // prune, verify). A kDataLoss from `fn` triggers the repair above.
  absl::Status WithConnection(absl::FunctionRef<absl::Status(SqliteDb& db)> fn);

 private:
  ArchDb(std::string path, std::string arch, ArchDbOptions options)
      : path_(std::move(path)), arch_(std::move(arch)), options_(std::move(options)) {}

  absl::Status OpenFileLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status OpenUserLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status OpenSystemLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Reopens when the file at path_ is no longer the one we have open.
  absl::Status ReopenIfReplacedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves the damaged file aside and continues on a fresh one; `why` is
  // what was found. Returns an error only when no fresh file can be opened.
  absl::Status RecoverLocked(const absl::Status& why) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs fn; on kDataLoss repairs the file (user role) and returns the kDataLoss.
  absl::Status RunLocked(absl::FunctionRef<absl::Status(SqliteDb& db)> fn)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status WritableLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  bool RepairableLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Each distinct message once per ArchDb (damage that cannot be repaired
  // would otherwise repeat on every lookup).
  void WarnOnceLocked(absl::string_view message) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;  // empty for in-memory
  const std::string arch_;
  const ArchDbOptions options_;

  mutable absl::Mutex mu_;
  std::unique_ptr<SqliteDb> db_ ABSL_GUARDED_BY(mu_);
  // Identity (st_dev, st_ino) of the file db_ has open, or that was found damaged.
  dev_t dev_ ABSL_GUARDED_BY(mu_) = 0;
  ino_t ino_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_set<std::string> warned_ ABSL_GUARDED_BY(mu_);
};

}  // namespace jitk::cache

#endif  // JITK_CACHE_ARCH_DB_H_
