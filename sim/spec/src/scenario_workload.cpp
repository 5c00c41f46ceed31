// The workload (`workload:`): inline jobs, traces, a generator and inference services, the served
// models the scenario adds, and the speed settings every job names checked against the catalog.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpusim/workloads/served_model.hpp"
#include "gpusim/workloads/service.hpp"
#include "gpusim/workloads/spec.hpp"
#include "gpusim/workloads/traces.hpp"
#include "scenario_parts.hpp"

namespace gpusim {

namespace {

const Section& trace_section() {
  static const Section s{
      "trace", "Jobs from a public trace",
      join_fields(
          {{
               {"format", Type::choice({"openb", "philly", "csv"}), required, "",
                "openb (Alibaba GPU v2023 pods), philly (Microsoft Philly jobs) or csv (arrival_s, duration_s, gpus, ...)"},
               {"path", Type::string(), required, "",
                "The file: beside the scenario file, else in the data directory (--data, GPUSIM_DATA)"},
               {"kind", Type::enumeration<JobKind>(), "", "", "The kind of every job; default: the format's"},
               {"u", Type::number().at_least(0).at_most(1), "", "", "The compute demand of every job; default: its kind's"},
               {"multi_node", Type::boolean(), "", "", "May multi-GPU jobs span nodes; default: the format's"},
               {"limit", Type::integer().at_least(1), "", "", "Keep the first N jobs (in arrival order)"},
               {"virtual_clusters", Type::string_list(), "", "",
                "philly: keep only these virtual clusters' rows, arrival counted from the earliest kept"},
           },
           job_speed_fields()})};
  return s;
}

TraceOptions read_trace_options(const Fields& e) {
  TraceOptions o;
  if (auto k = e.get("kind")) o.kind = k->as_enum<JobKind>();
  if (auto u = e.get("u")) o.u = u->as_number(e.range("u"));
  if (auto m = e.get("multi_node")) o.multi_node = m->as_bool();
  if (auto l = e.get("limit")) o.limit = l->as_int(e.range("limit"));
  o.virtual_clusters = e.string_list("virtual_clusters");
  return o;
}

// The jobs of a trace, every one with the trace's speed settings. The openb and philly traces give
// the lifetimes their jobs had on their own clusters, whose GPU per job they do not record: replayed as
// published, a job takes as long on every model (reference_gpu any) unless the entry says otherwise.
JobSet with_trace_speed(JobSet set, const Fields& e, bool recorded_on_own_cluster) {
  std::optional<JobSpeed> speed = read_job_speed(e);
  if (recorded_on_own_cluster && (!speed || speed->reference_gpu.empty())) {
    if (!speed) speed.emplace();
    if (!speed->speedup.empty())
      e.at("speedup").fail("this trace's durations hold on every GPU model unless the entry names its reference_gpu: expected "
                           "a reference_gpu with speedup");
    speed->reference_gpu = JobSpeed::kAny;
  }
  if (speed) {
    const uint32_t index = JobSet::add(set.speeds, std::move(*speed));
    for (Job& j : set.jobs) j.speed = index;
  }
  return set;
}

JobSet read_trace(const ConfigNode& node, const std::string& data_dir, bool untimed) {
  const Fields e = trace_section().read(node);
  const auto format = e.at("format").as_string();
  TraceOptions o = read_trace_options(e);
  o.untimed = untimed;
  if (format == "openb") return with_trace_speed(read_openb_pods(data_path(e.at("path"), data_dir), o), e, true);
  if (!o.virtual_clusters.empty() && format != "philly")
    e.at("virtual_clusters").fail("only the philly format has virtual clusters");
  if (format == "philly") {
    JobSet set = read_philly_jobs(data_path(e.at("path"), data_dir), o);
    for (const auto& vc : o.virtual_clusters)
      if (std::find(set.tenants.begin(), set.tenants.end(), vc) == set.tenants.end())
        e.at("virtual_clusters").fail(fmt::format("no row of virtual cluster '{}' in the trace", vc));
    return with_trace_speed(std::move(set), e, true);
  }
  if (format == "csv") return with_trace_speed(read_generic_csv(data_path(e.at("path"), data_dir), o), e, false);
  e.at("format").fail(fmt::format("expected a trace format openb, philly or csv, got '{}'", format));
}

// The built-in served models and the scenario's `models:`, whose reference GPUs the catalog has.
std::shared_ptr<const ModelCatalog> read_models(const std::optional<ConfigNode>& list, const Catalog& catalog) {
  auto models = std::make_shared<ModelCatalog>(ModelCatalog::builtin());
  if (list) {
    models->add_document(*list);
    for (const ConfigNode& entry : list->items())
      if (auto gpu = entry.get("reference_gpu"); gpu && !catalog.find_gpu(gpu->as_string()))
        gpu->fail(fmt::format("GPU model '{}' is not in the catalog; define it under catalog.gpus", gpu->as_string()));
  }
  return models;
}

// Each job's settings (one entry of JobSet::speeds per inline entry, class or trace), checked once.
void check_job_speeds(const Catalog& catalog, const JobSet& jobs) {
  std::vector<bool> checked(jobs.speeds.size(), false);
  for (const Job& j : jobs.jobs)
    if (j.speed != Job::kNone && !checked[j.speed]) {
      checked[j.speed] = true;
      check_speed(catalog, jobs.speeds[j.speed], jobs.where(j));
    }
}

}  // namespace

void check_speed(const Catalog& catalog, const JobSpeed& speed, SourceLocation where) {
  const auto fail = [&](std::string_view field, const std::string& what) {
    where.field += fmt::format(".{}", field);
    throw InputError(where, what);
  };
  const auto known_gpus = [&] {
    std::vector<std::string> known;
    for (const GpuModel& g : catalog.gpus()) known.push_back(g.name);
    return fmt::format("{}", fmt::join(known, ", "));
  };
  if (!speed.reference_gpu.empty() && speed.reference_gpu != JobSpeed::kAny && !catalog.find_gpu(speed.reference_gpu))
    fail("reference_gpu", fmt::format("unknown GPU model '{}'; expected any or one of: {}", speed.reference_gpu, known_gpus()));
  if (!speed.throughput_class.empty() && !catalog.find_throughput_class(speed.throughput_class)) {
    std::vector<std::string> known;
    for (const ThroughputClass& c : catalog.throughput_classes()) known.push_back(c.name);
    fail("throughput_class", fmt::format("unknown throughput class '{}'; known: {} (a scenario adds its own under "
                                         "catalog.throughput)",
                                         speed.throughput_class, fmt::join(known, ", ")));
  }
  for (const auto& [gpu, ratio] : speed.speedup)
    if (!catalog.find_gpu(gpu)) fail("speedup", fmt::format("unknown GPU model '{}'; known: {}", gpu, known_gpus()));
}

const Section& workload_section() {
  static const Section s{
      "workload",
      "The jobs: at least one of jobs, traces, generator, services",
      {
          {"jobs", Type::list(Type::section(job_section())), "", "", "Inline jobs"},
          {"traces", Type::list(Type::section(trace_section())), "", "", "Jobs from public traces"},
          {"generator", Type::section(generator_section()), "", "", "Synthetic jobs"},
          {"packing", Type::section(packing_section()), "", "", "Run the capacity-packing experiment on these jobs instead"},
          {"services", Type::list(Type::section(service_section())), "", "",
           "Inference services: replicas placed as pods, serving requests (docs/guide/services.md)"},
          {"reference_gpu", Type::string(), "", "",
           "The GPU model the durations of jobs that name none are stated on, or any (as long on every model); absent: "
           "model.speed.reference_gpu, A100-80GB-SXM (docs/hardware.md#job-speed)"},
      }};
  return s;
}

void read_workload(const Fields& root, Scenario& s) {
  const Fields workload = workload_section().read(root.at("workload"));
  if (auto packing = workload.get("packing")) s.packing = read_packing(*packing, s);
  s.models = read_models(root.get("models"), *s.catalog);
  // First, arriving at 0: after finalize the replicas are the first jobs, service by service.
  if (auto services = workload.get("services")) {
    if (s.packing) services->fail("the capacity-packing experiment places jobs only: no services");
    s.services = read_services(*services, *s.models, s.data_dir, s.seed, s.jobs);
  }
  if (auto jobs = workload.get("jobs")) s.jobs.append(parse_inline_jobs(*jobs));
  if (auto traces = workload.get("traces"))
    for (const auto& t : traces->items()) s.jobs.append(read_trace(t, s.data_dir, s.packing.has_value()));
  if (auto g = workload.get("generator")) s.jobs.append(generate_jobs(*g, s.seed));
  if (!workload.has("jobs") && !workload.has("traces") && !workload.has("generator") && !workload.has("services"))
    workload.fail("expected at least one of jobs, traces, generator, services");
  if (auto r = workload.get("reference_gpu")) {
    s.reference_gpu = r->as_string();
    check_speed(*s.catalog, JobSpeed{s.reference_gpu, {}, {}}, {r->where().file, r->where().line, "workload"});
  }
  check_job_speeds(*s.catalog, s.jobs);
  s.jobs.finalize();
  if (s.packing) pack_workload(s, workload);
  if (s.jobs.jobs.size() > 0xFFFFFFF0u) workload.fail("too many jobs");
}

}  // namespace gpusim
