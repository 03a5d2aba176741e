#include "cache/schema.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "jitk/version.h"
#include "lib/internal/status_macros.h"

namespace jitk::cache {

namespace {

// The current layout. A new file gets exactly this; older files get here
// through Migrations().
constexpr absl::string_view kCreateTables = R"sql(
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE code_objects (
  key                   TEXT PRIMARY KEY,
  kernel                TEXT NOT NULL,
  symbol                TEXT NOT NULL,
  name_expression       TEXT NOT NULL,
  target                TEXT NOT NULL,
  compiler              TEXT NOT NULL,
  config                TEXT NOT NULL,
  registers             INTEGER NOT NULL,
  scalar_registers      INTEGER NOT NULL,
  accum_registers       INTEGER NOT NULL,
  lds_bytes             INTEGER NOT NULL,
  scratch_bytes         INTEGER NOT NULL,
  spills                INTEGER NOT NULL,
  wave_size             INTEGER NOT NULL,
  max_threads_per_block INTEGER NOT NULL,
  compile_ms            REAL NOT NULL,
  jitk_version          TEXT NOT NULL,
  created_unix          INTEGER NOT NULL,
  size                  INTEGER NOT NULL,
  checksum              INTEGER NOT NULL,
  code                  BLOB NOT NULL
);
CREATE INDEX code_objects_by_compiler ON code_objects(compiler);
CREATE INDEX code_objects_by_age ON code_objects(created_unix);

CREATE TABLE tuning (
  kernel        TEXT NOT NULL,
  shape_key     TEXT NOT NULL,
  device_name   TEXT NOT NULL,
  compute_units INTEGER NOT NULL,
  compiler      TEXT NOT NULL,
  dtype         TEXT NOT NULL,
  dim_names     TEXT NOT NULL,
  config        TEXT NOT NULL,
  median_ms     REAL NOT NULL,
  spread_ms     REAL NOT NULL,
  runner_ups    TEXT NOT NULL,
  validated     INTEGER NOT NULL,
  jitk_version  TEXT NOT NULL,
  tuned_unix    INTEGER NOT NULL,
  checksum      INTEGER NOT NULL,
  PRIMARY KEY (kernel, shape_key, device_name, compute_units, compiler)
) WITHOUT ROWID;
CREATE INDEX tuning_by_family ON tuning(kernel, compiler, dtype, dim_names);
)sql";

absl::StatusOr<int64_t> PragmaInt(SqliteDb& db, absl::string_view pragma) {
  JITK_ASSIGN_OR_RETURN(Statement s, db.Prepare(absl::StrCat("PRAGMA ", pragma)));
  JITK_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.ColumnInt(0) : 0;
}

absl::Status SetMeta(SqliteDb& db, absl::string_view key, absl::string_view value) {
  JITK_ASSIGN_OR_RETURN(Statement s,
                        db.Prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)"));
  return s.BindText(1, key).BindText(2, value).Run();
}

absl::Status CreateTables(SqliteDb& db, absl::string_view arch, int version) {
  JITK_RETURN_IF_ERROR(db.Exec(kCreateTables));
  JITK_RETURN_IF_ERROR(db.Exec(absl::StrCat("PRAGMA application_id=", kApplicationId)));
  JITK_RETURN_IF_ERROR(db.Exec(absl::StrCat("PRAGMA user_version=", version)));
  JITK_RETURN_IF_ERROR(SetMeta(db, "arch", arch));
  JITK_RETURN_IF_ERROR(SetMeta(db, "created_by", "jitk " JITK_VERSION_STRING));
  return SetMeta(db, "created_unix", absl::StrCat(absl::ToUnixSeconds(absl::Now())));
}

absl::Status Migrate(SqliteDb& db, int from, int to, absl::Span<const Migration> migrations) {
  for (int version = from; version < to; ++version) {
    const Migration* step = nullptr;
    for (const Migration& m : migrations) {
      if (m.from_version == version && !m.sql.empty()) step = &m;
    }
    if (step == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "no migration from schema version ", version, " to ", version + 1, " (", db.path(), ")"));
    }
    JITK_RETURN_IF_ERROR(db.Exec(step->sql));
  }
  return db.Exec(absl::StrCat("PRAGMA user_version=", to));
}

}  // namespace

absl::Span<const Migration> Migrations() {
  // Version 1 is the first schema, so nothing has been released to migrate
  // from yet. The next bump appends, e.g.:
  //   static constexpr Migration kMigrations[] = {
  //       {1, "ALTER TABLE tuning ADD COLUMN power_w REAL NOT NULL DEFAULT 0"},
  //   };
  //   return kMigrations;
  return {};
}

absl::StatusOr<SchemaInfo> ReadSchemaInfo(SqliteDb& db) {
  SchemaInfo info;
  JITK_ASSIGN_OR_RETURN(int64_t app_id, PragmaInt(db, "application_id"));
  info.application_id = static_cast<int32_t>(app_id);
  JITK_ASSIGN_OR_RETURN(int64_t version, PragmaInt(db, "user_version"));
  info.version = static_cast<int>(version);

  JITK_ASSIGN_OR_RETURN(Statement tables,
                        db.Prepare("SELECT name FROM sqlite_schema WHERE type = 'table'"));
  int ours = 0, total = 0;
  while (true) {
    JITK_ASSIGN_OR_RETURN(bool row, tables.Step());
    if (!row) break;
    ++total;
    absl::string_view name = tables.ColumnText(0);
    if (name == "meta" || name == "code_objects" || name == "tuning") ++ours;
  }
  info.empty = total == 0;
  info.has_tables = ours == 3;
  if (info.has_tables) {
    JITK_ASSIGN_OR_RETURN(Statement meta, db.Prepare("SELECT key, value FROM meta"));
    while (true) {
      JITK_ASSIGN_OR_RETURN(bool row, meta.Step());
      if (!row) break;
      if (meta.ColumnText(0) == "arch") info.arch = std::string(meta.ColumnText(1));
      if (meta.ColumnText(0) == "created_by") info.created_by = std::string(meta.ColumnText(1));
    }
  }
  return info;
}

absl::StatusOr<SchemaInfo> ReadSchemaSnapshot(SqliteDb& db) {
  SchemaInfo info;
  JITK_RETURN_IF_ERROR(db.ReadTransaction([&]() -> absl::Status {
    JITK_ASSIGN_OR_RETURN(info, ReadSchemaInfo(db));
    return absl::OkStatus();
  }));
  return info;
}

absl::Status CheckMarkers(const SchemaInfo& info, const std::string& path, int target_version) {
  if (info.application_id != kApplicationId) {
    return absl::DataLossError(absl::StrCat("database ", path, " is not a jitk cache DB",
                                            " (application_id ", info.application_id, ")"));
  }
  if (info.version > target_version) {
    return absl::FailedPreconditionError(absl::StrCat("database ", path, " has schema version ",
                                                      info.version, ", newer than this jitk's ",
                                                      target_version));
  }
  return absl::OkStatus();
}

absl::Status CheckArch(const SchemaInfo& info, absl::string_view arch, const std::string& path) {
  if (!arch.empty() && info.arch != arch) {
    return absl::FailedPreconditionError(
        absl::StrCat("database ", path, " holds arch '", info.arch, "', not '", arch, "'"));
  }
  return absl::OkStatus();
}

absl::Status EnsureSchema(SqliteDb& db, absl::string_view arch,
                          absl::Span<const Migration> migrations, int target_version) {
  JITK_ASSIGN_OR_RETURN(SchemaInfo info, ReadSchemaSnapshot(db));
  const std::string& path = db.path();
  if (info.application_id == 0 && info.version == 0) {
    if (db.read_only()) {
      if (info.empty) {
        return absl::FailedPreconditionError(
            absl::StrCat("database ", path, " is empty and read-only"));
      }
    } else {
      // Several processes may find the new file empty; the first to take
      // the write lock creates the tables, the others see them inside the
      // lock.
      JITK_RETURN_IF_ERROR(db.WriteTransaction([&]() -> absl::Status {
        JITK_ASSIGN_OR_RETURN(SchemaInfo again, ReadSchemaInfo(db));
        if (again.empty) return CreateTables(db, arch, target_version);
        return absl::OkStatus();
      }));
      JITK_ASSIGN_OR_RETURN(info, ReadSchemaSnapshot(db));
    }
  }
  JITK_RETURN_IF_ERROR(CheckMarkers(info, path, target_version));
  if (info.version < target_version) {
    if (db.read_only()) {
      return absl::FailedPreconditionError(absl::StrCat("database ", path, " has schema version ",
                                                        info.version, " and needs a migration to ",
                                                        target_version, ", but it is read-only"));
    }
    JITK_RETURN_IF_ERROR(db.WriteTransaction([&]() -> absl::Status {
      JITK_ASSIGN_OR_RETURN(int64_t version, PragmaInt(db, "user_version"));
      if (version >= target_version) return absl::OkStatus();  // another process did it
      return Migrate(db, static_cast<int>(version), target_version, migrations);
    }));
    JITK_ASSIGN_OR_RETURN(info, ReadSchemaSnapshot(db));
  }
  if (!info.has_tables) {
    return absl::DataLossError(
        absl::StrCat("database ", path, " lacks the jitk tables (meta, code_objects, tuning)"));
  }
  return CheckArch(info, arch, path);
}

}  // namespace jitk::cache
