// A small CPU SIMT emulator, so kernel templates' logic (indexing, masks,
// pipelines, fragment layouts) is tested without a GPU.
//
// Every GPU thread of a block is a cooperative fiber (ucontext) on the
// calling OS thread; blocks run one after another, and the waves of a block
// one at a time between block barriers (so a wave that spins on a flag
// another wave sets never ends: kernels that do so cannot run here). __syncthreads(), named
// barriers and wave-wide collectives (shuffles, ldmatrix, mma.sync, MFMA)
// are barriers over the fibers of the block / wave, with a per-wave
// exchange area. A
// barrier that can never complete (threads diverging around __syncthreads)
// ends the launch with an error instead of hanging.
//
// Header-only: the test directory compiles only *_test.cc files.
#ifndef JITK_TESTS_LIB_ATTENTION_SIMT_EMULATOR_H_
#define JITK_TESTS_LIB_ATTENTION_SIMT_EMULATOR_H_

#include <ucontext.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace simt {

struct Dim3 {
  unsigned x = 0, y = 0, z = 0;
};

class Emulator {
 public:
  static Emulator& Get() {
    static Emulator* e = new Emulator();
    return *e;
  }

  // Runs `body` once per thread of each block of `grid`. Returns "" or why
  // the launch failed (a barrier deadlock).
  std::string Launch(Dim3 grid, int threads, int wave_size, const std::function<void()>& body) {
    body_ = &body;
    threads_ = threads;
    wave_size_ = wave_size;
    block_dim = {unsigned(threads), 1, 1};
    grid_dim = grid;
    const int waves = (threads + wave_size - 1) / wave_size;
    fibers_.resize(threads);
    for (Fiber& f : fibers_) {
      if (!f.stack) f.stack.reset(new char[kStackBytes]);
    }
    slots_.assign(size_t(waves) * wave_size * kSlotBytes, 0);
    for (unsigned z = 0; z < grid.z; ++z) {
      for (unsigned y = 0; y < grid.y; ++y) {
        for (unsigned x = 0; x < grid.x; ++x) {
          block_idx = {x, y, z};
          ++block_serial_;
          std::string error = RunBlock(waves);
          // The reason, before the deadlock it may have caused.
          if (!failure_.empty()) error = failure_;
          if (!error.empty()) {
            failure_.clear();
            return error;
          }
        }
      }
    }
    return "";
  }

  // --- called from kernel code ---
  Dim3 thread_idx, block_idx, block_dim, grid_dim;

  void SyncThreads() { Wait(block_barrier_, threads_); }
  void SyncWave() { Wait(wave_barriers_[current_ / wave_size_], wave_size_); }
  // bar.sync / bar.arrive on barrier `id` (1..15; 0 is __syncthreads'):
  // `count` threads' arrivals complete a phase; sync also waits for it.
  void NamedBarrier(int id, int count, bool wait) {
    if (id < 1 || id >= kNamedBarriers || count < 1 || count > threads_ ||
        count % wave_size_ != 0) {
      return Fail(
          "a named barrier's id is 1..15 and its count whole warps, at most the block's threads");
    }
    Barrier& b = named_barriers_[id];
    if (wait) return Wait(b, count);
    Arrive(b, count);
  }
  int Lane() const { return current_ % wave_size_; }
  int WaveSize() const { return wave_size_; }

  // For primitives that wait on state other threads change (an mbarrier's
  // phase): let the other threads run, and tell the scheduler when the
  // state has changed, so that a wait nobody can end is reported as a
  // deadlock. Fail() ends the launch with `why` after this block.
  void Yield() { swapcontext(&fibers_[current_].ctx, &scheduler_); }
  void Progress() { ++progress_; }
  // Passes of the scheduler over the block's waves: a thread that yields
  // until this changes has let every other wave run.
  uint64_t passes() const { return passes_; }
  // Changes with every block run: state a block sets up (an mbarrier) is
  // not the next block's.
  uint64_t block_serial() const { return block_serial_; }
  void Fail(const std::string& why) {
    if (failure_.empty()) failure_ = why;
  }

  // Posts `mine` for the wave and waits until every lane has; returns the
  // lanes' values. The caller must call SyncWave() once it has read them.
  template <typename T>
  const T* Exchange(const T& mine) {
    static_assert(sizeof(T) <= kSlotBytes, "exchange slot too small");
    char* base = slots_.data() + size_t(current_ / wave_size_) * wave_size_ * kSlotBytes;
    std::memcpy(base + size_t(Lane()) * kSlotBytes, &mine, sizeof(T));
    SyncWave();
    gather_.resize(size_t(wave_size_) * sizeof(T));
    for (int l = 0; l < wave_size_; ++l) {
      std::memcpy(gather_.data() + l * sizeof(T), base + size_t(l) * kSlotBytes, sizeof(T));
    }
    return reinterpret_cast<const T*>(gather_.data());
  }

 private:
  static constexpr size_t kStackBytes = 256 * 1024;
  static constexpr int kNamedBarriers = 16;
  static constexpr size_t kSlotBytes = 128;

  struct Fiber {
    ucontext_t ctx;
    std::unique_ptr<char[]> stack;
    bool done = false;
  };
  struct Barrier {
    int arrived = 0;
    uint64_t generation = 0;
  };

  static void Entry() {
    Emulator& e = Get();
    (*e.body_)();
    e.fibers_[e.current_].done = true;
    ++e.progress_;
  }

  std::string RunBlock(int waves) {
    block_barrier_ = Barrier();
    wave_barriers_.assign(waves, Barrier());
    named_barriers_.assign(kNamedBarriers, Barrier());
    for (int t = 0; t < threads_; ++t) {
      Fiber& f = fibers_[t];
      f.done = false;
      getcontext(&f.ctx);
      f.ctx.uc_stack.ss_sp = f.stack.get();
      f.ctx.uc_stack.ss_size = kStackBytes;
      f.ctx.uc_link = &scheduler_;
      makecontext(&f.ctx, &Emulator::Entry, 0);
    }
    // One wave at a time runs until its threads wait at __syncthreads or
    // end: a wave never overlaps another between two block barriers, so a
    // missing one (a wave overwriting shared memory another has yet to
    // read) changes the result. Odd blocks take the waves in reverse order.
    const bool reverse = (block_idx.x + block_idx.y + block_idx.z) % 2 == 1;
    int live = threads_;
    while (live > 0) {
      ++passes_;
      const uint64_t before = progress_;
      for (int i = 0; i < waves; ++i) {
        const int w = reverse ? waves - 1 - i : i;
        uint64_t wave_before;
        do {
          wave_before = progress_;
          for (int t = w * wave_size_; t < threads_ && t < (w + 1) * wave_size_; ++t) {
            if (fibers_[t].done) continue;
            current_ = t;
            thread_idx = {unsigned(t), 0, 0};
            swapcontext(&scheduler_, &fibers_[t].ctx);
          }
        } while (progress_ != wave_before);
      }
      live = 0;
      for (int t = 0; t < threads_; ++t) live += fibers_[t].done ? 0 : 1;
      if (live > 0 && progress_ == before && ++idle_passes_ > 2) {
        idle_passes_ = 0;
        return "barrier deadlock: some threads wait at a barrier others never reach (or on an "
               "mbarrier phase that never completes)";
      }
      if (progress_ != before) idle_passes_ = 0;
    }
    return "";
  }

  // One arrival; the count-th completes the phase.
  void Arrive(Barrier& b, int count) {
    if (++b.arrived == count) {
      b.arrived = 0;
      ++b.generation;
      ++progress_;
    }
  }

  void Wait(Barrier& b, int count) {
    const uint64_t generation = b.generation;
    Arrive(b, count);
    while (b.generation == generation) Yield();
  }

  const std::function<void()>* body_ = nullptr;
  int threads_ = 0;
  int wave_size_ = 32;
  int current_ = 0;
  uint64_t progress_ = 0;
  uint64_t passes_ = 0;
  int idle_passes_ = 0;
  std::string failure_;
  uint64_t block_serial_ = 0;
  ucontext_t scheduler_;
  std::vector<Fiber> fibers_;
  Barrier block_barrier_;
  std::vector<Barrier> wave_barriers_;
  std::vector<Barrier> named_barriers_;
  std::vector<char> slots_;
  std::vector<char> gather_;
};

}  // namespace simt

// --- what CUDA / HIP device code expects, for kernels compiled by g++ ---
#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#define threadIdx (::simt::Emulator::Get().thread_idx)
#define blockIdx (::simt::Emulator::Get().block_idx)
#define blockDim (::simt::Emulator::Get().block_dim)
#define gridDim (::simt::Emulator::Get().grid_dim)

inline void __syncthreads() { ::simt::Emulator::Get().SyncThreads(); }
inline void __syncwarp(unsigned = 0xffffffffu) { ::simt::Emulator::Get().SyncWave(); }
inline float __uint_as_float(unsigned v) { return __builtin_bit_cast(float, v); }
inline unsigned __float_as_uint(float v) { return __builtin_bit_cast(unsigned, v); }
inline float __int_as_float(int v) { return __builtin_bit_cast(float, v); }
inline int min(int a, int b) { return a < b ? a : b; }
// The fast intrinsics, exactly: the emulator checks the algorithm, not the
// hardware's last bits.
inline float __log2f(float x) { return log2f(x); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __shfl_xor(float v, int mask) {
  ::simt::Emulator& e = ::simt::Emulator::Get();
  const float* all = e.Exchange(v);
  float r = all[e.Lane() ^ mask];
  e.SyncWave();
  return r;
}

#endif  // JITK_TESTS_LIB_ATTENTION_SIMT_EMULATOR_H_
