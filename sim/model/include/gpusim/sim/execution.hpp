#pragma once
// The fluid execution model (docs/guide/sharing.md): a running job progresses at a rate, the product of
// documented factors, each a small pure function below. The defaults of every constant live in
// sim/data/model.yaml with their sources; a scenario overrides them under `model:`.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/time.hpp"
#include "gpusim/hardware/catalog.hpp"
#include "gpusim/sim/power.hpp"
#include "gpusim/sim/serving_model.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

// CUDA time-slicing as the GPU does it (docs/guide/sharing.md#time-slicing): contexts that have work take
// slices in turn; a slice ends by preemption (work left, another context waiting) or by yield (the
// context ran out of work, e.g. at a synchronization).
struct TimeSlicingModel {
  Duration timeslice;              // how long a context runs before it is preempted
  Duration preempt_switch;         // GPU time lost when a slice ends with work left
  Duration yield_switch;           // GPU time lost when another context takes the GPU after a yield
  int64_t context_memory_mib = 0;  // device memory each CUDA context costs
  int max_contexts = 0;            // contexts the driver allows per GPU
};

// model.yaml's `time_slicing`: the figures by GPU generation (the switch costs are the driver's and
// the architecture's), each entry with its source and the fields it carries from another GPU.
struct TimeSlicingModels {
  struct Entry {
    std::vector<std::string> gpus;      // GPU model names or aliases; empty: a default entry
    double min_compute_capability = 0;  // a default entry applies to unlisted GPUs of at least this
    std::string generation;             // what it covers, e.g. hopper
    TimeSlicingModel model;
    std::vector<std::string> assumed;
    std::string source;
  };
  // Searched from the back: a scenario's entries (applied later) win over model.yaml's.
  std::vector<Entry> entries;
  // entry_for(entries, gpu)'s figures; std::logic_error when none applies (model.yaml has a default
  // from compute capability 0).
  const TimeSlicingModel& of(const GpuModel& gpu) const;
};

struct MpsModel {
  double bandwidth_interference = 0;  // rate lost per unit of SM share the other clients use
  double fault_rate_per_hour = 0;     // fatal faults per client-hour (fault injection; 0 = off)
};

struct MigModel {
  Duration reconfiguration_delay;            // drain-to-ready time of a MIG layout change
  Duration partition_reconfiguration_delay;  // the same for AMD compute and memory partitions
};

struct RestartModel {
  bool requeue = true;  // false: a killed job fails
  Duration backoff;     // first delay before a killed job is queued again; doubles per restart
  Duration backoff_max;
  int max_restarts = 0;  // then the job fails
};

struct CommunicationModel {
  // Profiles of multi-GPU jobs that bring none, by JobKind (compute 0 = that kind does not communicate).
  std::array<CommProfile, enum_count<JobKind>> defaults{};
  NetworkSpec default_network;  // pools whose node template describes no NICs
};

struct CheckpointModel {
  std::array<CheckpointPolicy, enum_count<JobKind>> defaults{};  // by JobKind, for jobs that state none
};

// What a scheduler's preemption costs a job that has no checkpoint policy of its own (one that has
// pays its checkpoint cost to suspend and its restore cost to resume).
struct PreemptionModel {
  Duration suspend;  // writing its state before its GPUs are released
  Duration resume;   // reading it back before it computes again
};

struct SpotModel {
  std::vector<std::pair<std::string, Duration>> notice;       // by provider
  std::string provider;                                       // a spot pool that names none
  std::vector<std::pair<std::string, double>> aws_frequency;  // bucket -> monthly interruption probability
  std::optional<Duration> notice_of(std::string_view name) const;
  std::optional<double> aws_bucket(std::string_view bucket) const;
};

struct AutoscalerModel {
  Duration scale_up_delay;      // a pod unschedulable this long asks for a node
  Duration scale_down_after;    // an empty node is removed after this long
  Duration provisioning_delay;  // from a node's request to its being ready
};

struct LowUtilizationAlert {
  double threshold = 0.5;  // effective utilization below which a pool is "burning money"
  Duration min_duration;   // shorter dips are not reported
};

// The fields of a `model:` map, model.yaml's shape.
const Section& model_section();

// Jobs' speed on GPU models (docs/hardware.md#job-speed): the GPU a job's work is stated on when
// neither it nor the workload names one, and the row of the catalog's throughput table each kind follows.
struct SpeedModel {
  std::string reference_gpu;
  std::array<std::string, enum_count<JobKind>> classes;  // by JobKind
};

struct ExecutionModel {
  SpeedModel speed;
  TimeSlicingModels time_slicing;
  CommunicationModel communication;
  MpsModel mps;
  MigModel mig;
  RestartModel restart;
  CheckpointModel checkpoint;
  PreemptionModel preemption;
  SpotModel spot;
  AutoscalerModel autoscaler;
  LowUtilizationAlert low_utilization;
  PowerModel power;
  ServingModel serving;
  // The roofline efficiencies of a replica on `gpu` (serving.efficiency_of).
  const ServingEfficiency& serving_efficiency(const GpuModel& gpu) const { return serving.efficiency_of(gpu); }
  // The compiled-in defaults (sim/data/model.yaml).
  static const ExecutionModel& builtin();
  // Applies a `model:` map (same shape as model.yaml, every field optional).
  void apply(const ConfigNode& doc);
};

// --- rate factors; each returns a multiplier of the job's ideal speed -----------------------------

// What a job's speed on each GPU model follows from, resolved against the catalog.
struct SpeedProfile {
  const GpuModel* reference = nullptr;  // the GPU its work is stated on; null: any (as long on every model)
  const ThroughputClass* throughput = nullptr;
  const std::vector<std::pair<std::string, double>>* speedup = nullptr;  // its own ratios by GPU model name; may be null
};

// How fast a job runs on `gpu` against its work: 1 for a job stated on any GPU or on `gpu` itself;
// its own speedup for `gpu` when it gives one; else its throughput class's ratio of `gpu` over its
// reference GPU (measured, or the peak the class is bound by).
double speed_factor(const Catalog& catalog, const GpuModel& gpu, const SpeedProfile& job);

// MIG: an instance with `slice_sm_fraction` of the GPU's SMs runs a job of demand u at min(1, f/u).
double mig_rate(double slice_sm_fraction, double u);

// Max-min fair (water-filling) division of `capacity` among `demands`; writes each share.
void max_min_fair(std::span<const double> demands, double capacity, std::span<double> shares);

// Probability that at least two of independent contexts, busy with probabilities duty_i, have work.
double contention_probability(std::span<const double> duty);

// Fraction of GPU time switches cost while contexts contend with long-running work: each slice of
// `timeslice` is followed by a preemption, preempt_switch / (timeslice + preempt_switch).
double switch_overhead(const TimeSlicingModel& m);

// The fraction of GPU time lost to switching between time-sliced contexts: switch_overhead x P(at
// least two have work). A switch keeps the GPU busy, so DCGM's GPU utilization counts it: two
// contexts with long kernels read 99-100 % while 90 % of the time does work (measured on an H200).
double switching_fraction(std::span<const double> duty, const TimeSlicingModel& m);

// Time-slicing of fluid jobs: a context has work `duty` of the time and runs alone on the whole GPU
// while it holds it, whatever share of the SMs its kernels fill. GPU time left after switching,
// 1 - switching_fraction, is shared max-min fairly over the duties;
// rate_i = share_i / duty_i (1 for a context that never has work).
void time_slicing_rates(std::span<const double> duty, const TimeSlicingModel& m, std::span<double> rates);

// Bus-bandwidth factor of a collective over `ranks` GPUs (nccl-tests conventions,
// docs/hardware.md#interconnects-and-collectives): all-reduce 2(n-1)/n; all-gather, reduce-scatter,
// all-to-all (n-1)/n; 0 for a single rank.
double collective_bus_factor(Collective c, int ranks);

// Seconds one collective of the profile takes over `ranks` GPUs whose bottleneck link carries
// `bus_gb_per_s` per direction: (bytes / B) x bus factor.
double collective_time_s(const CommProfile& p, int ranks, double bus_gb_per_s);

// A communicating job's rate: each iteration computes for compute_per_iteration / compute_rate (the
// product of the other factors), then waits `collective_s` (no overlap). Its work took
// compute_per_iteration + `reference_collective_s` per iteration, so the rate is their ratio.
double communication_rate(double compute_rate, const CommProfile& p, double collective_s, double reference_collective_s);

// The fraction of a communicating job's computing time its GPUs wait in the collective: per
// iteration it computes compute_per_iteration / compute_rate, then waits `collective_s` (no
// overlap, as communication_rate), so the wait is collective_s / (that + collective_s). All of the
// collective counts, the part its reference ring would also have taken included: goodput counts
// time spent computing, and a collective computes nothing. 0 without a profile.
double collective_stall_fraction(double compute_rate, const CommProfile& p, double collective_s);

// Max-min fair rates of flows over shared links (progressive filling): flow f crosses the links
// `paths[f]` and wants at most `caps[f]`; each link carries at most its capacity.
void max_min_fair_flows(std::span<const double> capacities, const std::vector<std::vector<uint32_t>>& paths,
                        std::span<const double> caps, std::span<double> rates);
// The flows' paths end to end in one array (flow f's links are links[start[f], start[f + 1])).
struct FlowPaths {
  std::vector<uint32_t> start{0};
  std::vector<uint32_t> links;
  std::size_t size() const { return start.size() - 1; }
  std::span<const uint32_t> of(std::size_t f) const { return {links.data() + start[f], links.data() + start[f + 1]}; }
  void clear() {
    start.assign(1, 0);
    links.clear();
  }
  void add(std::span<const uint32_t> path) {
    links.insert(links.end(), path.begin(), path.end());
    start.push_back(static_cast<uint32_t>(links.size()));
  }
};
// What max_min_fair_flows works in, kept by a caller that shares often so that it allocates nothing.
struct MaxMinScratch {
  std::vector<double> left;
  std::vector<uint32_t> users, live, full, by_cap, link_start, link_flows;
  std::vector<char> stopped;
};
// The same, the same arithmetic in the same order, over flat paths.
void max_min_fair_flows(std::span<const double> capacities, const FlowPaths& paths, std::span<const double> caps,
                        std::span<double> rates, MaxMinScratch& scratch);

// MPS: clients run side by side on the SMs. Client i has work duty_i of the time when alone and its
// kernels fill occupancy_i of the SMs, at most its active thread fraction cap_i while they run. Its busy
// spells stretch by occupancy / min(occupancy, cap) and by its share of the SM time asked for (each
// busy client asks busy_i x min(occupancy_i, cap_i), shared max-min fairly: one client's idle time
// goes to another's work); its idle spells do not, so rate_i = 1 / (duty_i x stretch_i + 1 - duty_i),
// the busy shares and the stretches settled together. Then each rate is reduced by
// bandwidth_interference x (SM share of the other clients).
void mps_rates(std::span<const double> duty, std::span<const double> occupancy, std::span<const double> caps, const MpsModel& m,
               std::span<double> rates);

// The clients MPS allows on one GPU (docs/hardware.md#mps): 48 from compute capability 7.5 on, else 16.
inline int mps_client_limit(const GpuModel* gpu) { return gpu && gpu->compute_capability >= 7.5 ? 48 : 16; }

}  // namespace gpusim
