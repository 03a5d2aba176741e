// tuner/work_list.h — what a jitk-tune run tunes, and this job's share.
//
// A work item is a (kernel, shape) pair. The list comes from --shape,
// --shapes FILE (one "[kernel] shape-key" per line, '#' comments) and --all
// (every kernel with a tuning problem × its standard shapes). --shard K/N
// keeps a deterministic share: items are sorted by (kernel, shape key),
// duplicates dropped, and item i goes to shard i mod N — so N jobs of a
// cluster array cover the list exactly once, whatever order they run in.
#ifndef JITK_TUNER_WORK_LIST_H_
#define JITK_TUNER_WORK_LIST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "jitk/shape.h"

namespace jitk::tuner {

struct WorkItem {
  std::string kernel;
  Shape shape;

  bool operator==(const WorkItem&) const = default;
};

// Lines "scaled_add f16;n=1048576" or "f16;n=1048576" (then `default_kernel`
// applies; kInvalidArgument when it is empty). Errors name the line.
absl::StatusOr<std::vector<WorkItem>> ParseShapes(absl::string_view text,
                                                  absl::string_view default_kernel);
// Reads FILE; kNotFound when it cannot be read.
absl::StatusOr<std::vector<WorkItem>> ReadShapesFile(const std::string& path,
                                                     absl::string_view default_kernel);

// Every kernel that has a tuning problem, with its standard shapes; only
// `kernel`'s when it is not empty.
absl::StatusOr<std::vector<WorkItem>> StandardWork(absl::string_view kernel);

struct Shard {
  int index = 0;  // 0 <= index < count
  int count = 1;
};

// "K/N" with 0 <= K < N (0-based, like SLURM_ARRAY_TASK_ID of --array=0-(N-1)).
absl::StatusOr<Shard> ParseShard(absl::string_view text);

// Sorted, deduplicated, and this shard's share.
std::vector<WorkItem> SelectShard(std::vector<WorkItem> items, Shard shard);

}  // namespace jitk::tuner

#endif  // JITK_TUNER_WORK_LIST_H_
