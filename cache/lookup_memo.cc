#include "cache/lookup_memo.h"

#include <utility>

#include "absl/hash/hash.h"

namespace jitk::cache {

absl::string_view CacheLayerName(CacheLayer layer) {
  switch (layer) {
    case CacheLayer::kMemo:
      return "memo";
    case CacheLayer::kUserDb:
      return "user";
    case CacheLayer::kSystemDb:
      return "system";
  }
  return "unknown";
}

size_t LookupMemo::Hash::operator()(const CodeKeyView& k) const {
  return absl::HashOf(k.arch, k.key);
}

size_t LookupMemo::Hash::operator()(const TuningKeyView& k) const {
  // Arch, device and compiler are the same for almost every lookup of a
  // process: hashing them would cost time and tell keys apart no better.
  // Equality still compares every field.
  size_t h = absl::HashOf(k.kernel, k.shape_key, k.exact_dims.size());
  for (const std::string& dim : k.exact_dims) h = absl::HashOf(h, absl::string_view(dim));
  return h;
}

bool LookupMemo::Eq::Same(const CodeKeyView& a, const CodeKeyView& b) {
  return a.key == b.key && a.arch == b.arch;
}

bool LookupMemo::Eq::Same(const TuningKeyView& a, const TuningKeyView& b) {
  return a.shape_key == b.shape_key && a.kernel == b.kernel && a.compute_units == b.compute_units &&
         a.device_name == b.device_name && a.compiler == b.compiler && a.arch == b.arch &&
         a.allow_nearest == b.allow_nearest && a.exact_dims == b.exact_dims;
}

std::shared_ptr<const CodeObjectRecord> LookupMemo::FindCode(absl::string_view arch,
                                                             absl::string_view key) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = code_.find(CodeKeyView{arch, key});
  return it == code_.end() ? nullptr : it->second;
}

void LookupMemo::PutCode(absl::string_view arch, std::shared_ptr<const CodeObjectRecord> record) {
  const size_t size = record->code.size();
  if (size > max_code_bytes_) return;
  absl::MutexLock lock(&mu_);
  auto it = code_.find(CodeKeyView{arch, record->key});
  if (it != code_.end()) {
    code_bytes_ -= it->second->code.size();
    code_.erase(it);
  }
  // Evict arbitrary entries: loaded kernels live in the core's own handles,
  // this memo only saves a DB read.
  while (code_bytes_ + size > max_code_bytes_ && !code_.empty()) {
    code_bytes_ -= code_.begin()->second->code.size();
    code_.erase(code_.begin());
  }
  code_bytes_ += size;
  CodeKey key{std::string(arch), record->key};
  code_.emplace(std::move(key), std::move(record));
}

LookupMemo::Found LookupMemo::FindTuning(const TuningQuery& query, TuningHit* hit) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = tuning_.find(ViewOf(query));
  if (it == tuning_.end()) return Found::kNo;
  if (!it->second.hit) return Found::kKnownMiss;
  *hit = it->second.value;
  hit->from_memo = true;
  return Found::kHit;
}

void LookupMemo::PutTuning(const TuningQuery& q, const TuningHit* hit) {
  TuningMemoKey key{std::string(q.arch),     std::string(q.device_name),
                    std::string(q.kernel),   std::string(q.shape_key),
                    std::string(q.compiler), q.compute_units,
                    q.allow_nearest,         {q.exact_dims.begin(), q.exact_dims.end()}};
  TuningEntry entry{hit != nullptr, hit != nullptr ? *hit : TuningHit()};
  entry.value.from_memo = false;
  absl::MutexLock lock(&mu_);
  if (tuning_.size() >= kMaxTuningEntries) tuning_.clear();
  tuning_.insert_or_assign(std::move(key), std::move(entry));
}

void LookupMemo::ForgetTuning() {
  absl::MutexLock lock(&mu_);
  tuning_.clear();
}

void LookupMemo::Clear() {
  absl::MutexLock lock(&mu_);
  code_.clear();
  code_bytes_ = 0;
  tuning_.clear();
}

}  // namespace jitk::cache
