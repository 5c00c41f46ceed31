#pragma once
// The DRA devices a GPU publishes, as its vendor's DRA driver puts them in its ResourceSlices, from the
// catalog's figures (docs/guide/tenants.md, DRA claims). NVIDIA's (github.com/NVIDIA/k8s-dra-driver-gpu,
// cmd/gpu-kubelet-plugin: deviceinfo.go GpuInfo.Attributes, partitions.go fullGpuCapacity, mig.go
// CommonAttributesMig/CommonCapacitiesMig); AMD's (github.com/ROCm/k8s-gpu-dra-driver,
// cmd/gpu-kubeletplugin/deviceinfo.go GetDevice, types.go); Intel's Gaudi driver
// (github.com/intel/intel-resource-drivers-for-kubernetes, cmd/kubelet-gaudi-plugin/node_state.go).
// Per-device attributes (uuid, serial, PCI address and root, driver versions, card and render
// indices) are not modelled.
#include <string_view>

#include "gpusim/hardware/catalog.hpp"
#include "gpusim/hardware/cel.hpp"

namespace gpusim {

// NVML's architecture name (go-nvlib GetArchitectureAsString) of a CUDA compute capability (NVIDIA's
// CUDA GPUs table: 6.x Pascal, 7.0/7.2 Volta, 7.5 Turing, 8.0/8.6/8.7 Ampere, 8.9 Ada Lovelace,
// 9.0 Hopper, 10.x/12.x Blackwell); "Unknown" otherwise, as NVML says.
std::string_view gpu_architecture(double compute_capability);

// A whole GPU. NVIDIA: type "gpu", productName, architecture, cudaComputeCapability; capacity memory
// (bytes) and multiprocessors (the driver publishes it for a whole GPU with its partitionable devices,
// KEP 4815, maxCapacities; gpusim for every GPU, as the catalog has the figure). AMD: type "amdgpu",
// productName (spaces as underscores), family "AI" (the MI300 series' amdgpu family), partitionProfile
// "spx_nps1"; capacity memory, computeUnits and simdUnits (4 a CU on CDNA 3). Intel: model (Gaudi2,
// Gaudi3: the driver's ModelNames) and healthy; no capacity.
cel::Device whole_gpu_device(const GpuModel& gpu);

// A partition of `profile`. NVIDIA's MIG device: type "mig", its parent's attributes plus profile;
// capacity memory (bytes), multiprocessors and copyEngines of the profile. AMD's partition: type
// "amdgpu-partition", its parent's attributes with partitionProfile the mode (e.g. cpx_nps4); capacity
// memory, computeUnits and simdUnits of the partition.
cel::Device mig_device(const GpuModel& gpu, const MigProfile& profile);

}  // namespace gpusim
