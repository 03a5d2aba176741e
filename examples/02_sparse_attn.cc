// 02_sparse_attn: block-sparse attention with a FlexAttention-style mask.
//
// Builds a sliding-window mask, gets the sparse_attn kernel tuned for the
// shape, runs it on random fp16 inputs and checks a few rows against an
// fp64 computation on the host.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "jitk/block_mask.h"
#include "jitk/jitk.h"

namespace {

uint16_t ToHalf(float v) { return std::bit_cast<uint16_t>(static_cast<_Float16>(v)); }
float FromHalf(uint16_t bits) { return static_cast<float>(std::bit_cast<_Float16>(bits)); }

}  // namespace

int main() {
  const int batch = 1, heads = 2, len = 1000, dim = 64, window = 256, global = 16;
  absl::StatusOr<jitk::Device> gpu = jitk::Device::Open();
  if (!gpu.ok()) {
    printf("%s\n", gpu.status().ToString().c_str());
    return 0;
  }
  absl::StatusOr<jitk::BlockMask> mask =
      jitk::BlockMask::SlidingWindow(len, len, window, global, /*causal=*/true);
  if (!mask.ok()) return fprintf(stderr, "%s\n", mask.status().ToString().c_str()), 1;
  printf("mask: %s, %.1f%% of key blocks visited\n",
         std::string(jitk::AttentionLayoutName(mask->layout())).c_str(), 100 * mask->Density());

  // Random q, k, v in BHLD layout, fp16 storage.
  const size_t elements = size_t(batch) * heads * len * dim;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<uint16_t> q(elements), k(elements), v(elements), o(elements);
  for (auto* t : {&q, &k, &v}) {
    for (uint16_t& x : *t) x = ToHalf(normal(rng));
  }
  const size_t bytes = elements * 2;
  absl::StatusOr<jitk::DeviceBuffer> dq = gpu->Allocate(bytes), dk = gpu->Allocate(bytes),
                                     dv = gpu->Allocate(bytes), dout = gpu->Allocate(bytes),
                                     dlse = gpu->Allocate(size_t(batch) * heads * len * 4);
  absl::StatusOr<jitk::DeviceBlockMask> dmask = mask->Upload(*gpu);
  if (!dq.ok() || !dk.ok() || !dv.ok() || !dout.ok() || !dlse.ok() || !dmask.ok()) {
    return fprintf(stderr, "device setup failed\n"), 1;
  }
  absl::Status status = gpu->CopyToDevice(dq->data(), q.data(), bytes);
  if (status.ok()) status = gpu->CopyToDevice(dk->data(), k.data(), bytes);
  if (status.ok()) status = gpu->CopyToDevice(dv->data(), v.data(), bytes);

  jitk::Shape shape = mask->AttentionShape(jitk::DType::kF16, batch, heads, heads, dim);
  absl::StatusOr<jitk::Kernel> kernel = jitk::get_kernel("sparse_attn", shape);
  if (!kernel.ok()) return fprintf(stderr, "%s\n", kernel.status().ToString().c_str()), 1;
  printf("sparse_attn %s on %s: config %s (%s)\n", shape.Key().c_str(), gpu->info().name.c_str(),
         jitk::KernelConfigToString(kernel->config()).c_str(),
         std::string(jitk::ConfigSourceName(kernel->config_source())).c_str());

  const float scale = 1.0f / std::sqrt(float(dim));
  jitk::LaunchArgs args;
  args.Ptr("q", dq->data()).Ptr("k", dk->data()).Ptr("v", dv->data()).Ptr("o", dout->data());
  args.Ptr("lse", dlse->data()).Float("scale", scale);
  dmask->AddLaunchArgs(args);
  if (status.ok()) status = kernel->Launch(args);
  if (status.ok()) status = gpu->CopyToHost(o.data(), dout->data(), bytes);
  if (!status.ok()) return fprintf(stderr, "%s\n", status.ToString().c_str()), 1;

  // fp64 check of a few query rows of head 0.
  double worst = 0;
  for (int row : {0, 1, 255, 256, 511, len - 1}) {
    std::vector<double> p(len, 0.0);
    double max_logit = -INFINITY, sum = 0;
    for (int key = 0; key < len; ++key) {
      if (!mask->Allows(0, 0, row, key)) continue;
      double dot = 0;
      for (int d = 0; d < dim; ++d) dot += double(FromHalf(q[row * dim + d])) * FromHalf(k[key * dim + d]);
      p[key] = dot * scale;
      max_logit = std::max(max_logit, p[key]);
    }
    for (int key = 0; key < len; ++key) {
      p[key] = mask->Allows(0, 0, row, key) ? std::exp(p[key] - max_logit) : 0.0;
      sum += p[key];
    }
    for (int d = 0; d < dim; ++d) {
      double want = 0;
      for (int key = 0; key < len; ++key) want += p[key] / sum * FromHalf(v[key * dim + d]);
      worst = std::max(worst, std::fabs(want - FromHalf(o[row * dim + d])));
    }
  }
  printf("max abs error on checked rows vs fp64: %.3g\n", worst);
  return worst < 5e-3 ? 0 : 1;
}
