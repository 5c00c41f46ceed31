// metrics.om: the run's time series in the OpenMetrics text format under the names and labels of
// NVIDIA's DCGM exporter (github.com/NVIDIA/dcgm-exporter, etc/default-counters.csv and its Kubernetes
// pod mapping), plus gpusim's own series, timestamped in simulated time from outputs.metrics_start, so
// that `promtool tsdb create-blocks-from openmetrics` can backfill a simulated month into Prometheus
// (docs/guide/prometheus.md). Sampled every outputs.timeseries_step, as timeseries.csv.
//
// Per GPU of every node that is up (ready or draining: a node's exporter runs only there), at each
// sample time t > 0, over the step that ends at t:
//   DCGM_FI_DEV_GPU_UTIL           %, the GPU's mean busy fraction (the engine's, Metrics::gpu_busy) plus the
//                                  time a time-sliced GPU spends switching contexts (RunState::switching: a
//                                  kernel of some context is resident, so DCGM counts it busy; measured on
//                                  an H200: 99-100 % with two long-kernel contexts doing 90 % of the work),
//                                  at most 100 %, rounded to an integer as DCGM's field is; not on MIG GPUs
//                                  (DCGM reports none there)
//   DCGM_FI_PROF_GR_ENGINE_ACTIVE  ratio, the mean busy fraction, switches not counted; per MIG instance, its job's busy share of
//   the
//                                  instance's SMs (a replica's as its engine keeps it busy), averaged over
//                                  the step; a MIG instance has no DCGM_FI_DEV_GPU_UTIL (DCGM reports none)
//   DCGM_FI_DEV_FB_USED/FB_FREE    MiB at t, per GPU or MIG instance: each resident's stated GPU memory, or,
//                                  when its job states none, all of the memory its share or instance holds
//                                  (frameworks reserve what they see); capped at the GPU's (instance's) memory
//   DCGM_FI_DEV_POWER_USAGE        W, the step's mean draw under the power model (sim/power.hpp, model.yaml
//                                  `power`), integrated exactly: the residents' busy shares, each bound as
//                                  its kind is (bound_by), and the clocks held up for clock_hold after work.
//                                  The busy shares are the work delivered (time-slicing's switches are not
//                                  work), so a time-sliced GPU draws for what it gets done, as measured
//                                  (docs/guide/prometheus.md#power); the engine's Metrics integrates it
//                                  while the GPU's node is powered (billed)
//   DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION  mJ, the GPU's energy under the same model since its node was
//                                  first powered, at t
// AMD and Intel GPUs get their own exporters' names instead (issue 46; docs/guide/prometheus.md#other-vendors):
// AMD's device metrics exporter (github.com/ROCm/device-metrics-exporter, docs/configuration/metricslist.md):
// gpu_gfx_activity (%), gpu_package_power (W), gpu_energy_consumed (uJ), gpu_used_vram and gpu_total_vram
// (MiB, as MB), labels gpu_id, serial_number (made up), card_model (the product name: the exporter's is the
// board's part number, which the catalog lacks), hostname, gpu_partition_id, gpu_compute_partition_type,
// gpu_memory_partition_type, deployment_mode, and pod, namespace, container; on a partitioned GPU, VRAM per
// partition, power on partition 0 and 0 on the others (metricslist.md: no per-XCD sensor), activity and
// energy on partition 0 only. Intel's Gaudi metric exporter (HabanaAI/gaudi-metric-exporter, exporter.go,
// samples.go): habanalabs_utilization (%), habanalabs_power_mW, habanalabs_memory_used_bytes,
// habanalabs_memory_total_bytes and habanalabs_energy (mJ, as HLML's total energy), labels Serial, UUID,
// device (the serial), id, instance (the node, as a scrape of port 41611 adds it), and pod_namespace, pod_name.
// The figures are the DCGM ones' (busy fraction, the power model, memory). Labels the exporters fill from the
// host (firmware and driver versions, job scheduler fields, empty on Kubernetes) are not written.
//
// DCGM's labels, as the exporter sets them: gpu, UUID (made up, stable: the GPU's id), device, modelName (the
// catalog's first product name: nvidia-smi's, else its name), Hostname (the node) and, for MIG, GPU_I_PROFILE and
// GPU_I_ID (the instance's index in the GPU's layout); with its pod mapping, namespace (the job's tenant), pod (the
// job's name) and container ("main") of each pod on the GPU, one series per pod as the exporter does for shared
// GPUs. `instance` is what a Prometheus scrape of the exporter's port 9400 would add.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpusim/core/error.hpp"
#include "gpusim/core/paged_vector.hpp"
#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/metrics.hpp"
#include "gpusim/sim/open_metrics.hpp"
#include "gpusim/sim/outputs.hpp"
#include "gpusim/sim/power.hpp"

namespace gpusim {

namespace {

// A busy fraction as the exporters' integer percent.
int whole_percent(double fraction) { return static_cast<int>(fraction * 100.0 + 0.5); }

enum Family : std::size_t {
  gpu_util,
  gr_engine_active,
  fb_used,
  fb_free,
  power_usage,
  total_energy,
  pending_pods,
  running_pods,
  ready_gpus,
  allocated_gpus,
  billed_nodes,
  cost,
  amd_activity,
  amd_power,
  amd_energy,
  amd_vram_used,
  amd_vram_total,
  gaudi_utilization,
  gaudi_power,
  gaudi_memory_used,
  gaudi_memory_total,
  gaudi_energy,
  kFamilies
};

struct FamilySpec {
  std::string_view name, type, unit, help;
};

// HELP texts of the DCGM fields follow the exporter's default-counters.csv.
constexpr std::array<FamilySpec, kFamilies> kSpecs{{
    {"DCGM_FI_DEV_GPU_UTIL", "gauge", "", "GPU utilization (in %)."},
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", "", "Ratio of time the graphics engine is active."},
    {"DCGM_FI_DEV_FB_USED", "gauge", "", "Framebuffer memory used (in MiB)."},
    {"DCGM_FI_DEV_FB_FREE", "gauge", "", "Framebuffer memory free (in MiB)."},
    {"DCGM_FI_DEV_POWER_USAGE", "gauge", "", "Power draw (in W), gpusim's power model."},
    // The exporter declares it a counter; OpenMetrics would then name its samples ..._total, which no
    // dashboard written for the exporter queries: a gauge keeps the name.
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "gauge", "", "Total energy consumption since boot (in mJ), gpusim's power model."},
    {"gpusim_pending_pods", "gauge", "", "Jobs waiting in the queue."},
    {"gpusim_running_pods", "gauge", "", "Jobs running."},
    {"gpusim_ready_gpus", "gauge", "", "GPUs on ready nodes, per pool."},
    {"gpusim_allocated_gpus", "gauge", "", "GPUs allocated to jobs (shares count their fraction), per pool."},
    {"gpusim_billed_nodes", "gauge", "", "Nodes paid for (requested, ready or draining), per pool."},
    {"gpusim_cost_usd", "counter", "usd", "What the pool's nodes cost since the start of the run."},
    {"gpu_gfx_activity", "gauge", "", "Graphics engine activity (in %), AMD device metrics exporter."},
    {"gpu_package_power", "gauge", "", "Socket power (in W), gpusim's power model."},
    {"gpu_energy_consumed", "gauge", "", "Accumulated energy (in uJ), gpusim's power model."},
    {"gpu_used_vram", "gauge", "", "Used VRAM (in MB)."},
    {"gpu_total_vram", "gauge", "", "Total VRAM (in MB)."},
    {"habanalabs_utilization", "gauge", "", "Device utilization (in %), Intel Gaudi metric exporter."},
    {"habanalabs_power_mW", "gauge", "", "Power usage in milli-watts, gpusim's power model."},
    {"habanalabs_memory_used_bytes", "gauge", "", "Device memory used (in bytes)."},
    {"habanalabs_memory_total_bytes", "gauge", "", "Device memory total (in bytes)."},
    {"habanalabs_energy", "gauge", "", "Device energy usage (in mJ), gpusim's power model."},
}};

class MetricsWriter final : public OutputWriter {
 public:
  void started(const RunState& run) override {
    start_s_ = run.scenario().metrics_start_unix_s;
    busy_before_.resize(run.cluster().gpu_count());
    switching_.resize(run.cluster().gpu_count());
    energy_before_.resize(run.cluster().gpu_count());
    cost_written_.assign(run.cluster().pools().size(), 0.0);
  }

  void job_stopping(const RunState& run, JobId id, StopCause) override {
    const std::vector<GpuClaim>& claims = run.claims(id);
    const PlacementView p = run.last_placement(id);
    for (std::size_t i = 0; i < p.gpus.size() && i < claims.size(); ++i)
      if (claims[i].instance) set_instance_busy(run, p.gpus[i], *claims[i].instance, 0.0);
  }
  void gpu_busy_changed(const RunState& run, GpuId g) override {
    const Gpu& gpu = run.cluster().gpu(g);
    // Written (and its page allocated) only for GPUs that switch.
    if (const double switching = run.switching(g); std::as_const(switching_)[g].busy != switching)
      set_fraction(switching_[g], run.now(), switching);
    if (!gpu.mig || held_whole(gpu)) return;
    const GpuModel& model = *run.cluster().pool_of(gpu.node).gpu;
    for (std::size_t s = 0; s < gpu.instances.size(); ++s)
      if (const JobId j = gpu.instances[s].job; j != kNoJob) {
        // The job's busy share of the whole GPU, over the instance's share of its SMs.
        const double share = static_cast<double>(model.mig->profiles[gpu.instances[s].instance.profile].sms) / model.sms;
        set_instance_busy(run, g, static_cast<MigSlotIndex>(s),
                          share > 0 ? std::clamp(run.busy_share(j) / share, 0.0, 1.0) : 0.0);
      }
  }
  void mig_reconfigured(const RunState&, GpuId g) override {
    instances_.erase(instances_.lower_bound({g, 0}), instances_.upper_bound({g, 0xFF}));
  }

  void sampled(const RunState& run, const Sample& sample) override {
    const Time at = sample.time;
    const std::string ts = om_timestamp(start_s_, at);
    const Cluster& c = run.cluster();
    add(pending_pods, "", sample.pending, ts);
    add(running_pods, "", sample.running, ts);
    const double hours_after = (run.metrics().last() - at).hours();
    for (PoolId p{0}; p < c.pools().size(); ++p) {
      const std::string label = fmt::format("pool=\"{}\"", om_escape(c.pool(p).name));
      const PoolSample& ps = sample.pools[p];
      add(ready_gpus, label, ps.gpus_ready, ts);
      add(allocated_gpus, label, fmt::format("{:.3f}", ps.gpus_allocated), ts);
      add(billed_nodes, label, ps.nodes_billed, ts);
      // The cost integral reaches the metrics' last time; what held since the sample was constant. A
      // counter never goes back, so rounding cannot make it look like a reset.
      const double usd = run.metrics().cost_usd(p) - ps.nodes_billed * run.metrics().price_per_node_hour_usd(p) * hours_after;
      cost_written_[p] = std::max(cost_written_[p], usd);
      add(cost, label, fmt::format("{:.4f}", cost_written_[p]), ts);
    }
    c.for_each_node([&](NodeId n) { sample_node(run, n, at, ts); });
  }

  void write(std::ostream& out, const Scenario&, const RunResult&, const Json&) const override {
    for (std::size_t f = 0; f < kFamilies; ++f) {
      const FamilySpec& spec = kSpecs[f];
      // Other vendors' families only where a fleet has their GPUs (an NVIDIA fleet's file is as before).
      if (f >= amd_activity && bodies_[f].text.empty() && !bodies_[f].spilled) continue;
      out << "# TYPE " << spec.name << ' ' << spec.type << '\n';
      if (!spec.unit.empty()) out << "# UNIT " << spec.name << ' ' << spec.unit << '\n';
      out << "# HELP " << spec.name << ' ' << spec.help << '\n';
      if (std::FILE* spilled = bodies_[f].spilled.get()) {
        std::rewind(spilled);
        std::vector<char> chunk(1 << 20);
        while (const std::size_t n = std::fread(chunk.data(), 1, chunk.size(), spilled))
          out.write(chunk.data(), static_cast<std::streamsize>(n));
        if (std::ferror(spilled)) throw OutputError("metrics.om", "cannot read back its temporary file");
      }
      out << bodies_[f].text;
    }
    out << "# EOF\n";
  }

 private:
  // A fraction integrated from its changes: a MIG instance's busy share of its SMs (the engine's per-GPU
  // integral covers whole GPUs only), a time-sliced GPU's switching. `busy` since `since`,
  // `integral_us` (fraction x us) up to `since`, `sampled_us` at the last sample.
  struct BusyIntegral {
    double busy = 0;
    Time since;
    double integral_us = 0, sampled_us = 0;
    double at(Time t) const { return integral_us + busy * static_cast<double>((t - since).us()); }
  };

  // Instance `slot` of GPU g is `busy` (of its own SMs) from now on.
  void set_instance_busy(const RunState& run, GpuId g, MigSlotIndex slot, double busy) {
    set_fraction(instances_[{g, slot}], run.now(), busy);
  }
  static void set_fraction(BusyIntegral& b, Time now, double busy) {
    b.integral_us = b.at(now);
    b.since = now;
    b.busy = busy;
  }
  // The fraction's mean over the step that ends at `at`.
  double step_mean(BusyIntegral& b, Time at, const RunState& run) const {
    const double now_us = b.at(at);
    const double mean = step_average(b.sampled_us, now_us, step_of(run));
    b.sampled_us = now_us;
    return mean;
  }

  void sample_node(const RunState& run, NodeId n, Time at, const std::string& ts) {
    const Cluster& c = run.cluster();
    const Node& node = c.node(n);
    const Pool& pool = c.pool_of(n);
    const bool up = has_capacity(node.state);
    for (uint16_t i = 0; i < node.gpu_count; ++i) {
      const GpuId g{static_cast<uint32_t>(node.first_gpu + i)};
      const double busy_us = run.metrics().gpu_busy(g, at).us();
      const double util = step_average(busy_before_[g], busy_us, step_of(run));
      busy_before_[g] = busy_us;
      // Read before written: a GPU that has not switched since the last sample gets no page.
      const BusyIntegral& seen = std::as_const(switching_)[g];
      const double switching = seen.busy == 0 && seen.integral_us == seen.sampled_us ? 0.0 : step_mean(switching_[g], at, run);
      const double energy_ws = run.metrics().gpu_energy_ws(g, at);
      const double watts = (energy_ws - energy_before_[g]) / step_of(run).seconds();
      energy_before_[g] = energy_ws;
      if (!up || at == Time()) continue;  // the first sample has no step before it
      const Gpu& gpu = c.gpu(g);
      const double busy = std::min(1.0, util + switching);  // time-slicing's switches count as busy
      if (pool.gpu->vendor != Vendor::nvidia) {
        sample_other_vendor(run, n, i, g, busy, watts, energy_ws, ts);
        continue;
      }
      const std::string device = fmt::format(
          "gpu=\"{}\",UUID=\"GPU-00000000-0000-4000-8000-{:012x}\",device=\"nvidia{}\",modelName=\"{}\",Hostname=\"{}\","
          "instance=\"{}:9400\"",
          i, static_cast<uint64_t>(g), i, om_escape(pool.gpu->product_name()), om_escape(node.name), om_escape(node.name));
      add(power_usage, device, fmt::format("{:.1f}", watts), ts);
      add(total_energy, device, static_cast<int64_t>(energy_ws * 1e3), ts);
      if (gpu.mig && !held_whole(gpu)) {
        for (std::size_t s = 0; s < gpu.instances.size(); ++s)
          if (exists(gpu, gpu.instances[s])) sample_instance(run, g, static_cast<MigSlotIndex>(s), device, at, ts);
        continue;
      }
      const int64_t total = pool.gpu->memory_mib;
      // One series per pod on the GPU (in job order), or one without pod labels when it is idle.
      std::vector<JobId> residents(gpu.residents.begin(), gpu.residents.end());
      std::sort(residents.begin(), residents.end());
      int64_t used = 0;
      for (JobId j : residents) used += memory_used(run, j, g, total);
      used = std::min(used, total);
      std::vector<std::string> series;
      for (JobId j : residents) series.push_back(device + pod_labels(run, j));
      if (series.empty()) series.push_back(device);
      for (const std::string& labels : series) {
        add(gpu_util, labels, whole_percent(busy), ts);
        add(gr_engine_active, labels, fmt::format("{:.4f}", util), ts);
        add(fb_used, labels, used, ts);
        add(fb_free, labels, total - used, ts);
      }
    }
  }

  // An AMD or Intel GPU under its vendor's exporter names: activity, power, energy and memory.
  void sample_other_vendor(const RunState& run, NodeId n, uint16_t i, GpuId g, double util, double watts, double energy_ws,
                           const std::string& ts) {
    const Cluster& c = run.cluster();
    const Gpu& gpu = c.gpu(g);
    const GpuModel& model = *c.pool_of(n).gpu;
    std::vector<JobId> residents(gpu.residents.begin(), gpu.residents.end());
    std::sort(residents.begin(), residents.end());
    if (model.vendor == Vendor::intel) {  // a Gaudi is whole: one pod at most
      // The exporter names the device by its serial (made up, stable: the GPU's id) and has no host label:
      // the node is in `instance`, as a scrape of its port 41611 adds it.
      std::string labels = fmt::format(
          "Serial=\"SN{0:010x}\",UUID=\"{0:016x}\",device=\"SN{0:010x}\",id=\"{1}\",instance=\"{2}:41611\"",
          static_cast<uint64_t>(g), i, om_escape(c.node(n).name));
      int64_t used = 0;
      for (JobId j : residents) {
        used += memory_used(run, j, g, model.memory_mib);
        labels += fmt::format(",pod_namespace=\"{}\",pod_name=\"{}\"", om_escape(run.scenario().jobs.tenants[run.job(j).tenant]),
                              om_escape(run.job(j).name));
      }
      used = std::min(used, model.memory_mib);
      add(gaudi_utilization, labels, whole_percent(util), ts);
      add(gaudi_power, labels, static_cast<int64_t>(watts * 1e3 + 0.5), ts);
      add(gaudi_memory_used, labels, used * 1024 * 1024, ts);
      add(gaudi_memory_total, labels, model.memory_mib * 1024 * 1024, ts);
      add(gaudi_energy, labels, static_cast<int64_t>(energy_ws * 1e3), ts);
      return;
    }
    // AMD: partitions of one mode (the whole GPU is partition 0 of SPX).
    const MigProfile* mode = gpu.mig ? &model.mig->profiles[gpu.instances.front().instance.profile] : nullptr;
    const std::string compute = mode ? mode->name.substr(0, mode->name.find('_')) : "spx";
    const std::string memory = mode ? mode->name.substr(mode->name.find('_') + 1) : "nps1";
    const auto labels = [&](std::size_t partition) {
      return fmt::format("gpu_id=\"{}\",serial_number=\"{:016X}\",card_model=\"{}\",hostname=\"{}\",gpu_partition_id=\"{}\","
                         "gpu_compute_partition_type=\"{}\",gpu_memory_partition_type=\"{}\",deployment_mode=\"baremetal\"",
                         i, static_cast<uint64_t>(g), om_escape(model.product_name()), om_escape(c.node(n).name), partition,
                         compute, memory);
    };
    const std::string whole = labels(0);
    const std::size_t partitions = gpu.mig ? gpu.instances.size() : 1;
    add(amd_activity, whole, whole_percent(util), ts);
    add(amd_power, whole, fmt::format("{:.1f}", watts), ts);
    for (std::size_t s = 1; s < partitions; ++s) add(amd_power, labels(s), "0.0", ts);  // no per-XCD power sensor
    add(amd_energy, whole, static_cast<int64_t>(energy_ws * 1e6), ts);
    for (std::size_t s = 0; s < partitions; ++s) {
      const int64_t total = mode ? mode->memory_mib : model.memory_mib;
      std::string series = labels(s);
      int64_t used = 0;
      if (gpu.mig) {
        if (const JobId j = gpu.instances[s].job; j != kNoJob) {
          used = memory_used(run, j, g, total);
          series += pod_labels(run, j);
        }
      } else {
        for (JobId j : residents) {
          used += memory_used(run, j, g, total);
          series += pod_labels(run, j);
        }
      }
      add(amd_vram_used, series, std::min(used, total), ts);
      add(amd_vram_total, series, total, ts);
    }
  }

  void sample_instance(const RunState& run, GpuId g, MigSlotIndex s, const std::string& device, Time at, const std::string& ts) {
    const Cluster& c = run.cluster();
    const Gpu& gpu = c.gpu(g);
    const MigProfile& profile = c.pool_of(gpu.node).gpu->mig->profiles[gpu.instances[s].instance.profile];
    const double util = step_mean(instances_[{g, s}], at, run);
    const JobId j = gpu.instances[s].job;
    std::string labels = fmt::format("{},GPU_I_PROFILE=\"{}\",GPU_I_ID=\"{}\"", device, om_escape(profile.name), s);
    int64_t used = 0;
    if (j != kNoJob) {
      used = memory_used(run, j, g, profile.memory_mib);
      labels += pod_labels(run, j);
    }
    add(gr_engine_active, labels, fmt::format("{:.4f}", util), ts);
    add(fb_used, labels, used, ts);
    add(fb_free, labels, profile.memory_mib - used, ts);
  }

  // What job j uses of `total` MiB on GPU g: its stated memory, else what its claim holds.
  static int64_t memory_used(const RunState& run, JobId j, GpuId g, int64_t total) {
    const Job& job = run.job(j);
    const std::vector<GpuClaim>& claims = run.claims(j);
    if (job.request.gpu_memory_mib > 0) return std::min(job.request.gpu_memory_mib, total);
    const PlacementView p = run.last_placement(j);
    for (std::size_t i = 0; i < p.gpus.size() && i < claims.size(); ++i)
      if (p.gpus[i] == g && !claims[i].instance) return total * claims[i].milli.value / kWholeGpu.value;
    return total;
  }

  static std::string pod_labels(const RunState& run, JobId j) {
    const Job& job = run.job(j);
    return fmt::format(",namespace=\"{}\",pod=\"{}\",container=\"main\"", om_escape(run.scenario().jobs.tenants[job.tenant]),
                       om_escape(job.name));
  }

  static Duration step_of(const RunState& run) { return run.scenario().timeseries_step; }

  // A family's samples so far: the last ones in memory, the rest in an anonymous temporary file (a
  // large fleet's file runs to gigabytes; the format wants each family's samples together, so they
  // cannot go out as they come).
  struct Body {
    std::string text;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> spilled{nullptr, &std::fclose};
  };
  static constexpr std::size_t kSpillBytes = std::size_t{1} << 22;

  template <class V>
  void add(Family f, const std::string& labels, const V& value, const std::string& ts) {
    Body& body = bodies_[f];
    body.text += kSpecs[f].name;
    if (kSpecs[f].type == "counter") body.text += "_total";
    if (!labels.empty()) body.text += fmt::format("{{{}}}", labels);
    body.text += fmt::format(" {} {}\n", value, ts);
    if (body.text.size() < kSpillBytes) return;
    if (!body.spilled) body.spilled.reset(std::tmpfile());
    if (!body.spilled || std::fwrite(body.text.data(), 1, body.text.size(), body.spilled.get()) != body.text.size())
      throw OutputError("metrics.om", "cannot write its temporary file (disk full?)");
    body.text.clear();
  }

  int64_t start_s_ = 0;
  std::array<Body, kFamilies> bodies_;
  PagedVector<double> energy_before_;    // per GPU: its energy (W s) at the last sample
  PagedVector<double> busy_before_;      // per GPU: its busy integral (fraction x us) at the last sample
  PagedVector<BusyIntegral> switching_;  // per GPU: its time spent switching contexts
  std::map<std::pair<GpuId, MigSlotIndex>, BusyIntegral> instances_;
  std::vector<double> cost_written_;  // per pool: the counter's last value
};

}  // namespace

std::unique_ptr<OutputWriter> make_metrics_writer() { return std::make_unique<MetricsWriter>(); }

}  // namespace gpusim
