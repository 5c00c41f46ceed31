#include "gpusim/hardware/dra_devices.hpp"

#include <cmath>

namespace gpusim {

namespace {

// "8.0.0" from 8.0, "8.9.0" from 8.9: the catalog keeps a compute capability as major.minor.
cel::Version compute_capability_version(double cc) {
  const auto tenths = static_cast<int64_t>(std::lround(cc * 10));
  return {tenths / 10, tenths % 10, 0};
}

cel::Device common(const GpuModel& gpu, std::string_view type) {
  cel::Device d;
  d.driver = vendor_info(gpu.vendor).dra_driver;
  d.attributes.emplace("type", std::string(type));
  if (gpu.vendor != Vendor::nvidia) {
    // AMD's and Intel's drivers: the model (Intel's gaudi.intel.com publishes `model`, e.g. Gaudi2) and
    // the vendor; their other attributes (serial, PCI root, health) are per device and not modelled.
    d.attributes.emplace("model", gpu.name);
    d.attributes.emplace("vendor", std::string(to_string(gpu.vendor)));
    return d;
  }
  // NVML's device name (nvlib.go: device.GetName()), which the catalog keeps as product_names.
  d.attributes.emplace("productName", gpu.product_name());
  d.attributes.emplace("architecture", std::string(gpu_architecture(gpu.compute_capability)));
  d.attributes.emplace("cudaComputeCapability", compute_capability_version(gpu.compute_capability));
  return d;
}

cel::Quantity bytes_of_mib(int64_t mib) { return cel::Quantity::of(mib * 1024 * 1024); }

}  // namespace

std::string_view gpu_architecture(double compute_capability) {
  const cel::Version v = compute_capability_version(compute_capability);
  if (v.major == 6) return "Pascal";
  if (v.major == 7) return v.minor == 5 ? "Turing" : "Volta";
  if (v.major == 8) return v.minor == 9 ? "Ada Lovelace" : "Ampere";
  if (v.major == 9) return "Hopper";
  if (v.major == 10 || v.major == 12) return "Blackwell";
  return "Unknown";
}

cel::Device whole_gpu_device(const GpuModel& gpu) {
  cel::Device d = common(gpu, "gpu");
  d.capacity.emplace("memory", bytes_of_mib(gpu.memory_mib));
  d.capacity.emplace("multiprocessors", cel::Quantity::of(gpu.sms));
  return d;
}

cel::Device mig_device(const GpuModel& gpu, const MigProfile& profile) {
  cel::Device d = common(gpu, gpu.partitions ? "partition" : "mig");
  d.attributes.emplace(gpu.partitions ? "partition" : "profile", profile.name);
  // NVML's MIG memory size is in MiB (mig.go: "memory" is MemorySizeMB x 1024 x 1024 bytes).
  d.capacity.emplace("memory", bytes_of_mib(profile.memory_mib));
  d.capacity.emplace("multiprocessors", cel::Quantity::of(profile.sms));
  d.capacity.emplace("copyEngines", cel::Quantity::of(profile.copy_engines));
  return d;
}

}  // namespace gpusim
