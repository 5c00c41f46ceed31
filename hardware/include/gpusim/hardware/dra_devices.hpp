#pragma once
// The DRA devices a GPU publishes, as NVIDIA's DRA driver (github.com/NVIDIA/k8s-dra-driver-gpu,
// cmd/gpu-kubelet-plugin: deviceinfo.go GpuInfo.Attributes, partitions.go fullGpuCapacity, mig.go
// CommonAttributesMig/CommonCapacitiesMig) puts them in its ResourceSlices, from the catalog's figures.
// docs/guide/tenants.md, DRA claims lists them.
#include <string_view>

#include "gpusim/hardware/catalog.hpp"
#include "gpusim/hardware/cel.hpp"

namespace gpusim {

// NVML's architecture name (go-nvlib GetArchitectureAsString) of a CUDA compute capability (NVIDIA's
// CUDA GPUs table: 6.x Pascal, 7.0/7.2 Volta, 7.5 Turing, 8.0/8.6/8.7 Ampere, 8.9 Ada Lovelace,
// 9.0 Hopper, 10.x/12.x Blackwell); "Unknown" otherwise, as NVML says.
std::string_view gpu_architecture(double compute_capability);

// A whole GPU (type "gpu"): attributes type, productName, architecture, cudaComputeCapability;
// capacity memory (bytes) and multiprocessors. The driver publishes multiprocessors of a whole GPU
// with its partitionable devices (KEP 4815, maxCapacities); gpusim publishes it for every GPU, as
// the catalog has the figure. Per-device attributes (uuid, driver versions, PCI bus) are not modelled.
cel::Device whole_gpu_device(const GpuModel& gpu);

// A MIG device of `profile` (type "mig"): its parent's attributes plus profile; capacity memory
// (bytes), multiprocessors and copyEngines of the profile. An AMD partition is type "partition" with
// its mode as `partition` (e.g. cpx_nps4). AMD's and Intel's devices carry `model` and `vendor` instead
// of NVIDIA's attributes, under their driver's name (vendor_info).
cel::Device mig_device(const GpuModel& gpu, const MigProfile& profile);

}  // namespace gpusim
