// 01_scaled_add: get a kernel for a shape, run it, check the result.
//
// On a machine without a GPU it says so and exits 0: compiling needs no GPU
// (see jitk-info --compile), running does.
#include <cmath>
#include <cstdio>
#include <vector>

#include "jitk/jitk.h"

int main() {
  const int64_t n = 1 << 20;
  absl::StatusOr<jitk::Device> gpu = jitk::Device::Open();
  if (!gpu.ok()) {
    printf("%s\n", gpu.status().ToString().c_str());
    return 0;
  }
  jitk::Shape shape = jitk::Shape(jitk::DType::kF32).Set("n", n);
  absl::StatusOr<jitk::Kernel> kernel = jitk::get_kernel("scaled_add", shape);
  if (!kernel.ok()) {
    fprintf(stderr, "%s\n", kernel.status().ToString().c_str());
    return 1;
  }
  printf("scaled_add on %s (%s), config %s (%s)\n", gpu->info().name.c_str(),
         kernel->compiled().target.c_str(), jitk::KernelConfigToString(kernel->config()).c_str(),
         std::string(jitk::ConfigSourceName(kernel->config_source())).c_str());

  std::vector<float> x(n), y(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = std::sin(0.001f * i);
    y[i] = std::cos(0.002f * i);
  }
  const size_t bytes = n * sizeof(float);
  absl::StatusOr<jitk::DeviceBuffer> dx = gpu->Allocate(bytes), dy = gpu->Allocate(bytes),
                                     dout = gpu->Allocate(bytes);
  if (!dx.ok() || !dy.ok() || !dout.ok()) {
    fprintf(stderr, "device allocation failed\n");
    return 1;
  }
  absl::Status status = gpu->CopyToDevice(dx->data(), x.data(), bytes);
  if (status.ok()) status = gpu->CopyToDevice(dy->data(), y.data(), bytes);
  if (status.ok()) {
    status = kernel->Launch(jitk::LaunchArgs()
                                .Ptr("out", dout->data())
                                .Ptr("x", dx->data())
                                .Ptr("y", dy->data())
                                .Int("n", n)
                                .Float("scale", 0.5f));
  }
  if (status.ok()) status = gpu->CopyToHost(out.data(), dout->data(), bytes);
  if (!status.ok()) {
    fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  double max_error = 0;
  for (int64_t i = 0; i < n; ++i) {
    max_error = std::fmax(max_error, std::fabs(out[i] - (double(x[i]) + 0.5 * double(y[i]))));
  }
  printf("max abs error vs fp64: %.3g\n", max_error);
  return max_error < 1e-6 ? 0 : 1;
}
