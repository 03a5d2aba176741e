// mma_peak.cu — the ceilings the mma.sync attention engine works against,
// measured on the GPU present: mma.sync m16n8k16 (f16 and bf16 in, f32
// accumulate) at 4 to 16 warps per SM, its latency, ldmatrix.x4 from shared
// memory, ex2.approx, HMMA mixed with ldmatrix in the attention engine's
// proportion (80 ldmatrix.x4 per 256 HMMA at 128x64, d = 128), and the
// engine's inner loop on its own, with the next K / V tile copied in
// different ways (attn_loop_kernel).
//
//   nvcc -O3 -arch=sm_90 -o mma_peak bench/device/mma_peak.cu && ./mma_peak
//
// Each line: the test, warps per SM, TFLOP/s (or bytes / ops per SM clock),
// and the SM clock the kernel ran at (clock64 ticks over event time).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kIters = 4096;

#define CHECK(x)                                                                  \
  do {                                                                            \
    cudaError_t e = (x);                                                          \
    if (e != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));                \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

template <bool kBf16>
__device__ __forceinline__ void mma(float (&c)[4], const unsigned (&a)[4], unsigned b0,
                                    unsigned b1) {
  if (kBf16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// ILP independent accumulators per warp; each iteration issues ILP HMMAs.
template <bool kBf16, int ILP>
__global__ void hmma_kernel(float* out, long long* ticks) {
  unsigned a[4] = {threadIdx.x, threadIdx.x * 3u, threadIdx.x ^ 5u, 7u};
  float c[ILP][4] = {};
  const long long t0 = clock64();
  for (int it = 0; it < kIters; ++it) {
#pragma unroll
    for (int i = 0; i < ILP; ++i) mma<kBf16>(c[i], a, a[0] ^ i, a[1]);
  }
  const long long t1 = clock64();
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < ILP; ++i) s += c[i][0] + c[i][1] + c[i][2] + c[i][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0) ticks[blockIdx.x] = t1 - t0;
}

// Conflict-free ldmatrix.x4 (each of the 32 row addresses a distinct 16 B
// of a 272-byte-pitch tile, as the engine's padded rows are).
__global__ void ldsm_kernel(float* out, long long* ticks) {
  extern __shared__ unsigned char smem[];
  for (int i = threadIdx.x; i < 64 * 272 / 4; i += blockDim.x) reinterpret_cast<unsigned*>(smem)[i] = i;
  __syncthreads();
  const unsigned base = unsigned(__cvta_generic_to_shared(smem));
  const int lane = threadIdx.x % 32;
  const unsigned row = base + ((lane & 7) + (lane >> 4) * 8) * 272 + ((lane >> 3) & 1) * 16;
  unsigned acc = 0;
  const long long t0 = clock64();
  for (int it = 0; it < kIters; ++it) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      unsigned r[4];
      ldsm_x4(r, row + ((k + it) & 3) * 16 * 272 + (k & 7) * 32);
      acc ^= r[0] ^ r[1] ^ r[2] ^ r[3];
    }
  }
  const long long t1 = clock64();
  out[blockIdx.x * blockDim.x + threadIdx.x] = float(acc);
  if (threadIdx.x == 0) ticks[blockIdx.x] = t1 - t0;
}

// The engine's proportion: per 16 HMMA, 5 ldmatrix.x4 whose results feed them.
__global__ void mix_kernel(float* out, long long* ticks) {
  extern __shared__ unsigned char smem[];
  for (int i = threadIdx.x; i < 64 * 272 / 4; i += blockDim.x) reinterpret_cast<unsigned*>(smem)[i] = 0;
  __syncthreads();
  const unsigned base = unsigned(__cvta_generic_to_shared(smem));
  const int lane = threadIdx.x % 32;
  const unsigned row = base + ((lane & 7) + (lane >> 4) * 8) * 272 + ((lane >> 3) & 1) * 16;
  float c[8][4] = {};
  const long long t0 = clock64();
  for (int it = 0; it < kIters; ++it) {
    unsigned r[5][4];
#pragma unroll
    for (int k = 0; k < 5; ++k) ldsm_x4(r[k], row + ((k + it) & 3) * 16 * 272 + k * 32);
#pragma unroll
    for (int j = 0; j < 2; ++j) {
#pragma unroll
      for (int i = 0; i < 8; ++i) mma<false>(c[i], r[i & 1], r[2 + (i & 1)][j * 2], r[4][j * 2 + 1]);
    }
  }
  const long long t1 = clock64();
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 8; ++i) s += c[i][0] + c[i][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0) ticks[blockIdx.x] = t1 - t0;
}

__global__ void ex2_kernel(float* out, long long* ticks) {
  float x[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) x[i] = -float(threadIdx.x + i) * 1e-3f;
  const long long t0 = clock64();
  for (int it = 0; it < kIters; ++it) {
#pragma unroll
    for (int i = 0; i < 8; ++i) asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x[i]));
  }
  const long long t1 = clock64();
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 8; ++i) s += x[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0) ticks[blockIdx.x] = t1 - t0;
}


// The mma.sync attention engine's inner loop on constant tiles (no copies):
// per warp and 64-key tile, S = Q K^T for two 16-row m-tiles (16 + 32
// ldmatrix.x4, 128 HMMA), the online softmax (64 ex2, row max over quads),
// P packed to f16 and O += P V (32 ldmatrix.x4.trans, 128 HMMA).
// kGroups: one block of two 4-warp groups (each with its own tiles and
// barrier), with kTurns taking turns on the tensor pipe (named barriers) so
// that one group's softmax runs beside the other's HMMAs; otherwise two
// independent blocks of four warps per SM.
constexpr int kRowBytes = 272;   // 128 halves + 16 bytes of padding
constexpr int kTiles = 256;

__device__ __forceinline__ void ldsm_x4_t(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void bar_sync(int id, int n) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory");
}
__device__ __forceinline__ void bar_arrive(int id, int n) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(n) : "memory");
}
__device__ __forceinline__ float ex2(float x) {
  float r;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ unsigned pack_f16(float a, float b) {
  unsigned r;
  asm("cvt.rn.f16x2.f32 %0, %2, %1;" : "=r"(r) : "f"(a), "f"(b));
  return r;
}

__device__ __forceinline__ void copy16(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void mbar_init(unsigned bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect(unsigned bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned bar, int parity) {
  asm volatile(
      "{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra W; }" ::"r"(bar), "r"(parity) : "memory");
}
__device__ __forceinline__ void bulk_row(unsigned dst, const void* src, int bytes, unsigned bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
      ::"r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}

// kCopy: 0 no copies (constant K / V), 1 the next K / V tile by cp.async
// (16 bytes a thread at a time, as the engine copies), 2 by bulk copies
// (one 256-byte row per thread, completing on an mbarrier), 3 as 1 but
// never waited for (the copies' cost without their latency), 4 as 1 with
// half the bytes (K only), 5 two 16 KiB bulk copies issued by one thread (a
// tile in one piece, as TMA would copy it; the rows land unpadded where the
// ldmatrix reads expect padded ones: for the copies' cost only). Two stages.
// kWhere: the refill is issued right after the tile's barrier (0, as the
// engine does), after S = Q K^T (1), after the softmax (2), or two copies
// per k-step of S = Q K^T (3).
template <bool kGroups, bool kTurns, int kCopy = 0, int kWhere = 0>
__global__ void __launch_bounds__(kGroups ? 256 : 128, kGroups ? 1 : 2)
    attn_loop_kernel(float* out, long long* ticks, const unsigned short* kv_src) {
  constexpr bool kPingPong = kGroups && kTurns;
  extern __shared__ unsigned char smem[];
  const int group = kGroups ? int(threadIdx.x) / 128 : 0;
  const int gtid = int(threadIdx.x) - group * 128;
  // Q 128 rows, then two stages of K 64 rows and V 64 rows; the mbarriers after them.
  unsigned char* mine = smem + group * (384 * kRowBytes + 16);
  for (int i = gtid; i < 384 * kRowBytes / 4; i += 128) reinterpret_cast<unsigned*>(mine)[i] = 0x20002000u;
  const unsigned bars = unsigned(__cvta_generic_to_shared(mine + 384 * kRowBytes));
  if ((kCopy == 2 || kCopy == 5) && gtid == 0) {
    mbar_init(bars, 1);
    mbar_init(bars + 8, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  // Each block (group) streams 16 tiles of one of eight 1 MiB regions: from L2,
  // as the engine's K / V tiles mostly come.
  const unsigned short* src = kv_src + size_t((blockIdx.x * (kGroups ? 2 : 1) + group) % 8) * 16 * 128 * 128 * 2;
  const int warp = gtid / 32, lane = gtid % 32;
  const unsigned base = unsigned(__cvta_generic_to_shared(mine));
  const unsigned q = base + (warp * 32 + (lane & 7) + ((lane >> 3) & 1) * 8) * kRowBytes + (lane >> 4) * 16;
  const unsigned k0 = base + 128 * kRowBytes + ((lane & 7) + (lane >> 4) * 8) * kRowBytes + ((lane >> 3) & 1) * 16;
  const unsigned v0 = base + 192 * kRowBytes + ((lane & 7) + ((lane >> 3) & 1) * 8) * kRowBytes + (lane >> 4) * 16;
  // The copy of tile t into stage t % 2: K rows then V rows of 256 bytes.
  auto refill = [&](int t, int from = 0, int to = 16) {
    const unsigned stage = base + (128 + (t & 1) * 128) * kRowBytes;
    const unsigned short* tile = src + size_t(t & 15) * 128 * 128 * 2;
    if (kCopy == 1 || kCopy == 3 || kCopy == 4) {
#pragma unroll
      for (int i = from; i < (kCopy == 4 ? to / 2 : to); ++i) {
        const int c = gtid + i * 128, row = c / 16, col = c % 16;
        copy16(stage + row * kRowBytes + col * 16, tile + row * 128 + col * 8);
      }
      if (to == 16) asm volatile("cp.async.commit_group;" ::: "memory");
    } else if (kCopy == 2) {
      const unsigned bar = bars + (t & 1) * 8;
      if (gtid == 0) mbar_expect(bar, 128 * 256);
      bulk_row(stage + gtid * kRowBytes, tile + gtid * 128, 256, bar);
    } else if (kCopy == 5 && gtid == 0) {
      const unsigned bar = bars + (t & 1) * 8;
      mbar_expect(bar, 128 * 256);
      bulk_row(stage, tile, 64 * 256, bar);
      bulk_row(stage + 64 * kRowBytes, tile + 64 * 128, 64 * 256, bar);
    }
  };
  if (kCopy != 0) refill(0);
  float o[2][16][4] = {};
  float m[2][2] = {{-1e30f, -1e30f}, {-1e30f, -1e30f}}, l[2][2] = {};
  const int me = 1 + group, other = 2 - group;  // turn barriers 1 and 2
  if (kPingPong && group == 1) bar_arrive(1, 256);  // group 0 goes first
  const long long t0 = clock64();
#pragma unroll 1
  for (int t = 0; t < kTiles; ++t) {
    if (kCopy == 1 || kCopy == 4) asm volatile("cp.async.wait_group 0;" ::: "memory");
    if (kCopy == 2 || kCopy == 5) mbar_wait(bars + (t & 1) * 8, (t >> 1) & 1);
    if (kGroups) bar_sync(3 + group, 128); else __syncthreads();  // the per-tile barrier
    const bool more = kCopy != 0 && t + 1 < kTiles;
    if (kWhere == 0 && more) refill(t + 1);
    const unsigned k = kCopy ? k0 + (t & 1) * 128 * kRowBytes : k0;
    const unsigned v = kCopy ? v0 + (t & 1) * 128 * kRowBytes : v0;
    if (kPingPong) bar_sync(me, 256);
    float s[2][8][4] = {};
#pragma unroll
    for (int ks = 0; ks < 8; ++ks) {
      unsigned qa[2][4];
#pragma unroll
      for (int mt = 0; mt < 2; ++mt) ldsm_x4(qa[mt], q + mt * 16 * kRowBytes + ks * 32);
#pragma unroll
      for (int np = 0; np < 4; ++np) {
        unsigned kb[4];
        ldsm_x4(kb, k + np * 16 * kRowBytes + ks * 32);
#pragma unroll
        for (int mt = 0; mt < 2; ++mt) {
          mma<false>(s[mt][2 * np], qa[mt], kb[0], kb[1]);
          mma<false>(s[mt][2 * np + 1], qa[mt], kb[2], kb[3]);
        }
      }
    }
    if (kPingPong) bar_arrive(other, 256);
    if (kWhere == 1 && more) refill(t + 1);
    unsigned pk[2][8][2];
#pragma unroll
    for (int mt = 0; mt < 2; ++mt) {
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) {
        float mx = -1e30f;
#pragma unroll
        for (int nt = 0; nt < 8; ++nt) mx = fmaxf(mx, fmaxf(s[mt][nt][2 * hr], s[mt][nt][2 * hr + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, 2));
        const float mt_new = fmaxf(m[mt][hr], mx * 0.125f);
        m[mt][hr] = mt_new;
        float sum = 0.f;
#pragma unroll
        for (int nt = 0; nt < 8; ++nt) {
          const float a = ex2(fmaf(s[mt][nt][2 * hr], 0.125f, -mt_new));
          const float b = ex2(fmaf(s[mt][nt][2 * hr + 1], 0.125f, -mt_new));
          sum += a + b;
          pk[mt][nt][hr] = pack_f16(a, b);
        }
        l[mt][hr] += sum;
      }
    }
    if (kPingPong) bar_sync(me, 256);
    if (kWhere == 2 && more) refill(t + 1);
#pragma unroll
    for (int ps = 0; ps < 4; ++ps) {
#pragma unroll
      for (int dp = 0; dp < 8; ++dp) {
        unsigned vb[4];
        ldsm_x4_t(vb, v + ps * 16 * kRowBytes + dp * 32);
#pragma unroll
        for (int mt = 0; mt < 2; ++mt) {
          const unsigned pa[4] = {pk[mt][2 * ps][0], pk[mt][2 * ps][1], pk[mt][2 * ps + 1][0],
                                  pk[mt][2 * ps + 1][1]};
          mma<false>(o[mt][2 * dp], pa, vb[0], vb[1]);
          mma<false>(o[mt][2 * dp + 1], pa, vb[2], vb[3]);
        }
      }
    }
    if (kPingPong) bar_arrive(other, 256);
  }
  if (kPingPong && group == 0) bar_sync(1, 256);  // group 1's last arrival
  if (kCopy == 3) asm volatile("cp.async.wait_group 0;" ::: "memory");
  const long long t1 = clock64();
  float acc = l[0][0] + l[1][1] + m[0][1] + m[1][0];
#pragma unroll
  for (int mt = 0; mt < 2; ++mt) {
#pragma unroll
    for (int dt = 0; dt < 16; ++dt) acc += o[mt][dt][0] + o[mt][dt][3];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  if (threadIdx.x == 0) ticks[blockIdx.x] = t1 - t0;
}

struct Result {
  double ms;
  double mhz;
};

unsigned short* g_kv = nullptr;  // the attention loop's K / V source

void launch(void (*kernel)(float*, long long*), int blocks, int threads, int smem, float* out,
            long long* ticks) {
  kernel<<<blocks, threads, smem>>>(out, ticks);
}
void launch(void (*kernel)(float*, long long*, const unsigned short*), int blocks, int threads,
            int smem, float* out, long long* ticks) {
  kernel<<<blocks, threads, smem>>>(out, ticks, g_kv);
}

template <typename Kernel>
Result time_kernel(Kernel kernel, int blocks, int threads, int smem) {
  float* out;
  long long* ticks;
  CHECK(cudaMalloc(&out, sizeof(float) * blocks * threads));
  CHECK(cudaMalloc(&ticks, sizeof(long long) * blocks));
  if (smem > 48 * 1024) CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  launch(kernel, blocks, threads, smem, out, ticks);  // warm-up, clocks up
  launch(kernel, blocks, threads, smem, out, ticks);
  CHECK(cudaEventRecord(e0));
  launch(kernel, blocks, threads, smem, out, ticks);
  CHECK(cudaEventRecord(e1));
  CHECK(cudaEventSynchronize(e1));
  float ms = 0.f;
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  long long t = 0;
  CHECK(cudaMemcpy(&t, ticks, sizeof t, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(out));
  CHECK(cudaFree(ticks));
  return {ms, t / (ms * 1e3)};
}

}  // namespace

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %d SMs\n", prop.name, sms);
  std::printf("| test | warps/SM | rate | per SM clock | SM MHz |\n|---|---|---|---|---|\n");
  const double hmma_flop = 2.0 * 16 * 8 * 16;
  for (int warps : {4, 8, 16}) {
    // One block of `warps` warps per SM (blocks = SMs: one each, the launch is a single wave).
    auto run = [&](auto kernel, const char* name, int ilp) {
      const Result r = time_kernel(kernel, sms, warps * 32, 0);
      const double flop = hmma_flop * ilp * kIters * warps * sms;
      const double tflops = flop / (r.ms * 1e-3) / 1e12;
      std::printf("| %s | %d | %.1f TFLOP/s | %.0f FLOP | %.0f |\n", name, warps, tflops,
                  flop / sms / (r.ms * 1e-3 * r.mhz * 1e6), r.mhz);
    };
    run(hmma_kernel<false, 8>, "mma.sync f16, 8 chains", 8);
    run(hmma_kernel<true, 8>, "mma.sync bf16, 8 chains", 8);
    run(hmma_kernel<false, 1>, "mma.sync f16, 1 chain", 1);
    run(hmma_kernel<false, 2>, "mma.sync f16, 2 chains", 2);
    {
      const Result r = time_kernel(mix_kernel, sms, warps * 32, 64 * 272);
      const double flop = hmma_flop * 16 * double(kIters) * warps * sms;
      std::printf("| mma.sync f16 + ldmatrix 16:5 | %d | %.1f TFLOP/s | %.0f FLOP | %.0f |\n", warps,
                  flop / (r.ms * 1e-3) / 1e12, flop / sms / (r.ms * 1e-3 * r.mhz * 1e6), r.mhz);
    }
    {
      const Result r = time_kernel(ldsm_kernel, sms, warps * 32, 64 * 272);
      const double bytes = 512.0 * 8 * kIters * warps * sms;
      std::printf("| ldmatrix.x4 | %d | %.1f TB/s | %.0f B | %.0f |\n", warps,
                  bytes / (r.ms * 1e-3) / 1e12, bytes / sms / (r.ms * 1e-3 * r.mhz * 1e6), r.mhz);
    }
    {
      const Result r = time_kernel(ex2_kernel, sms, warps * 32, 0);
      const double ops = 32.0 * 8 * kIters * warps * sms;
      std::printf("| ex2.approx | %d | %.2f Tops | %.1f ops | %.0f |\n", warps,
                  ops / (r.ms * 1e-3) / 1e12, ops / sms / (r.ms * 1e-3 * r.mhz * 1e6), r.mhz);
    }
  }
  {
    // The engine's loop: 8 warps per SM either way; FLOPs 4 * 128 * 64 * 128 per block-group tile.
    const double flop = 4.0 * 128 * 64 * 128 * kTiles * 2 * sms;
    const size_t kv_bytes = size_t(8) * 16 * 128 * 128 * 2 * 2;
    CHECK(cudaMalloc(&g_kv, kv_bytes));
    CHECK(cudaMemset(g_kv, 0x20, kv_bytes));
    const int smem = 384 * kRowBytes + 16;
    auto run = [&](auto kernel, bool groups, const char* name) {
      const Result r = groups ? time_kernel(kernel, sms, 256, 2 * smem)
                              : time_kernel(kernel, 2 * sms, 128, smem);
      std::printf("| attention loop, %s | 8 | %.1f TFLOP/s | %.0f FLOP | %.0f |\n", name,
                  flop / (r.ms * 1e-3) / 1e12, flop / sms / (r.ms * 1e-3 * r.mhz * 1e6), r.mhz);
    };
    run(attn_loop_kernel<false, false, 5>, false, "two blocks, K / V tiles by two 16 KiB bulk copies");
    run(attn_loop_kernel<false, false>, false, "two blocks of 4 warps");
    run(attn_loop_kernel<true, false>, true, "one block of two 4-warp groups");
    run(attn_loop_kernel<true, true>, true, "ping-pong of two 4-warp groups");
    run(attn_loop_kernel<false, false, 1>, false, "two blocks, K / V by cp.async");
    run(attn_loop_kernel<false, false, 2>, false, "two blocks, K / V by bulk copies");
    run(attn_loop_kernel<false, false, 3>, false, "two blocks, cp.async never waited for");
    run(attn_loop_kernel<false, false, 4>, false, "two blocks, cp.async of K only");
    run(attn_loop_kernel<false, false, 1, 1>, false, "two blocks, cp.async issued after S = Q K^T");
    run(attn_loop_kernel<false, false, 1, 2>, false, "two blocks, cp.async issued after the softmax");
    run(attn_loop_kernel<false, false, 1, 3>, false,
        "two blocks, cp.async issued two per k-step of S = Q K^T");
  }
  return 0;
}
