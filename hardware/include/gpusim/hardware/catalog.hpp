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

struct MigTable {
  std::string geometry;            // "seven-slice" or "four-slice"
  int memory_slices = 0;
  int compute_slices = 0;
  bool allows_4g_with_3g = true;  // false models drivers before R510 (docs/hardware.md#mig-geometry)
  std::vector<MigProfile> profiles;
  const MigProfile* find(std::string_view profile) const;
};

struct GpuModel {
  std::string name;
  std::vector<std::string> aliases;  // names traces use, e.g. "V100M32"
  // The names NVML gives it ("NVIDIA A100-SXM4-80GB"), as nvidia-smi, DCGM's modelName label and, with
  // spaces as dashes, GPU feature discovery's nvidia.com/gpu.product label show them; the first is
  // the one outputs use. None: outputs use `name`.
  std::vector<std::string> product_names;
  // Its name or one of its aliases, exactly (model.yaml's per-GPU entries list them so).
  bool is_named(std::string_view n) const { return name == n || std::ranges::find(aliases, n) != aliases.end(); }
  int64_t memory_mib = 0;
  int sms = 0;
  double bf16_tflops = 0;
  double fp32_tflops = 0;
  double memory_bandwidth_gb_per_s = 0;
  double tdp_w = 0;
  double nvlink_gb_per_s = 0;        // bidirectional total per GPU; 0 = none
  int nvlinks = 0;                   // NVLink links per GPU (bandwidth per link = nvlink_gb_per_s / nvlinks)
  int pcie_gen = 0;                  // PCIe generation of its x16 host link
  double compute_capability = 0;     // CUDA compute capability, e.g. 8.0 (decides MPS client limits)
  std::vector<std::string> assumed;  // fields whose values are documented assumptions
  std::optional<MigTable> mig;
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
