#pragma once
// Node topology (docs/hardware.md#interconnects-and-collectives): which GPUs share NVLink/NVSwitch,
// PCIe switches, host bridges and NUMA nodes, so every GPU pair has an `nvidia-smi topo -m` link
// class and a bandwidth. The best ring through every GPU subset is precomputed per node template
// (nodes have few GPUs), so choosing the best k GPUs of a node is a table walk.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/fields.hpp"

namespace gpusim {

struct GpuModel;

// Best first: the order is the order of preference (nvidia-smi's legend, NVLink on top; rocm-smi
// --showtopotype's XGMI and Gaudi's RoCE scale-up ports are the other vendors' fabrics).
enum class LinkClass : uint8_t { self, nvlink, xgmi, roce, pix, pxb, phb, node, sys, network };
constexpr auto enum_table(LinkClass) {
  using L = LinkClass;
  return std::to_array<EnumName<L>>({{L::self, "X"},
                                     {L::nvlink, "NV"},
                                     {L::xgmi, "XGMI"},
                                     {L::roce, "RoCE"},
                                     {L::pix, "PIX"},
                                     {L::pxb, "PXB"},
                                     {L::phb, "PHB"},
                                     {L::node, "NODE"},
                                     {L::sys, "SYS"},
                                     {L::network, "NET"}});
}

struct Link {
  LinkClass cls = LinkClass::sys;
  int links = 0;          // bonded scale-up links (cls nvlink, xgmi or roce)
  double gb_per_s = 0;    // bus bandwidth per direction
};

// "X", "NV12", "XGMI", "RoCE", "PIX", "PXB", "PHB", "NODE", "SYS", "NET": the class's name, with the
// bonded NVLinks (nvidia-smi's form).
std::string link_code(const Link& link);

// PCIe x16 bandwidth per direction of a PCIe generation (3, 4, 5);
// docs/hardware.md#interconnects-and-collectives.
double pcie_x16_gb_per_s(int generation);

// A node's network: NICs and their line rate (docs/hardware.md#node-templates, e.g. 8 x 200 Gb/s
// HDR on DGX A100).
struct NetworkSpec {
  int nics = 0;
  double gbps_per_nic = 0;
  double gb_per_s() const { return nics * gbps_per_nic / 8.0; }  // bytes per second, per direction
  static NetworkSpec parse(const ConfigNode& n);
};
const Section& network_section();

// A node template's `topology:`: `pcie` (per GPU: NUMA node/host bridge/switch/..., outermost
// first), the GPU's scale-up fabric: `nvlink` (`all` for an NVSwitch fabric, or [gpu, gpu, links]
// bonded pairs), `xgmi` or `roce` (`all` for a full mesh of direct links, or bonded pairs),
// `inter_socket_gb_per_s` (needed when GPUs span NUMA nodes), optional `pcie_gen`, `source`.
const Section& topology_section();

class NodeTopology {
 public:
  static constexpr int kMaxGpus = 32;       // GPU sets are 32-bit masks
  static constexpr int kPrecomputeGpus = 8; // rings and best subsets precomputed up to this size

  // A template's `topology:` block (topology_section()).
  static NodeTopology parse(const ConfigNode& n, const GpuModel& gpu, int gpus);
  // A node described by nothing but its GPU count: all GPUs behind one PCIe host bridge (PHB).
  static NodeTopology single_host_bridge(const GpuModel& gpu, int gpus);

  int gpus() const { return gpus_; }
  const Link& link(int a, int b) const { return links_[pair_index(a, b, gpus_)]; }
  int numa_nodes() const { return numa_nodes_; }
  int numa_of(int gpu) const { return numa_[static_cast<std::size_t>(gpu)]; }
  const std::string& numa_label(int numa) const { return numa_labels_[static_cast<std::size_t>(numa)]; }
  uint32_t numa_mask(int numa) const { return numa_masks_[static_cast<std::size_t>(numa)]; }
  // NUMA nodes the GPUs of `mask` touch.
  int numa_span(uint32_t mask) const;
  // Every pair has the same link: which GPUs a job gets does not matter.
  bool uniform() const { return uniform_; }
  const std::string& source() const { return source_; }

  // The slowest link of the best ring (NCCL's) through the GPUs of `mask`; a single GPU has a
  // self link of infinite bandwidth. Over a mesh of direct links (xGMI, RoCE) the collective uses every
  // link among the set at once: its bus bandwidth is the least, over the set's GPUs, of the sum of a
  // GPU's links to the others (docs/hardware.md#interconnects-and-collectives).
  Link ring_bottleneck(uint32_t mask) const;
  // Sets of `count` GPUs, best ring first, then fewest NUMA nodes, then lowest mask. Empty when the
  // node has more than kPrecomputeGpus GPUs.
  const std::vector<uint32_t>& best_subsets(int count) const { return subsets_[static_cast<std::size_t>(count)]; }

 private:
  // Where the link from GPU a to GPU b is in the row-major n x n matrix `links_`; (n, 0, n) is its size.
  static std::size_t pair_index(int a, int b, int n) {
    return static_cast<std::size_t>(a) * static_cast<std::size_t>(n) + static_cast<std::size_t>(b);
  }
  void finish();
  Link compute_ring(uint32_t mask) const;

  int gpus_ = 0;
  std::vector<Link> links_;
  int numa_nodes_ = 0;
  std::vector<int> numa_;
  std::vector<std::string> numa_labels_;
  std::vector<uint32_t> numa_masks_;
  bool uniform_ = true;
  std::string source_;
  std::vector<Link> ring_;                     // by mask, when precomputed
  std::vector<std::vector<uint32_t>> subsets_;  // by size
};

}  // namespace gpusim
