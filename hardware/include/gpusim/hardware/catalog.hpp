#pragma once
// The hardware catalog: GPU models with their MIG profile tables, and node templates. The built-in
// entries are data files (hardware/data/*.yaml) compiled into the binary; a scenario adds its own
// with the same fields through the same parser.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/enum_table.hpp"
#include "gpusim/hardware/topology.hpp"
#include "gpusim/hardware/vendor.hpp"

namespace gpusim {

struct MigProfile {
  std::string name;                // "1g.10gb"
  std::string class_name;          // geometry class, e.g. "1g" or "1g.2m" (two memory slices)
  std::optional<int> profile_id;   // nvidia-smi's GI profile id, where known
  int64_t memory_mib = 0;
  int sms = 0;
  int copy_engines = 0;
  int compute_slices = 0;
  int memory_slices = 0;           // contiguous memory slices one instance occupies
  std::vector<int> starts;         // allowed start memory slices
  int max_count = 0;               // instances per GPU
  bool media_extensions = false;   // "+me": at most one per GPU
  bool assumed = false;            // not confirmed by a primary source
};

// How a GPU splits into instances: NVIDIA's MIG geometry, or AMD's partition modes cast in the same
// terms (PartitionModes::table: XCDs are the slices, a profile per valid compute and memory mode).
struct MigTable {
  std::string geometry;  // "seven-slice", "four-slice", or "xcd" for AMD partitions
  int memory_slices = 0;
  int compute_slices = 0;
  bool allows_4g_with_3g = true;  // false models drivers before R510 (docs/hardware.md#mig-geometry)
  // AMD: every partition of a GPU is in one mode (mig_conflict) and a GPU is split into all of them.
  bool one_mode = false;
  std::vector<MigProfile> profiles;
  const MigProfile* find(std::string_view profile) const;
};

// AMD compute and memory partitioning (docs/hardware.md#amd-compute-and-memory-partitions): a compute
// mode splits the GPU's XCDs evenly into `partitions` devices, each with as large a share of its compute
// units and memory; a memory mode (NPS: NUMA nodes per socket) allows some compute modes.
struct PartitionModes {
  struct Compute {
    std::string mode;  // SPX, DPX, QPX, CPX
    int partitions = 1;
  };
  struct Memory {
    std::string mode;  // NPS1, NPS2, NPS4
    int numa_nodes = 1;
    std::vector<std::string> compute;  // the compute modes it allows
  };
  int xcds = 0;
  std::vector<Compute> compute;
  std::vector<Memory> memory;
  std::string source;
  const Compute* find_compute(std::string_view mode) const;
  const Memory* find_memory(std::string_view mode) const;
  // The AMD device plugin's mixed-strategy name of a combination: "cpx_nps4" (amd.com/cpx_nps4).
  static std::string profile_name(std::string_view compute, std::string_view memory);
};

struct GpuModel {
  std::string name;
  Vendor vendor = Vendor::nvidia;
  std::vector<std::string> aliases;  // names traces use, e.g. "V100M32"
  // The names NVML gives it ("NVIDIA A100-SXM4-80GB"), as nvidia-smi, DCGM's modelName label and, with
  // spaces as dashes, GPU feature discovery's nvidia.com/gpu.product label show them; the first is
  // the one outputs use. None: outputs use `name`.
  std::vector<std::string> product_names;
  // The name outputs use: the first product name, else `name`.
  const std::string& product_name() const { return product_names.empty() ? name : product_names.front(); }
  // The same as a label value, spaces as `space`: GFD's nvidia.com/gpu.product has dashes, AMD's node
  // labeller and DRA driver underscores.
  std::string product_label(char space) const {
    std::string s = product_name();
    std::replace(s.begin(), s.end(), ' ', space);
    return s;
  }
  // Its name or one of its aliases, exactly (model.yaml's per-GPU entries list them so).
  bool is_named(std::string_view n) const { return name == n || std::ranges::find(aliases, n) != aliases.end(); }
  int64_t memory_mib = 0;
  int sms = 0;
  double bf16_tflops = 0;
  double fp32_tflops = 0;
  double memory_bandwidth_gb_per_s = 0;
  double tdp_w = 0;
  std::optional<double> fp8_tflops;  // dense FP8 tensor peak, where the model has one
  // Its scale-up fabric's links (vendor_info(vendor).fabric: NVLink, xGMI, RoCE ports for scale-up):
  // bidirectional total per GPU, 0 = none, and how many links carry it (per link: link_gb_per_s / links).
  double link_gb_per_s = 0;
  int links = 0;
  Fabric fabric() const { return vendor_info(vendor).fabric; }
  int pcie_gen = 0;                  // PCIe generation of its x16 host link
  double compute_capability = 0;     // CUDA compute capability, e.g. 8.0 (decides MPS client limits); 0 off NVIDIA
  std::vector<std::string> assumed;  // fields whose values are documented assumptions
  // MIG, or AMD's partitions cast as a MigTable (one_mode; profiles named by PartitionModes::profile_name).
  std::optional<MigTable> mig;
  std::optional<PartitionModes> partitions;            // AMD
  bool has_mig() const { return mig && !partitions; }  // NVIDIA MIG (not AMD's partitions)
  std::string source;
};

// What a node draws besides its GPUs (CPUs, memory, NICs, NVSwitches, fans, power-supply losses), in watts:
// idle, and with every GPU busy; in between, in proportion to its GPUs' busy fraction (issue 45).
struct HostPower {
  double idle_w = 0;
  double busy_w = 0;
  std::vector<std::string> assumed;  // fields whose values are documented assumptions
  std::string source;
  static HostPower parse(const ConfigNode& n);
};
const Section& host_power_section();

struct NodeTemplate {
  std::string name;
  std::string gpu;                   // GpuModel name
  int gpus = 0;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  std::optional<double> price_per_node_hour_usd;       // on-demand list price
  std::optional<double> spot_price_per_node_hour_usd;  // a typical spot price of the same instance
  NodeTopology topology;             // links between its GPUs (one host bridge when not described)
  std::optional<NetworkSpec> network;  // NICs for jobs spanning nodes; none = not described
  std::optional<HostPower> host_power;  // none: model.yaml's power.host
  // Nodes of one rack whose GPUs share an NVLink domain (GB200 NVL72: 18 compute trays); 0: NVLink
  // stops at the node (docs/hardware.md#rack-scale-nvlink-domains).
  int nvlink_domain_nodes = 0;
  std::string source;
};

// What a class of work is bound by: the peak its speed follows on a GPU model no measurement lists.
enum class ThroughputBound : uint8_t { compute, memory, none };
constexpr auto enum_table(ThroughputBound) {
  using B = ThroughputBound;
  return std::to_array<EnumName<B>>({{B::compute, "compute"}, {B::memory, "memory"}, {B::none, "none"}});
}

// A row of the throughput matrix (hardware/data/throughput.yaml): how fast a class of work runs on
// GPU models, per GPU, relative to the table's reference GPU.
struct ThroughputClass {
  struct Measured {
    std::string gpu;  // a GpuModel's name
    double ratio = 1;
    std::string source;
  };
  std::string name;  // "training", "inference", "interactive", or a scenario's own
  ThroughputBound bound = ThroughputBound::compute;
  std::string description;
  std::vector<Measured> ratios;
  std::string source;
  const Measured* find(std::string_view gpu) const;
};

// A GPU model's throughput for a class relative to the table's reference GPU: measured, or the ratio
// of the peak the class is bound by.
struct ThroughputRatio {
  double value = 1;
  bool measured = false;
};

// The fields of a catalog document (gpus.yaml, nodes.yaml, a scenario's `catalog:`).
const Section& catalog_section();

class Catalog {
 public:
  // The compiled-in catalog (parsed once).
  static const Catalog& builtin();

  // Adds GPU models (`gpus:` list, optional `mig_geometries:`), node templates (`nodes:` list) and
  // throughput classes (`throughput:`) from a catalog document; GPUs and nodes must have unique names
  // (aliases included); a class of an existing name adds to or replaces its measured ratios.
  void add_document(const ConfigNode& doc);
  void add_gpu(const ConfigNode& entry);
  void add_node(const ConfigNode& entry);

  const GpuModel* find_gpu(std::string_view name_or_alias) const;
  const NodeTemplate* find_node(std::string_view name) const;
  const std::vector<GpuModel>& gpus() const { return gpus_; }
  const std::vector<NodeTemplate>& nodes() const { return nodes_; }
  const std::vector<ThroughputClass>& throughput_classes() const { return classes_; }
  const ThroughputClass* find_throughput_class(std::string_view name) const;
  // The GPU model throughput ratios are relative to (the built-in table's A100-80GB-SXM).
  const GpuModel& throughput_reference() const;
  // `gpu`'s throughput for `c` relative to throughput_reference(): a measured ratio when `c` lists it,
  // else the ratio of the peak `c` is bound by.
  ThroughputRatio throughput(const ThroughputClass& c, const GpuModel& gpu) const;

 private:
  struct Geometry {
    std::string name;
    int memory_slices = 0;
    int compute_slices = 0;
    bool combine_4g_3g = true;
    std::vector<MigProfile> classes;  // class templates: slices, starts, counts
  };
  void add_geometry(const ConfigNode& entry);
  void add_throughput(const ConfigNode& doc);
  std::vector<Geometry> geometries_;
  std::vector<GpuModel> gpus_;
  std::vector<NodeTemplate> nodes_;
  std::vector<ThroughputClass> classes_;
  std::string throughput_reference_;  // a GpuModel's name
};

}  // namespace gpusim
