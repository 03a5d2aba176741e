// A small seeded generator whose sequence is fixed by this file, not by the
// standard library (std::shuffle and the std distributions differ between
// implementations), so a seed names the same search on every machine.
#ifndef JITK_TUNER_INTERNAL_RANDOM_H_
#define JITK_TUNER_INTERNAL_RANDOM_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace jitk::tuner::internal {

// SplitMix64 (Steele, Lea, Flood 2014).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  // Uniform in [0, n); REQUIRES: n > 0. Rejection keeps it unbiased.
  uint64_t Below(uint64_t n) {
    const uint64_t limit = ~uint64_t{0} - (~uint64_t{0} % n);
    uint64_t x;
    do {
      x = Next();
    } while (x >= limit);
    return x % n;
  }

  // Uniform in [0, 1).
  double Unit() { return double(Next() >> 11) * 0x1.0p-53; }

  // Fisher–Yates.
  template <typename T>
  void Shuffle(std::vector<T>& items) {
    for (size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[Below(i)]);
  }

 private:
  uint64_t state_;
};

// A stateless hash of (seed, a, b): deterministic pseudo-random bits for
// counter-based generators (input data, synthetic noise).
inline uint64_t Mix(uint64_t seed, uint64_t a, uint64_t b = 0) {
  Random r(seed ^ (a * 0xd1342543de82ef95ull) ^ (b * 0xaf251af3b0f025b5ull));
  return r.Next();
}

}  // namespace jitk::tuner::internal

#endif  // JITK_TUNER_INTERNAL_RANDOM_H_
