#pragma once
// Accelerator vendors (docs/hardware.md#vendors): what Kubernetes and each vendor's tools call their
// devices, and the scale-up fabric that links a node's accelerators. These are protocol names (device
// plugin resources, DRA driver names, topology codes), each with its source below, not model figures.
#include <cstdint>
#include <optional>
#include <string_view>

#include "gpusim/core/enum_table.hpp"

namespace gpusim {

enum class Vendor : uint8_t { nvidia, amd, intel };
constexpr auto enum_table(Vendor) {
  using V = Vendor;
  return std::to_array<EnumName<V>>({{V::nvidia, "nvidia"}, {V::amd, "amd"}, {V::intel, "intel"}});
}

// How a node's accelerators reach each other without the host: NVLink through NVSwitches (every pair
// at a GPU's full NVLink bandwidth) or bridged pairs; AMD's Infinity Fabric (xGMI) and Intel Gaudi's
// on-chip RoCE ports as a mesh of direct links (docs/hardware.md#interconnects-and-collectives).
enum class Fabric : uint8_t { nvlink, xgmi, roce };
constexpr auto enum_table(Fabric) {
  using F = Fabric;
  return std::to_array<EnumName<F>>({{F::nvlink, "nvlink"}, {F::xgmi, "xgmi"}, {F::roce, "roce"}});
}

struct VendorInfo {
  // The extended resource its device plugin advertises for a whole device: NVIDIA k8s-device-plugin,
  // ROCm/k8s-device-plugin (README), HabanaAI habana-k8s-device-plugin (README).
  std::string_view device_resource;
  // Its DRA driver's name (the attribute domain of its devices): NVIDIA/k8s-dra-driver-gpu
  // (cmd/gpu-kubelet-plugin/main.go), ROCm/k8s-gpu-dra-driver, intel/intel-resource-drivers-for-kubernetes.
  std::string_view dra_driver;
  Fabric fabric;                   // the scale-up fabric of its accelerators
  std::string_view compute_units;  // what its compute units are called in outputs: SMs, CUs, TPCs
};

// Protocol names per vendor; the sources are in docs/hardware.md#vendors.
inline constexpr VendorInfo kVendors[] = {
    {"nvidia.com/gpu", "gpu.nvidia.com", Fabric::nvlink, "SMs"},
    {"amd.com/gpu", "gpu.amd.com", Fabric::xgmi, "CUs"},
    {"habana.ai/gaudi", "gaudi.intel.com", Fabric::roce, "TPCs"},
};
constexpr const VendorInfo& vendor_info(Vendor v) { return kVendors[static_cast<std::size_t>(v)]; }

// A GPU model's two fields for its fabric, as the catalog (gpus.yaml, `gpusim catalog --json`) names them.
struct FabricFields {
  std::string_view bandwidth, links;
};
inline constexpr FabricFields kFabricFields[] = {
    {"nvlink_gb_per_s", "nvlinks"}, {"xgmi_gb_per_s", "xgmi_links"}, {"roce_gb_per_s", "roce_links"}};
constexpr const FabricFields& fabric_fields(Fabric f) { return kFabricFields[static_cast<std::size_t>(f)]; }

// The vendor whose device plugin advertises `resource` (nvidia.com/..., amd.com/..., habana.ai/...); none
// for anything else (an unnamed resource: any vendor's whole device).
constexpr std::optional<Vendor> resource_vendor(std::string_view resource) {
  if (resource.starts_with("nvidia.com/")) return Vendor::nvidia;
  if (resource.starts_with("amd.com/")) return Vendor::amd;
  if (resource.starts_with("habana.ai/")) return Vendor::intel;
  return std::nullopt;
}

// The partition a resource names: nvidia.com/mig-<profile> (MIG, the mixed strategy), or
// amd.com/<compute>_<memory> (the AMD device plugin's mixed naming strategy, e.g. amd.com/cpx_nps4);
// empty for a whole device.
constexpr std::string_view partition_profile(std::string_view resource) {
  constexpr std::string_view mig = "nvidia.com/mig-", amd = "amd.com/";
  if (resource.starts_with(mig)) return resource.substr(mig.size());
  if (resource.starts_with(amd) && resource != vendor_info(Vendor::amd).device_resource) return resource.substr(amd.size());
  return {};
}

}  // namespace gpusim
