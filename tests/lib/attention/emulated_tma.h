// Hopper's tensor-memory copies and shared-memory barriers (mbarriers) on
// the SIMT emulator, for kernel_templates/sparse_attn_tma_ops.h's loads.
//
// A copy lands in full the moment it is issued and completes its bytes on
// its mbarrier at once: a copy issued into a stage that other threads have
// yet to read changes the result. A wait yields to the other threads until
// the phase it names has completed; one that never does ends the launch as
// a deadlock. What the hardware would reject (an unaligned destination or
// barrier, a box wider than the tensor map allows, more bytes or arrivals
// than a phase expects) fails the launch with the reason. Boxes land row
// after row: the 128-byte swizzle (the wgmma engine's) is not modelled.
//
// Header-only: the test directory compiles only *_test.cc files.
#ifndef JITK_TESTS_LIB_ATTENTION_EMULATED_TMA_H_
#define JITK_TESTS_LIB_ATTENTION_EMULATED_TMA_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>

#include "tests/lib/attention/simt_emulator.h"

namespace simt {

// A tensor map as the test's host side encodes it into the 128 bytes the
// driver's opaque CUtensorMap would take: a tiled view of a tensor of
// 16-bit elements, innermost dimension first.
struct TensorMap {
  const char* base = nullptr;
  int rank = 0;
  uint64_t dims[5] = {};     // elements
  uint64_t strides[4] = {};  // bytes, of dims 1..rank-1
  uint32_t box[5] = {};      // elements per copy
  bool swizzle_128b = false;
};
static_assert(sizeof(TensorMap) <= 128, "a tensor map takes 128 bytes");

class AsyncCopies {
 public:
  static AsyncCopies& Get() {
    static AsyncCopies* a = new AsyncCopies();
    return *a;
  }

  // mbarrier.init: a fresh barrier in phase 0 expecting `count` arrivals.
  void Init(const void* bar, int count) {
    if (!Aligned(bar, 8, "mbarrier")) return;
    barriers_[bar] = Barrier{count, count, 0, 0};
  }

  // mbarrier.arrive.expect_tx: `bytes` more to complete in this phase, and
  // one arrival.
  void ArriveExpectTx(const void* bar, int64_t bytes) {
    Barrier* b = Find(bar);
    if (b == nullptr) return;
    if (b->pending == 0) return Fail("an mbarrier phase got more arrivals than its init count");
    b->tx += bytes;
    --b->pending;
    CompleteIfDone(*b);
  }

  // cp.async.bulk.tensor.4d ... mbarrier::complete_tx::bytes: the box at
  // coordinates c (innermost first) into `dst`, zeros outside the tensor.
  void Load4d(void* dst, const void* map_bytes, const int (&c)[4], const void* bar) {
    TensorMap map;
    std::memcpy(&map, map_bytes, sizeof(map));
    if (!Aligned(dst, 128, "tensor copy destination")) return;
    if (map.rank != 4) return Fail("a 4d tensor copy through a map of another rank");
    if (map.swizzle_128b) return Fail("swizzled tensor maps are not emulated");
    if (map.box[0] * 2 % 16 != 0) return Fail("a box row must be a multiple of 16 bytes");
    for (int i = 0; i < 4; ++i) {
      if (map.box[i] == 0 || map.box[i] > 256) return Fail("box dimensions are 1..256");
    }
    Barrier* b = Find(bar);
    if (b == nullptr) return;
    uint16_t* out = static_cast<uint16_t*>(dst);
    int64_t bytes = 0;
    for (uint32_t i3 = 0; i3 < map.box[3]; ++i3) {
      for (uint32_t i2 = 0; i2 < map.box[2]; ++i2) {
        for (uint32_t i1 = 0; i1 < map.box[1]; ++i1) {
          for (uint32_t i0 = 0; i0 < map.box[0]; ++i0) {
            const int64_t at[4] = {int64_t(c[0]) + i0, int64_t(c[1]) + i1, int64_t(c[2]) + i2,
                                   int64_t(c[3]) + i3};
            bool inside = true;
            for (int i = 0; i < 4; ++i) inside &= at[i] >= 0 && uint64_t(at[i]) < map.dims[i];
            uint16_t v = 0;
            if (inside) {
              const char* src = map.base + at[0] * 2 + at[1] * int64_t(map.strides[0]) +
                                at[2] * int64_t(map.strides[1]) + at[3] * int64_t(map.strides[2]);
              std::memcpy(&v, src, 2);
            }
            *out++ = v;
            bytes += 2;  // out-of-bounds elements count too: the box is filled
          }
        }
      }
    }
    b->tx -= bytes;
    if (b->tx < 0 && b->pending == 0) {
      return Fail("a tensor copy completed more bytes than its mbarrier phase expects");
    }
    CompleteIfDone(*b);
  }

  // mbarrier.try_wait.parity in a loop: until the phase of that parity has
  // completed (the barrier's current phase has the other parity).
  void Wait(const void* bar, unsigned parity) {
    for (;;) {
      Barrier* b = Find(bar);
      if (b == nullptr || (b->phase & 1u) != (parity & 1u)) return;
      Emulator::Get().Yield();
    }
  }

 private:
  struct Barrier {
    int count;      // arrivals per phase
    int pending;    // arrivals still expected in this phase
    int64_t tx;     // bytes announced and not yet completed
    unsigned phase;
  };

  static void Fail(const std::string& why) { Emulator::Get().Fail(why); }

  static bool Aligned(const void* p, uintptr_t alignment, const char* what) {
    if (reinterpret_cast<uintptr_t>(p) % alignment == 0) return true;
    Fail(std::string(what) + " not aligned to " + std::to_string(alignment) + " bytes");
    return false;
  }

  Barrier* Find(const void* bar) {
    auto it = barriers_.find(bar);
    if (it != barriers_.end()) return &it->second;
    Fail("an mbarrier used before mbarrier.init");
    return nullptr;
  }

  static void CompleteIfDone(Barrier& b) {
    if (b.pending > 0 || b.tx != 0) return;
    ++b.phase;
    b.pending = b.count;
    Emulator::Get().Progress();
  }

  std::unordered_map<const void*, Barrier> barriers_;
};

}  // namespace simt

#endif  // JITK_TESTS_LIB_ATTENTION_EMULATED_TMA_H_
