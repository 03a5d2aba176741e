// Hopper's warpgroup MMA (wgmma.mma_async) on the SIMT emulator, for
// kernel_templates/sparse_attn_wgmma_ops.h: shared-memory operands named by
// descriptors in the 128-byte swizzle, and the asynchronous groups.
//
// Each thread computes its own accumulator fragment when it issues a
// wgmma, from the operands as they are then, and the fragment reads NaN
// until a wgmma.wait_group completes the group: a read of an accumulator
// before its wait changes the result. At the wait the operands in shared
// memory are read again, after every other wave has run, and the launch
// fails if they changed since the issue (a buffer refilled while an MMA
// still reads it). A block that ends with MMAs in flight fails the launch,
// and so do threads of one warpgroup committing different MMAs (shapes,
// descriptors or accumulate flags): the instructions are collective. Later
// MMAs on the same accumulator in flight build on the pending value, as the
// hardware's chain does. Not modelled: register operands being overwritten in flight,
// and the fences (wgmma.fence, the async proxy's).
//
// Descriptors: the emulator's own encoding of the same arithmetic (the
// start address / 16 in the low bits, so the kernel's "+ bytes / 16" steps
// work), the byte offsets kept in a table it indexes.
//
// Header-only: the test directory compiles only *_test.cc files.
#ifndef JITK_TESTS_LIB_ATTENTION_EMULATED_WGMMA_H_
#define JITK_TESTS_LIB_ATTENTION_EMULATED_WGMMA_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "tests/lib/attention/emulated_tma.h"
#include "tests/lib/attention/simt_emulator.h"

namespace simt {

class WarpgroupMma {
 public:
  static WarpgroupMma& Get() {
    static WarpgroupMma* w = new WarpgroupMma();
    return *w;
  }

  // A 128-byte-swizzled operand at `start` with leading / stride byte
  // offsets lbo and sbo.
  uint64_t Descriptor(const void* start, uint32_t lbo, uint32_t sbo) {
    const uintptr_t at = reinterpret_cast<uintptr_t>(start);
    // The swizzle by absolute address is the hardware's with a base offset
    // of 0 (the kernel's descriptors): operands start on a 1 KiB pattern.
    if (at % 16 != 0 || (at >> 4) >= kAddressLimit || (at >> 7) % 8 != 0) {
      Emulator::Get().Fail("a 128-byte-swizzled wgmma operand starts on its 1 KiB pattern");
      return 0;
    }
    if (lbo % 16 != 0 || sbo % 16 != 0 || lbo >= (1u << 18) || sbo >= (1u << 18)) {
      Emulator::Get().Fail("wgmma descriptor byte offsets are multiples of 16 below 2^18");
      return 0;
    }
    size_t id = 0;
    while (id < offsets_.size() && offsets_[id] != std::make_pair(lbo, sbo)) ++id;
    if (id == offsets_.size()) offsets_.push_back({lbo, sbo});
    return (at >> 4) | (uint64_t(id) << kIdShift);
  }

  // Element (mn, k) of a K-major operand: rows of 128 bytes along k, eight
  // rows to a swizzle atom, atoms sbo apart.
  const char* KMajor(uint64_t desc, int mn, int k) const {
    const Operand o = Decode(desc);
    return Swizzle128(o.start + (mn / 8) * o.sbo + (mn % 8) * 128 + 2 * k);
  }
  // Element (k, mn) of an MN-major operand (read transposed): rows of 64
  // elements along mn, eight k to an atom, atoms sbo apart, 64-element
  // column blocks lbo apart.
  const char* MnMajor(uint64_t desc, int k, int mn) const {
    const Operand o = Decode(desc);
    return Swizzle128(o.start + (mn / 64) * o.lbo + (k / 8) * o.sbo + (k % 8) * 128 +
                      2 * (mn % 64));
  }

  // A wgmma this thread issues: its fragment of A B (`product`, of the
  // accumulator d's `count` registers), to be added to d (or to replace it)
  // when its group completes; `recompute` reads the operands again.
  // `operands` names what the whole warpgroup must issue alike (shape,
  // shared-memory descriptors, accumulate).
  void Issue(float* d, int count, bool accumulate, std::vector<float> product,
             std::function<std::vector<float>()> recompute, std::vector<uint64_t> operands) {
    Thread& t = Mine();
    t.issued.insert(t.issued.end(), operands.begin(), operands.end());
    std::vector<float> value(d, d + count);
    if (const Op* last = Latest(t, d)) value = last->value;
    for (int i = 0; i < count; ++i) value[i] = (accumulate ? value[i] : 0.f) + product[i];
    t.open.push_back({d, std::move(value), std::move(product), std::move(recompute)});
    std::fill(d, d + count, std::numeric_limits<float>::quiet_NaN());
  }

  // Whether the last block to issue MMAs left any unwaited (checked once
  // a launch has run, for its last block).
  bool InFlight() const {
    for (const Thread& t : threads_) {
      if (!t.open.empty() || !t.groups.empty()) return true;
    }
    return false;
  }

  // Forgets the last block's MMAs (before a launch).
  void Reset() {
    block_ = 0;
    threads_.clear();
    commits_.clear();
  }

  // wgmma.commit_group, which the warpgroup's 128 threads execute together:
  // each group must hold the same MMAs in every thread of the warpgroup.
  void Commit() {
    Thread& t = Mine();
    const unsigned warpgroup = Emulator::Get().thread_idx.x / 128;
    auto [first, fresh] = commits_.try_emplace({warpgroup, t.commits++}, t.issued);
    if (!fresh && first->second != t.issued) {
      Emulator::Get().Fail("threads of a warpgroup committed different wgmma groups");
    }
    t.issued.clear();
    t.groups.push_back(std::move(t.open));
    t.open.clear();
  }

  // wgmma.wait_group N: all but the N most recent groups complete. The
  // MMAs take time: every other wave runs first (and may write what they
  // read).
  void Wait(int pending) {
    if (int(Mine().groups.size()) > pending) {
      Emulator& e = Emulator::Get();
      for (const uint64_t pass = e.passes(); e.passes() == pass;) e.Yield();
    }
    Thread& t = Mine();
    while (int(t.groups.size()) > pending) {
      std::vector<Op> group = std::move(t.groups.front());
      t.groups.pop_front();
      for (Op& op : group) {
        const std::vector<float> again = op.recompute();
        if (std::memcmp(again.data(), op.product.data(), again.size() * sizeof(float)) != 0) {
          Emulator::Get().Fail(
              "shared memory a wgmma reads changed between its issue and its wait");
        }
        std::copy(op.value.begin(), op.value.end(), op.d);
        if (Latest(t, op.d) != nullptr) {  // a later MMA on it is still in flight
          std::fill(op.d, op.d + op.value.size(), std::numeric_limits<float>::quiet_NaN());
        }
      }
    }
  }

 private:
  static constexpr int kIdShift = 48;
  static constexpr uint64_t kAddressLimit = uint64_t(1) << 44;

  struct Operand {
    const char* start;
    uint32_t lbo, sbo;
  };
  struct Op {
    float* d;
    std::vector<float> value;    // d once this MMA completes
    std::vector<float> product;  // this MMA's part of it
    std::function<std::vector<float>()> recompute;
  };
  struct Thread {
    std::vector<uint64_t> issued;  // the open group's operands (Issue)
    uint64_t commits = 0;
    std::vector<Op> open;                // issued, not yet committed
    std::deque<std::vector<Op>> groups;  // committed, oldest first
  };

  Operand Decode(uint64_t desc) const {
    const uint64_t id = desc >> kIdShift;
    const auto& [lbo, sbo] = offsets_.at(size_t(id));
    return {reinterpret_cast<const char*>((desc & (kAddressLimit - 1)) << 4), lbo, sbo};
  }

  // This thread's state, fresh for each block; a block that left MMAs in
  // flight fails the launch.
  Thread& Mine() {
    Emulator& e = Emulator::Get();
    if (block_ != e.block_serial()) {
      if (InFlight()) e.Fail("a block ended with wgmma groups nobody waited for");
      block_ = e.block_serial();
      threads_.clear();
      commits_.clear();
    }
    const size_t t = e.thread_idx.x;
    if (threads_.size() <= t) threads_.resize(t + 1);
    return threads_[t];
  }

  // The last MMA in flight on d, if any.
  static const Op* Latest(const Thread& t, const float* d) {
    for (auto it = t.open.rbegin(); it != t.open.rend(); ++it) {
      if (it->d == d) return &*it;
    }
    for (auto g = t.groups.rbegin(); g != t.groups.rend(); ++g) {
      for (auto it = g->rbegin(); it != g->rend(); ++it) {
        if (it->d == d) return &*it;
      }
    }
    return nullptr;
  }

  std::vector<std::pair<uint32_t, uint32_t>> offsets_;
  uint64_t block_ = 0;
  std::vector<Thread> threads_;
  // The first thread's operands of each (warpgroup, commit) of this block.
  std::map<std::pair<unsigned, uint64_t>, std::vector<uint64_t>> commits_;
};

}  // namespace simt

#endif  // JITK_TESTS_LIB_ATTENTION_EMULATED_WGMMA_H_
