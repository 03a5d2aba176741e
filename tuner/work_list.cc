#include "tuner/work_list.h"

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lib/internal/status_macros.h"
#include "lib/kernel_template.h"
#include "tuner/problem.h"

namespace jitk::tuner {

absl::StatusOr<std::vector<WorkItem>> ParseShapes(absl::string_view text,
                                                  absl::string_view default_kernel) {
  std::vector<WorkItem> items;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (size_t hash = line.find('#'); hash != absl::string_view::npos) line = line.substr(0, hash);
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    std::vector<absl::string_view> words = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    if (words.size() > 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "line ", line_number,
          ": expected '[kernel] shape', e.g. 'scaled_add f16;n=1048576', got '", line, "'"));
    }
    WorkItem item;
    item.kernel = std::string(words.size() == 2 ? words[0] : default_kernel);
    if (item.kernel.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "line ", line_number, ": '", line, "' names no kernel and no --kernel was given"));
    }
    absl::StatusOr<Shape> shape = Shape::Parse(words.back());
    if (!shape.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", line_number, ": ", shape.status().message()));
    }
    item.shape = *std::move(shape);
    items.push_back(std::move(item));
  }
  return items;
}

absl::StatusOr<std::vector<WorkItem>> ReadShapesFile(const std::string& path,
                                                     absl::string_view default_kernel) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read shapes file ", path));
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<std::vector<WorkItem>> items = ParseShapes(text.str(), default_kernel);
  if (!items.ok()) {
    return absl::Status(items.status().code(), absl::StrCat(path, ": ", items.status().message()));
  }
  return items;
}

absl::StatusOr<std::vector<WorkItem>> StandardWork(absl::string_view kernel) {
  std::vector<WorkItem> items;
  for (const jitk::internal::KernelTemplate* t : jitk::internal::KernelTemplates()) {
    if (!kernel.empty() && t->name() != kernel) continue;
    absl::StatusOr<const Problem*> problem = FindProblem(t->name());
    if (!problem.ok()) {
      if (!kernel.empty()) return problem.status();
      continue;  // no standard shapes without a problem
    }
    for (const Shape& shape : (*problem)->StandardShapes()) {
      items.push_back({std::string(t->name()), shape});
    }
  }
  if (items.empty() && !kernel.empty()) {
    JITK_RETURN_IF_ERROR(jitk::internal::FindKernelTemplate(kernel).status());
  }
  return items;
}

absl::StatusOr<Shard> ParseShard(absl::string_view text) {
  std::pair<absl::string_view, absl::string_view> parts = absl::StrSplit(text, '/');
  Shard shard;
  if (std::count(text.begin(), text.end(), '/') != 1 ||
      !absl::SimpleAtoi(parts.first, &shard.index) ||
      !absl::SimpleAtoi(parts.second, &shard.count) || shard.count < 1 || shard.index < 0 ||
      shard.index >= shard.count) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad shard '", text, "': expected K/N with 0 <= K < N, e.g. 0/4 ... 3/4"));
  }
  return shard;
}

std::vector<WorkItem> SelectShard(std::vector<WorkItem> items, Shard shard) {
  auto key = [](const WorkItem& w) { return std::make_pair(w.kernel, w.shape.Key()); };
  std::sort(items.begin(), items.end(),
            [&](const WorkItem& a, const WorkItem& b) { return key(a) < key(b); });
  items.erase(std::unique(items.begin(), items.end(),
                          [&](const WorkItem& a, const WorkItem& b) { return key(a) == key(b); }),
              items.end());
  std::vector<WorkItem> mine;
  for (size_t i = 0; i < items.size(); ++i) {
    if (int(i % size_t(shard.count)) == shard.index) mine.push_back(std::move(items[i]));
  }
  return mine;
}

}  // namespace jitk::tuner
