// tuner/sweep_file.h — tuning results as JSON, and reading them back.
//
// `jitk-tune --json` prints one document with every result and every
// candidate; the same document is a recorded sweep that ReadSweepFile turns
// back into candidate lists, so a sweep measured on a GPU can be replayed
// (runners/replay_runner.h) to compare strategies without the GPU.
//
// Format (version 1): {"format": "jitk-tune", "version": 1, "jitk": "0.1.0",
//   "results": [{"kernel", "shape", "arch", "device", "compute_units",
//   "compiler", "status", "compile_only", "strategy", "space_size",
//   "evaluated", "wall_s", "default": {...}, "best": {...}, "speedup",
//   "candidates": [{"config", "outcome", "median_ms", "spread", ...}]}]}
// Readers ignore fields they do not know; add fields freely, bump the
// version only when a field changes meaning.
#ifndef JITK_TUNER_SWEEP_FILE_H_
#define JITK_TUNER_SWEEP_FILE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tuner/candidate.h"
#include "tuner/tuner.h"

namespace jitk::tuner {

inline constexpr int kSweepFormatVersion = 1;

// The JSON document for `results` (pretty-printed with two-space indents).
std::string TuneResultsToJson(const std::vector<TuneResult>& results,
                              bool include_candidates = true);

struct RecordedSweep {
  std::string kernel;
  Shape shape;
  std::string arch;
  std::string device_name;
  int compute_units = 0;
  std::string compiler;
  std::vector<CandidateResult> candidates;
};

// Parses a document written by TuneResultsToJson. kInvalidArgument for
// malformed JSON or a document of another format or a newer version.
absl::StatusOr<std::vector<RecordedSweep>> ParseSweep(absl::string_view json);
// Reads and parses a file; kNotFound when it cannot be read.
absl::StatusOr<std::vector<RecordedSweep>> ReadSweepFile(const std::string& path);

}  // namespace jitk::tuner

#endif  // JITK_TUNER_SWEEP_FILE_H_
