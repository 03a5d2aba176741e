#include "cache/sqlite_db.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/internal/status_macros.h"

namespace jitk::cache {

namespace {

// Percent-encodes the characters that end or escape a URI path.
std::string FileUri(const std::string& path, bool immutable) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      static constexpr char kHex[] = "0123456789abcdef";
      uri += '%';
      uri += kHex[static_cast<unsigned char>(c) >> 4];
      uri += kHex[static_cast<unsigned char>(c) & 15];
    } else {
      uri += c;
    }
  }
  if (immutable) uri += "?immutable=1";
  return uri;
}

absl::Status StatusFor(int rc, absl::string_view message, absl::string_view path,
                       absl::string_view context) {
  std::string text = absl::StrCat(context, ": ", message, " (", path, ")");
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return absl::DataLossError(text);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::UnavailableError(text);
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return absl::PermissionDeniedError(text);
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_PROTOCOL:
      return absl::UnavailableError(text);
    case SQLITE_FULL:
    case SQLITE_NOMEM:
    case SQLITE_TOOBIG:
      return absl::ResourceExhaustedError(text);
    default:
      return absl::InternalError(text);
  }
}

// Small, lock-free, per-thread jitter source; quality is irrelevant here.
uint32_t Jitter() {
  thread_local uint32_t state = static_cast<uint32_t>(::getpid()) * 2654435761u ^
                                static_cast<uint32_t>(absl::ToUnixNanos(absl::Now()));
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

}  // namespace

// --- Statement

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)), bind_error_(other.bind_error_) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
    bind_error_ = other.bind_error_;
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::Bound(int rc) {
  if (rc != SQLITE_OK && bind_error_ == SQLITE_OK) bind_error_ = rc;
}

Statement& Statement::BindText(int index, absl::string_view text) {
  Bound(sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_STATIC, SQLITE_UTF8));
  return *this;
}

Statement& Statement::BindBlob(int index, absl::string_view bytes) {
  // A zero-length blob must still be a blob, not NULL.
  static const char kEmpty = 0;
  Bound(sqlite3_bind_blob64(stmt_, index, bytes.empty() ? &kEmpty : bytes.data(), bytes.size(),
                            SQLITE_STATIC));
  return *this;
}

Statement& Statement::BindInt(int index, int64_t value) {
  Bound(sqlite3_bind_int64(stmt_, index, value));
  return *this;
}

Statement& Statement::BindDouble(int index, double value) {
  Bound(sqlite3_bind_double(stmt_, index, value));
  return *this;
}

absl::StatusOr<bool> Statement::Step() {
  if (bind_error_ != SQLITE_OK) return db_->Error(bind_error_, "binding a parameter");
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->Error(rc, sqlite3_sql(stmt_));
}

absl::Status Statement::Run() {
  while (true) {
    JITK_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return absl::OkStatus();
  }
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_error_ = SQLITE_OK;
}

absl::string_view Statement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  return absl::string_view(reinterpret_cast<const char*>(text),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

absl::string_view Statement::ColumnBlob(int column) const {
  const void* blob = sqlite3_column_blob(stmt_, column);
  if (blob == nullptr) return {};
  return absl::string_view(static_cast<const char*>(blob),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

int64_t Statement::ColumnInt(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::ColumnDouble(int column) const { return sqlite3_column_double(stmt_, column); }
bool Statement::ColumnIsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

// --- SqliteDb

SqliteDb::SqliteDb(sqlite3* db, std::string path, bool read_only, absl::Duration busy_timeout)
    : db_(db), path_(std::move(path)), read_only_(read_only), busy_timeout_(busy_timeout) {
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_handler(db_, &SqliteDb::BusyHandler, this);
}

SqliteDb::~SqliteDb() { sqlite3_close_v2(db_); }

absl::StatusOr<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path,
                                                         const SqliteOpenOptions& options) {
  int flags = SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
  if (options.read_only || options.immutable) {
    flags |= SQLITE_OPEN_READONLY;
  } else {
    flags |= SQLITE_OPEN_READWRITE | (options.create ? SQLITE_OPEN_CREATE : 0);
  }
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(FileUri(path, options.immutable).c_str(), &raw, flags, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status status =
        StatusFor(rc, raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc), path, "opening the database");
    sqlite3_close_v2(raw);
    return status;
  }
  bool read_only = sqlite3_db_readonly(raw, "main") == 1;
  std::unique_ptr<SqliteDb> db(new SqliteDb(raw, path, read_only, options.busy_timeout));

  // Keep the -wal file when the last connection closes: it is deleted by
  // name, and after a corrupt file was moved aside that name belongs to the
  // fresh file. A persistent -wal/-shm pair also lets read-only users open a
  // WAL DB.
  int persist = 1;
  sqlite3_file_control(raw, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
  // No memory-mapped I/O: a file truncated by another process would turn a
  // read into SIGBUS instead of an error.
  JITK_RETURN_IF_ERROR(db->Exec("PRAGMA mmap_size=0"));
  // Reading the schema cookie forces the header to be read: garbage is kDataLoss here.
  JITK_ASSIGN_OR_RETURN(Statement probe, db->Prepare("PRAGMA schema_version"));
  JITK_RETURN_IF_ERROR(probe.Run());

  if (!db->read_only_ && options.journal != JournalMode::kKeep) {
    const bool wal = options.journal == JournalMode::kWal;
    JITK_ASSIGN_OR_RETURN(Statement query, db->Prepare("PRAGMA journal_mode"));
    JITK_ASSIGN_OR_RETURN(bool row, query.Step());
    std::string current = row ? std::string(query.ColumnText(0)) : "";
    query.Reset();
    if (current != (wal ? "wal" : "delete")) {
      // Switching needs the file to itself; SQLite reports SQLITE_BUSY here
      // without calling the busy handler, so wait like it would.
      const absl::Time deadline = absl::Now() + options.busy_timeout;
      for (int attempt = 0;; ++attempt) {
        db->last_error_ = 0;
        absl::Status set = db->Exec(wal ? "PRAGMA journal_mode=WAL" : "PRAGMA journal_mode=DELETE");
        if (set.ok()) break;
        if (!db->LastErrorWasBusy() || absl::Now() >= deadline) return set;
        db->Backoff(attempt);
      }
    }
    JITK_RETURN_IF_ERROR(db->Exec(wal ? "PRAGMA synchronous=NORMAL" : "PRAGMA synchronous=FULL"));
    // Keeps the -wal file small between checkpoints and empties it when the
    // last connection closes, so a closed DB is one self-contained file.
    JITK_RETURN_IF_ERROR(db->Exec("PRAGMA journal_size_limit=4194304"));
  }
  return db;
}

absl::StatusOr<std::unique_ptr<SqliteDb>> SqliteDb::OpenInMemory() {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(
      ":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status status = StatusFor(rc, sqlite3_errstr(rc), ":memory:", "opening the database");
    sqlite3_close_v2(raw);
    return status;
  }
  return std::unique_ptr<SqliteDb>(new SqliteDb(raw, ":memory:", false, absl::Seconds(1)));
}

absl::Status SqliteDb::Error(int rc, absl::string_view context) {
  last_error_ = rc & 0xff;
  const char* message = sqlite3_errcode(db_) == rc ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  return StatusFor(rc, message, path_, context);
}

absl::Status SqliteDb::Exec(absl::string_view sql) {
  std::string text(sql);
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, text);
  return absl::OkStatus();
}

absl::StatusOr<Statement> SqliteDb::Prepare(absl::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return Error(rc, sql);
  }
  return Statement(this, stmt);
}

int SqliteDb::BusyHandler(void* self, int count) {
  auto* db = static_cast<SqliteDb*>(self);
  absl::Time now = absl::Now();
  if (count == 0) db->busy_since_ = now;
  if (now - db->busy_since_ >= db->busy_timeout_) return 0;
  db->Backoff(count);
  return 1;
}

void SqliteDb::Backoff(int attempt) {
  // 50 µs doubling to 20 ms, each wait jittered to 50–150 % so that waiting
  // processes do not wake in lockstep.
  int64_t base_us = std::min<int64_t>(20000, int64_t{50} << std::min(attempt, 9));
  int64_t wait_us = base_us / 2 + static_cast<int64_t>(Jitter() % static_cast<uint32_t>(base_us));
  absl::SleepFor(absl::Microseconds(wait_us));
}

bool SqliteDb::LastErrorWasBusy() const {
  return last_error_ == SQLITE_BUSY || last_error_ == SQLITE_LOCKED;
}

absl::Status SqliteDb::RunTransaction(const char* begin, absl::FunctionRef<absl::Status()> fn) {
  const absl::Time deadline = absl::Now() + busy_timeout_;
  for (int attempt = 0;; ++attempt) {
    last_error_ = 0;
    absl::Status status = Exec(begin);
    if (status.ok()) {
      status = fn();
      if (status.ok()) status = Exec("COMMIT");
      if (!status.ok() && !sqlite3_get_autocommit(db_)) {
        const int cause = last_error_;  // ROLLBACK must not hide why
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        last_error_ = cause;
      }
    }
    if (status.ok() || !LastErrorWasBusy() || absl::Now() >= deadline) return status;
    Backoff(attempt);
  }
}

absl::Status SqliteDb::WriteTransaction(absl::FunctionRef<absl::Status()> fn) {
  // IMMEDIATE takes the write lock up front: a deferred transaction that
  // reads first and then writes can fail with SQLITE_BUSY without waiting.
  return RunTransaction("BEGIN IMMEDIATE", fn);
}

absl::Status SqliteDb::ReadTransaction(absl::FunctionRef<absl::Status()> fn) {
  return RunTransaction("BEGIN", fn);
}

}  // namespace jitk::cache
