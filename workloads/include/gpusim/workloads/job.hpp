#pragma once
// The job (pod) model. A job's `work` is how long it runs alone on its request; its
// compute demand `u` is the fraction of one full GPU's SMs it keeps busy on each GPU it holds, over time:
// its duty (the share of the time it has work) x its occupancy (the share of the SMs its kernels fill).
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/core/id.hpp"
#include "gpusim/core/interned.hpp"
#include "gpusim/core/time.hpp"
#include "gpusim/core/units.hpp"
#include "gpusim/workloads/node_rules.hpp"

namespace gpusim {

using JobId = Id<struct JobTag, uint32_t>;

enum class JobKind : uint8_t { training, inference, notebook, batch };
constexpr auto enum_table(JobKind) {
  using K = JobKind;
  return std::to_array<EnumName<K>>(
      {{K::training, "training"}, {K::inference, "inference"}, {K::notebook, "notebook"}, {K::batch, "batch"}});
}

// The ranges of a job's numbers, shared by the scenario's fields and the trace columns: GPUs of one
// job (or of one of its workers), and a priority (an int32, as a Kubernetes PriorityClass value).
inline constexpr Range kJobGpuRange = Range::between(0, 100000);
inline constexpr Range kPriorityRange = Range::of<int32_t>();

// Default compute demand per kind (assumed, docs/hardware.md#modelling-defaults: training 95%,
// inference 15%, notebooks 5%). Batch is assumed compute-bound like training.
double default_compute_demand(JobKind kind);

// The collective a data-parallel job runs each iteration (nccl-tests names).
enum class Collective : uint8_t { all_reduce, all_gather, reduce_scatter, all_to_all };
constexpr auto enum_table(Collective) {
  using C = Collective;
  return std::to_array<EnumName<C>>({{C::all_reduce, "all-reduce"},
                                     {C::all_gather, "all-gather"},
                                     {C::reduce_scatter, "reduce-scatter"},
                                     {C::all_to_all, "all-to-all"}});
}

// How a multi-GPU job communicates: per iteration it computes for `compute_per_iteration_s` (alone
// on its reference GPU) and then runs one collective over `bytes_per_iteration`.
struct CommProfile {
  double compute_per_iteration_s = 0;  // 0: no profile
  double bytes_per_iteration = 0;
  Collective collective = Collective::all_reduce;
  // The job's work counts computation only (it was given as iterations); otherwise its work is the
  // run time with its collectives on the best links the nodes it lands on offer.
  bool work_is_compute = false;
  bool given() const { return compute_per_iteration_s > 0; }
};

// How a job saves its progress: after every `interval` of computing it pauses for `cost` to write a
// checkpoint; restarting from a checkpoint first pauses for `restore`. With `auto_interval` the
// interval is Young/Daly's optimum for the nodes it runs on (sqrt(2 x cost x MTBF)).
struct CheckpointPolicy {
  bool enabled = false;  // false: it never checkpoints, an eviction loses everything since its start
  bool auto_interval = false;
  Duration interval, cost, restore;
  // Lost at every start, the first too (Can't Be Late's changeover delay d): the job holds its GPUs
  // without computing, as while restoring.
  Duration restart_overhead;
};

// What a job's speed on a GPU model follows from (docs/hardware.md#job-speed), kept once in its JobSet
// for all the jobs of an entry, generator class or trace. Unset parts take the workload's defaults.
struct JobSpeed {
  static constexpr std::string_view kAny = "any";
  // The GPU model its work (duration) is stated on; "any": it takes as long on every model (no
  // hardware factor); "": the workload's reference GPU.
  std::string reference_gpu;
  std::string throughput_class;  // a class of the catalog's throughput table; "": its kind's (model.speed)
  // Its own speed on GPU models relative to its reference GPU, before the class's ratios.
  std::vector<std::pair<std::string, double>> speedup;
  bool operator==(const JobSpeed&) const = default;
};

// Is `resource` a device-plugin resource a pod may ask for (Request::resource, a ResourceQuota's or a
// Kueue ClusterQueue's GPU resource)? kDeviceResources lists them for error messages.
constexpr bool is_device_resource(std::string_view resource) {
  constexpr std::string_view mig = "nvidia.com/mig-", amd = "amd.com/";
  if (resource == "nvidia.com/gpu" || resource == "nvidia.com/gpu.shared" || resource == "habana.ai/gaudi") return true;
  if (resource.starts_with(mig)) return resource.size() > mig.size();
  if (!resource.starts_with(amd) || resource.size() == amd.size()) return false;
  return std::all_of(resource.begin() + static_cast<std::ptrdiff_t>(amd.size()), resource.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}
inline constexpr std::string_view kDeviceResources =
    "nvidia.com/gpu, nvidia.com/gpu.shared, nvidia.com/mig-<profile>, amd.com/gpu, amd.com/<compute>_<memory> or "
    "habana.ai/gaudi";

struct Request {
  int32_t gpus = 0;                // whole GPUs, or 1 with a fractional milli_per_gpu
  Milli milli_per_gpu = kWholeGpu; // < 1000 only when gpus == 1 (a GPU share)
  int64_t gpu_memory_mib = 0;      // per GPU; 0 = not stated (not accounted)
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  Interned<std::vector<std::string>> models;  // allowed GPU models (names or aliases); empty = any
  // The device-plugin resource asked for: "" is a whole GPU of any vendor; else nvidia.com/gpu,
  // nvidia.com/gpu.shared, nvidia.com/mig-<profile>, amd.com/gpu, amd.com/<compute>_<memory>, habana.ai/gaudi.
  Interned<std::string> resource;
  int64_t gpu_memory_limit_mib = 0; // the pod's own GPU memory limit (time-slicing cap, MPS pinned limit); 0 = none
  int32_t thread_percent = 0;       // MPS active thread percentage; 0 = the device plugin's 100/replicas
  // GPUs of each worker pod of a multi-worker job (PyTorchJob-like: workers x worker_gpus = gpus);
  // a worker's GPUs are on one node. 0: one pod per node the job occupies.
  int32_t worker_gpus = 0;
  // A capacity claim: any MIG instance or whole GPU with at least gpu_memory_mib of memory and
  // min_sms SMs (and, for a DRA claim, a device its selectors accept); the smallest that fits is taken.
  int32_t min_sms = 0;
  bool claim = false;
  // A ComputeDomain's IMEX channel (NVIDIA's DRA driver): every node of the job in one NVLink domain.
  bool one_nvlink_domain = false;
  // A DRA claim's device request (sim/dra.hpp): 1 + its index in PoolSpec::device_match; 0: none.
  uint16_t device_selector = 0;
  bool fractional() const { return gpus == 1 && milli_per_gpu < kWholeGpu; }
  // Pods of the job on a node holding `gpus_there` of its GPUs (CPU and memory are per pod).
  int32_t pods_on_node(int32_t gpus_there) const { return worker_gpus > 0 ? std::max(1, gpus_there / worker_gpus) : 1; }
};

// One entry of a pod's spec.resourceClaims (sim/dra.hpp): a ResourceClaimTemplate the pod gets a claim
// of its own from (resourceClaimTemplateName), or an existing ResourceClaim it names (resourceClaimName).
struct PodClaimRef {
  std::string name;
  bool from_template = true;
  bool operator==(const PodClaimRef&) const = default;
};

// A pod's Kubernetes settings beyond its request (issue 17), kept once in its JobSet for every job
// that gives the same (JobSet::pod); most jobs have none.
struct PodSpec {
  std::vector<std::pair<std::string, std::string>> labels;  // metadata.labels, sorted by key
  std::string priority_class;                               // spec.priorityClassName; "": the scenario's global default class
  std::string queue;                         // the Kueue LocalQueue of its namespace (label kueue.x-k8s.io/queue-name); "": none
  Interned<NodeRules> node_rules;            // nodeSelector, tolerations, node affinity (interned: request shapes key on it)
  std::vector<PodClaimRef> resource_claims;  // DRA claims and templates it takes devices from (sim/dra.hpp)
  // spec.terminationGracePeriodSeconds: how long it may take to leave when evicted (Kubernetes' default, 30 s).
  Duration termination_grace = Duration::from_seconds(30);
  // Did the job give `priority` itself? The Priority admission controller then checks it against its
  // class's value (tenancy.priority_classes), and a job without a class keeps it over the global default.
  bool priority_given = false;
  bool operator==(const PodSpec&) const = default;
};

// Where a job was written: one of its JobSet's sources (the file and the field of its list, trace
// or generator class, shared by every job from there) and the line; no string of its own.
struct JobOrigin {
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  uint32_t source = kNone;  // index into JobSet::sources; kNone: not known
  int32_t line = 0;         // 1-based; 0: none
};

// A job's settings that few jobs have are kept once in its JobSet, for all the jobs of one entry,
// trace or generator class, and the job holds their indices (kNone: not given); its fields are
// ordered by size, so that no padding sits between them. A million jobs stay compact.
struct Job {
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  static constexpr uint16_t kNoPod = 0xFFFFu;
  JobId id{0};          // index in its JobSet, in arrival order
  uint16_t tenant = 0;  // index into JobSet::tenants: its team, which is its Kubernetes namespace
  JobKind kind = JobKind::batch;
  bool multi_node : 1 = false;  // may a multi-GPU job be split across nodes
  bool strict : 1 = false;      // from the scenario itself: a job that can never fit is an error
  Time arrival;
  Duration work;
  double u = 0.95;
  int32_t priority = 0;  // larger runs first under the priority order
  // The share of a GPU's SMs its kernels fill while they run; u = duty x occupancy, where the duty is
  // the share of the time it has work (docs/guide/sharing.md#duty-and-occupancy).
  uint16_t occupancy_milli = 1000;
  uint16_t pod = kNoPod;  // JobSet::pods; kNoPod: none
  JobOrigin origin;       // where it was written (file, field and line), for messages: JobSet::where
  // What its speed on a GPU model follows from (JobSet::speeds); none: the workload's defaults.
  uint32_t speed = kNone;
  // Kubernetes `spec.nodeName` (JobSet::texts): the node it runs on, bypassing the scheduler; none: the
  // scheduler places it.
  uint32_t node = kNone;
  uint32_t communication = kNone;  // JobSet::profiles; multi-GPU jobs without one use the kind's default
  uint32_t checkpoint = kNone;     // JobSet::checkpoints; none given: the kind's default (model.checkpoint)
  std::string name;
  Request request;

  double occupancy() const { return occupancy_milli / 1000.0; }
};

struct JobSet {
  std::vector<Job> jobs;
  std::vector<std::string> tenants{"default"};
  // What Job::node, speed, communication and checkpoint index.
  std::vector<std::string> texts;
  std::vector<JobSpeed> speeds;
  std::vector<CommProfile> profiles;
  std::vector<CheckpointPolicy> checkpoints;
  // Where jobs come from, without their lines; JobOrigin::source indexes it.
  std::vector<SourceLocation> sources;
  std::vector<PodSpec> pods;  // distinct
  uint16_t tenant(std::string_view name);
  // The index of `spec` in `pods` (added when new). Throws std::length_error past 65,535 distinct specs.
  uint16_t pod(PodSpec spec);
  // Null when the job has none.
  const PodSpec* pod(const Job& j) const { return j.pod == Job::kNoPod ? nullptr : &pods[j.pod]; }
  // Index of a new entry of `table` holding `value`.
  template <class T>
  static uint32_t add(std::vector<T>& table, T value) {
    table.push_back(std::move(value));
    return static_cast<uint32_t>(table.size() - 1);
  }
  // "" when not given.
  const JobSpeed* speed(const Job& j) const { return j.speed == Job::kNone ? nullptr : &speeds[j.speed]; }
  std::string_view node(const Job& j) const { return text(j.node); }
  // A view of texts[i] (not of a temporary std::string, which `? "" : texts[i]` would make).
  std::string_view text(uint32_t i) const { return i == Job::kNone ? std::string_view{} : std::string_view{texts[i]}; }
  // Null when not given.
  const CommProfile* communication(const Job& j) const {
    return j.communication == Job::kNone ? nullptr : &profiles[j.communication];
  }
  const CheckpointPolicy* checkpoint(const Job& j) const {
    return j.checkpoint == Job::kNone ? nullptr : &checkpoints[j.checkpoint];
  }
  // The source index of `where` (its file and field; the line goes into the JobOrigin).
  uint32_t source(const SourceLocation& where);
  JobOrigin origin(const SourceLocation& where) { return {source(where), where.line.value_or(0)}; }
  // Each job's deadline (issue 23), by position, which is its id once finalized: how long after its
  // arrival it must have ended; Duration() for none. Kept beside the jobs rather than in Job, which
  // few jobs would use: empty when no job has one, and shorter than `jobs` when the last have none.
  std::vector<Duration> deadlines;
  std::optional<Duration> deadline(const Job& j) const {
    const auto i = static_cast<std::size_t>(j.id);
    return i < deadlines.size() && deadlines[i] > Duration() ? std::optional(deadlines[i]) : std::nullopt;
  }
  bool any_deadline() const {
    return std::any_of(deadlines.begin(), deadlines.end(), [](Duration d) { return d > Duration(); });
  }
  void set_deadline(std::size_t position, Duration d) {
    if (deadlines.size() <= position) deadlines.resize(position + 1);
    deadlines[position] = d;
  }
  // Where job `j` was written, for messages.
  SourceLocation where(const Job& j) const;
  // Appends `other`, re-indexing its tables.
  void append(JobSet&& other);
  // Stable sort by arrival (ties keep source order), then ids = positions.
  void finalize();

 private:
  // tenants' and sources' indices, so that reading a job finds them at once (rebuilt if the tables
  // were set another way).
  std::map<std::string, uint16_t, std::less<>> tenant_index_;
  std::map<std::pair<std::string, std::string>, uint32_t> source_index_;
};

}  // namespace gpusim
