#include "gpusim/hardware/catalog.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gpusim {

namespace embedded {
std::string_view gpus_yaml();
std::string_view nodes_yaml();
}  // namespace embedded

const MigProfile* MigTable::find(std::string_view profile) const {
  for (const auto& p : profiles)
    if (p.name == profile) return &p;
  return nullptr;
}

const Catalog& Catalog::builtin() {
  static const Catalog catalog = [] {
    Catalog c;
    c.add_document(ConfigNode::parse(std::string(embedded::gpus_yaml()), "<builtin>/hardware/data/gpus.yaml"));
    c.add_document(ConfigNode::parse(std::string(embedded::nodes_yaml()), "<builtin>/hardware/data/nodes.yaml"));
    return c;
  }();
  return catalog;
}

void Catalog::add_document(const ConfigNode& doc) {
  doc.allow_only({"mig_geometries", "gpus", "nodes"});
  if (auto g = doc.get("mig_geometries"))
    for (const auto& e : g->items()) add_geometry(e);
  if (auto g = doc.get("gpus"))
    for (const auto& e : g->items()) add_gpu(e);
  if (auto n = doc.get("nodes"))
    for (const auto& e : n->items()) add_node(e);
}

void Catalog::add_geometry(const ConfigNode& e) {
  e.allow_only({"name", "memory_slices", "compute_slices", "combine_4g_3g", "source", "classes"});
  Geometry g;
  g.name = e.at("name").as_string();
  g.memory_slices = static_cast<int>(e.at("memory_slices").as_positive_int());
  g.compute_slices = static_cast<int>(e.at("compute_slices").as_positive_int());
  if (auto c = e.get("combine_4g_3g")) g.combine_4g_3g = c->as_bool();
  e.at("source").as_string();
  for (const auto& c : e.at("classes").items()) {
    c.allow_only({"class", "id", "compute_slices", "memory_slices", "starts", "max_count", "media_extensions"});
    MigProfile p;
    p.class_name = c.at("class").as_string();
    if (auto id = c.get("id")) p.profile_id = static_cast<int>(id->as_non_negative_int());
    p.compute_slices = static_cast<int>(c.at("compute_slices").as_positive_int());
    p.memory_slices = static_cast<int>(c.at("memory_slices").as_positive_int());
    for (const auto& s : c.at("starts").items()) {
      const auto start = s.as_non_negative_int();
      if (start + p.memory_slices > g.memory_slices)
        s.fail(fmt::format("start {} + {} slices exceeds the {} memory slices", start, p.memory_slices,
                           g.memory_slices));
      p.starts.push_back(static_cast<int>(start));
    }
    p.max_count = static_cast<int>(c.at("max_count").as_positive_int());
    if (auto me = c.get("media_extensions")) p.media_extensions = me->as_bool();
    g.classes.push_back(std::move(p));
  }
  geometries_.push_back(std::move(g));
}

void Catalog::add_gpu(const ConfigNode& e) {
  e.allow_only({"name", "aliases", "memory_mib", "sms", "bf16_tflops", "fp32_tflops",
                "memory_bandwidth_gb_per_s", "tdp_w", "nvlink_gb_per_s", "nvlinks", "pcie_gen", "compute_capability",
                "assumed", "mig", "source"});
  GpuModel m;
  m.name = e.at("name").as_string();
  m.aliases = e.string_list("aliases");
  for (const auto& n : [&] { auto all = m.aliases; all.push_back(m.name); return all; }())
    if (find_gpu(n)) e.at("name").fail(fmt::format("GPU model '{}' is already defined", n));
  m.memory_mib = e.at("memory_mib").as_positive_int();
  m.sms = static_cast<int>(e.at("sms").as_positive_int());
  m.bf16_tflops = e.at("bf16_tflops").as_non_negative_number();
  m.fp32_tflops = e.at("fp32_tflops").as_non_negative_number();
  m.memory_bandwidth_gb_per_s = e.at("memory_bandwidth_gb_per_s").as_non_negative_number();
  m.tdp_w = e.at("tdp_w").as_non_negative_number();
  m.nvlink_gb_per_s = e.at("nvlink_gb_per_s").as_non_negative_number();
  if (m.nvlink_gb_per_s > 0) m.nvlinks = static_cast<int>(e.at("nvlinks").as_positive_int());
  else if (e.has("nvlinks")) e.at("nvlinks").fail("nvlinks needs nvlink_gb_per_s > 0");
  m.pcie_gen = static_cast<int>(e.at("pcie_gen").as_positive_int());
  if (pcie_x16_gb_per_s(m.pcie_gen) == 0) e.at("pcie_gen").fail(fmt::format("expected PCIe generation 3, 4 or 5, got {}", m.pcie_gen));
  m.compute_capability = e.at("compute_capability").as_non_negative_number();
  m.assumed = e.string_list("assumed");
  m.source = e.at("source").as_string();
  if (auto mig = e.get("mig")) {
    mig->allow_only({"geometry", "profiles"});
    const auto gname = mig->at("geometry").as_string();
    auto g = std::find_if(geometries_.begin(), geometries_.end(), [&](const Geometry& x) { return x.name == gname; });
    if (g == geometries_.end()) mig->at("geometry").fail(fmt::format("unknown MIG geometry '{}'", gname));
    MigTable table{g->name, g->memory_slices, g->compute_slices, g->combine_4g_3g, {}};
    for (const auto& pe : mig->at("profiles").items()) {
      pe.allow_only({"name", "class", "memory_mib", "sms", "copy_engines", "assumed"});
      const auto cname = pe.at("class").as_string();
      auto c = std::find_if(g->classes.begin(), g->classes.end(),
                            [&](const MigProfile& x) { return x.class_name == cname; });
      if (c == g->classes.end())
        pe.at("class").fail(fmt::format("geometry '{}' has no class '{}'", gname, cname));
      MigProfile p = *c;
      p.name = pe.at("name").as_string();
      if (table.find(p.name)) pe.at("name").fail(fmt::format("profile '{}' listed twice", p.name));
      p.memory_mib = pe.at("memory_mib").as_positive_int();
      if (p.memory_mib > m.memory_mib) pe.at("memory_mib").fail("profile memory exceeds the GPU's memory");
      p.sms = static_cast<int>(pe.at("sms").as_positive_int());
      p.copy_engines = static_cast<int>(pe.at("copy_engines").as_positive_int());
      if (auto a = pe.get("assumed")) p.assumed = a->as_bool();
      table.profiles.push_back(std::move(p));
    }
    m.mig = std::move(table);
  }
  gpus_.push_back(std::move(m));
}

void Catalog::add_node(const ConfigNode& e) {
  e.allow_only({"name", "gpu", "gpus", "cpu_milli", "memory_mib", "price_per_node_hour_usd", "spot_price_per_node_hour_usd",
                "topology", "network", "source"});
  NodeTemplate t;
  t.name = e.at("name").as_string();
  if (find_node(t.name)) e.at("name").fail(fmt::format("node template '{}' is already defined", t.name));
  t.gpu = e.at("gpu").as_string();
  const GpuModel* gpu = find_gpu(t.gpu);
  if (!gpu) e.at("gpu").fail(fmt::format("unknown GPU model '{}'", t.gpu));
  t.gpu = gpu->name;  // canonical name even when given by alias
  t.gpus = static_cast<int>(e.at("gpus").as_non_negative_int());
  t.cpu_milli = e.at("cpu_milli").as_positive_int();
  t.memory_mib = e.at("memory_mib").as_positive_int();
  if (auto p = e.get("price_per_node_hour_usd")) t.price_per_node_hour_usd = p->as_non_negative_number();
  if (auto p = e.get("spot_price_per_node_hour_usd")) t.spot_price_per_node_hour_usd = p->as_non_negative_number();
  if (t.gpus > NodeTopology::kMaxGpus) e.at("gpus").fail(fmt::format("at most {} GPUs per node are supported", NodeTopology::kMaxGpus));
  t.topology = e.has("topology") ? NodeTopology::parse(e.at("topology"), *gpu, t.gpus) : NodeTopology::single_host_bridge(*gpu, t.gpus);
  if (auto n = e.get("network")) t.network = NetworkSpec::parse(*n);
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
