#include "tuner/sweep_file.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "jitk/version.h"
#include "lib/internal/status_macros.h"
#include "nlohmann/json.hpp"

namespace jitk::tuner {
namespace {

using nlohmann::json;

// JSON has no infinity or NaN; unknown numbers are written as null.
json Number(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

json CandidateJson(const CandidateResult& c) {
  json j = {{"config", KernelConfigToString(c.config)},
            {"outcome", std::string(OutcomeName(c.outcome))}};
  if (!c.message.empty()) j["message"] = c.message;
  if (c.ok()) {
    j["median_ms"] = Number(c.timing.median_ms);
    j["min_ms"] = Number(c.timing.min_ms);
    j["max_ms"] = Number(c.timing.max_ms);
    j["spread"] = Number(c.timing.spread);
    j["repetitions"] = c.timing.repetitions;
    j["launches"] = c.timing.launches_per_repetition;
    j["stable"] = c.timing.stable;
  }
  j["registers"] = c.resources.registers;
  if (c.resources.scalar_registers) j["scalar_registers"] = c.resources.scalar_registers;
  if (c.resources.accum_registers) j["accum_registers"] = c.resources.accum_registers;
  j["lds_bytes"] = c.resources.lds_bytes;
  j["scratch_bytes"] = c.resources.scratch_bytes;
  j["spills"] = c.resources.spills;
  j["threads"] = c.threads_per_block;
  j["occupancy"] = Number(c.occupancy);
  j["compile_ms"] = Number(c.compile_ms);
  j["code_bytes"] = c.code_bytes;
  if (c.code_reused) j["code_reused"] = true;
  return j;
}

json BriefJson(const CandidateResult& c, double bytes_moved) {
  json j = {{"config", KernelConfigToString(c.config)},
            {"outcome", std::string(OutcomeName(c.outcome))}};
  if (c.ok()) {
    j["median_ms"] = Number(c.timing.median_ms);
    j["spread"] = Number(c.timing.spread);
    if (bytes_moved > 0 && c.timing.median_ms > 0) {
      j["tbps"] = Number(bytes_moved / (c.timing.median_ms * 1e-3) / 1e12);
    }
  }
  return j;
}

json ResultJson(const TuneResult& r, bool include_candidates) {
  json j = {{"kernel", r.key.kernel},
            {"shape", r.key.shape_key},
            {"arch", r.key.arch},
            {"device", r.key.device_name},
            {"compute_units", r.key.compute_units},
            {"compiler", r.key.compiler},
            {"status", r.status.ok() ? std::string("ok") : std::string(r.status.ToString())},
            {"compile_only", r.compile_only},
            {"skipped", r.skipped},
            {"strategy", r.strategy},
            {"space_size", r.space_size},
            {"combinations", r.combinations},
            {"evaluated", r.evaluated()},
            {"reloaded", r.reloaded},
            {"code_reused", r.CodeReused()},
            {"wall_s", Number(r.wall_s)},
            {"input_sets", r.input_sets},
            {"bytes_moved", Number(r.bytes_moved)},
            {"default_config", KernelConfigToString(r.default_config)}};
  if (r.compile_only) j["compile_only_reason"] = r.compile_only_reason;
  json counts = json::object();
  for (Outcome o :
       {Outcome::kOk, Outcome::kCompileFailed, Outcome::kInvalidConfig, Outcome::kOutOfResources,
        Outcome::kWrongResult, Outcome::kRuntimeFailed, Outcome::kCompiledOnly}) {
    if (size_t n = r.Count(o)) counts[std::string(OutcomeName(o))] = n;
  }
  j["counts"] = counts;
  if (r.default_result.has_value()) j["default"] = BriefJson(*r.default_result, r.bytes_moved);
  if (r.best.has_value()) j["best"] = BriefJson(*r.best, r.bytes_moved);
  if (r.speedup() > 0) j["speedup"] = Number(r.speedup());
  if (include_candidates) {
    json list = json::array();
    for (const CandidateResult& c : r.candidates) list.push_back(CandidateJson(c));
    j["candidates"] = list;
  }
  return j;
}

template <typename T>
T Get(const json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    return fallback;
  }
}

}  // namespace

std::string TuneResultsToJson(const std::vector<TuneResult>& results, bool include_candidates) {
  json doc = {
      {"format", "jitk-tune"}, {"version", kSweepFormatVersion}, {"jitk", JITK_VERSION_STRING}};
  json list = json::array();
  for (const TuneResult& r : results) list.push_back(ResultJson(r, include_candidates));
  doc["results"] = list;
  return doc.dump(2) + "\n";
}

absl::StatusOr<std::vector<RecordedSweep>> ParseSweep(absl::string_view text) {
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return absl::InvalidArgumentError("sweep file is not a JSON object");
  }
  if (Get<std::string>(doc, "format", "") != "jitk-tune") {
    return absl::InvalidArgumentError("not a jitk-tune sweep (\"format\" is not \"jitk-tune\")");
  }
  const int version = Get<int>(doc, "version", 0);
  if (version < 1 || version > kSweepFormatVersion) {
    return absl::InvalidArgumentError(absl::StrCat("sweep format version ", version,
                                                   " is not supported (this jitk reads 1..",
                                                   kSweepFormatVersion, ")"));
  }
  std::vector<RecordedSweep> sweeps;
  auto results = doc.find("results");
  if (results == doc.end() || !results->is_array()) {
    return absl::InvalidArgumentError("sweep file has no \"results\" array");
  }
  for (const json& r : *results) {
    RecordedSweep sweep;
    sweep.kernel = Get<std::string>(r, "kernel", "");
    JITK_ASSIGN_OR_RETURN(sweep.shape, Shape::Parse(Get<std::string>(r, "shape", "")));
    sweep.arch = Get<std::string>(r, "arch", "");
    sweep.device_name = Get<std::string>(r, "device", "");
    sweep.compute_units = Get<int>(r, "compute_units", 0);
    sweep.compiler = Get<std::string>(r, "compiler", "");
    auto candidates = r.find("candidates");
    if (candidates != r.end() && candidates->is_array()) {
      for (const json& c : *candidates) {
        CandidateResult candidate;
        JITK_ASSIGN_OR_RETURN(candidate.config,
                              ParseKernelConfig(Get<std::string>(c, "config", "")));
        JITK_ASSIGN_OR_RETURN(candidate.outcome, ParseOutcome(Get<std::string>(c, "outcome", "")));
        candidate.message = Get<std::string>(c, "message", "");
        candidate.timing.median_ms = Get<double>(c, "median_ms", 0);
        candidate.timing.min_ms = Get<double>(c, "min_ms", candidate.timing.median_ms);
        candidate.timing.max_ms = Get<double>(c, "max_ms", candidate.timing.median_ms);
        candidate.timing.spread = Get<double>(c, "spread", 0);
        candidate.timing.repetitions = Get<int>(c, "repetitions", 0);
        candidate.timing.launches_per_repetition = Get<int>(c, "launches", 0);
        candidate.timing.stable = Get<bool>(c, "stable", false);
        candidate.resources.registers = Get<int>(c, "registers", 0);
        candidate.resources.scalar_registers = Get<int>(c, "scalar_registers", 0);
        candidate.resources.accum_registers = Get<int>(c, "accum_registers", 0);
        candidate.resources.lds_bytes = Get<int>(c, "lds_bytes", 0);
        candidate.resources.scratch_bytes = Get<int>(c, "scratch_bytes", 0);
        candidate.resources.spills = Get<int>(c, "spills", 0);
        candidate.threads_per_block = Get<int>(c, "threads", 0);
        candidate.occupancy = Get<double>(c, "occupancy", 0);
        candidate.compile_ms = Get<double>(c, "compile_ms", 0);
        candidate.code_bytes = Get<size_t>(c, "code_bytes", 0);
        if (candidate.ok() && !(candidate.timing.median_ms > 0)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "sweep candidate ", KernelConfigToString(candidate.config), " of ", sweep.kernel, " ",
              sweep.shape.Key(), " is ok but has no positive median_ms"));
        }
        sweep.candidates.push_back(std::move(candidate));
      }
    }
    sweeps.push_back(std::move(sweep));
  }
  return sweeps;
}

absl::StatusOr<std::vector<RecordedSweep>> ReadSweepFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read sweep file ", path));
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<std::vector<RecordedSweep>> sweeps = ParseSweep(text.str());
  if (!sweeps.ok()) {
    return absl::Status(sweeps.status().code(),
                        absl::StrCat(path, ": ", sweeps.status().message()));
  }
  return sweeps;
}

}  // namespace jitk::tuner
