#include "cache/content_hash.h"

#include <cstring>

// Header-only use of xxHash: nothing to link, nothing to carry to the GPU host.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace jitk::cache {

struct ContentHasher::State {
  XXH3_state_t xxh;
};

namespace {

void PutLittleEndian(uint64_t value, unsigned char out[8]) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>(value >> (8 * i));
}

}  // namespace

ContentHasher::ContentHasher() : state_(std::make_unique<State>()) {
  XXH3_128bits_reset(&state_->xxh);
}

ContentHasher::~ContentHasher() = default;

ContentHasher& ContentHasher::AddField(absl::string_view bytes) {
  unsigned char length[8];
  PutLittleEndian(bytes.size(), length);
  XXH3_128bits_update(&state_->xxh, length, sizeof(length));
  XXH3_128bits_update(&state_->xxh, bytes.data(), bytes.size());
  return *this;
}

ContentHasher& ContentHasher::AddInt(int64_t value) {
  unsigned char bytes[8];
  PutLittleEndian(static_cast<uint64_t>(value), bytes);
  XXH3_128bits_update(&state_->xxh, bytes, sizeof(bytes));
  return *this;
}

ContentHasher& ContentHasher::AddDouble(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return AddInt(static_cast<int64_t>(bits));
}

std::string ContentHasher::HexDigest() const {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(&state_->xxh));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(2 * sizeof(canonical.digest), '0');
  for (size_t i = 0; i < sizeof(canonical.digest); ++i) {
    out[2 * i] = kHex[canonical.digest[i] >> 4];
    out[2 * i + 1] = kHex[canonical.digest[i] & 15];
  }
  return out;
}

uint64_t ContentHasher::Digest64() const { return XXH3_128bits_digest(&state_->xxh).low64; }

}  // namespace jitk::cache
