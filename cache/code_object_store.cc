#include "cache/code_object_store.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cache/content_hash.h"
#include "jitk/version.h"
#include "lib/internal/status_macros.h"

namespace jitk::cache {

namespace {

constexpr absl::string_view kColumns =
    "key, kernel, symbol, name_expression, target, compiler, config, registers, "
    "scalar_registers, accum_registers, lds_bytes, scratch_bytes, spills, wave_size, "
    "max_threads_per_block, compile_ms, jitk_version, created_unix, size, checksum, code";

// Reads the columns in kColumns order; returns the stored size and checksum.
CodeObjectRecord ReadRow(const Statement& s, int64_t* size, uint64_t* checksum) {
  CodeObjectRecord r;
  r.key = std::string(s.ColumnText(0));
  r.kernel = std::string(s.ColumnText(1));
  r.symbol = std::string(s.ColumnText(2));
  r.name_expression = std::string(s.ColumnText(3));
  r.target = std::string(s.ColumnText(4));
  r.compiler = std::string(s.ColumnText(5));
  r.config = std::string(s.ColumnText(6));
  r.resources.registers = static_cast<int>(s.ColumnInt(7));
  r.resources.scalar_registers = static_cast<int>(s.ColumnInt(8));
  r.resources.accum_registers = static_cast<int>(s.ColumnInt(9));
  r.resources.lds_bytes = static_cast<int>(s.ColumnInt(10));
  r.resources.scratch_bytes = static_cast<int>(s.ColumnInt(11));
  r.resources.spills = static_cast<int>(s.ColumnInt(12));
  r.resources.wave_size = static_cast<int>(s.ColumnInt(13));
  r.resources.max_threads_per_block = static_cast<int>(s.ColumnInt(14));
  r.compile_ms = s.ColumnDouble(15);
  r.jitk_version = std::string(s.ColumnText(16));
  r.created_unix = s.ColumnInt(17);
  *size = s.ColumnInt(18);
  *checksum = static_cast<uint64_t>(s.ColumnInt(19));
  r.code = std::string(s.ColumnBlob(20));
  return r;
}

absl::Status Check(const CodeObjectRecord& r, int64_t size, uint64_t checksum,
                   const std::string& path) {
  if (size != static_cast<int64_t>(r.code.size())) {
    return absl::DataLossError(absl::StrCat("code object ", r.key, " in ", path, " has ",
                                            r.code.size(), " bytes, the row says ", size));
  }
  if (CodeObjectChecksum(r) != checksum) {
    return absl::DataLossError(
        absl::StrCat("code object ", r.key, " in ", path, " fails its checksum"));
  }
  return absl::OkStatus();
}

}  // namespace

uint64_t CodeObjectChecksum(const CodeObjectRecord& r) {
  ContentHasher h;
  h.AddField("code object").AddField(r.key).AddField(r.kernel).AddField(r.symbol);
  h.AddField(r.name_expression).AddField(r.target).AddField(r.compiler).AddField(r.config);
  const ResourceUsage& u = r.resources;
  for (int v : {u.registers, u.scalar_registers, u.accum_registers, u.lds_bytes, u.scratch_bytes,
                u.spills, u.wave_size, u.max_threads_per_block}) {
    h.AddInt(v);
  }
  h.AddDouble(r.compile_ms).AddField(r.jitk_version).AddInt(r.created_unix).AddField(r.code);
  return h.Digest64();
}

absl::Status PutCodeObject(SqliteDb& db, const CodeObjectRecord& in) {
  if (in.key.empty() || in.code.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("code object for '", in.kernel, "': key and code must not be empty"));
  }
  CodeObjectRecord r = in;
  if (r.jitk_version.empty()) r.jitk_version = JITK_VERSION_STRING;
  if (r.created_unix == 0) r.created_unix = absl::ToUnixSeconds(absl::Now());
  const uint64_t checksum = CodeObjectChecksum(r);

  JITK_ASSIGN_OR_RETURN(
      Statement s,
      db.Prepare(absl::StrCat("INSERT OR REPLACE INTO code_objects (", kColumns,
                              ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                              "?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)")));
  const ResourceUsage& u = r.resources;
  s.BindText(1, r.key).BindText(2, r.kernel).BindText(3, r.symbol).BindText(4, r.name_expression);
  s.BindText(5, r.target).BindText(6, r.compiler).BindText(7, r.config);
  s.BindInt(8, u.registers).BindInt(9, u.scalar_registers).BindInt(10, u.accum_registers);
  s.BindInt(11, u.lds_bytes).BindInt(12, u.scratch_bytes).BindInt(13, u.spills);
  s.BindInt(14, u.wave_size).BindInt(15, u.max_threads_per_block);
  s.BindDouble(16, r.compile_ms).BindText(17, r.jitk_version).BindInt(18, r.created_unix);
  s.BindInt(19, static_cast<int64_t>(r.code.size())).BindInt(20, static_cast<int64_t>(checksum));
  s.BindBlob(21, r.code);
  return s.Run();
}

absl::StatusOr<CodeObjectRecord> GetCodeObject(SqliteDb& db, absl::string_view key) {
  JITK_ASSIGN_OR_RETURN(Statement s, db.Prepare(absl::StrCat("SELECT ", kColumns,
                                                             " FROM code_objects WHERE key = ?1")));
  s.BindText(1, key);
  JITK_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) {
    return absl::NotFoundError(absl::StrCat("no code object ", key, " in ", db.path()));
  }
  int64_t size;
  uint64_t checksum;
  CodeObjectRecord r = ReadRow(s, &size, &checksum);
  JITK_RETURN_IF_ERROR(Check(r, size, checksum, db.path()));
  return r;
}

absl::Status DeleteCodeObject(SqliteDb& db, absl::string_view key) {
  JITK_ASSIGN_OR_RETURN(Statement s, db.Prepare("DELETE FROM code_objects WHERE key = ?1"));
  return s.BindText(1, key).Run();
}

absl::Status ForEachCodeObject(
    SqliteDb& db,
    absl::FunctionRef<absl::Status(const CodeObjectRecord& record, const absl::Status& check)>
        visit) {
  JITK_ASSIGN_OR_RETURN(Statement s, db.Prepare(absl::StrCat("SELECT ", kColumns,
                                                             " FROM code_objects ORDER BY key")));
  while (true) {
    JITK_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return absl::OkStatus();
    int64_t size;
    uint64_t checksum;
    CodeObjectRecord r = ReadRow(s, &size, &checksum);
    JITK_RETURN_IF_ERROR(visit(r, Check(r, size, checksum, db.path())));
  }
}

}  // namespace jitk::cache
