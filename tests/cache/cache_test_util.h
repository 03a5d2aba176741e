// Helpers shared by the cache tests: temporary directories, record
// factories, a Status matcher, captured warnings and running code in a
// child process (unprivileged when the tests run as root).
#ifndef JITK_TESTS_CACHE_CACHE_TEST_UTIL_H_
#define JITK_TESTS_CACHE_CACHE_TEST_UTIL_H_

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "cache/cache_options.h"
#include "cache/code_object_store.h"
#include "cache/tuning_store.h"
#include "cache/warning_sink.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace jitk::cache {

// Readable gtest output for records.
inline void PrintTo(const TuningRecord& r, std::ostream* os) {
  *os << "{" << r.kernel << " '" << r.shape_key << "' " << r.device_name << "/" << r.compute_units
      << " " << r.compiler << " -> " << r.config << " " << r.median_ms << " ms ±" << r.spread_ms
      << (r.validated ? " validated" : "") << " runner-ups " << r.runner_ups.size() << " "
      << r.jitk_version << " @" << r.tuned_unix << "}";
}
inline void PrintTo(const CodeObjectRecord& r, std::ostream* os) {
  *os << "{" << r.key << " " << r.kernel << " " << r.target << " " << r.code.size() << " bytes}";
}

}  // namespace jitk::cache

namespace jitk::cache::testing {

// A fresh directory, removed with its contents at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "jitk-cache-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ignored;
    // Directories made read-only by a test must be writable again to be removed.
    for (auto it = std::filesystem::recursive_directory_iterator(path_, ignored);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ignored)) {
      if (it->is_directory(ignored)) ::chmod(it->path().c_str(), 0755);
    }
    ::chmod(path_.c_str(), 0755);
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ignored;
  for (const auto& e : std::filesystem::directory_iterator(dir, ignored)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

inline bool AnyNameContains(const std::string& dir, const std::string& part) {
  for (const std::string& name : ListDir(dir)) {
    if (absl::StrContains(name, part)) return true;
  }
  return false;
}

inline CodeObjectRecord MakeCodeObject(const std::string& key, size_t size = 1000,
                                       char fill = 'x') {
  CodeObjectRecord r;
  r.key = key;
  r.kernel = "scaled_add";
  r.symbol = "_Z10scaled_addILi256EfEvPT0_PKS0_S3_fl";
  r.name_expression = "scaled_add<256, float>";
  r.target = "gfx90a:sramecc+:xnack-";
  r.compiler = "hiprtc 5.2.21153";
  r.config = "BLOCK=256,EPT=4";
  r.resources.registers = 12;
  r.resources.scalar_registers = 20;
  r.resources.lds_bytes = 0;
  r.resources.wave_size = 64;
  r.resources.max_threads_per_block = 256;
  r.compile_ms = 123.5;
  r.code = std::string(size, fill);
  for (size_t i = 0; i < r.code.size(); i += 7) r.code[i] = static_cast<char>(i * 31 + key.size());
  return r;
}

inline TuningRecord MakeTuning(const std::string& shape_key,
                               const std::string& config = "BLOCK=256", double median_ms = 0.5,
                               bool validated = true) {
  TuningRecord r;
  r.kernel = "scaled_add";
  r.shape_key = shape_key;
  r.device_name = "AMD Instinct MI210";
  r.compute_units = 104;
  r.compiler = "hiprtc 5.2.21153";
  r.config = config;
  r.median_ms = median_ms;
  r.spread_ms = median_ms / 50;
  r.runner_ups = {{"BLOCK=128", median_ms * 1.1}, {"BLOCK=512", median_ms * 1.3}};
  r.validated = validated;
  r.tuned_unix = 1764000000;
  return r;
}

// Collects warnings; thread-safe.
class Warnings {
 public:
  WarningSink Sink() {
    return [this](absl::string_view m) {
      absl::MutexLock lock(&mu_);
      lines_.emplace_back(m);
    };
  }
  std::vector<std::string> lines() const {
    absl::MutexLock lock(&mu_);
    return lines_;
  }
  int Count(absl::string_view part) const {
    absl::MutexLock lock(&mu_);
    int n = 0;
    for (const std::string& line : lines_) n += absl::StrContains(line, part) ? 1 : 0;
    return n;
  }
  std::string All() const { return absl::StrJoin(lines(), "\n"); }

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> lines_;
};

// Options for a test cache in `dir` with no system DB directories.
inline CacheOptions TestOptions(const std::string& dir, Warnings* warnings) {
  CacheOptions options;
  options.cache_dir = dir;
  options.busy_timeout = absl::Seconds(20);
  if (warnings != nullptr) options.warn = warnings->Sink();
  return options;
}

inline const absl::Status& GetStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& s) {
  return s.status();
}

MATCHER_P2(StatusIs, code, message_matcher,
           absl::StrCat("has code ", absl::StatusCodeToString(code))) {
  const absl::Status& status = GetStatus(arg);
  *result_listener << "status is " << status.ToString();
  return status.code() == code &&
         ::testing::ExplainMatchResult(message_matcher, std::string(status.message()),
                                       result_listener);
}

MATCHER(IsOk, "is OK") {
  const absl::Status& status = GetStatus(arg);
  *result_listener << "status is " << status.ToString();
  return status.ok();
}

// Runs `fn` in a forked child and returns what it returned ("" = success).
// When the tests run as root, the child first becomes `nobody`, so file
// permissions apply to it. The child never runs gtest assertions.
inline std::string RunInChild(const std::function<std::string()>& fn, bool unprivileged) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "pipe failed";
  pid_t pid = ::fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    ::close(pipe_fds[0]);
    std::string result;
    if (unprivileged && ::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) {
      result = "cannot drop privileges";
    } else {
      result = fn();
    }
    ssize_t ignored = ::write(pipe_fds[1], result.data(), result.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string out;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(pipe_fds[0], buffer, sizeof(buffer))) > 0) out.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::StrCat("child died (wait status ", status, ") after: ", out);
  }
  return out;
}

inline void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace jitk::cache::testing

#endif  // JITK_TESTS_CACHE_CACHE_TEST_UTIL_H_
