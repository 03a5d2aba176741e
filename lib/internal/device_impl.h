// What a jitk::Device handle points at, and the process-wide device list.
#ifndef JITK_LIB_INTERNAL_DEVICE_IMPL_H_
#define JITK_LIB_INTERNAL_DEVICE_IMPL_H_

#include "jitk/device.h"
#include "lib/backend/backend.h"

namespace jitk {

struct Device::Impl {
  DeviceInfo info;
  internal::Backend* backend = nullptr;
};

namespace internal {

// DiscoverDevices() done once per process; Device::Open and get_kernel use it.
const Inventory& CachedInventory();

// The architecture facts for a present device: the table's entry with the
// device's own counts (CUs, LDS, wave size) filled in; for an architecture
// missing from the table, what the device itself reports. The result's
// name views `device.arch`: `device` must outlive it.
ArchInfo ArchForDevice(const DeviceInfo& device);
// ArchForDevice for code built for `code_target` on that device: the
// instructions are the code's (sm_90 code on an sm_90a GPU has no wgmma), so
// launches are planned for the engine it was built with.
ArchInfo ArchForCode(const DeviceInfo& device, absl::string_view code_target);

}  // namespace internal
}  // namespace jitk

#endif  // JITK_LIB_INTERNAL_DEVICE_IMPL_H_
