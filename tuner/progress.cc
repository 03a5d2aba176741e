#include "tuner/progress.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace jitk::tuner {

std::string FormatEta(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const long s = std::lround(seconds);
  if (s >= 3600) return absl::StrFormat("%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  return absl::StrFormat("%ld:%02ld", s / 60, s % 60);
}

ProgressPrinter::ProgressPrinter(std::FILE* out, bool tty, size_t items)
    : out_(out),
      tty_(tty),
      items_(std::max<size_t>(items, 1)),
      start_(std::chrono::steady_clock::now()) {}

double ProgressPrinter::Elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressPrinter::OnRunStart(const RunKey& key, size_t planned, bool compile_only) {
  current_ = absl::StrCat(key.kernel, " ", key.shape_key, compile_only ? " (compile-only)" : "");
  done_ = 0;
  planned_ = std::max<size_t>(planned, 1);
  best_ms_ = 0;
  Draw(true);
}

void ProgressPrinter::OnCandidate(const RunKey&, const CandidateResult& result, size_t done,
                                  size_t planned) {
  done_ = done;
  planned_ = std::max<size_t>(planned, 1);
  if (result.ok() && (best_ms_ == 0 || result.timing.median_ms < best_ms_)) {
    best_ms_ = result.timing.median_ms;
  }
  Draw(false);
}

void ProgressPrinter::OnRunEnd(const TuneResult& result) {
  ++finished_;
  if (tty_ && drawn_) std::fputs("\r\033[2K", out_);
  std::fprintf(out_, "[%zu/%zu] %s\n", finished_, items_, ResultLine(result).c_str());
  drawn_ = false;
  current_.clear();
  std::fflush(out_);
}

void ProgressPrinter::OnRunError(const std::string& what, const absl::Status& status) {
  ++finished_;
  if (tty_ && drawn_) std::fputs("\r\033[2K", out_);
  std::fprintf(out_, "[%zu/%zu] %s: error: %s\n", finished_, items_, what.c_str(),
               status.ToString().c_str());
  drawn_ = false;
  std::fflush(out_);
}

void ProgressPrinter::Finish() {
  if (tty_ && drawn_) std::fputs("\r\033[2K", out_);
  drawn_ = false;
  std::fflush(out_);
}

void ProgressPrinter::Draw(bool force) {
  if (!tty_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double within = std::min(1.0, double(done_) / double(planned_));
  const double progress = (double(finished_) + within) / double(items_);
  const double elapsed = Elapsed();
  const double eta = progress > 0 ? elapsed * (1 - progress) / progress : NAN;
  constexpr int kWidth = 24;
  const int filled = int(std::round(progress * kWidth));
  std::string bar(size_t(filled), '#');
  bar.append(size_t(kWidth - filled), '.');
  std::string best = best_ms_ > 0 ? absl::StrFormat("  best %.4g ms", best_ms_) : "";
  std::fprintf(out_, "\r\033[2K[%s] %3.0f%%  %zu/%zu  %s  %zu/%zu%s  ETA %s", bar.c_str(),
               100 * progress, finished_ + 1, items_, current_.c_str(), done_, planned_,
               best.c_str(), FormatEta(eta).c_str());
  std::fflush(out_);
  drawn_ = true;
}

std::string ResultLine(const TuneResult& r) {
  std::string line = absl::StrCat(r.key.kernel, " ", r.key.shape_key, ": ");
  if (r.skipped) {
    absl::StrAppend(&line, "already tuned (", KernelConfigToString(r.best->config), ", ",
                    absl::StrFormat("%.4g ms", r.best->timing.median_ms), "), skipped");
    return line;
  }
  if (r.compile_only) {
    absl::StrAppend(&line, r.evaluated(), " of ", r.space_size,
                    " compiled: ", r.Count(Outcome::kCompiledOnly), " fit, ",
                    r.Count(Outcome::kOutOfResources), " out of resources, ",
                    r.Count(Outcome::kCompileFailed), " failed");
    if (size_t reused = r.CodeReused()) absl::StrAppend(&line, ", ", reused, " from the DB");
  } else if (r.best.has_value()) {
    absl::StrAppend(&line, "best ", KernelConfigToString(r.best->config),
                    absl::StrFormat(" %.4g ms", r.best->timing.median_ms));
    if (r.best_tbps() > 0) absl::StrAppend(&line, absl::StrFormat(" (%.2f TB/s)", r.best_tbps()));
    if (r.speedup() > 0)
      absl::StrAppend(&line, absl::StrFormat(", %.2fx over default", r.speedup()));
    absl::StrAppend(&line, ", ", r.evaluated(), "/", r.space_size, " candidates");
  } else {
    absl::StrAppend(&line, "no candidate passed (", r.evaluated(), " tried)");
  }
  absl::StrAppend(&line, absl::StrFormat(", %.1f s", r.wall_s));
  if (!r.status.ok()) absl::StrAppend(&line, " [", r.status.message(), "]");
  return line;
}

namespace {

std::string Table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (size_t c = 0; c < rows[r].size(); ++c) {
      absl::StrAppend(&line, c ? "  " : "", rows[r][c],
                      c + 1 < rows[r].size() ? std::string(width[c] - rows[r][c].size(), ' ') : "");
    }
    absl::StrAppend(&out, line, "\n");
    if (r == 0) {
      size_t total = 0;
      for (size_t w : width) total += w + 2;
      absl::StrAppend(&out, std::string(total - 2, '-'), "\n");
    }
  }
  return out;
}

}  // namespace

std::string FormatSummary(const std::vector<TuneResult>& results) {
  std::vector<std::vector<std::string>> timed = {{"kernel", "shape", "best config", "ms", "TB/s",
                                                  "default ms", "speed-up", "tried", "wall s",
                                                  "status"}};
  std::vector<std::vector<std::string>> compiled = {
      {"kernel", "shape", "arch", "configs", "fit", "pruned", "failed", "from DB", "wall s"}};
  for (const TuneResult& r : results) {
    if (r.compile_only) {
      compiled.push_back(
          {r.key.kernel, r.key.shape_key, r.key.arch,
           absl::StrCat(r.evaluated(), "/", r.space_size),
           absl::StrCat(r.Count(Outcome::kCompiledOnly)),
           absl::StrCat(r.Count(Outcome::kOutOfResources)),
           absl::StrCat(r.Count(Outcome::kCompileFailed) + r.Count(Outcome::kInvalidConfig)),
           absl::StrCat(r.CodeReused()), absl::StrFormat("%.1f", r.wall_s)});
      continue;
    }
    const bool has_best = r.best.has_value();
    const bool has_default = r.default_result.has_value() && r.default_result->ok();
    timed.push_back(
        {r.key.kernel, r.key.shape_key, has_best ? KernelConfigToString(r.best->config) : "-",
         has_best ? absl::StrFormat("%.4g", r.best->timing.median_ms) : "-",
         r.best_tbps() > 0 ? absl::StrFormat("%.2f", r.best_tbps()) : "-",
         has_default ? absl::StrFormat("%.4g", r.default_result->timing.median_ms) : "-",
         r.speedup() > 0 ? absl::StrFormat("%.2fx", r.speedup()) : "-",
         r.skipped ? "resumed" : absl::StrCat(r.evaluated(), "/", r.space_size),
         absl::StrFormat("%.1f", r.wall_s),
         r.status.ok() ? "ok"
         : r.status.code() == absl::StatusCode::kDeadlineExceeded
             ? "budget spent"
             : std::string(absl::StatusCodeToString(r.status.code()))});
  }
  std::string out;
  if (timed.size() > 1) out += Table(timed);
  if (compiled.size() > 1) {
    if (!out.empty()) out += "\n";
    out += Table(compiled);
  }
  return out;
}

}  // namespace jitk::tuner
