#include "jitk/device.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/internal/device_impl.h"

namespace jitk {

Inventory DiscoverDevices() {
  Inventory inventory;
  for (internal::Backend* backend : internal::BuiltinBackends()) {
    BackendReport report = backend->Report();
    for (DeviceInfo& device : report.devices) {
      device.ordinal = int(inventory.devices.size());
      inventory.devices.push_back(device);
    }
    inventory.backends.push_back(std::move(report));
  }
  return inventory;
}

namespace internal {

const Inventory& CachedInventory() {
  static const Inventory* const kInventory = new Inventory(DiscoverDevices());
  return *kInventory;
}

ArchInfo ArchForDevice(const DeviceInfo& device) {
  // The target first: sm_90a's instructions (wgmma) are not plain sm_90's.
  absl::StatusOr<ArchInfo> known = LookupArch(device.target);
  if (!known.ok()) known = LookupArch(device.arch);
  ArchInfo arch;
  if (known.ok()) {
    arch = *known;
  } else {
    arch.vendor = device.vendor;
    arch.family = "unknown";
    arch.max_registers_per_thread = device.vendor == Vendor::kAmd ? 256 : 255;
    arch.matrix_isa = "none";
  }
  // The device's own numbers beat the table's flagship part.
  arch.name = device.arch;
  if (device.wave_size > 0) arch.wave_size = device.wave_size;
  if (device.compute_units > 0) arch.compute_units = device.compute_units;
  if (device.max_threads_per_block > 0) arch.max_threads_per_block = device.max_threads_per_block;
  if (device.lds_bytes_per_block > 0) arch.lds_bytes_per_block = device.lds_bytes_per_block;
  if (device.lds_bytes_per_cu > 0) arch.lds_bytes_per_cu = device.lds_bytes_per_cu;
  return arch;
}

ArchInfo ArchForCode(const DeviceInfo& device, absl::string_view code_target) {
  ArchInfo arch = ArchForDevice(device);
  if (absl::StatusOr<ArchInfo> code = LookupArch(code_target); code.ok()) {
    arch.matrix_isa = code->matrix_isa;
  }
  return arch;
}

}  // namespace internal

absl::StatusOr<Device> Device::Open(int ordinal) {
  const Inventory& inventory = internal::CachedInventory();
  if (ordinal < 0 || ordinal >= int(inventory.devices.size())) {
    std::vector<std::string> why;
    for (const BackendReport& report : inventory.backends) {
      why.push_back(absl::StrCat(report.backend, ": ", report.runtime_status));
    }
    if (why.empty()) why.push_back("no GPU backend was built in");
    return absl::NotFoundError(absl::StrCat(
        "no GPU ", ordinal, " (found ", inventory.devices.size(), "; ", absl::StrJoin(why, "; "),
        "). Compiling still works without a GPU: pass an architecture, e.g. --arch gfx942"));
  }
  const DeviceInfo& info = inventory.devices[ordinal];
  auto impl = std::make_shared<Impl>();
  impl->info = info;
  for (internal::Backend* backend : internal::BuiltinBackends()) {
    if (backend->name() == info.backend) impl->backend = backend;
  }
  return Device(std::move(impl));
}

const DeviceInfo& Device::info() const { return impl_->info; }

absl::StatusOr<DeviceBuffer> Device::Allocate(size_t bytes) const {
  absl::StatusOr<void*> data = impl_->backend->Allocate(impl_->info.backend_ordinal, bytes);
  if (!data.ok()) return data.status();
  return DeviceBuffer(*this, *data, bytes);
}

absl::Status Device::CopyToDevice(void* device_dst, const void* host_src, size_t bytes) const {
  return impl_->backend->CopyToDevice(impl_->info.backend_ordinal, device_dst, host_src, bytes);
}

absl::Status Device::CopyToHost(void* host_dst, const void* device_src, size_t bytes) const {
  return impl_->backend->CopyToHost(impl_->info.backend_ordinal, host_dst, device_src, bytes);
}

absl::Status Device::Memset(void* device_dst, uint8_t value, size_t bytes) const {
  return impl_->backend->Memset(impl_->info.backend_ordinal, device_dst, value, bytes);
}

absl::Status Device::Synchronize(Stream stream) const {
  return impl_->backend->Synchronize(impl_->info.backend_ordinal, stream);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : device_(std::move(other.device_)), data_(other.data_), size_(other.size_) {
  other.device_.reset();
  other.data_ = nullptr;
  other.size_ = 0;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    this->~DeviceBuffer();
    new (this) DeviceBuffer(std::move(other));
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (device_.has_value() && data_ != nullptr) {
    // A failed free has no caller to tell; the memory goes back at exit.
    (void)device_->impl()->backend->Free(device_->info().backend_ordinal, data_);
  }
}

}  // namespace jitk
