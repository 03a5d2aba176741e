// cache/content_hash.h — a content hash that is the same everywhere.
//
// Cache keys and row checksums must agree between processes, builds and
// machines (a cache DB is shipped from one cluster node to all others), so
// they use XXH3-128 over an explicit little-endian encoding, never absl::Hash
// or std::hash (both are seeded per process).
//
// Example:
//   jitk::cache::ContentHasher h;
//   h.AddField("source").AddField(source_text).AddInt(42);
//   std::string key = h.HexDigest();   // 32 lowercase hex digits
#ifndef JITK_CACHE_CONTENT_HASH_H_
#define JITK_CACHE_CONTENT_HASH_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"

namespace jitk::cache {

class ContentHasher {
 public:
  ContentHasher();
  ~ContentHasher();
  ContentHasher(const ContentHasher&) = delete;
  ContentHasher& operator=(const ContentHasher&) = delete;

  // Adds the bytes prefixed by their length (8 bytes, little-endian), so
  // ("ab", "c") and ("a", "bc") hash differently.
  ContentHasher& AddField(absl::string_view bytes);
  // Adds 8 bytes, little-endian.
  ContentHasher& AddInt(int64_t value);
  // Adds the IEEE-754 bit pattern (8 bytes, little-endian).
  ContentHasher& AddDouble(double value);

  // 128-bit digest as 32 lowercase hex digits (XXH128 canonical order).
  std::string HexDigest() const;
  // The low 64 bits of the digest, e.g. for a row checksum.
  uint64_t Digest64() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace jitk::cache

#endif  // JITK_CACHE_CONTENT_HASH_H_
