// cache/sqlite_db.h — one SQLite connection, its statements and transactions.
//
// A thin RAII layer over the C API that turns result codes into absl::Status
// with codes chosen for the cache:
//   SQLITE_CORRUPT, SQLITE_NOTADB        → kDataLoss (the file is damaged)
//   SQLITE_BUSY, SQLITE_LOCKED           → kUnavailable (locked past the busy timeout)
//   SQLITE_READONLY, SQLITE_PERM         → kPermissionDenied
//   SQLITE_CANTOPEN                      → kUnavailable naming the path
//   SQLITE_FULL, SQLITE_NOMEM            → kResourceExhausted
//   anything else                        → kInternal (a bug in our SQL)
//
// Lock waits use a busy handler with jittered exponential backoff (50 µs up
// to 20 ms) bounded by the busy timeout, and WriteTransaction() re-runs a
// whole transaction that lost a lock race, so callers never see "database is
// locked" while another process makes progress.
//
// Not thread-safe: one thread at a time per SqliteDb (callers hold a mutex).
// Never carry a SqliteDb across fork(): open a new one in the child.
//
// Example:
//   JITK_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, SqliteDb::Open(path, {}));
//   JITK_RETURN_IF_ERROR(db->WriteTransaction([&]() -> absl::Status {
//     JITK_ASSIGN_OR_RETURN(Statement s, db->Prepare("INSERT INTO t VALUES (?1)"));
//     return s.BindInt(1, 42).Run();
//   }));
#ifndef JITK_CACHE_SQLITE_DB_H_
#define JITK_CACHE_SQLITE_DB_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

struct sqlite3;
struct sqlite3_stmt;

namespace jitk::cache {

enum class JournalMode {
  kKeep,    // leave the file's journal mode as it is
  kWal,     // write-ahead log, synchronous=NORMAL
  kDelete,  // rollback journal, synchronous=FULL (network filesystems)
};

struct SqliteOpenOptions {
  bool read_only = false;  // SQLITE_OPEN_READONLY
  bool create = true;      // create a missing file (read-write only)
  // The file never changes while open: SQLite takes no locks and needs no
  // -shm/-wal files. For shipped DBs in read-only directories.
  bool immutable = false;
  JournalMode journal = JournalMode::kWal;  // applied to read-write connections
  absl::Duration busy_timeout = absl::Seconds(30);
};

class SqliteDb;

// A prepared statement. Bound text and blobs are NOT copied: they must stay
// alive until the statement is reset or destroyed. Bind errors are kept and
// returned by the next Step()/Run().
class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  ~Statement();

  // Parameters are 1-based (?1, ?2, ...).
  Statement& BindText(int index, absl::string_view text);
  Statement& BindBlob(int index, absl::string_view bytes);
  Statement& BindInt(int index, int64_t value);
  Statement& BindDouble(int index, double value);

  // true: a row is ready; false: the statement is done.
  absl::StatusOr<bool> Step();
  // Steps to the end (INSERT, UPDATE, DELETE).
  absl::Status Run();
  // Ready to run again with new bindings.
  void Reset();

  // Columns are 0-based. Views stay valid until the next Step/Reset.
  absl::string_view ColumnText(int column) const;
  absl::string_view ColumnBlob(int column) const;
  int64_t ColumnInt(int column) const;
  double ColumnDouble(int column) const;
  bool ColumnIsNull(int column) const;

 private:
  friend class SqliteDb;
  Statement(SqliteDb* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  void Bound(int rc);

  SqliteDb* db_;
  sqlite3_stmt* stmt_;
  int bind_error_ = 0;
};

class SqliteDb {
 public:
  // Opens `path` (not a URI). Reads the file header, so a file that is not a
  // SQLite DB fails here with kDataLoss. With !read_only, applies
  // options.journal; a file SQLite can only open read-only reports
  // read_only() == true.
  static absl::StatusOr<std::unique_ptr<SqliteDb>> Open(const std::string& path,
                                                        const SqliteOpenOptions& options);
  // A private in-memory DB.
  static absl::StatusOr<std::unique_ptr<SqliteDb>> OpenInMemory();

  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  const std::string& path() const { return path_; }  // ":memory:" for in-memory
  bool read_only() const { return read_only_; }

  // Runs one or more statements that return no rows.
  absl::Status Exec(absl::string_view sql);
  absl::StatusOr<Statement> Prepare(absl::string_view sql);

  // BEGIN IMMEDIATE; fn(); COMMIT. When a lock is lost anywhere inside (a
  // busy error), rolls back, backs off and runs `fn` again until the busy
  // timeout, so `fn` must be safe to repeat (idempotent upserts). Any other
  // error of `fn` rolls back and is returned.
  absl::Status WriteTransaction(absl::FunctionRef<absl::Status()> fn);
  // BEGIN (deferred); fn(); COMMIT: one consistent snapshot for several reads.
  absl::Status ReadTransaction(absl::FunctionRef<absl::Status()> fn);

  // Status for SQLite result `rc` on this connection (see the table above).
  absl::Status Error(int rc, absl::string_view context);

  // The connection, for what this class does not wrap (tests, VACUUM INTO).
  sqlite3* raw() const { return db_; }

 private:
  SqliteDb(sqlite3* db, std::string path, bool read_only, absl::Duration busy_timeout);
  static int BusyHandler(void* self, int count);
  absl::Status RunTransaction(const char* begin, absl::FunctionRef<absl::Status()> fn);
  bool LastErrorWasBusy() const;
  void Backoff(int attempt);

  sqlite3* db_;
  std::string path_;
  bool read_only_;
  absl::Duration busy_timeout_;
  absl::Time busy_since_;
  int last_error_ = 0;  // primary result code of the last failure
};

}  // namespace jitk::cache

#endif  // JITK_CACHE_SQLITE_DB_H_
