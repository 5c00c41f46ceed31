// How a pool's pods share its GPUs: a sharing name (exclusive, fractional), the NVIDIA device
// plugin's time-slicing or MPS block, or MIG (a mig-parted config and the plugin's strategy).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "gpusim/hardware/mig.hpp"
#include "scenario_parts.hpp"

namespace gpusim {

namespace fs = std::filesystem;

namespace {

const Section& sharing_resource_section() {
  static const Section s{
      "sharing_resource",
      "The resource the device plugin shares",
      {
          {"name", Type::choice({kGpuResource}), required, "", "nvidia.com/gpu (sharing MIG devices is not modelled)"},
          {"replicas", Type::integer().at_least(2).at_most(1000), required, "",
           "Pods per GPU; MPS allows at most 48 clients (16 below compute capability 7.5)"},
          {"devices", Type::choice({"all"}), "all", "", "The GPUs it applies to: every GPU of a node"},
      }};
  return s;
}

const Section& sharing_config_section() {
  static const Section s{
      "sharing_config",
      "The device plugin's time-slicing or MPS configuration",
      {
          {"renameByDefault", Type::boolean(), "false", "", "Advertise the shared GPUs as nvidia.com/gpu.shared"},
          {"failRequestsGreaterThanOne", Type::boolean(), "false", "", "Reject pods asking for more than one shared GPU"},
          {"resources", Type::list(Type::section(sharing_resource_section())), required, "", "One resource, nvidia.com/gpu"},
      }};
  return s;
}

const Section& device_plugin_sharing_section() {
  static const Section s{
      "device_plugin_sharing",
      "The NVIDIA device plugin's sharing: exactly one of timeSlicing or mps",
      {
          {"timeSlicing", Type::section(sharing_config_section()), "", "", "CUDA time-slicing: replicas take turns on a GPU"},
          {"mps", Type::section(sharing_config_section()), "", "", "MPS: replicas run at once, with thread and memory limits"},
      }};
  return s;
}

// The device plugin's `sharing:` block: {timeSlicing: {...}} or {mps: {...}} (docs/hardware.md#time-slicing, #mps).
SharingConfig read_device_plugin_sharing(const ConfigNode& node, const GpuModel* gpu) {
  const Fields n = device_plugin_sharing_section().read(node);
  if (n.has("timeSlicing") == n.has("mps")) n.fail("expected exactly one of timeSlicing or mps (they are mutually exclusive)");
  const bool mps = n.has("mps");
  const Fields b = sharing_config_section().read(n.at(mps ? "mps" : "timeSlicing"));
  SharingConfig c;
  c.mode = mps ? Sharing::mps : Sharing::time_slicing;
  c.rename_by_default = b.value("renameByDefault").as_bool();
  c.fail_requests_greater_than_one = b.value("failRequestsGreaterThanOne").as_bool();
  const auto resources = b.at("resources").items();
  if (resources.size() != 1) b.at("resources").fail("expected one resource, nvidia.com/gpu");
  const Fields r = sharing_resource_section().read(resources.front());
  if (r.at("name").as_string() != kGpuResource)
    r.at("name").fail(
        fmt::format("expected nvidia.com/gpu (sharing MIG devices is not modelled), got '{}'", r.at("name").as_string()));
  if (auto d = r.get("devices"); d && !(d->is_scalar() && d->as_string() == "all"))
    d->fail("expected devices: all (one sharing config applies to every GPU of a node)");
  const int replicas = r.integer<int>("replicas");
  if (mps) {
    const int limit = mps_client_limit(gpu);
    if (replicas > limit)
      r.at("replicas")
          .fail(fmt::format("MPS allows at most {} clients on {} (compute capability {}); got {}", limit,
                            gpu ? gpu->name : "this GPU", gpu ? gpu->compute_capability : 0.0, replicas));
  }
  c.replicas = replicas;
  return c;
}

// A pool's `mig:` block: a mig-parted config (inline `mig-configs`, a `file` beside the scenario, or
// one of mig-parted's generated names) and the device plugin's strategy.
SharingConfig read_mig(const ConfigNode& node, const GpuModel* gpu, int gpus, const std::string& scenario_file) {
  const Fields m = pool_mig_section().read(node);
  if (!gpu || !gpu->has_mig())
    m.fail(fmt::format("GPU model {} does not support MIG{}", gpu ? gpu->name : "(none)",
                       gpu && gpu->partitions ? " (an AMD GPU splits by partition: computePartition, memoryPartition)" : ""));
  SharingConfig c;
  c.mode = Sharing::mig;
  if (m.value("partitionable").as_bool()) {
    for (const char* key : {"strategy", "config", "file", "mig-configs"})
      if (m.has(key))
        m.at(key).fail("a partitionable GPU has no fixed layout and no device plugin: leave out strategy, config, file "
                       "and mig-configs");
    c.mig_partitionable = true;
    c.mig_config = "partitionable";
    c.mig_layouts.assign(static_cast<std::size_t>(gpus), mig_placements(*gpu->mig));
    return c;
  }
  c.mig_strategy = m.value("strategy").as_enum<MigStrategy>(" or ");
  c.mig_config = m.value("config").as_string();
  if (m.has("file") && m.has("mig-configs")) m.fail("give file or mig-configs, not both");
  std::optional<ConfigNode> doc;
  if (auto f = m.get("file")) {
    fs::path p(f->as_string());
    if (p.is_relative()) p = fs::path(scenario_file).parent_path() / p;
    if (std::error_code ec; !fs::is_regular_file(p, ec)) f->fail(fmt::format("mig-parted file '{}' not found", p.string()));
    doc = mig_parted_configs(ConfigNode::load_file(p.string()));
  } else if (auto inline_doc = m.get("mig-configs")) {
    doc = *inline_doc;
  }
  if (doc && doc->has(c.mig_config)) {
    c.mig_layouts = mig_node_config(doc->at(c.mig_config), c.mig_config, *gpu, gpus).per_gpu;
  } else if (auto counts = builtin_mig_config(*gpu, c.mig_config)) {
    const bool enabled = c.mig_config != "all-disabled";
    c.mig_layouts.assign(static_cast<std::size_t>(gpus), enabled ? mig_place(*gpu->mig, *counts) : std::nullopt);
  } else {
    m.at("config").fail(fmt::format("no MIG config '{}'{}; mig-parted's generated names are all-disabled, all-enabled, "
                                    "all-balanced and all-<profile>",
                                    c.mig_config, doc ? " in the given mig-configs" : ""));
  }
  if (c.mig_strategy == MigStrategy::single) {
    std::optional<int> profile;
    for (const auto& layout : c.mig_layouts) {
      if (!layout) m.at("strategy").fail("the single strategy needs MIG enabled on every GPU of the node");
      for (const MigInstance& in : *layout) {
        if (profile && *profile != in.profile)
          m.at("strategy")
              .fail(fmt::format("the single strategy needs one profile on every GPU; config '{}' mixes {} and {} "
                                "(use strategy: mixed)",
                                c.mig_config, gpu->mig->profiles[*profile].name, gpu->mig->profiles[in.profile].name));
        profile = in.profile;
      }
    }
  }
  return c;
}

// A pool's `partition:` block: every GPU of its nodes in one compute and memory mode (DCM applies one
// profile to a node; a memory mode change reloads the driver for every GPU of the hive).
SharingConfig read_partition(const ConfigNode& node, const GpuModel* gpu, int gpus) {
  const Fields f = pool_partition_section().read(node);
  if (!gpu || !gpu->partitions)
    f.fail(
        fmt::format("GPU model {} has no compute and memory partitions (AMD Instinct MI300 series)", gpu ? gpu->name : "(none)"));
  const PartitionModes& modes = *gpu->partitions;
  const auto list = [](const auto& entries) {
    std::vector<std::string_view> names;
    for (const auto& e : entries) names.push_back(e.mode);
    return fmt::format("{}", fmt::join(names, ", "));
  };
  const std::string compute = f.at("computePartition").as_string(), memory = f.at("memoryPartition").as_string();
  if (!modes.find_compute(compute))
    f.at("computePartition")
        .fail(fmt::format("{} supports compute partition modes {}; got '{}'", gpu->name, list(modes.compute), compute));
  const PartitionModes::Memory* m = modes.find_memory(memory);
  if (!m)
    f.at("memoryPartition")
        .fail(fmt::format("{} supports memory partition modes {}; got '{}'", gpu->name, list(modes.memory), memory));
  if (std::find(m->compute.begin(), m->compute.end(), compute) == m->compute.end())
    f.at("computePartition")
        .fail(fmt::format("{} with {} is not a valid combination on {}: {} allows {}", compute, memory, gpu->name, memory,
                          fmt::join(m->compute, ", ")));
  SharingConfig c;
  c.mode = Sharing::mig;
  c.mig_strategy = f.value("resource_naming_strategy").as_enum<MigStrategy>(" or ");
  c.mig_config = PartitionModes::profile_name(compute, memory);
  const MigTable& t = *gpu->mig;
  const MigProfile* p = t.find(c.mig_config);
  MigCounts counts(t.profiles.size(), 0);
  counts[static_cast<std::size_t>(p - t.profiles.data())] = p->max_count;
  c.mig_layouts.assign(static_cast<std::size_t>(gpus), mig_place(t, counts));
  return c;
}

}  // namespace

SharingConfig read_sharing_name(const ConfigNode& n) {
  const auto s = n.as_string();
  const auto mode = parse_enum<Sharing>(s);
  if (mode != Sharing::exclusive && mode != Sharing::fractional)
    n.fail(fmt::format("expected {}, or a device-plugin sharing block (timeSlicing: or mps:), got '{}'",
                       enum_choices({Sharing::exclusive, Sharing::fractional}), s));
  SharingConfig c;
  c.mode = *mode;
  return c;
}

Type sharing_type() {
  return Type::one_of(
      {Type::enumeration({Sharing::exclusive, Sharing::fractional}), Type::section(device_plugin_sharing_section())});
}

const Section& pool_partition_section() {
  static const Section s{
      "pool_partition",
      "AMD compute and memory partitions on a pool's GPUs, as a Device Config Manager profile sets them",
      {
          {"computePartition", Type::string(), required, "", "The compute partition mode, e.g. SPX, DPX, QPX, CPX"},
          {"memoryPartition", Type::string(), required, "", "The memory partition mode, e.g. NPS1, NPS4"},
          {"resource_naming_strategy", Type::enumeration<MigStrategy>(), "single", "",
           "The AMD device plugin's: single (every partition is amd.com/gpu) or mixed (amd.com/<compute>_<memory>)"},
      }};
  return s;
}

const Section& pool_mig_section() {
  static const Section s{
      "pool_mig",
      "MIG on a pool's GPUs: a mig-parted config and the device plugin's strategy",
      {
          {"strategy", Type::enumeration<MigStrategy>(), "", "", "The device plugin's MIG strategy (not with partitionable)"},
          {"config", Type::string(), "", "",
           "A config of `file` or `mig-configs`, or a name mig-parted generates: all-disabled, all-enabled, all-balanced, "
           "all-<profile> (not with partitionable)"},
          {"partitionable", Type::boolean(), "false", "",
           "No fixed layout: NVIDIA's DRA driver publishes every MIG placement (KEP 4815, DynamicMIG) and creates a "
           "device when a claim is allocated it; DRA claims only"},
          {"file", Type::string(), "", "", "A mig-parted file, relative to the scenario"},
          [] {
            Field f = mig_parted_section().field("mig-configs");
            f.absent = "";
            return f;
          }(),
      }};
  return s;
}

// Time-slicing and MPS are the NVIDIA device plugin's, and milli-GPU shares model NVIDIA GPU sharing: a
// Gaudi is whole, and an AMD GPU splits only by its partitions. `at` is the field that asks.
void refuse_vendor_sharing(const GpuModel* gpu, Sharing mode, const ConfigNode& at) {
  if (!gpu || mode == Sharing::exclusive) return;
  if (gpu->vendor == Vendor::intel)
    at.fail(fmt::format("a Gaudi is allocated whole: {} has no partitions and no time-slicing, MPS or shares "
                        "(habana.ai/gaudi); expected sharing: exclusive",
                        gpu->name));
  if (gpu->vendor == Vendor::amd && mode != Sharing::mig)
    at.fail(fmt::format("the AMD device plugin shares no GPU by {}: {} splits by compute and memory partitions "
                        "(partition: {{computePartition, memoryPartition}})",
                        to_string(mode), gpu->name));
}

SharingConfig read_pool_sharing(const Fields& pool, const GpuModel* gpu, int gpus_per_node, const std::string& scenario_file) {
  SharingConfig c;
  if (pool.has("mig") && pool.has("partition")) pool.at("partition").fail("give mig (NVIDIA) or partition (AMD), not both");
  if (auto p = pool.get("partition")) {
    if (auto sh = pool.get("sharing"); sh && !(sh->is_scalar() && parse_enum<Sharing>(sh->as_string()) == Sharing::exclusive))
      sh->fail("a partitioned AMD pool takes no other sharing");
    c = read_partition(*p, gpu, gpus_per_node);
  } else if (auto m = pool.get("mig")) {
    if (auto sh = pool.get("sharing"); sh && !(sh->is_scalar() && parse_enum<Sharing>(sh->as_string()) == Sharing::exclusive))
      sh->fail(sh->is_map() && Fields(device_plugin_sharing_section(), *sh).has("mps")
                   ? "MPS is not supported on MIG-enabled GPUs (docs/hardware.md#mps); drop mig: or sharing:"
                   : "a MIG pool takes no other sharing (sharing of MIG devices is not modelled)");
    c = read_mig(*m, gpu, gpus_per_node, scenario_file);
  } else if (auto sh = pool.get("sharing")) {
    // A vendor that shares no GPU so is said first, before the block's NVIDIA resource names are checked.
    if (sh->is_map())
      refuse_vendor_sharing(gpu, Fields(device_plugin_sharing_section(), *sh).has("mps") ? Sharing::mps : Sharing::time_slicing,
                            *sh);
    c = sh->is_map() ? read_device_plugin_sharing(*sh, gpu) : read_sharing_name(*sh);
  }
  if (pool.has("runtime") && c.mode != Sharing::fractional)
    pool.at("runtime").fail("runtime applies to sharing: fractional only");
  if (c.mode == Sharing::fractional) {
    const ConfigNode r = pool.value("runtime");
    const auto v = r.as_string();
    const auto runtime = parse_enum<Sharing>(v);
    if (runtime != Sharing::mps && runtime != Sharing::time_slicing)
      r.fail(fmt::format("expected {}, got '{}'", enum_choices({Sharing::mps, Sharing::time_slicing}, " or "), v));
    c.runtime = *runtime;
  }
  if (gpu) {
    c.device_resource = vendor_info(gpu->vendor).device_resource;
    if (c.mode != Sharing::exclusive) {  // asked by sharing:, mig: or partition:
      const std::optional<ConfigNode> sharing = pool.get("sharing"), mig = pool.get("mig");
      refuse_vendor_sharing(gpu, c.mode, sharing ? *sharing : mig ? *mig : pool.at("partition"));
    }
  }
  return c;
}

std::optional<MigCounts> builtin_mig_config(const GpuModel& model, std::string_view name) {
  if (!model.mig) return std::nullopt;
  const MigTable& t = *model.mig;
  MigCounts counts(t.profiles.size(), 0);
  if (name == "all-disabled" || name == "all-enabled") return counts;
  if (name == "all-balanced" && t.compute_slices == 7) {
    // The smallest profile of each class 1g, 2g, 3g (docs/hardware.md#mig-parted-configs).
    for (auto [cls, n] : {std::pair{"1g", 2}, {"2g", 1}, {"3g", 1}}) {
      // A named capture: clang (and so clang-tidy) before 16 cannot capture a structured binding.
      auto p = std::find_if(t.profiles.begin(), t.profiles.end(),
                            [&name = cls](const MigProfile& x) { return x.class_name == name; });
      if (p == t.profiles.end()) return std::nullopt;
      counts[static_cast<std::size_t>(p - t.profiles.begin())] = n;
    }
    return counts;
  }
  if (name.starts_with("all-")) {
    const MigProfile* p = t.find(name.substr(4));
    if (!p) return std::nullopt;
    int& c = counts[static_cast<std::size_t>(p - t.profiles.data())];
    while (c < p->max_count) {
      ++c;
      if (!mig_place(t, counts)) {
        --c;
        break;
      }
    }
    return counts;
  }
  return std::nullopt;
}

}  // namespace gpusim
