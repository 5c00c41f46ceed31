#include "gpusim/hardware/dra_devices.hpp"

#include <cmath>

namespace gpusim {

namespace {

// "8.0.0" from 8.0, "8.9.0" from 8.9: the catalog keeps a compute capability as major.minor.
cel::Version compute_capability_version(double cc) {
  const auto tenths = static_cast<int64_t>(std::lround(cc * 10));
  return {tenths / 10, tenths % 10, 0};
}

cel::Quantity bytes_of_mib(int64_t mib) { return cel::Quantity::of(mib * 1024 * 1024); }

constexpr int kSimdsPerCu = 4;  // CDNA 3 (AMD's CDNA 3 white paper; the node labeller's simd-count 1216 for 304 CUs)

cel::Device common(const GpuModel& gpu, std::string_view type) {
  cel::Device d;
  d.driver = vendor_info(gpu.vendor).dra_driver;
  if (gpu.vendor == Vendor::intel) {
    d.attributes.emplace("model", gpu.name);
    d.attributes.emplace("healthy", true);
    return d;
  }
  d.attributes.emplace("type", std::string(type));
  if (gpu.vendor == Vendor::amd) {
    d.attributes.emplace("productName", gpu.product_label('_'));
    d.attributes.emplace("family", std::string("AI"));
    return d;
  }
  // NVML's device name (nvlib.go: device.GetName()), which the catalog keeps as product_names.
  d.attributes.emplace("productName", gpu.product_name());
  d.attributes.emplace("architecture", std::string(gpu_architecture(gpu.compute_capability)));
  d.attributes.emplace("cudaComputeCapability", compute_capability_version(gpu.compute_capability));
  return d;
}

// AMD's capacities: memory, computeUnits, simdUnits.
void amd_capacity(cel::Device& d, int64_t memory_mib, int compute_units) {
  d.capacity.emplace("memory", bytes_of_mib(memory_mib));
  d.capacity.emplace("computeUnits", cel::Quantity::of(compute_units));
  d.capacity.emplace("simdUnits", cel::Quantity::of(compute_units * kSimdsPerCu));
}

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
  cel::Device d = common(gpu, gpu.vendor == Vendor::amd ? "amdgpu" : "gpu");
  if (gpu.vendor == Vendor::intel) return d;
  if (gpu.vendor == Vendor::amd) {
    d.attributes.emplace("partitionProfile", std::string("spx_nps1"));
    amd_capacity(d, gpu.memory_mib, gpu.sms);
    return d;
  }
  d.capacity.emplace("memory", bytes_of_mib(gpu.memory_mib));
  d.capacity.emplace("multiprocessors", cel::Quantity::of(gpu.sms));
  return d;
}

cel::Device mig_device(const GpuModel& gpu, const MigProfile& profile) {
  if (gpu.vendor == Vendor::amd) {
    cel::Device d = common(gpu, "amdgpu-partition");
    d.attributes.emplace("partitionProfile", profile.name);
    amd_capacity(d, profile.memory_mib, profile.sms);
    return d;
  }
  cel::Device d = common(gpu, "mig");
  d.attributes.emplace("profile", profile.name);
  // NVML's MIG memory size is in MiB (mig.go: "memory" is MemorySizeMB x 1024 x 1024 bytes).
  d.capacity.emplace("memory", bytes_of_mib(profile.memory_mib));
  d.capacity.emplace("multiprocessors", cel::Quantity::of(profile.sms));
  d.capacity.emplace("copyEngines", cel::Quantity::of(profile.copy_engines));
  return d;
}

}  // namespace gpusim
