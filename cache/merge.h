// cache/merge.h — copying verified rows from one cache DB into another.
//
// The one routine behind `jitk-db merge`, `import`, `export` and the salvage
// of a corrupt file. Only rows whose checksum verifies are copied:
//   code objects  a key the destination lacks (or holds corrupt) is copied;
//                 an intact row with the same key is kept (same key = same
//                 compile inputs = same binary);
//   tuning rows   the conflict rule of tuning_store.h (IsBetterTuning):
//                 validated first, then the lower median time, then newer.
// Writes go in short batches, so concurrent users of the destination wait
// milliseconds, not for the whole merge.
#ifndef JITK_CACHE_MERGE_H_
#define JITK_CACHE_MERGE_H_

#include "absl/status/status.h"
#include "cache/sqlite_db.h"

namespace jitk::cache {

struct MergeStats {
  int code_objects_copied = 0;  // new (or replacing a corrupt row)
  int code_objects_kept = 0;    // the destination already had the key
  int tuning_copied = 0;        // new key, or better than the destination's row
  int tuning_kept = 0;          // the destination's row was at least as good
  int bad_rows = 0;             // failed their checksum in the source, not copied

  MergeStats& operator+=(const MergeStats& other);
  int copied() const { return code_objects_copied + tuning_copied; }
};

struct MergeOptions {
  bool code_objects = true;  // copy the code_objects table
  bool tuning = true;        // copy the tuning table
};

// Copies the verified rows of `src` into `dst` (both with the current
// schema; the caller checks that they hold the same arch). An error reading
// `src` (a damaged file) stops the walk: rows copied so far stay committed,
// `stats` counts them, and the error is returned.
absl::Status MergeRows(SqliteDb& src, SqliteDb& dst, MergeStats* stats,
                       const MergeOptions& options = {});

}  // namespace jitk::cache

#endif  // JITK_CACHE_MERGE_H_
