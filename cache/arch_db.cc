#include "cache/arch_db.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cache/merge.h"
#include "cache/schema.h"
#include "lib/internal/status_macros.h"

namespace jitk::cache {

namespace {

struct FileId {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
};

FileId StatFile(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return {};
  return {true, st.st_dev, st.st_ino, st.st_size};
}

uint32_t BigEndian32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// Damage SQLite would only notice on a later read of an unlucky page: a
// header that is not SQLite's, a size that is not whole pages, fewer pages
// than a rollback-journal file's header promises.
absl::Status PrecheckFile(const std::string& path, off_t size) {
  if (size == 0) return absl::OkStatus();  // a new file, not yet written
  auto damaged = [&](absl::string_view why) {
    return absl::DataLossError(absl::StrCat(path, ": ", why));
  };
  unsigned char header[100];
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::OkStatus();  // SQLite's own open reports it
  ssize_t n = ::pread(fd, header, sizeof(header), 0);
  ::close(fd);
  if (n < static_cast<ssize_t>(sizeof(header))) {
    return damaged(absl::StrCat("truncated to ", size, " bytes"));
  }
  if (std::memcmp(header, "SQLite format 3", 16) != 0) {
    return damaged("not a SQLite database (bad header)");
  }
  uint32_t page_size = (uint32_t{header[16]} << 8) | header[17];
  if (page_size == 1) page_size = 65536;
  if (page_size < 512 || (page_size & (page_size - 1)) != 0) {
    return damaged(absl::StrCat("bad page size ", page_size));
  }
  if (size % page_size != 0) {
    return damaged(absl::StrCat("truncated: ", size, " bytes is not a whole number of ", page_size,
                                "-byte pages"));
  }
  // In rollback-journal mode (format byte 1) with no hot journal, the
  // header's page count is authoritative once it is valid (bytes 92..95
  // equal the change counter at 24..27).
  const bool rollback = header[18] == 1;
  const uint32_t pages = BigEndian32(header + 28);
  const bool pages_valid = BigEndian32(header + 92) == BigEndian32(header + 24);
  FileId journal = StatFile(path + "-journal");
  if (rollback && pages_valid && !(journal.exists && journal.size > 0) &&
      static_cast<off_t>(pages) * page_size > size) {
    return damaged(absl::StrCat("truncated: the header counts ", pages, " pages, the file holds ",
                                size / page_size));
  }
  return absl::OkStatus();
}

// A connection that reads `path` as it is: no journal switch, no writes.
absl::StatusOr<std::unique_ptr<SqliteDb>> OpenToRead(const std::string& path,
                                                     absl::Duration busy_timeout) {
  SqliteOpenOptions open;
  open.read_only = true;
  open.journal = JournalMode::kKeep;
  open.busy_timeout = busy_timeout;
  return SqliteDb::Open(path, open);
}

// PrecheckFile reads the file without SQLite's locks, so a file another
// process is committing to can fail it for a moment (the header counting
// pages the file does not hold yet). Damage found that way stands only if
// it is still there under a read transaction, which no commit overlaps in
// rollback-journal mode.
absl::Status ConfirmDamage(const std::string& path, const absl::Status& found,
                           absl::Duration busy_timeout) {
  absl::StatusOr<std::unique_ptr<SqliteDb>> db = OpenToRead(path, busy_timeout);
  if (!db.ok()) return found;
  absl::Status again = found;
  absl::Status read = (*db)->ReadTransaction([&]() -> absl::Status {
    JITK_RETURN_IF_ERROR((*db)->Exec("SELECT count(*) FROM sqlite_schema"));
    again = PrecheckFile(path, StatFile(path).size);
    return absl::OkStatus();
  });
  return read.ok() ? again : found;
}

// For a file the user named (ArchDbOptions::refuse_foreign): whether it is a
// sound jitk DB of `arch` this jitk can use, read without changing anything
// (no journal switch, no migration).
absl::Status ProbeNamedFile(const std::string& path, const std::string& arch,
                            absl::Duration busy_timeout) {
  JITK_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, OpenToRead(path, busy_timeout));
  JITK_ASSIGN_OR_RETURN(SchemaInfo info, ReadSchemaSnapshot(*db));
  if (info.empty) return absl::OkStatus();
  JITK_RETURN_IF_ERROR(CheckMarkers(info, path));
  return CheckArch(info, arch, path);
}

// An flock(2) on <db>.lock. Shared while a file is opened, exclusive while
// a damaged file is moved aside, so nobody opens a file mid-move.
class FileLock {
 public:
  FileLock() = default;
  FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }

  // kPermissionDenied when the lock file cannot be created (read-only
  // directory), kUnavailable after `timeout`.
  static absl::StatusOr<FileLock> Acquire(const std::string& path, bool exclusive,
                                          absl::Duration timeout) {
    FileLock lock;
    lock.fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock.fd_ < 0) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot create lock file ", path, ": ", std::strerror(errno)));
    }
    const absl::Time deadline = absl::Now() + timeout;
    while (::flock(lock.fd_, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK && errno != EINTR) {
        return absl::UnavailableError(
            absl::StrCat("cannot lock ", path, ": ", std::strerror(errno)));
      }
      if (absl::Now() >= deadline) {
        return absl::UnavailableError(
            absl::StrCat("lock ", path, " still held after ", absl::FormatDuration(timeout)));
      }
      absl::SleepFor(absl::Milliseconds(1));
    }
    return lock;
  }

 private:
  int fd_ = -1;
};

std::string AsideName(const std::string& path) {
  return absl::StrCat(path, ".corrupt-",
                      absl::FormatTime("%Y%m%dT%H%M%SZ", absl::Now(), absl::UTCTimeZone()), "-",
                      ::getpid());
}

bool Writable(const std::string& path) { return ::access(path.c_str(), W_OK) == 0; }

std::string Dir(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

JournalMode JournalFor(DbMode mode) {
  return mode == DbMode::kWal ? JournalMode::kWal : JournalMode::kDelete;
}

}  // namespace

ArchDb::~ArchDb() = default;

absl::StatusOr<std::unique_ptr<ArchDb>> ArchDb::Open(std::string path, std::string arch,
                                                     ArchDbOptions options) {
  JITK_RETURN_IF_ERROR(ValidateArchName(arch));
  std::unique_ptr<ArchDb> db(new ArchDb(std::move(path), std::move(arch), std::move(options)));
  absl::MutexLock lock(&db->mu_);
  JITK_RETURN_IF_ERROR(db->OpenFileLocked());
  return db;
}

absl::StatusOr<std::unique_ptr<ArchDb>> ArchDb::OpenInMemory(std::string arch,
                                                             ArchDbOptions options) {
  JITK_RETURN_IF_ERROR(ValidateArchName(arch));
  std::unique_ptr<ArchDb> db(new ArchDb("", std::move(arch), std::move(options)));
  absl::MutexLock lock(&db->mu_);
  JITK_ASSIGN_OR_RETURN(db->db_, SqliteDb::OpenInMemory());
  JITK_RETURN_IF_ERROR(EnsureSchema(*db->db_, db->arch_));
  return db;
}

bool ArchDb::writable() const {
  absl::MutexLock lock(&mu_);
  return db_ != nullptr && !db_->read_only();
}

absl::Status ArchDb::OpenFileLocked() {
  db_.reset();
  return options_.role == DbRole::kSystem ? OpenSystemLocked() : OpenUserLocked();
}

absl::Status ArchDb::OpenSystemLocked() {
  if (!StatFile(path_).exists) return absl::NotFoundError(absl::StrCat("no system DB ", path_));
  SqliteOpenOptions open;
  open.immutable = true;
  open.journal = JournalMode::kKeep;
  JITK_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, SqliteDb::Open(path_, open));
  JITK_RETURN_IF_ERROR(EnsureSchema(*db, arch_));
  db_ = std::move(db);
  return absl::OkStatus();
}

absl::Status ArchDb::OpenUserLocked() {
  const bool read_only_mode = options_.mode == DbMode::kReadOnly;
  if (!read_only_mode) {
    std::error_code ignored;
    std::filesystem::create_directories(std::filesystem::path(path_).parent_path(), ignored);
  }
  // Nobody opens the file while another process moves it aside. Without a
  // lock file (read-only directory) nobody can move it either.
  std::optional<FileLock> shared;
  if (absl::StatusOr<FileLock> lock =
          FileLock::Acquire(path_ + ".lock", /*exclusive=*/false, options_.busy_timeout);
      lock.ok()) {
    shared.emplace(std::move(*lock));
  } else if (!absl::IsPermissionDenied(lock.status())) {
    return lock.status();
  }
  // Repair takes the lock exclusively; ours must go first.
  auto recover = [&](const absl::Status& why) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    shared.reset();
    return RecoverLocked(why);
  };

  FileId id = StatFile(path_);
  if (read_only_mode && !id.exists) {
    return absl::NotFoundError(absl::StrCat("no user DB ", path_, " (JITK_DB_MODE=readonly)"));
  }
  if (id.exists) {
    dev_ = id.dev;
    ino_ = id.ino;
    absl::Status pre = PrecheckFile(path_, id.size);
    if (!pre.ok()) pre = ConfirmDamage(path_, pre, options_.busy_timeout);
    if (!pre.ok()) {
      if (read_only_mode || !Writable(path_) || options_.refuse_foreign) return pre;
      return recover(pre);
    }
    if (options_.refuse_foreign) {
      JITK_RETURN_IF_ERROR(ProbeNamedFile(path_, arch_, options_.busy_timeout));
    }
  }

  SqliteOpenOptions open;
  open.read_only = read_only_mode;
  open.journal = read_only_mode ? JournalMode::kKeep : JournalFor(options_.mode);
  open.busy_timeout = options_.busy_timeout;
  absl::StatusOr<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(path_, open);
  // Only a file or directory we may not write is read instead; a file that
  // is merely locked right now is an error the caller retries later.
  const bool may_not_write = !Writable(path_) || !Writable(Dir(path_));
  if (!db.ok() && id.exists && !read_only_mode && may_not_write &&
      (absl::IsPermissionDenied(db.status()) || absl::IsUnavailable(db.status()))) {
    open.read_only = true;
    open.journal = JournalMode::kKeep;
    db = SqliteDb::Open(path_, open);
  }
  if (!db.ok() && id.exists && !Writable(Dir(path_)) &&
      (absl::IsUnavailable(db.status()) || absl::IsPermissionDenied(db.status()))) {
    // A WAL file in a read-only directory without its -shm: nobody can
    // write it, so reading it as immutable is safe.
    open.read_only = true;
    open.immutable = true;
    db = SqliteDb::Open(path_, open);
  }
  if (!db.ok()) {
    if (absl::IsDataLoss(db.status()) && !read_only_mode && Writable(path_) &&
        !options_.refuse_foreign) {
      return recover(db.status());
    }
    return db.status();
  }
  if ((*db)->read_only() && !read_only_mode) {
    WarnOnceLocked(
        absl::StrCat("cache DB ", path_, " is read-only: lookups work, new results are not saved"));
  }
  id = StatFile(path_);
  dev_ = id.dev;
  ino_ = id.ino;

  absl::Status schema = EnsureSchema(**db, arch_);
  if (!schema.ok()) {
    if (options_.refuse_foreign) return schema;
    const bool repairable =
        !(*db)->read_only() && (absl::IsDataLoss(schema) || absl::IsFailedPrecondition(schema));
    if (!repairable) return schema;
    db->reset();
    return recover(schema);
  }
  db_ = std::move(*db);
  return absl::OkStatus();
}

absl::Status ArchDb::ReopenIfReplacedLocked() {
  if (path_.empty()) return absl::OkStatus();
  if (db_ != nullptr) {
    if (options_.role == DbRole::kSystem) return absl::OkStatus();
    FileId id = StatFile(path_);
    if (id.exists && id.dev == dev_ && id.ino == ino_) return absl::OkStatus();
  }
  return OpenFileLocked();
}

bool ArchDb::RepairableLocked() const {
  return options_.role == DbRole::kUser && !path_.empty() && options_.mode != DbMode::kReadOnly &&
         (db_ == nullptr || !db_->read_only());
}

absl::Status ArchDb::RecoverLocked(const absl::Status& why) {
  db_.reset();
  absl::StatusOr<FileLock> lock =
      FileLock::Acquire(path_ + ".lock", /*exclusive=*/true, options_.busy_timeout);
  if (!lock.ok()) {
    options_.warn(absl::StrCat("cache DB ", path_, " is damaged (", why.message(),
                               ") and cannot be moved aside: ", lock.status().message()));
    return why;
  }
  // Under the lock: if the file is no longer the one found damaged, another
  // process has already moved it aside and salvaged it.
  std::string aside;
  FileId now = StatFile(path_);
  if (now.exists && now.dev == dev_ && now.ino == ino_) {
    aside = AsideName(path_);
    if (::rename(path_.c_str(), aside.c_str()) != 0) {
      options_.warn(absl::StrCat("cache DB ", path_, " is damaged (", why.message(),
                                 ") and cannot be moved aside: ", std::strerror(errno)));
      return why;
    }
    // The journal files belong to the damaged file: a fresh file must not
    // replay them. SQLite finds them under the new name too.
    for (const char* suffix : {"-wal", "-journal"}) {
      std::string from = path_ + suffix;
      if (StatFile(from).exists) ::rename(from.c_str(), (aside + suffix).c_str());
    }
    ::unlink((path_ + "-shm").c_str());
  }

  SqliteOpenOptions open;
  open.journal = JournalFor(options_.mode);
  open.busy_timeout = options_.busy_timeout;
  JITK_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> fresh, SqliteDb::Open(path_, open));
  JITK_RETURN_IF_ERROR(EnsureSchema(*fresh, arch_));
  FileId id = StatFile(path_);
  dev_ = id.dev;
  ino_ = id.ino;
  db_ = std::move(fresh);
  if (aside.empty()) return absl::OkStatus();

  // Salvage: every row of the old file that still verifies. A file of
  // another schema or arch is left as it is.
  MergeStats stats;
  std::string salvage = "nothing salvaged";
  absl::StatusOr<std::unique_ptr<SqliteDb>> src = OpenToRead(aside, absl::Seconds(1));
  if (src.ok()) {
    absl::StatusOr<SchemaInfo> info = ReadSchemaInfo(**src);
    if (info.ok() && info->application_id == kApplicationId && info->version == kSchemaVersion &&
        info->has_tables && info->arch == arch_) {
      absl::Status merged = MergeRows(**src, *db_, &stats);
      salvage =
          absl::StrCat("salvaged ", stats.copied(), " verified rows",
                       stats.bad_rows > 0 ? absl::StrCat(", dropped ", stats.bad_rows, " bad") : "",
                       merged.ok() ? "" : " before an unreadable page");
    }
  }
  options_.warn(absl::StrCat("cache DB ", path_, " is damaged (", why.message(), "); moved it to ",
                             aside, ", continuing with a fresh file (", salvage, ")"));
  return absl::OkStatus();
}

absl::Status ArchDb::RunLocked(absl::FunctionRef<absl::Status(SqliteDb& db)> fn) {
  JITK_RETURN_IF_ERROR(ReopenIfReplacedLocked());
  absl::Status status = fn(*db_);
  if (absl::IsDataLoss(status)) {
    if (RepairableLocked()) {
      RecoverLocked(status).IgnoreError();  // it warns; the caller still sees the kDataLoss
    } else {
      WarnOnceLocked(status.message());
    }
  }
  return status;
}

void ArchDb::WarnOnceLocked(absl::string_view message) {
  if (warned_.insert(std::string(message)).second) options_.warn(message);
}

absl::Status ArchDb::WritableLocked() const {
  if (db_ != nullptr && !db_->read_only()) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("cache DB ", path_.empty() ? "(memory)" : path_, " is read-only"));
}

absl::StatusOr<CodeObjectRecord> ArchDb::GetCodeObject(absl::string_view key) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<CodeObjectRecord> out;
  absl::Status status = RunLocked([&](SqliteDb& db) {
    out = cache::GetCodeObject(db, key);
    return absl::IsNotFound(out.status()) ? absl::OkStatus() : out.status();
  });
  if (!status.ok()) return status;
  return out;
}

absl::Status ArchDb::PutCodeObject(const CodeObjectRecord& record) {
  absl::MutexLock lock(&mu_);
  auto put = [&](SqliteDb& db) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    JITK_RETURN_IF_ERROR(WritableLocked());
    return db.WriteTransaction([&] { return cache::PutCodeObject(db, record); });
  };
  absl::Status status = RunLocked(put);
  // Damage found while writing was repaired: write to the fresh file.
  if (absl::IsDataLoss(status)) status = RunLocked(put);
  return status;
}

absl::StatusOr<TuningRecord> ArchDb::GetTuning(const TuningKey& key) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<TuningRecord> out;
  absl::Status status = RunLocked([&](SqliteDb& db) {
    out = cache::GetTuning(db, key);
    return absl::IsNotFound(out.status()) ? absl::OkStatus() : out.status();
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<TuningFamily> ArchDb::FindTuningFamily(absl::string_view kernel,
                                                      absl::string_view compiler,
                                                      absl::string_view shape_key) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<TuningFamily> out;
  JITK_RETURN_IF_ERROR(RunLocked([&](SqliteDb& db) ABSL_NO_THREAD_SAFETY_ANALYSIS -> absl::Status {
    out = cache::FindTuningFamily(db, kernel, compiler, shape_key);
    if (out.ok() && out->bad_rows > 0) {
      std::string damage = absl::StrCat(out->bad_rows, " tuning rows of ", kernel, " in ",
                                        db.path(), " fail their checksum");
      // A file we may repair is repaired (this call misses); in a shipped
      // file the intact rows still count.
      if (RepairableLocked()) return absl::DataLossError(damage);
      WarnOnceLocked(damage);
    }
    return out.status();
  }));
  return out;
}

absl::StatusOr<bool> ArchDb::HasTuningForDevice(absl::string_view device_name, int compute_units) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<bool> out;
  JITK_RETURN_IF_ERROR(RunLocked([&](SqliteDb& db) {
    out = cache::HasTuningForDevice(db, device_name, compute_units);
    return out.status();
  }));
  return out;
}

absl::StatusOr<bool> ArchDb::PutTuning(const TuningRecord& record, TuningConflict conflict) {
  absl::MutexLock lock(&mu_);
  bool written = false;
  auto put = [&](SqliteDb& db) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    JITK_RETURN_IF_ERROR(WritableLocked());
    return db.WriteTransaction([&]() -> absl::Status {
      JITK_ASSIGN_OR_RETURN(written, cache::PutTuning(db, record, conflict));
      return absl::OkStatus();
    });
  };
  absl::Status status = RunLocked(put);
  if (absl::IsDataLoss(status)) status = RunLocked(put);
  if (!status.ok()) return status;
  return written;
}

absl::Status ArchDb::WithConnection(absl::FunctionRef<absl::Status(SqliteDb& db)> fn) {
  absl::MutexLock lock(&mu_);
  return RunLocked(fn);
}

}  // namespace jitk::cache
