// gpusim._core: the engine, scenarios, catalog and policies for the Python package (python/gpusim).
// Thin: every figure comes from the same C++ as the CLI (summary.json and the CSV writers), and
// Python policies are adapters over the same QueueOrder / PlacementPolicy / Scheduler interfaces,
// so the engine validates their decisions exactly as it validates the built-ins'.
#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "catalog.hpp"
#include "columns.hpp"
#include "compare_plan.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/hardware/mig.hpp"
#include "gpusim/policies/registry.hpp"
#include "gpusim/sim/audit.hpp"
#include "gpusim/sim/observer.hpp"
#include "gpusim/sim/outputs.hpp"
#include "gpusim/sim/report.hpp"
#include "gpusim/sim/run.hpp"
#include "gpusim/sim/scenario.hpp"
#include "html_report.hpp"
#include "ids.hpp"
#include "policies.hpp"
#include "sweep.hpp"
#include "table.hpp"

namespace py = pybind11;
using namespace gpusim;
using namespace gpusim::python;  // ids.hpp, columns.hpp, policies.hpp

namespace {

// A resolved scenario tree as Python objects (plain scalars read as YAML would: bool, int, float, str).
py::object to_python(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      py::dict d;
      for (const auto& kv : n) d[py::str(kv.first.Scalar())] = to_python(kv.second);
      return d;
    }
    case YAML::NodeType::Sequence: {
      py::list l;
      for (const auto& e : n) l.append(to_python(e));
      return l;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      if (n.Tag() == "!") return py::str(s);  // quoted in the file: a string
      if (s == "true" || s == "True") return py::bool_(true);
      if (s == "false" || s == "False") return py::bool_(false);
      if (s == "~" || s == "null") return py::none();
      try {
        std::size_t used = 0;
        const long long i = std::stoll(s, &used);
        if (used == s.size()) return py::int_(i);
      } catch (const std::exception&) {
      }
      try {
        std::size_t used = 0;
        const double d = std::stod(s, &used);
        if (used == s.size()) return py::float_(d);
      } catch (const std::exception&) {
      }
      return py::str(s);
    }
    default: return py::none();
  }
}

// One finished run: the engine's result and its summary, kept for the CSV writers, and the writers
// of its run directory, which observed it.
struct Run {
  std::shared_ptr<const Scenario> scenario;
  RunResult result;
  Json summary;
  double seconds = 0;
  std::shared_ptr<const RunOutputs> outputs;
};

// Calls f() with the GIL released unless a Python policy takes part (it needs the GIL held): other
// Python threads (a thread-pool sweep) run meanwhile.
template <class F>
auto without_gil_unless(bool python, F&& f) {
  if (python) return f();
  py::gil_scoped_release release;
  return f();
}

std::shared_ptr<Run> simulate_py(std::shared_ptr<const Scenario> s, const py::object& policy, std::vector<std::string> outputs,
                                 bool audit) {
  bool python = false;
  auto scheduler = make_scheduler(*s, policy, python);
  outputs.insert(outputs.begin(), s->outputs.begin(), s->outputs.end());
  for (const std::string& name : outputs)
    if (!find_output(name)) throw InputError({"outputs", std::nullopt, name}, fmt::format("no output named '{}'", name));
  auto writers = std::make_shared<const RunOutputs>(outputs);
  const RunOptions options{{}, writers->observers(), audit};
  const auto t0 = std::chrono::steady_clock::now();
  RunResult result = without_gil_unless(python, [&] { return simulate(*s, *scheduler, options); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Json summary = summarize(*s, result);
  return std::make_shared<Run>(Run{std::move(s), std::move(result), std::move(summary), seconds, std::move(writers)});
}

// `max_memory` (a size such as "4GiB", or bytes) as --max-memory takes it; none: the machine's default.
LoadOptions load_options(std::optional<std::string> text, std::vector<std::string> overrides, std::optional<std::string> data,
                         const std::optional<std::string>& max_memory) {
  std::optional<MemoryLimit> limit;
  if (max_memory) limit = MemoryLimit::parse(*max_memory, {"", std::nullopt, "max_memory"});
  return {std::move(overrides), std::move(data), std::move(text), std::move(limit)};
}

std::shared_ptr<Scenario> load(const std::string& path, std::optional<std::string> text, std::vector<std::string> overrides,
                               std::optional<std::string> data, const std::optional<std::string>& max_memory) {
  return std::make_shared<Scenario>(
      load_scenario(path, load_options(std::move(text), std::move(overrides), std::move(data), max_memory)));
}

// gpusim.compare: the runs `gpusim compare` makes (compare_plan), each as (variant, policy, its
// summary.json). Policies named by strings run on `workers` threads, the GIL released; when one is a
// Python object every run goes in order in this thread, as the GIL needs, so a policy that keeps
// state sees the runs in the rows' order, and the first run to fail raises.
std::vector<std::tuple<std::string, std::string, std::string>> compare_py(
    const std::string& path, std::optional<std::string> text, std::vector<std::string> overrides, std::optional<std::string> data,
    const py::list& policies, const std::optional<std::string>& max_memory, int workers) {
  if (workers < 0)
    throw InputError({"", std::nullopt, "workers"}, fmt::format("expected 0 (one per core) or more, got {}", workers));
  cli::CompareOptions options;  // named in errors as gpusim.compare named them
  options.policies_arg = "policies";
  options.policy_source = "policy";
  bool python = false;
  for (const py::handle p : policies) {
    const bool named = py::isinstance<py::str>(p);
    python = python || !named;
    options.policies.push_back(named ? p.cast<std::string>() : "");  // a Python one's name is its scheduler's
  }
  const cli::ComparePlan plan = cli::compare_plan(
      path, load_options(std::move(text), std::move(overrides), std::move(data), max_memory), options);
  std::vector<cli::RunOutcome> outcomes;
  if (!python) {
    py::gil_scoped_release release;
    outcomes = cli::run_all(plan.specs, cli::resolve_workers(workers));
  } else {
    for (std::size_t i = 0; i < plan.specs.size(); ++i) {
      const std::optional<std::size_t> p = plan.origins[i].policy;
      bool python_run = false;
      const auto scheduler = make_scheduler(plan.specs[i].scenario, p ? py::object(policies[*p]) : py::object(py::none()),
                                            python_run);
      outcomes.push_back(without_gil_unless(python_run, [&] { return cli::run_spec(plan.specs[i], *scheduler); }));
    }
  }
  std::vector<std::tuple<std::string, std::string, std::string>> out;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    Json& summary = outcomes[i].summary;
    summary.erase("label");  // summary.json as the run wrote it
    // A policy named as given; the scenario's own, or one written in Python, as its scheduler is named.
    const std::optional<std::size_t> p = plan.origins[i].policy;
    const bool named = p && py::isinstance<py::str>(policies[*p]);
    out.emplace_back(plan.origins[i].variant, named ? options.policies[*p] : summary["policy"].get<std::string>(),
                     summary.dump());
  }
  return out;
}

py::dict pool_dict(const PoolSpec& p) {
  py::dict d;
  d["name"] = p.name;
  d["node_template"] = p.node_template;
  d["gpu_model"] = p.gpu ? py::object(py::str(p.gpu->name)) : py::object(py::none());
  d["nodes"] = p.node_count;
  d["initial_nodes"] = p.initial_nodes;
  d["gpus_per_node"] = p.nodes.front().gpus;
  d["sharing"] = std::string(to_string(p.sharing.mode));
  d["replicas"] = p.sharing.replicas;
  d["market"] = std::string(to_string(p.market));
  d["price_per_node_hour_usd"] = p.price_per_node_hour_usd;
  return d;
}

// The job set as columns (a DataFrame on the Python side).
py::dict job_columns(const Scenario& s) {
  std::vector<uint32_t> id;
  std::vector<std::string> name, kind, tenant;
  std::vector<double> arrival_s, work_s, u;
  std::vector<int32_t> gpus, priority;
  std::vector<int64_t> milli, gpu_memory_mib, cpu_milli, memory_mib;
  for (const Job& j : s.jobs.jobs) {
    id.push_back(j.id);
    name.push_back(j.name);
    kind.emplace_back(to_string(j.kind));
    tenant.push_back(s.jobs.tenants[j.tenant]);
    arrival_s.push_back(j.arrival.seconds());
    work_s.push_back(j.work.seconds());
    u.push_back(j.u);
    gpus.push_back(j.request.gpus);
    priority.push_back(j.priority);
    milli.push_back(j.request.milli_per_gpu.value);
    gpu_memory_mib.push_back(j.request.gpu_memory_mib);
    cpu_milli.push_back(j.request.cpu_milli);
    memory_mib.push_back(j.request.memory_mib);
  }
  py::dict d;
  d["id"] = id, d["name"] = name, d["arrival_s"] = arrival_s, d["work_s"] = work_s, d["kind"] = kind, d["tenant"] = tenant;
  d["gpus"] = gpus, d["milli_per_gpu"] = milli, d["gpu_memory_mib"] = gpu_memory_mib, d["cpu_milli"] = cpu_milli;
  d["memory_mib"] = memory_mib, d["u"] = u, d["priority"] = priority;
  return d;
}

// View methods Python has that the C++ view has not (each id checked by checked()). A slot an
// autoscaled pool has not built yet is an off node: a copy describes it (node_admits and
// fits_on_node say no, fitting_gpus is empty, gpu_fits false).
py::object view_node(const ClusterView& v, NodeId n) {
  if (v.cluster().has_node(n)) return py::cast(&v.cluster().node(n), py::return_value_policy::reference);
  return py::cast(v.cluster().slot_node(n));
}
py::object view_gpu(const ClusterView& v, GpuId g) {
  if (v.cluster().has_gpu(g)) return py::cast(&v.cluster().gpu(g), py::return_value_policy::reference);
  return py::cast(v.cluster().slot_gpu(g));
}
bool gpu_fits(const ClusterView& v, JobId job, GpuId g) { return v.cluster().has_gpu(g) && v.gpu_fits(job, g); }
const Pool* view_pool(const ClusterView& v, PoolId p) { return &v.cluster().pool(p); }
std::vector<GpuId> fitting_gpus(const ClusterView& v, JobId job, NodeId node) {
  std::vector<GpuId> out;
  v.fitting_gpus(job, node, out);
  return out;
}
// Seconds, as the rest of the Python view speaks: how long after its arrival the job must end (None:
// no deadline), and how long it has waited in the queue over all its waits.
std::optional<double> deadline_s(const ClusterView& v, JobId job) {
  const std::optional<Duration> d = v.deadline(job);
  return d ? std::optional(d->seconds()) : std::nullopt;
}
double waited_s(const ClusterView& v, JobId job) { return v.waited(job).seconds(); }
std::pair<int64_t, int64_t> gpu_demand(const ClusterView& v, JobId job, PoolId pool) {
  const GpuDemand d = v.gpu_demand(job, pool);
  return {d.milli.value, d.memory_mib};
}

std::vector<GpuId> node_gpus(const ClusterView& v, NodeId n) {
  const Node node = v.cluster().slot_node(n);
  std::vector<GpuId> out;
  for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g) out.push_back(g);
  return out;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "gpusim's C++ core (use the gpusim package)";
  m.attr("__version__") = kVersion;
  // The CLI exits 2 on an InputError and 1 on a PolicyError; Python gets the same messages.
  py::register_exception<InputError>(m, "InputError", PyExc_ValueError);
  py::register_exception<PolicyError>(m, "PolicyError", PyExc_RuntimeError);
  py::register_exception<AuditError>(m, "AuditError", PyExc_RuntimeError);
  py::register_exception<OutputError>(m, "OutputError", PyExc_OSError);
  bind_routers(m);

  // --- hardware catalog and MIG geometry
  py::class_<MigProfile>(m, "MigProfile")
      .def_readonly("name", &MigProfile::name)
      .def_readonly("profile_id", &MigProfile::profile_id)
      .def_readonly("memory_mib", &MigProfile::memory_mib)
      .def_readonly("sms", &MigProfile::sms)
      .def_readonly("compute_slices", &MigProfile::compute_slices)
      .def_readonly("memory_slices", &MigProfile::memory_slices)
      .def_readonly("starts", &MigProfile::starts)
      .def_readonly("max_count", &MigProfile::max_count)
      .def_readonly("media_extensions", &MigProfile::media_extensions)
      .def("__repr__", [](const MigProfile& p) { return "<MigProfile " + p.name + ">"; });
  py::class_<MigLayoutOption>(m, "MigLayout")
      .def_readonly("counts", &MigLayoutOption::counts)
      .def_readonly("maximal", &MigLayoutOption::maximal)
      .def_property_readonly("instances",
                             [](const MigLayoutOption& o) {
                               std::vector<std::pair<int, int>> out;
                               for (const MigInstance& in : o.placement) out.emplace_back(in.profile, in.start);
                               return out;
                             });
  py::class_<MigTable>(m, "MigTable")
      .def_readonly("geometry", &MigTable::geometry)
      .def_readonly("memory_slices", &MigTable::memory_slices)
      .def_readonly("compute_slices", &MigTable::compute_slices)
      .def_readonly("profiles", &MigTable::profiles)
      .def("layouts", [](const MigTable& t) { return mig_enumerate(t); }, "Every valid layout, largest first")
      .def("describe", [](const MigTable& t, const MigCounts& c) { return mig_describe(t, c); });
  py::class_<GpuModel>(m, "GpuModel")
      .def_readonly("name", &GpuModel::name)
      .def_readonly("aliases", &GpuModel::aliases)
      .def_readonly("memory_mib", &GpuModel::memory_mib)
      .def_readonly("sms", &GpuModel::sms)
      .def_readonly("bf16_tflops", &GpuModel::bf16_tflops)
      .def_readonly("fp32_tflops", &GpuModel::fp32_tflops)
      .def_readonly("memory_bandwidth_gb_per_s", &GpuModel::memory_bandwidth_gb_per_s)
      .def_readonly("tdp_w", &GpuModel::tdp_w)
      .def_property_readonly("vendor", [](const GpuModel& g) { return std::string(to_string(g.vendor)); })
      .def_property_readonly("fabric", [](const GpuModel& g) { return std::string(to_string(g.fabric())); })
      .def_readonly("link_gb_per_s", &GpuModel::link_gb_per_s)
      .def_readonly("links", &GpuModel::links)
      .def_readonly("fp8_tflops", &GpuModel::fp8_tflops)
      .def_readonly("pcie_gen", &GpuModel::pcie_gen)
      .def_readonly("compute_capability", &GpuModel::compute_capability)
      .def_readonly("source", &GpuModel::source)
      .def_property_readonly(
          "mig", [](const GpuModel& g) { return g.mig ? &*g.mig : nullptr; }, py::return_value_policy::reference_internal)
      .def("__repr__", [](const GpuModel& g) { return "<GpuModel " + g.name + ">"; });
  py::class_<NodeTemplate>(m, "NodeTemplate")
      .def_readonly("name", &NodeTemplate::name)
      .def_readonly("gpu", &NodeTemplate::gpu)
      .def_readonly("gpus", &NodeTemplate::gpus)
      .def_readonly("cpu_milli", &NodeTemplate::cpu_milli)
      .def_readonly("memory_mib", &NodeTemplate::memory_mib)
      .def_readonly("price_per_node_hour_usd", &NodeTemplate::price_per_node_hour_usd)
      .def_readonly("spot_price_per_node_hour_usd", &NodeTemplate::spot_price_per_node_hour_usd)
      .def_readonly("source", &NodeTemplate::source)
      .def("__repr__", [](const NodeTemplate& t) { return "<NodeTemplate " + t.name + ">"; });
  // The built-in catalog lives as long as the process: Python holds references into it.
  m.def("builtin_gpus", [] {
    py::list out;
    for (const GpuModel& g : Catalog::builtin().gpus()) out.append(py::cast(&g, py::return_value_policy::reference));
    return out;
  });
  m.def("builtin_nodes", [] {
    py::list out;
    for (const NodeTemplate& n : Catalog::builtin().nodes()) out.append(py::cast(&n, py::return_value_policy::reference));
    return out;
  });
  m.def("mig_model", [](const std::string& name) { return &require_mig_model(Catalog::builtin(), name); },
        py::return_value_policy::reference);
  // `gpusim catalog [VIEW] [--filter F] [--gpu G] [--json]`: the CLI's own text and JSON (as a string).
  const auto catalog_query = [](const std::string& view, std::optional<std::string> filter, std::optional<std::string> gpu) {
    return cli::CatalogQuery{cli::parse_catalog_view(view), std::move(filter), std::move(gpu)};
  };
  m.def(
      "catalog_text",
      [catalog_query](const std::string& view, std::optional<std::string> filter, std::optional<std::string> gpu) {
        return cli::catalog_text(Catalog::builtin(), catalog_query(view, std::move(filter), std::move(gpu)));
      },
      py::arg("view") = "all", py::arg("filter") = py::none(), py::arg("gpu") = py::none());
  m.def(
      "catalog_json",
      [catalog_query](const std::string& view, std::optional<std::string> filter, std::optional<std::string> gpu) {
        return cli::catalog_json(Catalog::builtin(), catalog_query(view, std::move(filter), std::move(gpu))).dump(2);
      },
      py::arg("view") = "all", py::arg("filter") = py::none(), py::arg("gpu") = py::none());

  // --- scenarios
  py::class_<Scenario, std::shared_ptr<Scenario>>(m, "Scenario")
      .def_readonly("file", &Scenario::file)
      .def_readonly("name", &Scenario::name)
      .def_readonly("seed", &Scenario::seed)
      .def_readonly("policy", &Scenario::policy)
      .def_readonly("data_dir", &Scenario::data_dir)
      .def_property_readonly("variants",
                             [](const Scenario& s) {
                               std::vector<std::string> out;
                               for (const auto& v : s.variants) out.push_back(v.name);
                               return out;
                             })
      .def_property_readonly("config", [](const Scenario& s) { return to_python(s.resolved.yaml()); })
      .def_property_readonly("pools",
                             [](const Scenario& s) {
                               py::list out;
                               for (const auto& p : s.pools) out.append(pool_dict(p));
                               return out;
                             })
      .def("job_columns", &job_columns);
  m.def("load_scenario", &load, py::arg("path"), py::arg("text") = py::none(), py::arg("overrides") = std::vector<std::string>{},
        py::arg("data") = py::none(), py::arg("max_memory") = py::none());
  m.def(
      "load_variants",
      [](const std::string& path, std::optional<std::string> text, std::vector<std::string> overrides,
         std::optional<std::string> data, const std::optional<std::string>& max_memory) {
        std::vector<std::pair<std::string, std::shared_ptr<Scenario>>> out;
        for (auto& [name, s] :
             load_variants(path, load_options(std::move(text), std::move(overrides), std::move(data), max_memory)))
          out.emplace_back(name, std::make_shared<Scenario>(std::move(s)));
        return out;
      },
      py::arg("path"), py::arg("text") = py::none(), py::arg("overrides") = std::vector<std::string>{},
      py::arg("data") = py::none(), py::arg("max_memory") = py::none());

  // --- what Python policies see and call
  py::class_<Job>(m, "Job")
      .def_readonly("id", &Job::id)
      .def_readonly("name", &Job::name)
      .def_property_readonly("arrival_s", [](const Job& j) { return j.arrival.seconds(); })
      .def_property_readonly("work_s", [](const Job& j) { return j.work.seconds(); })
      .def_property_readonly("arrival_us", [](const Job& j) { return j.arrival.us(); })
      .def_property_readonly("work_us", [](const Job& j) { return j.work.us(); })
      .def_property_readonly("gpus", [](const Job& j) { return j.request.gpus; })
      .def_property_readonly("milli_per_gpu", [](const Job& j) { return j.request.milli_per_gpu.value; })
      .def_property_readonly("gpu_memory_mib", [](const Job& j) { return j.request.gpu_memory_mib; })
      .def_property_readonly("cpu_milli", [](const Job& j) { return j.request.cpu_milli; })
      .def_property_readonly("memory_mib", [](const Job& j) { return j.request.memory_mib; })
      .def_property_readonly("kind", [](const Job& j) { return std::string(to_string(j.kind)); })
      .def_readonly("u", &Job::u)
      .def_readonly("tenant", &Job::tenant)
      .def_readonly("priority", &Job::priority)
      .def_property_readonly("occupancy", &Job::occupancy)
      .def_property_readonly("multi_node", [](const Job& j) { return static_cast<bool>(j.multi_node); })
      .def("__repr__", [](const Job& j) { return "<Job " + std::to_string(j.id) + " " + j.name + ">"; });
  py::class_<Node>(m, "Node")
      .def_readonly("name", &Node::name)
      .def_readonly("pool", &Node::pool)
      .def_readonly("gpu_count", &Node::gpu_count)
      .def_readonly("first_gpu", &Node::first_gpu)
      .def_readonly("cpu_milli", &Node::cpu_milli)
      .def_readonly("memory_mib", &Node::memory_mib)
      .def_readonly("free_cpu_milli", &Node::free_cpu_milli)
      .def_readonly("free_memory_mib", &Node::free_memory_mib)
      .def_property_readonly("ready", &Node::ready);
  py::class_<Gpu>(m, "Gpu")
      .def_readonly("node", &Gpu::node)
      .def_property_readonly("free_milli", [](const Gpu& g) { return g.free.value; })
      .def_readonly("free_memory_mib", &Gpu::free_memory_mib)
      .def_readonly("slots", &Gpu::slots)
      .def_readonly("mig", &Gpu::mig)
      .def_readonly("busy", &Gpu::busy)
      .def_property_readonly("residents", [](const Gpu& g) { return std::vector<JobId>(g.residents.begin(), g.residents.end()); });
  py::class_<Pool>(m, "Pool")
      .def_readonly("name", &Pool::name)
      .def_property_readonly("gpu_model", [](const Pool& p) { return p.gpu ? p.gpu->name : std::string(); })
      .def_property_readonly("market", [](const Pool& p) { return std::string(to_string(p.market)); })
      .def_property_readonly("sharing", [](const Pool& p) { return std::string(to_string(p.sharing.mode)); })
      .def_readonly("price_per_node_hour_usd", &Pool::price_per_node_hour_usd);
  py::class_<ClusterView>(m, "ClusterView", "The cluster as a policy sees it at a decision point (read-only)")
      .def_property_readonly("now_s", [](const ClusterView& v) { return v.now().seconds(); })
      .def_property_readonly("node_count", [](const ClusterView& v) { return v.cluster().node_count(); })
      .def_property_readonly("gpu_count", [](const ClusterView& v) { return v.cluster().gpu_count(); })
      .def("job", checked(&ClusterView::job), py::return_value_policy::reference)
      .def("node", checked(&view_node))
      .def("gpu", checked(&view_gpu))
      .def("pool", checked(&view_pool), py::return_value_policy::reference)
      .def("node_gpus", checked(&node_gpus))
      .def(
          "pending",
          [](const ClusterView& v) {
            std::vector<JobId> out;
            v.for_each_pending([&](JobId id) {
              out.push_back(id);
              return true;
            });
            return out;
          },
          "Pending jobs in queue order")
      .def("new_arrivals", &ClusterView::new_arrivals)
      .def("is_pending", checked(&ClusterView::is_pending))
      .def("deadline_s", checked(&deadline_s), "Seconds after its arrival by which the job must end; None: no deadline")
      .def("waited_s", checked(&waited_s), "Seconds the job has waited in the queue, over all its waits")
      .def(
          "running",
          [](const ClusterView& v) {
            std::vector<std::pair<JobId, double>> out;
            v.for_each_running([&](JobId id, Time end) { out.emplace_back(id, end.seconds()); });
            return out;
          },
          "(job, expected end in seconds) of every running job")
      .def(
          "distinct_nodes",
          [](const ClusterView& v) {
            std::vector<NodeId> out;
            for (BucketId b : v.cluster().live_buckets()) out.push_back(v.cluster().bucket(b).representative());
            return out;
          },
          "One ready node per group of nodes in identical states (the lowest id)")
      .def("fits_on_node", checked(&ClusterView::fits_on_node))
      .def("node_admits", checked(&ClusterView::node_admits))
      .def("gpu_fits", checked(&gpu_fits))
      .def("gpus_to_place", checked(&ClusterView::gpus_to_place))
      .def("fitting_gpus", checked(&fitting_gpus))
      .def("gpu_demand", checked(&gpu_demand));
  py::class_<PyBinder>(m, "Binder", "Where a policy's decisions go; the engine checks each one")
      .def("bind", &PyBinder::bind, py::arg("job"), py::arg("nodes"), py::arg("gpus"), py::arg("instances") = py::list(),
           "instances: per GPU, its MIG slot (an index into the GPU's instances), None on GPUs without MIG")
      .def("recheck_at_s", &PyBinder::recheck_at_s, py::arg("t"));

  // --- runs
  py::class_<Run, std::shared_ptr<Run>>(m, "Run")
      .def_readonly("seconds", &Run::seconds)
      .def_property_readonly("events", [](const Run& r) { return r.result.events; })
      .def("summary_json", [](const Run& r) { return r.summary.dump(); })
      .def("jobs_columns",
           [](const Run& r) { return python::frame_columns([&](TableSink& t) { jobs_table(t, *r.scenario, r.result); }); })
      .def("timeseries_columns",
           [](const Run& r) { return python::frame_columns([&](TableSink& t) { timeseries_table(t, r.result); }); })
      .def("pool_timeseries_columns",
           [](const Run& r) { return python::frame_columns([&](TableSink& t) { pool_timeseries_table(t, r.result); }); })
      .def("gpus_columns", [](const Run& r) { return python::frame_columns([&](TableSink& t) { gpus_table(t, r.result); }); })
      .def("tenants_columns",
           [](const Run& r) { return python::frame_columns([&](TableSink& t) { tenants_table(t, *r.scenario, r.result); }); })
      .def("cost_columns",
           [](const Run& r) { return python::frame_columns([&](TableSink& t) { cost_table(t, *r.scenario, r.result); }); })
      .def("services_columns",
           [](const Run& r) { return python::frame_columns([&](TableSink& t) { services_table(t, r.summary); }); })
      .def("requests_columns",
           [](const Run& r) { return python::frame_columns([&](TableSink& t) { requests_table(t, *r.scenario, r.result); }); })
      .def("replicas_columns",
           [](const Run& r) { return python::frame_columns([&](TableSink& t) { replicas_table(t, *r.scenario, r.result); }); })
      .def(
          "write",
          [](const Run& r, const std::string& dir, bool force) {
            r.outputs->write(dir, force, *r.scenario, r.result, r.summary);
          },
          py::arg("dir"), py::arg("force") = false)
      .def(
          "report",
          [](const Run& r, const std::string& path, bool force) {
            check_output_file(path, "path", force);
            write_output_file(path, cli::html_report(cli::run_files(*r.outputs, *r.scenario, r.result, r.summary), "run"));
          },
          py::arg("path"), py::arg("force") = false);
  // The HTML report of a run directory: the renderer `gpusim report` uses.
  m.def(
      "report",
      [](const std::string& run_dir, const std::string& path, bool force) {
        check_output_file(path, "path", force);
        write_output_file(path, cli::html_report(cli::read_run_dir(run_dir), run_dir));
      },
      py::arg("run_dir"), py::arg("path"), py::arg("force") = false);
  m.def("simulate", &simulate_py, py::arg("scenario"), py::arg("policy") = py::none(),
        py::arg("outputs") = std::vector<std::string>{}, py::arg("audit") = false);
  m.def("compare", &compare_py, py::arg("path"), py::arg("text"), py::arg("overrides"), py::arg("data"), py::arg("policies"),
        py::arg("max_memory") = py::none(), py::arg("workers") = 1);
  m.def("outputs", [] {
    std::vector<std::tuple<std::string, std::string, std::string, bool>> out;
    for (const OutputSpec& o : output_table()) out.emplace_back(o.name, o.file, o.description, o.by_default);
    return out;
  });

  m.def("flatten_summary", [](const std::string& summary_json) { return flatten_summary(Json::parse(summary_json)); });
  // The run and compare tables' rows as cli/table.cpp declares them once (label, summary key, better).
  m.def("table_rows", [] {
    std::vector<std::tuple<std::string, std::string, std::string>> rows;
    for (const cli::MetricRow& r : cli::metric_rows())
      rows.emplace_back(r.label, r.pointer,
                        r.better == cli::Better::lower    ? "lower"
                        : r.better == cli::Better::higher ? "higher"
                                                          : "");
    return rows;
  });
  m.def("run_table", [](const std::string& summary_json) { return cli::run_table(Json::parse(summary_json)); });
  m.def(
      "sweep_points",
      [](const std::string& path, std::optional<std::string> text, std::vector<std::string> overrides,
         std::optional<std::string> data, std::vector<std::pair<std::string, std::vector<std::string>>> grid,
         const std::vector<std::string>& policies, const std::optional<std::string>& max_memory) {
        std::vector<cli::GridAxis> axes;
        for (auto& axis : grid) {
          if (axis.second.empty()) throw InputError({"grid", std::nullopt, axis.first}, "expected at least one value");
          axes.push_back({axis.first, std::move(axis.second)});
        }
        std::vector<py::dict> out;
        for (auto& point : cli::sweep_points(
                 path, load_options(std::move(text), std::move(overrides), std::move(data), max_memory), axes, policies)) {
          py::dict d;
          d["columns"] = point.columns;
          d["overrides"] = point.overrides;
          d["policy"] = point.policy;
          out.push_back(std::move(d));
        }
        return out;
      },
      py::arg("path"), py::arg("text"), py::arg("overrides"), py::arg("data"), py::arg("grid"), py::arg("policies"),
      py::arg("max_memory") = py::none());
}
