#include "gpusim/hardware/catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "gpusim/core/ascii.hpp"

namespace gpusim {

namespace embedded {
std::string_view gpus_yaml();
std::string_view nodes_yaml();
std::string_view throughput_yaml();
}  // namespace embedded

const PartitionModes::Compute* PartitionModes::find_compute(std::string_view mode) const {
  for (const Compute& c : compute)
    if (c.mode == mode) return &c;
  return nullptr;
}

const PartitionModes::Memory* PartitionModes::find_memory(std::string_view mode) const {
  for (const Memory& m : memory)
    if (m.mode == mode) return &m;
  return nullptr;
}

std::string PartitionModes::profile_name(std::string_view compute, std::string_view memory) {
  return ascii_lower(fmt::format("{}_{}", compute, memory));
}

const MigProfile* MigTable::find(std::string_view profile) const {
  for (const auto& p : profiles)
    if (p.name == profile) return &p;
  return nullptr;
}

const Catalog& Catalog::builtin() {
  static const Catalog catalog = [] {
    Catalog c;
    c.add_document(ConfigNode::parse(std::string(embedded::gpus_yaml()), "<builtin>/hardware/data/gpus.yaml", YamlText::builtin));
    c.add_document(
        ConfigNode::parse(std::string(embedded::nodes_yaml()), "<builtin>/hardware/data/nodes.yaml", YamlText::builtin));
    c.add_document(ConfigNode::parse(std::string(embedded::throughput_yaml()), "<builtin>/hardware/data/throughput.yaml",
                                     YamlText::builtin));
    return c;
  }();
  return catalog;
}

namespace {

const Section& mig_class_section() {
  static const Section s{
      "mig_class",
      "A class of MIG instances of a geometry: its slices and where an instance may start",
      {
          {"class", Type::string(), required, "", "The class's name, e.g. 1g, 1g.2m (two memory slices), 1g+me"},
          {"id", Type::int32().at_least(0), "", "", "nvidia-smi's GPU-instance profile id, where known"},
          {"compute_slices", Type::int32().at_least(1), required, "", "Compute slices one instance takes"},
          {"memory_slices", Type::int32().at_least(1), required, "", "Contiguous memory slices one instance occupies"},
          {"starts", Type::list(Type::int32().at_least(0)), required, "", "Memory slices an instance may start at"},
          {"max_count", Type::int32().at_least(1), required, "", "Instances per GPU"},
          {"media_extensions", Type::boolean(), "false", "", "A +me class: at most one instance per GPU"},
      }};
  return s;
}

const Section& mig_geometry_section() {
  static const Section s{
      "mig_geometry",
      "How a family of GPUs is sliced for MIG",
      {
          {"name", Type::string(), required, "", "The geometry's name, e.g. seven-slice"},
          {"memory_slices", Type::int32().at_least(1), required, "", "Memory slices of a GPU"},
          {"compute_slices", Type::int32().at_least(1), required, "", "Compute slices of a GPU"},
          {"combine_4g_3g", Type::boolean(), "true", "", "4g and 3g instances may share a GPU (driver R510 on)"},
          source_field(required),
          {"classes", Type::list(Type::section(mig_class_section())), required, "", "The classes of instances"},
      }};
  return s;
}

const Section& mig_profile_section() {
  static const Section s{"mig_profile",
                         "A MIG profile of a GPU model: a class of its geometry with the model's figures",
                         {
                             {"name", Type::string(), required, "", "The profile's name, e.g. 1g.10gb"},
                             {"class", Type::string(), required, "", "The geometry's class it instantiates, e.g. 1g"},
                             {"memory_mib", Type::integer().at_least(1), required, "MiB", "Memory of one instance"},
                             {"sms", Type::int32().at_least(1), required, "", "Streaming multiprocessors of one instance"},
                             {"copy_engines", Type::int32().at_least(1), required, "", "Copy engines of one instance"},
                             {"assumed", Type::boolean(), "false", "", "Not confirmed by a primary source"},
                         }};
  return s;
}

const Section& gpu_mig_section() {
  static const Section s{
      "gpu_mig",
      "A GPU model's MIG support",
      {
          {"geometry", Type::string(), required, "", "A geometry of mig_geometries (built in: seven-slice, four-slice)"},
          {"profiles", Type::list(Type::section(mig_profile_section())), required, "", "The model's profiles"},
      }};
  return s;
}

const Section& partition_compute_section() {
  static const Section s{"partition_compute",
                         "A compute partition mode: the GPU's XCDs split evenly into devices",
                         {
                             {"mode", Type::string("^[A-Z]+$"), required, "", "Its name, e.g. SPX, DPX, QPX, CPX"},
                             {"partitions", Type::int32().at_least(1), required, "", "Devices the GPU becomes"},
                         }};
  return s;
}

const Section& partition_memory_section() {
  static const Section s{"partition_memory",
                         "A memory partition mode (NUMA nodes per socket) and the compute modes it allows",
                         {
                             {"mode", Type::string("^[A-Z0-9]+$"), required, "", "Its name, e.g. NPS1, NPS4"},
                             {"numa_nodes", Type::int32().at_least(1), required, "", "Memory partitions of the GPU"},
                             {"compute", Type::string_list(), required, "", "The compute modes it allows"},
                         }};
  return s;
}

const Section& gpu_partitions_section() {
  static const Section s{
      "gpu_partitions",
      "An AMD GPU's compute and memory partitioning (amd-smi, the GPU operator's Device Config Manager)",
      {
          {"xcds", Type::int32().at_least(1), required, "", "Accelerator complex dies: the units compute partitions split"},
          {"compute", Type::list(Type::section(partition_compute_section())), required, "", "Compute partition modes"},
          {"memory", Type::list(Type::section(partition_memory_section())), required, "", "Memory partition modes"},
          source_field(required),
      }};
  return s;
}

const Section& gpu_section() {
  static const Section s{
      "gpu",
      "A GPU model",
      {
          {"name", Type::string(), required, "", "The model's name, e.g. A100-80GB-SXM"},
          {"vendor", Type::enumeration<Vendor>(), "nvidia", "",
           "Who makes it: its device plugin's resource, DRA driver, scale-up fabric and exporter follow"},
          {"aliases", Type::string_list(), "", "", "Other names traces use for it, e.g. V100M32"},
          {"product_names", Type::string_list(), "", "",
           "Names the vendor's management library reports for it (NVML: nvidia-smi, DCGM's modelName, "
           "nvidia.com/gpu.product with spaces as dashes; amd-smi's market name; hl-smi's product name), "
           "the first used in outputs, e.g. NVIDIA A100-SXM4-80GB"},
          {"memory_mib", Type::integer().at_least(1), required, "MiB", "Device memory"},
          {"sms", Type::int32().at_least(1), required, "",
           "Compute units: streaming multiprocessors (NVIDIA), compute units (AMD), tensor processor cores (Gaudi)"},
          {"bf16_tflops", Type::number().at_least(0), required, "TFLOPS", "Dense BF16 tensor peak"},
          {"fp8_tflops", Type::number().at_least(0), "", "TFLOPS", "Dense FP8 tensor peak; absent: none"},
          {"fp32_tflops", Type::number().at_least(0), required, "TFLOPS", "FP32 peak"},
          {"memory_bandwidth_gb_per_s", Type::number().at_least(0), required, "GB/s", "Memory bandwidth"},
          {"tdp_w", Type::number().at_least(0), required, "W", "Thermal design power"},
          {"nvlink_gb_per_s", Type::number().at_least(0), "", "GB/s",
           "NVLink bandwidth, bidirectional total per GPU; 0: none; required for an NVIDIA GPU"},
          {"nvlinks", Type::int32().at_least(1), "", "", "NVLink links per GPU; required when nvlink_gb_per_s > 0"},
          {"xgmi_gb_per_s", Type::number().at_least(0), "", "GB/s",
           "AMD Infinity Fabric (xGMI) peer bandwidth, bidirectional total per GPU; required for an AMD GPU"},
          {"xgmi_links", Type::int32().at_least(1), "", "", "xGMI links per GPU; required when xgmi_gb_per_s > 0"},
          {"roce_gb_per_s", Type::number().at_least(0), "", "GB/s",
           "Bandwidth of a Gaudi's scale-up RoCE ports, bidirectional total; required for an Intel GPU"},
          {"roce_links", Type::int32().at_least(1), "", "", "Scale-up RoCE ports; required when roce_gb_per_s > 0"},
          {"pcie_gen", Type::integer().at_least(3).at_most(5), required, "", "PCIe generation of its x16 host link"},
          {"compute_capability", Type::number().at_least(0), "", "",
           "CUDA compute capability, e.g. 8.0; required for an NVIDIA GPU, refused for others"},
          {"assumed", Type::string_list(), "", "", "Fields whose values are documented assumptions"},
          {"mig", Type::section(gpu_mig_section()), "", "", "MIG support (NVIDIA); absent: none"},
          {"partitions", Type::section(gpu_partitions_section()), "", "", "Compute and memory partitioning (AMD); absent: none"},
          source_field(required),
      }};
  return s;
}

// An AMD GPU's `partitions:` block, and the same cast as a MigTable: the XCDs are both its compute and
// its memory slices (a partition holds as large a share of each), one profile per compute mode a memory
// mode allows, every partition of a GPU in one mode.
std::pair<PartitionModes, MigTable> read_partitions(const ConfigNode& node, const GpuModel& gpu) {
  const Fields f = gpu_partitions_section().read(node);
  PartitionModes modes;
  modes.xcds = f.integer<int>("xcds");
  modes.source = f.at("source").as_string();
  for (const auto& item : f.at("compute").items()) {
    const Fields c = partition_compute_section().read(item);
    PartitionModes::Compute mode{c.at("mode").as_string(), c.integer<int>("partitions")};
    if (modes.xcds % mode.partitions != 0 || gpu.sms % mode.partitions != 0 || gpu.memory_mib % mode.partitions != 0)
      c.at("partitions")
          .fail(fmt::format("{}'s {} XCDs, {} compute units and {} MiB must split evenly into {} partitions", gpu.name,
                            modes.xcds, gpu.sms, gpu.memory_mib, mode.partitions));
    if (modes.find_compute(mode.mode)) c.at("mode").fail(fmt::format("compute mode {} listed twice", mode.mode));
    modes.compute.push_back(std::move(mode));
  }
  for (const auto& item : f.at("memory").items()) {
    const Fields m = partition_memory_section().read(item);
    PartitionModes::Memory mode{m.at("mode").as_string(), m.integer<int>("numa_nodes"), m.string_list("compute")};
    for (const std::string& c : mode.compute) {
      const PartitionModes::Compute* compute = modes.find_compute(c);
      if (!compute) m.at("compute").fail(fmt::format("unknown compute mode {}", c));
      // AMD: the memory partitions cannot outnumber the compute partitions.
      if (compute->partitions < mode.numa_nodes)
        m.at("compute").fail(fmt::format("{} has {} partitions, fewer than {}'s {} memory partitions", c, compute->partitions,
                                         mode.mode, mode.numa_nodes));
    }
    if (modes.find_memory(mode.mode)) m.at("mode").fail(fmt::format("memory mode {} listed twice", mode.mode));
    modes.memory.push_back(std::move(mode));
  }
  MigTable table{"xcd", modes.xcds, modes.xcds, true, true, {}};
  for (const PartitionModes::Memory& memory : modes.memory)
    for (const std::string& c : memory.compute) {
      const int n = modes.find_compute(c)->partitions;
      MigProfile p;
      p.name = p.class_name = PartitionModes::profile_name(c, memory.mode);
      p.memory_mib = gpu.memory_mib / n;
      p.sms = gpu.sms / n;
      p.compute_slices = p.memory_slices = modes.xcds / n;
      for (int start = 0; start < modes.xcds; start += p.memory_slices) p.starts.push_back(start);
      p.max_count = n;
      table.profiles.push_back(std::move(p));
    }
  return {std::move(modes), std::move(table)};
}

}  // namespace

const Section& host_power_section() {
  static const Section s{
      "host_power",
      "What a node draws besides its GPUs: CPUs, memory, NICs, NVSwitches, fans, power-supply losses",
      {
          {"idle_w", Type::number().at_least(0), required, "W", "With every GPU idle"},
          {"busy_w", Type::number().at_least(0), required, "W", "With every GPU busy; in between, in proportion"},
          {"assumed", Type::list(Type::choice({"idle_w", "busy_w"})), "", "", "Fields whose values are documented assumptions"},
          source_field(required),
      }};
  return s;
}

HostPower HostPower::parse(const ConfigNode& node) {
  const Fields f = host_power_section().read(node);
  HostPower h;
  h.idle_w = f.number("idle_w");
  h.busy_w = f.number("busy_w");
  if (h.busy_w < h.idle_w) f.at("busy_w").fail(fmt::format("must be at least idle_w ({:g} W)", h.idle_w));
  h.assumed = f.string_list("assumed");
  h.source = f.at("source").as_string();
  return h;
}

namespace {

const Section& node_section() {
  static const Section s{
      "node_template",
      "A node template: a machine pools are made of",
      {
          {"name", Type::string(), required, "", "The template's name, e.g. dgx-a100-80gb"},
          {"gpu", Type::string(), required, "", "Its GPU model (a name or an alias)"},
          {"gpus", Type::integer().at_least(0).at_most(NodeTopology::kMaxGpus), required, "", "GPUs per node"},
          {"cpu_milli", Type::integer().at_least(1), required, "milli-CPU", "CPU of a node"},
          {"memory_mib", Type::integer().at_least(1), required, "MiB", "Host memory of a node"},
          {"price_per_node_hour_usd", Type::number().at_least(0), "", "USD per node-hour", "On-demand list price"},
          {"spot_price_per_node_hour_usd", Type::number().at_least(0), "", "USD per node-hour", "A typical spot price"},
          {"topology", Type::section(topology_section()), "", "",
           "How its GPUs are linked; absent: all behind one PCIe host bridge"},
          {"network", Type::section(network_section()), "", "", "Its NICs; absent: not described"},
          {"nvlink_domain_nodes", Type::int32().at_least(2), "", "",
           "Nodes of a rack whose GPUs share one NVLink domain through its NVLink switch trays (GB200 NVL72: 18); "
           "absent: NVLink stops at the node"},
          {"host_power", Type::section(host_power_section()), "", "",
           "What it draws besides its GPUs; absent: model.yaml's power.host"},
          source_field(required),
      }};
  return s;
}

const Section& measured_ratio_section() {
  static const Section s{
      "throughput_ratio",
      "A measured throughput of a GPU model for the class, relative to the table's reference GPU",
      {
          {"gpu", Type::string(), required, "", "The GPU model (a name or an alias)"},
          {"ratio", Type::number().above(0).at_most(1000), required, "", "Its throughput per GPU over the reference GPU's"},
          source_field(required),
      }};
  return s;
}

const Section& throughput_class_section() {
  static const Section s{
      "throughput_class",
      "A class of work and how fast it runs on GPU models (a row of the throughput matrix); an existing class's name "
      "adds to or replaces its ratios",
      {
          {"name", Type::string(), required, "", "The class's name, e.g. training, inference, interactive"},
          {"bound", Type::enumeration<ThroughputBound>(), "", "",
           "What an unlisted GPU's ratio follows: compute (BF16 peak, else FP32), memory (bandwidth) or none (1); "
           "required for a new class"},
          {"description", Type::string(), "", "", "What work it stands for"},
          {"ratios", Type::list(Type::section(measured_ratio_section())), "", "", "Measured ratios, per GPU model"},
          source_field(),
      }};
  return s;
}

const Section& throughput_section() {
  static const Section s{
      "throughput",
      "How fast classes of work run on each GPU model (docs/hardware.md#job-speed)",
      {
          {"reference", Type::string(), "", "", "The GPU model ratios are relative to; the built-in table's is A100-80GB-SXM"},
          {"classes", Type::list(Type::section(throughput_class_section())), required, "", "The classes"},
      }};
  return s;
}

// The ratio of one peak figure of `gpu` to the reference's; none when either lacks it.
std::optional<double> peak_ratio(double gpu, double reference) {
  if (gpu <= 0 || reference <= 0) return std::nullopt;
  return gpu / reference;
}

}  // namespace

const Section& catalog_section() {
  static const Section s{
      "catalog",
      "GPU models and node templates added to the built-in catalog",
      {
          {"mig_geometries", Type::list(Type::section(mig_geometry_section())), "", "", "MIG geometries GPU models refer to"},
          {"gpus", Type::list(Type::section(gpu_section())), "", "", "GPU models"},
          {"nodes", Type::list(Type::section(node_section())), "", "", "Node templates"},
          {"throughput", Type::section(throughput_section()), "", "",
           "Classes of work and their measured speed per GPU model (built in: training, inference, interactive)"},
      }};
  return s;
}

void Catalog::add_document(const ConfigNode& node) {
  const Fields doc = catalog_section().read(node);
  if (auto g = doc.get("mig_geometries"))
    for (const auto& e : g->items()) add_geometry(e);
  if (auto g = doc.get("gpus"))
    for (const auto& e : g->items()) add_gpu(e);
  if (auto n = doc.get("nodes"))
    for (const auto& e : n->items()) add_node(e);
  if (auto t = doc.get("throughput")) add_throughput(*t);
}

void Catalog::add_throughput(const ConfigNode& node) {
  const Fields doc = throughput_section().read(node);
  if (auto r = doc.get("reference")) {
    const GpuModel* gpu = find_gpu(r->as_string());
    if (!gpu) r->fail(fmt::format("unknown GPU model '{}'", r->as_string()));
    if (!throughput_reference_.empty() && throughput_reference_ != gpu->name)
      r->fail(fmt::format("the throughput table's ratios are relative to {}: expected {} or no reference", throughput_reference_,
                          throughput_reference_));
    throughput_reference_ = gpu->name;
  }
  if (throughput_reference_.empty()) doc.fail("expected a reference GPU model for the throughput table");
  for (const auto& item : doc.at("classes").items()) {
    const Fields e = throughput_class_section().read(item);
    const std::string name = e.at("name").as_string();
    auto it = std::find_if(classes_.begin(), classes_.end(), [&](const ThroughputClass& c) { return c.name == name; });
    if (it == classes_.end()) {
      if (!e.has("bound")) e.node().fail(fmt::format("class '{}' is new: expected its bound (compute, memory or none)", name));
      classes_.push_back({name, {}, {}, {}, {}});
      it = classes_.end() - 1;
    }
    ThroughputClass& c = *it;
    if (auto b = e.get("bound")) c.bound = b->as_enum<ThroughputBound>(" or ");
    if (auto d = e.get("description")) c.description = d->as_string();
    if (auto src = e.get("source")) c.source = src->as_string();
    if (auto ratios = e.get("ratios"))
      for (const auto& r : ratios->items()) {
        const Fields m = measured_ratio_section().read(r);
        const GpuModel* gpu = find_gpu(m.at("gpu").as_string());
        if (!gpu) m.at("gpu").fail(fmt::format("unknown GPU model '{}'", m.at("gpu").as_string()));
        ThroughputClass::Measured measured{gpu->name, m.number("ratio"), m.at("source").as_string()};
        if (gpu->name == throughput_reference_ && measured.ratio != 1)
          m.at("ratio").fail(fmt::format("{} is the table's reference: its ratio is 1", gpu->name));
        auto old = std::find_if(c.ratios.begin(), c.ratios.end(), [&](const auto& x) { return x.gpu == gpu->name; });
        if (old != c.ratios.end()) *old = std::move(measured);
        else c.ratios.push_back(std::move(measured));
      }
  }
}

const ThroughputClass::Measured* ThroughputClass::find(std::string_view gpu) const {
  for (const Measured& m : ratios)
    if (m.gpu == gpu) return &m;
  return nullptr;
}

const ThroughputClass* Catalog::find_throughput_class(std::string_view name) const {
  for (const ThroughputClass& c : classes_)
    if (c.name == name) return &c;
  return nullptr;
}

const GpuModel& Catalog::throughput_reference() const { return *find_gpu(throughput_reference_); }

ThroughputRatio Catalog::throughput(const ThroughputClass& c, const GpuModel& gpu) const {
  if (gpu.name == throughput_reference_) return {1.0, true};
  if (const ThroughputClass::Measured* m = c.find(gpu.name)) return {m->ratio, true};
  const GpuModel& ref = throughput_reference();
  std::optional<double> r;
  switch (c.bound) {
    case ThroughputBound::compute:
      r = peak_ratio(gpu.bf16_tflops, ref.bf16_tflops);
      if (!r) r = peak_ratio(gpu.fp32_tflops, ref.fp32_tflops);
      break;
    case ThroughputBound::memory: r = peak_ratio(gpu.memory_bandwidth_gb_per_s, ref.memory_bandwidth_gb_per_s); break;
    case ThroughputBound::none: break;
  }
  return {r.value_or(1.0), false};
}

void Catalog::add_geometry(const ConfigNode& entry) {
  const Fields e = mig_geometry_section().read(entry);
  Geometry g;
  g.name = e.at("name").as_string();
  g.memory_slices = e.integer<int>("memory_slices");
  g.compute_slices = e.integer<int>("compute_slices");
  g.combine_4g_3g = e.value("combine_4g_3g").as_bool();
  e.at("source").as_string();
  for (const auto& item : e.at("classes").items()) {
    const Fields c = mig_class_section().read(item);
    MigProfile p;
    p.class_name = c.at("class").as_string();
    if (auto id = c.get("id")) p.profile_id = id->as_int<int>(c.range("id"));
    p.compute_slices = c.integer<int>("compute_slices");
    p.memory_slices = c.integer<int>("memory_slices");
    for (const auto& s : c.at("starts").items()) {
      const auto start = s.as_int<int>(c.range("starts"));
      if (start + p.memory_slices > g.memory_slices)
        s.fail(fmt::format("start {} + {} slices exceeds the {} memory slices", start, p.memory_slices,
                           g.memory_slices));
      p.starts.push_back(start);
    }
    p.max_count = c.integer<int>("max_count");
    p.media_extensions = c.value("media_extensions").as_bool();
    g.classes.push_back(std::move(p));
  }
  geometries_.push_back(std::move(g));
}

void Catalog::add_gpu(const ConfigNode& entry) {
  const Fields e = gpu_section().read(entry);
  GpuModel m;
  m.name = e.at("name").as_string();
  m.aliases = e.string_list("aliases");
  m.product_names = e.string_list("product_names");
  for (const auto& n : [&] { auto all = m.aliases; all.push_back(m.name); return all; }())
    if (find_gpu(n)) e.at("name").fail(fmt::format("GPU model '{}' is already defined", n));
  m.memory_mib = e.integer("memory_mib");
  m.sms = e.integer<int>("sms");
  m.bf16_tflops = e.number("bf16_tflops");
  m.fp32_tflops = e.number("fp32_tflops");
  m.memory_bandwidth_gb_per_s = e.number("memory_bandwidth_gb_per_s");
  m.tdp_w = e.number("tdp_w");
  if (auto f = e.get("fp8_tflops")) m.fp8_tflops = f->as_number(e.range("fp8_tflops"));
  m.vendor = e.value("vendor").as_enum<Vendor>(", ");
  // The scale-up fabric's fields carry the vendor's name for it (nvlink_*, xgmi_*, roce_*).
  const std::string_view fabric = to_string(m.fabric());
  const auto [bandwidth, links] = fabric_fields(m.fabric());
  for (const FabricFields& other : kFabricFields)
    for (std::string_view field : {other.bandwidth, other.links})
      if (other.bandwidth != bandwidth && e.has(field))
        e.at(field).fail(
            fmt::format("a {} GPU's scale-up fabric is {}: give {} and {}", to_string(m.vendor), fabric, bandwidth, links));
  if (!e.has(bandwidth)) e.node().fail(fmt::format("expected {} ({}'s {} bandwidth; 0: none)", bandwidth, m.name, fabric));
  m.link_gb_per_s = e.number(bandwidth);
  if (m.link_gb_per_s > 0) m.links = e.integer<int>(links);
  else if (e.has(links)) e.at(links).fail(fmt::format("{} needs {} > 0", links, bandwidth));
  m.pcie_gen = e.integer<int>("pcie_gen");
  if (pcie_x16_gb_per_s(m.pcie_gen) == 0) e.at("pcie_gen").fail(fmt::format("expected PCIe generation 3, 4 or 5, got {}", m.pcie_gen));
  if (m.vendor == Vendor::nvidia) {
    if (!e.has("compute_capability")) e.node().fail(fmt::format("expected compute_capability (CUDA) for NVIDIA GPU {}", m.name));
    m.compute_capability = e.number("compute_capability");
  } else if (e.has("compute_capability")) {
    e.at("compute_capability")
        .fail(fmt::format("a CUDA compute capability is NVIDIA's; {} is an {} GPU", m.name, to_string(m.vendor)));
  }
  m.assumed = e.string_list("assumed");
  m.source = e.at("source").as_string();
  if (auto mig_node = e.get("mig")) {
    const Fields mig = gpu_mig_section().read(*mig_node);
    const auto gname = mig.at("geometry").as_string();
    auto g = std::find_if(geometries_.begin(), geometries_.end(), [&](const Geometry& x) { return x.name == gname; });
    if (g == geometries_.end()) mig.at("geometry").fail(fmt::format("unknown MIG geometry '{}'", gname));
    MigTable table{g->name, g->memory_slices, g->compute_slices, g->combine_4g_3g, false, {}};
    for (const auto& item : mig.at("profiles").items()) {
      const Fields pe = mig_profile_section().read(item);
      const auto cname = pe.at("class").as_string();
      auto c = std::find_if(g->classes.begin(), g->classes.end(),
                            [&](const MigProfile& x) { return x.class_name == cname; });
      if (c == g->classes.end())
        pe.at("class").fail(fmt::format("geometry '{}' has no class '{}'", gname, cname));
      MigProfile p = *c;
      p.name = pe.at("name").as_string();
      if (table.find(p.name)) pe.at("name").fail(fmt::format("profile '{}' listed twice", p.name));
      p.memory_mib = pe.integer("memory_mib");
      if (p.memory_mib > m.memory_mib) pe.at("memory_mib").fail("profile memory exceeds the GPU's memory");
      p.sms = pe.integer<int>("sms");
      p.copy_engines = pe.integer<int>("copy_engines");
      p.assumed = pe.value("assumed").as_bool();
      table.profiles.push_back(std::move(p));
    }
    m.mig = std::move(table);
  }
  if (auto p = e.get("partitions")) {
    if (m.vendor != Vendor::amd)
      p->fail(fmt::format("compute and memory partitions are AMD's; {} is an {} GPU", m.name, to_string(m.vendor)));
    if (m.mig) p->fail("give either mig or partitions");
    std::tie(m.partitions, m.mig) = read_partitions(*p, m);
  } else if (m.mig && m.vendor != Vendor::nvidia) {
    e.at("mig").fail(fmt::format("MIG is NVIDIA's; {} is an {} GPU", m.name, to_string(m.vendor)));
  }
  gpus_.push_back(std::move(m));
}

void Catalog::add_node(const ConfigNode& entry) {
  const Fields e = node_section().read(entry);
  NodeTemplate t;
  t.name = e.at("name").as_string();
  if (find_node(t.name)) e.at("name").fail(fmt::format("node template '{}' is already defined", t.name));
  t.gpu = e.at("gpu").as_string();
  const GpuModel* gpu = find_gpu(t.gpu);
  if (!gpu) e.at("gpu").fail(fmt::format("unknown GPU model '{}'", t.gpu));
  t.gpu = gpu->name;  // canonical name even when given by alias
  t.gpus = e.integer<int>("gpus");
  t.cpu_milli = e.integer("cpu_milli");
  t.memory_mib = e.integer("memory_mib");
  if (auto p = e.get("price_per_node_hour_usd")) t.price_per_node_hour_usd = p->as_number(e.range("price_per_node_hour_usd"));
  if (auto p = e.get("spot_price_per_node_hour_usd"))
    t.spot_price_per_node_hour_usd = p->as_number(e.range("spot_price_per_node_hour_usd"));
  t.topology = e.has("topology") ? NodeTopology::parse(e.at("topology"), *gpu, t.gpus) : NodeTopology::single_host_bridge(*gpu, t.gpus);
  if (auto n = e.get("network")) t.network = NetworkSpec::parse(*n);
  if (auto h = e.get("host_power")) t.host_power = HostPower::parse(*h);
  if (auto d = e.get("nvlink_domain_nodes")) {
    // Multi-node NVLink joins the nodes' NVSwitch fabrics: their GPUs must be on NVLink switches.
    if (t.gpus < 2 || t.topology.link(0, 1).cls != LinkClass::nvlink || !t.topology.uniform())
      d->fail("an NVLink domain spanning nodes needs topology nvlink: all (the GPUs on NVLink switches)");
    t.nvlink_domain_nodes = d->as_int<int>(e.range("nvlink_domain_nodes"));
  }
  t.source = e.at("source").as_string();
  nodes_.push_back(std::move(t));
}

const GpuModel* Catalog::find_gpu(std::string_view name) const {
  for (const auto& g : gpus_) {
    if (g.name == name) return &g;
    for (const auto& a : g.aliases)
      if (a == name) return &g;
  }
  return nullptr;
}

const NodeTemplate* Catalog::find_node(std::string_view name) const {
  for (const auto& n : nodes_)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace gpusim
