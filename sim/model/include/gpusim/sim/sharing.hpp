#pragma once
// How the GPUs of a pool are shared (docs/guide/sharing.md; docs/hardware.md), in the forms operators already
// write: the device plugin's `sharing:` block (timeSlicing / mps) and mig-parted configs.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/core/enum_table.hpp"
#include "gpusim/hardware/mig.hpp"

namespace gpusim {

enum class Sharing : uint8_t {
  exclusive,     // whole GPUs (nvidia.com/gpu); a share request takes a whole GPU
  fractional,    // milli-GPU + GPU memory accounting (Alibaba GPU sharing), with a runtime
  time_slicing,  // device-plugin replicas, no memory isolation
  mps,           // device-plugin MPS replicas: thread and pinned-memory limits per client
  mig,           // mig-parted layouts; GPUs with MIG off are whole GPUs
};
constexpr auto enum_table(Sharing) {
  using S = Sharing;
  return std::to_array<EnumName<S>>({{S::exclusive, "exclusive"},
                                     {S::fractional, "fractional"},
                                     {S::time_slicing, "time-slicing"},
                                     {S::mps, "mps"},
                                     {S::mig, "mig"}});
}

enum class MigStrategy : uint8_t { single, mixed };
constexpr auto enum_table(MigStrategy) {
  return std::to_array<EnumName<MigStrategy>>({{MigStrategy::single, "single"}, {MigStrategy::mixed, "mixed"}});
}

inline constexpr std::string_view kGpuResource = "nvidia.com/gpu";
inline constexpr std::string_view kMigResourcePrefix = "nvidia.com/mig-";

struct SharingConfig {
  Sharing mode = Sharing::exclusive;
  int replicas = 1;                // time-slicing, mps
  bool rename_by_default = false;  // advertise nvidia.com/gpu.shared
  bool fail_requests_greater_than_one = false;
  Sharing runtime = Sharing::mps;  // fractional: mps or time_slicing
  MigStrategy mig_strategy = MigStrategy::mixed;
  std::string mig_config;                             // the mig-parted config name
  std::vector<std::optional<MigLayout>> mig_layouts;  // per GPU of a node; nullopt = MIG off
  // Partitionable GPUs (KEP 4815; NVIDIA's DRA driver, DynamicMIG): no fixed layout. Each GPU's
  // mig_layouts entry lists every placement (mig_placements); a MIG device is created when a claim is
  // allocated one, where it has no mig_conflict with those that exist, and destroyed when it ends.
  bool mig_partitionable = false;

  // Its vendor's whole-device resource (vendor_info: nvidia.com/gpu, amd.com/gpu, habana.ai/gaudi).
  std::string_view device_resource = kGpuResource;
  // The resource whole (non-MIG) GPUs of the pool advertise.
  std::string_view gpu_resource() const { return rename_by_default ? "nvidia.com/gpu.shared" : device_resource; }
  // How co-located jobs on a non-MIG GPU slow each other.
  Sharing rate_model() const { return mode == Sharing::fractional ? runtime : mode; }
};

}  // namespace gpusim
