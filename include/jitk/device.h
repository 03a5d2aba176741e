// jitk/device.h — the GPUs jitk found, and their memory.
//
// jitk loads the vendor runtimes at run time, so discovery never fails just
// because a GPU stack is absent: DiscoverDevices() reports what each backend
// found (or why it found nothing) and which targets its compiler can build
// for without a GPU.
//
// Example:
//   absl::StatusOr<jitk::Device> gpu = jitk::Device::Open();
//   if (!gpu.ok()) { puts(gpu.status().ToString().c_str()); return; }
//   absl::StatusOr<jitk::DeviceBuffer> x = gpu->Allocate(n * sizeof(float));
//   absl::Status st = gpu->CopyToDevice(x->data(), host.data(), x->size());
#ifndef JITK_DEVICE_H_
#define JITK_DEVICE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "jitk/arch.h"

namespace jitk {

// A hipStream_t or CUstream; nullptr is the device's default stream.
using Stream = void*;

struct DeviceInfo {
  int ordinal = 0;            // index among all devices jitk found
  int backend_ordinal = 0;    // index within its backend
  Vendor vendor = Vendor::kAmd;
  std::string backend;        // "hip" or "cuda"
  std::string name;           // marketing name, "AMD Instinct MI300X", "NVIDIA H200"
  std::string arch;           // "gfx942", "sm_90"
  std::string target;         // "gfx942:sramecc+:xnack-", "sm_90"
  int wave_size = 0;
  int compute_units = 0;
  int max_threads_per_block = 0;
  int lds_bytes_per_block = 0;
  int lds_bytes_per_cu = 0;
  int clock_mhz = 0;
  uint64_t memory_bytes = 0;
};

// What one backend reported.
struct BackendReport {
  std::string backend;                       // "hip", "cuda"
  bool runtime_available = false;            // the GPU runtime library loaded
  bool compiler_available = false;           // hiprtc / NVRTC loaded
  std::string runtime_status;                // "ok" or why not
  std::string compiler_status;
  std::string compiler_version;              // "hiprtc 5.2", "nvrtc 13.0"
  std::vector<std::string> compile_targets;  // what it builds for without a GPU
  std::vector<DeviceInfo> devices;
  std::string gfx_override;                  // HSA_OVERRIDE_GFX_VERSION when set
};

struct Inventory {
  std::vector<BackendReport> backends;
  std::vector<DeviceInfo> devices;  // all backends, in ordinal order
};

// Asks every built-in backend. Never fails; problems are in the reports.
Inventory DiscoverDevices();

class DeviceBuffer;

// One GPU. Copyable handle; all methods are thread-safe.
class Device {
 public:
  // The `ordinal`-th GPU of DiscoverDevices(). kNotFound (naming what each
  // backend said) when there is none.
  static absl::StatusOr<Device> Open(int ordinal = 0);

  const DeviceInfo& info() const;

  absl::StatusOr<DeviceBuffer> Allocate(size_t bytes) const;
  absl::Status CopyToDevice(void* device_dst, const void* host_src, size_t bytes) const;
  absl::Status CopyToHost(void* host_dst, const void* device_src, size_t bytes) const;
  absl::Status Memset(void* device_dst, uint8_t value, size_t bytes) const;
  absl::Status Synchronize(Stream stream = nullptr) const;

  struct Impl;
  explicit Device(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  const std::shared_ptr<const Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

// Device memory, freed when the buffer is destroyed. Move-only.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Device device, void* data, size_t size)
      : device_(std::move(device)), data_(data), size_(size) {}
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  ~DeviceBuffer();

  void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::optional<Device> device_;
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace jitk

#endif  // JITK_DEVICE_H_
