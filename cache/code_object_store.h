// cache/code_object_store.h — compiled code objects in one cache DB.
//
// Rows are keyed by MakeCodeObjectKey() and carry a checksum over every
// field, bytes included, that is verified on every read: a row that does not
// match is never returned (kDataLoss), so corrupt bytes never reach a GPU.
//
// These functions work on an open SqliteDb with the current schema; ArchDb
// adds file recovery on top. Thread safety is the caller's (one thread per
// SqliteDb).
//
// Example:
//   CodeObjectRecord r;
//   r.key = *MakeCodeObjectKey(inputs);
//   r.kernel = "scaled_add"; r.symbol = lowered; r.target = "gfx90a"; ...
//   r.code = std::move(bytes);
//   JITK_RETURN_IF_ERROR(PutCodeObject(db, r));
//   absl::StatusOr<CodeObjectRecord> again = GetCodeObject(db, r.key);
#ifndef JITK_CACHE_CODE_OBJECT_STORE_H_
#define JITK_CACHE_CODE_OBJECT_STORE_H_

#include <cstdint>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cache/sqlite_db.h"
#include "jitk/kernel.h"

namespace jitk::cache {

struct CodeObjectRecord {
  std::string key;              // MakeCodeObjectKey()
  std::string kernel;           // template name, "scaled_add"
  std::string symbol;           // lowered (mangled) name inside the code object
  std::string name_expression;  // "scaled_add<256, __half>"
  std::string target;           // full target the bytes are for, "gfx942:sramecc+:xnack-"
  std::string compiler;         // "hiprtc 5.2.21153"
  std::string config;           // jitk::KernelConfigToString(), "BLOCK=256,EPT=4"
  ResourceUsage resources;
  double compile_ms = 0;
  std::string jitk_version;  // empty: this build's version, filled in by Put
  int64_t created_unix = 0;  // 0: now, filled in by Put
  std::string code;          // the bytes (HSA code object / cubin)
};

// The checksum stored with a row: XXH3 over every field of `record`.
uint64_t CodeObjectChecksum(const CodeObjectRecord& record);

// Inserts or replaces the row with `record.key` (one key = one set of
// compile inputs = one binary, so replacing is idempotent).
// kInvalidArgument when key or code is empty.
absl::Status PutCodeObject(SqliteDb& db, const CodeObjectRecord& record);

// kNotFound when absent; kDataLoss naming the key when the stored size or
// checksum does not match (nothing of the row is returned).
absl::StatusOr<CodeObjectRecord> GetCodeObject(SqliteDb& db, absl::string_view key);

// Deletes the row if present.
absl::Status DeleteCodeObject(SqliteDb& db, absl::string_view key);

// Calls `visit` for every row in key order, with the row and its check: OK,
// or kDataLoss when its checksum fails (then the record's code must not be
// used). A non-OK return from `visit` stops the walk and is returned.
absl::Status ForEachCodeObject(
    SqliteDb& db,
    absl::FunctionRef<absl::Status(const CodeObjectRecord& record, const absl::Status& check)>
        visit);

}  // namespace jitk::cache

#endif  // JITK_CACHE_CODE_OBJECT_STORE_H_
