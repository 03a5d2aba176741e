#include "cache/kernel_cache.h"

#include <unistd.h>

#include <climits>
#include <filesystem>
#include <optional>
#include <system_error>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "cache/shape_distance.h"
#include "jitk/version.h"
#include "lib/internal/status_macros.h"

namespace jitk::cache {

namespace {

std::string HostName(const std::string& configured) {
  std::string host = configured;
  if (host.empty()) {
    char buffer[HOST_NAME_MAX + 1] = {};
    if (::gethostname(buffer, sizeof(buffer) - 1) == 0) host = buffer;
  }
  if (host.empty()) host = "localhost";
  // The name becomes part of a file name.
  for (char& c : host) {
    if (!absl::ascii_isalnum(c) && c != '-' && c != '_' && c != '.') c = '_';
  }
  return host;
}

bool FileExists(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error);
}

absl::Status Disabled() {
  return absl::NotFoundError("the jitk cache is disabled (JITK_DISABLE_CACHE)");
}

}  // namespace

KernelCache::KernelCache(CacheOptions options)
    : options_(std::move(options)), memo_(options_.memo_max_code_bytes), pid_(::getpid()) {}

KernelCache::~KernelCache() {
  absl::MutexLock lock(&mu_);
  if (pid_ != ::getpid()) {
    // Connections inherited over fork() belong to the parent: never close them here.
    for (auto& [arch, layers] : layers_) layers.release();
  }
}

ArchDbOptions KernelCache::DbOptions(DbRole role, DbMode mode) const {
  ArchDbOptions db;
  db.role = role;
  db.mode = mode;
  db.busy_timeout = options_.busy_timeout;
  db.warn = options_.warn;
  return db;
}

std::string KernelCache::UserDbPath(absl::string_view arch) const {
  if (!options_.enabled || options_.cache_dir.empty() || options_.mode == DbMode::kMemory ||
      !ValidateArchName(arch).ok()) {
    return "";
  }
  if (options_.mode == DbMode::kPerHost) {
    return absl::StrCat(options_.cache_dir, "/", arch, ".", HostName(options_.host_name), ".db");
  }
  return absl::StrCat(options_.cache_dir, "/", arch, ".db");
}

std::vector<std::string> KernelCache::SystemDbPaths(absl::string_view arch) const {
  std::vector<std::string> paths;
  if (!options_.enabled || !ValidateArchName(arch).ok()) return paths;
  for (const std::string& dir : options_.system_db_dirs) {
    std::string path = absl::StrCat(dir, "/", arch, ".db");
    if (FileExists(path)) paths.push_back(std::move(path));
  }
  return paths;
}

void KernelCache::WarnOnceLocked(const std::string& message) {
  if (warned_.insert(message).second) options_.warn(message);
}

void KernelCache::OpenUserLocked(absl::string_view arch, ArchLayers& layers) {
  absl::StatusOr<std::unique_ptr<ArchDb>> user;
  if (options_.mode == DbMode::kMemory) {
    user = ArchDb::OpenInMemory(std::string(arch), DbOptions(DbRole::kUser, options_.mode));
  } else {
    std::string path = UserDbPath(arch);
    if (path.empty()) return;  // no cache dir: warned by CacheOptionsFromEnv
    user = ArchDb::Open(path, std::string(arch), DbOptions(DbRole::kUser, options_.mode));
  }
  if (user.ok()) {
    layers.user = std::move(*user);
    return;
  }
  // A locked file may be free in a moment; anything else will not change.
  if (absl::IsUnavailable(user.status())) {
    layers.retry_user_after = absl::Now() + absl::Seconds(1);
  } else {
    layers.retry_user_after = absl::InfiniteFuture();
  }
  if (!(options_.mode == DbMode::kReadOnly && absl::IsNotFound(user.status()))) {
    WarnOnceLocked(absl::StrCat("no user cache DB for ", arch, ": ", user.status().message(),
                                "; results are kept in this process only"));
  }
}

KernelCache::ArchLayers& KernelCache::LayersLocked(absl::string_view arch) {
  if (pid_ != ::getpid()) {
    // A forked child: the parent's connections must not be used (or closed).
    for (auto& [name, layers] : layers_) layers.release();
    layers_.clear();
    pid_ = ::getpid();
  }
  auto it = layers_.find(arch);
  if (it != layers_.end()) {
    ArchLayers& layers = *it->second;
    if (layers.user == nullptr && absl::Now() >= layers.retry_user_after) {
      OpenUserLocked(arch, layers);
    }
    return layers;
  }

  auto layers = std::make_unique<ArchLayers>();
  layers->retry_user_after = absl::InfiniteFuture();
  OpenUserLocked(arch, *layers);
  if (options_.mode == DbMode::kPerHost && !options_.cache_dir.empty()) {
    // The merged file of all hosts, read beside this host's own.
    std::string shared = absl::StrCat(options_.cache_dir, "/", arch, ".db");
    if (FileExists(shared)) {
      absl::StatusOr<std::unique_ptr<ArchDb>> db =
          ArchDb::Open(shared, std::string(arch), DbOptions(DbRole::kUser, DbMode::kReadOnly));
      if (db.ok()) {
        layers->read_only.push_back({std::move(*db), CacheLayer::kUserDb});
      } else {
        WarnOnceLocked(absl::StrCat("skipping ", shared, ": ", db.status().message()));
      }
    }
  }
  std::vector<std::string> system = SystemDbPaths(arch);
  for (const std::string& path : system) {
    absl::StatusOr<std::unique_ptr<ArchDb>> db =
        ArchDb::Open(path, std::string(arch), DbOptions(DbRole::kSystem, DbMode::kReadOnly));
    if (db.ok()) {
      layers->read_only.push_back({std::move(*db), CacheLayer::kSystemDb});
    } else {
      WarnOnceLocked(absl::StrCat("skipping system DB ", path, ": ", db.status().message()));
    }
  }
  if (system.empty()) {
    WarnOnceLocked(absl::StrCat(
        "no system DB ", arch, ".db in ",
        options_.system_db_dirs.empty() ? "(no directories)"
                                        : absl::StrJoin(options_.system_db_dirs, ":"),
        "; set JITK_SYSTEM_DB_PATH to the shipped DBs. Tuned configurations come from the "
        "user cache or the built-in defaults"));
  }
  ArchLayers& out = *layers;
  layers_.emplace(std::string(arch), std::move(layers));
  return out;
}

std::vector<KernelCache::Source> KernelCache::SearchOrderLocked(ArchLayers& layers) {
  std::vector<Source> order;
  order.reserve(layers.read_only.size() + 2);
  if (layers.overlay) order.push_back({layers.overlay.get(), CacheLayer::kMemo});
  if (layers.user) order.push_back({layers.user.get(), CacheLayer::kUserDb});
  for (Layer& layer : layers.read_only) order.push_back({layer.db.get(), layer.layer});
  return order;
}

ArchDb* KernelCache::WritableLocked(absl::string_view arch, ArchLayers& layers) {
  if (layers.user != nullptr && !layers.user_read_only && layers.user->writable()) {
    return layers.user.get();
  }
  if (layers.overlay == nullptr) {
    absl::StatusOr<std::unique_ptr<ArchDb>> overlay =
        ArchDb::OpenInMemory(std::string(arch), DbOptions(DbRole::kUser, DbMode::kMemory));
    if (!overlay.ok()) return nullptr;
    layers.overlay = std::move(*overlay);
    if (layers.user != nullptr) {
      WarnOnceLocked(absl::StrCat("cache DB ", layers.user->path(), " is read-only; new ", arch,
                                  " results are kept in this process only"));
    }
  }
  return layers.overlay.get();
}

void KernelCache::CheckDeviceLocked(const TuningQuery& q, ArchLayers& layers) {
  std::string device = absl::StrCat(q.device_name, "/", q.compute_units);
  if (!layers.devices_checked.insert(device).second) return;
  std::vector<std::string> system_paths;
  for (Layer& layer : layers.read_only) {
    if (layer.layer != CacheLayer::kSystemDb) continue;
    absl::StatusOr<bool> has = layer.db->HasTuningForDevice(q.device_name, q.compute_units);
    if (!has.ok() || *has) return;
    system_paths.push_back(layer.db->path());
  }
  if (system_paths.empty()) return;  // no system DB at all: reported when opened
  WarnOnceLocked(absl::StrCat("the system DBs (", absl::StrJoin(system_paths, ", "),
                              ") hold no tuning rows for '", q.device_name, "' with ",
                              q.compute_units, " compute units; rows of other ", q.arch,
                              " devices or shapes stand in where they exist"));
}

absl::StatusOr<CodeObjectHit> KernelCache::GetCodeObject(absl::string_view arch,
                                                         absl::string_view key) {
  if (!options_.enabled) return Disabled();
  if (std::shared_ptr<const CodeObjectRecord> hit = memo_.FindCode(arch, key)) {
    return CodeObjectHit{std::move(hit), CacheLayer::kMemo, true};
  }
  JITK_RETURN_IF_ERROR(ValidateArchName(arch));
  absl::MutexLock lock(&mu_);
  ArchLayers& layers = LayersLocked(arch);
  absl::Status damaged;
  for (const Source& source : SearchOrderLocked(layers)) {
    absl::StatusOr<CodeObjectRecord> record = source.db->GetCodeObject(key);
    if (record.ok()) {
      auto shared = std::make_shared<const CodeObjectRecord>(std::move(*record));
      memo_.PutCode(arch, shared);
      return CodeObjectHit{std::move(shared), source.layer, false};
    }
    // A damaged row in one layer must not hide an intact one in the next.
    if (absl::IsDataLoss(record.status()) && damaged.ok()) damaged = record.status();
  }
  if (!damaged.ok()) return damaged;
  return absl::NotFoundError(absl::StrCat("no code object ", key, " for ", arch));
}

absl::Status KernelCache::PutCodeObject(absl::string_view arch, CodeObjectRecord record) {
  if (!options_.enabled) return absl::OkStatus();
  JITK_RETURN_IF_ERROR(ValidateArchName(arch));
  if (record.key.empty() || record.code.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("code object for '", record.kernel, "': key and code must not be empty"));
  }
  // As the store fills them in, so a memo hit equals a DB read.
  if (record.jitk_version.empty()) record.jitk_version = JITK_VERSION_STRING;
  if (record.created_unix == 0) record.created_unix = absl::ToUnixSeconds(absl::Now());
  auto shared = std::make_shared<const CodeObjectRecord>(std::move(record));
  absl::MutexLock lock(&mu_);
  ArchLayers& layers = LayersLocked(arch);
  absl::Status status = absl::OkStatus();
  if (ArchDb* db = WritableLocked(arch, layers)) {
    status = db->PutCodeObject(*shared);
    if (absl::IsPermissionDenied(status) && db == layers.user.get()) {
      // Became read-only since it was opened: keep reading it, write to memory.
      layers.user_read_only = true;
      if (ArchDb* overlay = WritableLocked(arch, layers)) status = overlay->PutCodeObject(*shared);
    }
  }
  memo_.PutCode(arch, std::move(shared));
  return status;
}

absl::StatusOr<TuningHit> KernelCache::LookupTuning(const TuningQuery& q) {
  if (!options_.enabled) return Disabled();
  TuningHit hit;
  switch (memo_.FindTuning(q, &hit)) {
    case LookupMemo::Found::kHit:
      return hit;
    case LookupMemo::Found::kKnownMiss:
      return absl::NotFoundError(absl::StrCat("no tuning row for ", q.kernel, " '", q.shape_key,
                                              "' with ", q.compiler, " (memoized)"));
    case LookupMemo::Found::kNo:
      break;
  }
  JITK_RETURN_IF_ERROR(ValidateArchName(q.arch));
  JITK_ASSIGN_OR_RETURN(ShapeKey query_shape, ParseShapeKey(q.shape_key));

  absl::MutexLock lock(&mu_);
  ArchLayers& layers = LayersLocked(q.arch);
  CheckDeviceLocked(q, layers);
  std::vector<Source> order = SearchOrderLocked(layers);

  // 1. The exact row, in layer order.
  const TuningKey key{q.kernel, q.shape_key, q.device_name, q.compute_units, q.compiler};
  // An answer given while some file was damaged (and is being repaired) is
  // not memoized: the next lookup may find the salvaged rows.
  bool damaged = false;
  for (const Source& source : order) {
    absl::StatusOr<TuningRecord> record = source.db->GetTuning(key);
    damaged = damaged || absl::IsDataLoss(record.status());
    if (!record.ok()) continue;  // a miss, or damage the DB has reported
    hit = TuningHit{std::make_shared<const TuningRecord>(std::move(*record)), source.layer, false,
                    true, 0};
    if (!damaged) memo_.PutTuning(q, &hit);
    return hit;
  }

  // 2. The nearest comparable row of any layer: smallest shape distance,
  //    then the same device, then the earlier layer, then validated, then newer.
  if (q.allow_nearest) {
    using Rank = std::tuple<double, bool, size_t, bool, int64_t>;
    std::optional<Rank> best_rank;
    for (size_t i = 0; i < order.size(); ++i) {
      absl::StatusOr<TuningFamily> family =
          order[i].db->FindTuningFamily(q.kernel, q.compiler, q.shape_key);
      damaged = damaged || absl::IsDataLoss(family.status());
      if (!family.ok()) continue;
      for (TuningRecord& row : family->rows) {
        absl::StatusOr<ShapeKey> shape = ParseShapeKey(row.shape_key);
        if (!shape.ok()) continue;
        std::optional<double> distance = ShapeDistance(query_shape, *shape, q.exact_dims);
        if (!distance.has_value()) continue;
        const bool same_device =
            row.device_name == q.device_name && row.compute_units == q.compute_units;
        Rank rank{*distance, !same_device, i, !row.validated, -row.tuned_unix};
        if (best_rank.has_value() && !(rank < *best_rank)) continue;
        best_rank = rank;
        hit = TuningHit{std::make_shared<const TuningRecord>(std::move(row)), order[i].layer, false,
                        false, *distance};
      }
    }
    if (best_rank.has_value()) {
      if (!damaged) memo_.PutTuning(q, &hit);
      return hit;
    }
  }
  if (!damaged) memo_.PutTuning(q, nullptr);
  return absl::NotFoundError(absl::StrCat(
      "no tuning row for ", q.kernel, " '", q.shape_key, "' on '", q.device_name, "' (",
      q.compute_units, " CUs) with ", q.compiler, " in ", order.size(), " DB(s) for ", q.arch));
}

absl::Status KernelCache::PutTuning(absl::string_view arch, TuningRecord record) {
  if (!options_.enabled) return absl::OkStatus();
  JITK_RETURN_IF_ERROR(ValidateArchName(arch));
  absl::MutexLock lock(&mu_);
  ArchLayers& layers = LayersLocked(arch);
  absl::Status status = absl::OkStatus();
  if (ArchDb* db = WritableLocked(arch, layers)) {
    status = db->PutTuning(record).status();
    if (absl::IsPermissionDenied(status) && db == layers.user.get()) {
      layers.user_read_only = true;
      if (ArchDb* overlay = WritableLocked(arch, layers)) {
        status = overlay->PutTuning(record).status();
      }
    }
  }
  memo_.ForgetTuning();
  return status;
}

void KernelCache::ClearMemo() { memo_.Clear(); }

KernelCache& DefaultKernelCache() {
  static KernelCache* cache = new KernelCache(CacheOptionsFromEnv());
  return *cache;
}

}  // namespace jitk::cache
