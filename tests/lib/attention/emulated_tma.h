// Hopper's tensor-memory copies and shared-memory barriers (mbarriers) on the
// SIMT emulator, for kernel_templates/sparse_attn_tma_ops.h's loads and
// stores.
//
// A copy completes its bytes on its mbarrier when issued, and at once fills its
// destination with NaNs; its data lands when a wait first sees the phase its
// bytes counted in complete. So a copy issued into a stage other threads have
// yet to read, a read of a stage nobody waited for, and a phase that expects
// fewer bytes than its copies bring (the rest count in the next phase) all
// change the result. A wait yields to the other threads until the phase it
// names has completed; one that never does ends the launch as a deadlock. What
// the hardware rejects (unaligned destinations, barriers, bases or strides,
// boxes the driver would not encode, more bytes or arrivals than a phase
// expects, a barrier not initialized by this block) fails the launch with the
// reason. Boxes of 128-byte rows may land 128-byte swizzled (Swizzle128).
// Tensor stores land when their thread waits for its bulk group, with the
// box as read at their issue; a change to it by then fails the launch, and a
// store whose thread never waits never lands. Not modelled: the fences
// between the generic and the async proxy, and mbarrier.init's.
//
// Header-only: the test directory compiles only *_test.cc files.
#ifndef JITK_TESTS_LIB_ATTENTION_EMULATED_TMA_H_
#define JITK_TESTS_LIB_ATTENTION_EMULATED_TMA_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <unordered_map>
#include <vector>

#include "tests/lib/attention/simt_emulator.h"

namespace simt {

// The 128-byte swizzle of tensor copies and wgmma operands, by shared-memory
// address: in every 1024 bytes, 16-byte chunk c of 128-byte row r sits at
// chunk c ^ r.
inline uintptr_t Swizzle128(uintptr_t address) { return address ^ (((address >> 7) & 7) << 4); }
inline const char* Swizzle128(const char* p) {
  return reinterpret_cast<const char*>(Swizzle128(reinterpret_cast<uintptr_t>(p)));
}

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
    if (count < 1 || count > kMaxCount) return Fail("mbarrier.init's count is 1..2^20-1");
    barriers_[bar] = Barrier{Emulator::Get().block_serial(), count, count, 0, 0, {}};
  }

  // mbarrier.arrive.expect_tx: `bytes` more to complete in this phase, and
  // one arrival.
  void ArriveExpectTx(const void* bar, int64_t bytes) {
    Barrier* b = Find(bar);
    if (b == nullptr) return;
    if (b->pending == 0) return Fail("an mbarrier phase got more arrivals than its init count");
    b->tx += bytes;
    --b->pending;
    if (!TxInRange(*b)) return;
    CompleteIfDone(*b);
  }

  // cp.async.bulk.tensor.4d ... mbarrier::complete_tx::bytes: the box at
  // coordinates c (innermost first) into `dst`, zeros outside the tensor.
  void Load4d(void* dst, const void* map_bytes, const int (&c)[4], const void* bar) {
    TensorMap map;
    std::memcpy(&map, map_bytes, sizeof(map));
    if (!Aligned(dst, 128, "tensor copy destination")) return;
    if (!CheckMap(map)) return;
    Barrier* b = Find(bar);
    if (b == nullptr) return;
    Landing landing{dst, b->phase, {}};
    ForEachInBox(map, c, [&](int64_t, const char* src) {
      uint16_t v = 0;
      if (src != nullptr) std::memcpy(&v, src, 2);
      landing.data.push_back(v);
    });
    if (map.swizzle_128b) {  // the box's element e lands at Swizzle128(dst + 2 e)
      std::vector<uint16_t> placed(landing.data.size());
      const uintptr_t at = reinterpret_cast<uintptr_t>(dst);
      for (size_t e = 0; e < placed.size(); ++e) {
        placed[(Swizzle128(at + 2 * e) - at) / 2] = landing.data[e];
      }
      landing.data = std::move(placed);
    }
    // Not there yet: NaN in f16 and bf16 alike.
    std::memset(dst, 0xff, landing.data.size() * 2);
    // Elements outside the tensor count too: the whole box is written.
    b->tx -= int64_t(landing.data.size()) * 2;
    b->landings.push_back(std::move(landing));
    if (!TxInRange(*b)) return;
    if (b->tx < 0 && b->pending == 0) {
      return Fail("a tensor copy completed more bytes than its mbarrier phase expects");
    }
    CompleteIfDone(*b);
  }

  // cp.async.bulk.tensor ... bulk_group: the box at coordinates c from
  // `src`, into the tensor (elements outside it are not written), once this
  // thread waits for its bulk group.
  void Store4d(const void* map_bytes, const void* src, const int (&c)[4]) {
    TensorMap map;
    std::memcpy(&map, map_bytes, sizeof(map));
    if (!Aligned(src, 128, "tensor store source")) return;
    if (!CheckMap(map)) return;
    const Emulator& e = Emulator::Get();
    Store store;
    store.block = e.block_serial();
    store.thread = e.thread_idx.x;
    store.map = map;
    store.src = static_cast<const char*>(src);
    std::copy(std::begin(c), std::end(c), store.c);
    store.data = ReadBox(store);
    stores_.push_back(std::move(store));
  }

  // cp.async.bulk.wait_group(.read) 0: this thread's tensor stores write
  // the tensor with what they read at their issue; shared memory changed
  // since fails the launch.
  void BulkWait() {
    const Emulator& e = Emulator::Get();
    std::vector<Store> later;
    for (Store& s : stores_) {
      if (s.block != e.block_serial() || s.thread != e.thread_idx.x) {
        if (s.block == e.block_serial()) later.push_back(std::move(s));
        continue;
      }
      if (ReadBox(s) != s.data) {
        Fail("shared memory a tensor store reads changed between its issue and its bulk wait");
      }
      ForEachInBox(s.map, s.c, [&](int64_t i, const char* dst) {
        if (dst != nullptr) std::memcpy(const_cast<char*>(dst), &s.data[size_t(i)], 2);
      });
    }
    stores_ = std::move(later);
  }

  // mbarrier.try_wait.parity in a loop: until the phase of that parity has
  // completed (the barrier's current phase has the other parity). The
  // copies of completed phases land first.
  void Wait(const void* bar, unsigned parity) {
    for (;;) {
      Barrier* b = Find(bar);
      if (b == nullptr) return;
      if ((b->phase & 1u) != (parity & 1u)) {
        std::vector<Landing> later;
        for (Landing& l : b->landings) {
          if (l.phase < b->phase) {
            std::memcpy(l.dst, l.data.data(), l.data.size() * 2);
          } else {
            later.push_back(std::move(l));
          }
        }
        b->landings = std::move(later);
        return;
      }
      Emulator::Get().Yield();
    }
  }

 private:
  static constexpr int kMaxCount = (1 << 20) - 1;

  struct Landing {
    void* dst;
    unsigned phase;  // the phase its bytes count in
    std::vector<uint16_t> data;
  };
  struct Barrier {
    uint64_t block;  // the block that initialized it
    int count;       // arrivals per phase
    int pending;     // arrivals still expected in this phase
    int64_t tx;      // bytes announced and not yet completed
    unsigned phase;
    std::vector<Landing> landings;  // copies no wait has landed
  };

  struct Store {
    uint64_t block;
    unsigned thread;
    TensorMap map;
    const char* src;
    int c[4];
    std::vector<uint16_t> data;  // the box, in order, as read at the issue
  };

  // A store's box from its shared memory (swizzled or not), in box order.
  static std::vector<uint16_t> ReadBox(const Store& s) {
    std::vector<uint16_t> data;
    const uintptr_t at = reinterpret_cast<uintptr_t>(s.src);
    ForEachInBox(s.map, s.c, [&](int64_t i, const char*) {
      const uintptr_t from = s.map.swizzle_128b ? Swizzle128(at + 2 * i) : at + 2 * i;
      uint16_t v;
      std::memcpy(&v, reinterpret_cast<const void*>(from), 2);
      data.push_back(v);
    });
    return data;
  }

  static void Fail(const std::string& why) { Emulator::Get().Fail(why); }

  // What the driver would refuse to encode, or the emulator does not model.
  static bool CheckMap(const TensorMap& map) {
    if (!Aligned(map.base, 16, "tensor map base")) return false;
    if (map.rank != 4) return Fail("a 4d tensor copy through a map of another rank"), false;
    if (map.box[0] * 2 % 16 != 0) return Fail("a box row must be a multiple of 16 bytes"), false;
    if (map.swizzle_128b && map.box[0] * 2 != 128) {
      return Fail("the emulated 128-byte swizzle takes boxes of 128-byte rows"), false;
    }
    for (int i = 0; i < 4; ++i) {
      if (map.box[i] == 0 || map.box[i] > 256) return Fail("box dimensions are 1..256"), false;
      if (i < 3 && map.strides[i] % 16 != 0) {
        return Fail("tensor map strides are 16-byte multiples"), false;
      }
    }
    return true;
  }

  // Calls f(i, element) for the box's elements in order (innermost first),
  // element their address in the tensor or nullptr outside it.
  template <typename F>
  static void ForEachInBox(const TensorMap& map, const int (&c)[4], F f) {
    int64_t i = 0;
    for (uint32_t i3 = 0; i3 < map.box[3]; ++i3) {
      for (uint32_t i2 = 0; i2 < map.box[2]; ++i2) {
        for (uint32_t i1 = 0; i1 < map.box[1]; ++i1) {
          for (uint32_t i0 = 0; i0 < map.box[0]; ++i0) {
            const int64_t at[4] = {int64_t(c[0]) + i0, int64_t(c[1]) + i1, int64_t(c[2]) + i2,
                                   int64_t(c[3]) + i3};
            bool inside = true;
            for (int d = 0; d < 4; ++d) inside &= at[d] >= 0 && uint64_t(at[d]) < map.dims[d];
            f(i++, inside ? map.base + at[0] * 2 + at[1] * int64_t(map.strides[0]) +
                                at[2] * int64_t(map.strides[1]) + at[3] * int64_t(map.strides[2])
                          : nullptr);
          }
        }
      }
    }
  }

  static bool Aligned(const void* p, uintptr_t alignment, const char* what) {
    if (reinterpret_cast<uintptr_t>(p) % alignment == 0) return true;
    Fail(std::string(what) + " not aligned to " + std::to_string(alignment) + " bytes");
    return false;
  }

  static bool TxInRange(const Barrier& b) {
    if (b.tx >= -kMaxCount && b.tx <= kMaxCount) return true;
    Fail("an mbarrier's transaction count is within +-(2^20-1) bytes");
    return false;
  }

  Barrier* Find(const void* bar) {
    auto it = barriers_.find(bar);
    if (it != barriers_.end() && it->second.block == Emulator::Get().block_serial()) {
      return &it->second;
    }
    Fail("an mbarrier used before this block's mbarrier.init");
    return nullptr;
  }

  static void CompleteIfDone(Barrier& b) {
    if (b.pending > 0 || b.tx != 0) return;
    ++b.phase;
    b.pending = b.count;
    Emulator::Get().Progress();
  }

  std::unordered_map<const void*, Barrier> barriers_;
  std::vector<Store> stores_;
};

}  // namespace simt

#endif  // JITK_TESTS_LIB_ATTENTION_EMULATED_TMA_H_
