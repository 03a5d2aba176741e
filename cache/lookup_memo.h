// cache/lookup_memo.h — the in-process memo in front of the cache DBs.
//
// A repeated lookup is answered from memory without touching SQLite and
// without allocating: the key is hashed from the caller's string views
// (heterogeneous lookup) and the answer is a shared_ptr copy. Tuning misses
// are remembered too, so a shape that was never tuned costs one DB search
// per process, not one per call; storing a tuning row forgets every tuning
// answer (neighbours may have changed). Rows written by other processes
// after an answer was memoized are seen after Clear() or in a new process.
//
// Thread-safe: lookups take a reader lock, inserts a writer lock.
#ifndef JITK_CACHE_LOOKUP_MEMO_H_
#define JITK_CACHE_LOOKUP_MEMO_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "cache/code_object_store.h"
#include "cache/tuning_store.h"

namespace jitk::cache {

// Which layer answered a lookup.
enum class CacheLayer {
  kMemo,      // this process: the memo, or rows stored while no DB was writable
  kUserDb,    // the user cache DB (JITK_CACHE_DIR)
  kSystemDb,  // a shipped DB (JITK_SYSTEM_DB_PATH, <prefix>/share/jitk/db)
};

// "memo", "user", "system".
absl::string_view CacheLayerName(CacheLayer layer);

struct CodeObjectHit {
  std::shared_ptr<const CodeObjectRecord> record;  // never null in a hit
  CacheLayer layer = CacheLayer::kUserDb;          // where the row is stored
  bool from_memo = false;                          // this call did not touch a DB
};

// What to look up: rows of other compilers never match.
struct TuningQuery {
  absl::string_view arch;         // selects the DB file: "gfx942", "sm_90"
  absl::string_view device_name;  // "AMD Instinct MI300X"
  int compute_units = 0;
  absl::string_view kernel;     // "scaled_add"
  absl::string_view shape_key;  // jitk::Shape::Key()
  absl::string_view compiler;   // "hiprtc 5.2.21153"
  // Answer with the nearest tuned shape (shape_distance.h) when this one
  // was never tuned.
  bool allow_nearest = true;
  // Dimensions a neighbour must match exactly (categorical ones: "layout").
  absl::Span<const std::string> exact_dims;
};

struct TuningHit {
  std::shared_ptr<const TuningRecord> record;  // never null in a hit
  CacheLayer layer = CacheLayer::kUserDb;      // where the row is stored
  bool from_memo = false;                      // this call did not touch a DB
  // Same shape and same device (name and CU count). false: the nearest
  // tuned neighbour stands in; record->shape_key / device_name say which.
  bool exact = true;
  double distance = 0;  // shape distance to the query, 0 for the same shape
};

class LookupMemo {
 public:
  explicit LookupMemo(size_t max_code_bytes) : max_code_bytes_(max_code_bytes) {}

  // nullptr when not memoized.
  std::shared_ptr<const CodeObjectRecord> FindCode(absl::string_view arch,
                                                   absl::string_view key) const;
  // Keeps at most max_code_bytes of code; evicts other entries to make room.
  void PutCode(absl::string_view arch, std::shared_ptr<const CodeObjectRecord> record);

  enum class Found { kNo, kHit, kKnownMiss };
  // On kHit fills *hit (from_memo = true).
  Found FindTuning(const TuningQuery& query, TuningHit* hit) const;
  // `hit` == nullptr memoizes a miss.
  void PutTuning(const TuningQuery& query, const TuningHit* hit);
  void ForgetTuning();

  void Clear();

 private:
  struct CodeKeyView {
    absl::string_view arch, key;
  };
  struct CodeKey {
    std::string arch, key;
    CodeKeyView View() const { return {arch, key}; }
  };
  struct TuningKeyView {
    absl::string_view arch, device_name, kernel, shape_key, compiler;
    int compute_units;
    bool allow_nearest;
    absl::Span<const std::string> exact_dims;
  };
  struct TuningMemoKey {
    std::string arch, device_name, kernel, shape_key, compiler;
    int compute_units;
    bool allow_nearest;
    std::vector<std::string> exact_dims;
    TuningKeyView View() const {
      return {arch,     device_name,   kernel,        shape_key,
              compiler, compute_units, allow_nearest, exact_dims};
    }
  };
  static TuningKeyView ViewOf(const TuningQuery& q) {
    return {q.arch,     q.device_name,   q.kernel,        q.shape_key,
            q.compiler, q.compute_units, q.allow_nearest, q.exact_dims};
  }
  // Transparent hash and equality: owned keys and views hash alike.
  struct Hash {
    using is_transparent = void;
    size_t operator()(const CodeKeyView& k) const;
    size_t operator()(const CodeKey& k) const { return (*this)(k.View()); }
    size_t operator()(const TuningKeyView& k) const;
    size_t operator()(const TuningMemoKey& k) const { return (*this)(k.View()); }
  };
  struct Eq {
    using is_transparent = void;
    static CodeKeyView V(const CodeKey& k) { return k.View(); }
    static CodeKeyView V(const CodeKeyView& k) { return k; }
    static TuningKeyView V(const TuningMemoKey& k) { return k.View(); }
    static TuningKeyView V(const TuningKeyView& k) { return k; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return Same(V(a), V(b));
    }
    static bool Same(const CodeKeyView& a, const CodeKeyView& b);
    static bool Same(const TuningKeyView& a, const TuningKeyView& b);
  };
  struct TuningEntry {
    bool hit;
    TuningHit value;
  };

  // Tuning answers beyond this many are dropped wholesale (a guard against
  // a caller that looks up unbounded distinct shapes).
  static constexpr size_t kMaxTuningEntries = 1 << 16;

  const size_t max_code_bytes_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<CodeKey, std::shared_ptr<const CodeObjectRecord>, Hash, Eq> code_
      ABSL_GUARDED_BY(mu_);
  size_t code_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<TuningMemoKey, TuningEntry, Hash, Eq> tuning_ ABSL_GUARDED_BY(mu_);
};

}  // namespace jitk::cache

#endif  // JITK_CACHE_LOOKUP_MEMO_H_
