#include "gpusim/workloads/spec.hpp"

#include <boost/math/distributions/exponential.hpp>
#include <boost/math/distributions/lognormal.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>

#include "gpusim/core/random.hpp"
#include "gpusim/workloads/node_rules.hpp"

namespace gpusim {

namespace {

const Section& claim_section() {
  static const Section s{"claim",
                         "A capacity claim (like a DRA claim): the smallest MIG instance or whole GPU that has this much",
                         {
                             {"gpu_memory_mib", Type::integer().at_least(0), "", "MiB",
                              "GPU memory the device needs; absent: the job's gpu_memory_mib"},
                             {"sms", Type::int32().at_least(0), "0", "", "Streaming multiprocessors the device needs"},
                         }};
  return s;
}

// An entry of a pod's spec.resourceClaims, with Kubernetes' field names (PodResourceClaim).
const Section& pod_resource_claim_section() {
  static const Section s{
      "pod_resource_claim",
      "A DRA claim of the pod (spec.resourceClaims[]): an existing ResourceClaim or a template; a bare string names a template",
      {
          {"name", Type::string(), "", "", "Its name within the pod (spec.resourceClaims[].name); gpusim does not use it"},
          {"resource_claim_name", Type::string(), "", "",
           "A ResourceClaim of the job's namespace (tenancy.resource_claims), which this pod alone may name"},
          {"resource_claim_template_name", Type::string(), "", "",
           "A ResourceClaimTemplate (tenancy.resource_claim_templates): the pod gets a claim of its own from it"},
      }};
  return s;
}

std::vector<PodClaimRef> read_pod_claims(const ConfigNode& node) {
  std::vector<PodClaimRef> out;
  for (const ConfigNode& item : node.is_sequence() ? node.items() : std::vector<ConfigNode>{node}) {
    if (!item.is_map()) {
      out.push_back({item.as_string(), true});
      continue;
    }
    const Fields f = pod_resource_claim_section().read(item);
    const auto claim = f.get("resource_claim_name");
    const auto from_template = f.get("resource_claim_template_name");
    if (claim.has_value() == from_template.has_value())
      f.fail("expected exactly one of resource_claim_name (a ResourceClaim) and resource_claim_template_name "
             "(a ResourceClaimTemplate)");
    out.push_back(claim ? PodClaimRef{claim->as_string(), false} : PodClaimRef{from_template->as_string(), true});
  }
  return out;
}

const Section& job_communication_section() {
  static const Section s{
      "job_communication", "How an inline job communicates",
      join_fields({communication_section().fields(),
                   {{"iterations", Type::integer().at_least(1), "", "",
                     "Iterations it runs: its work is iterations x compute_per_iteration (instead of duration)"}}})};
  return s;
}

const Section& checkpoint_section() {
  static const Section s{"checkpoint",
                         "How a job saves its progress, so that an eviction loses only what came after",
                         {
                             {"interval", Type::one_of({Type::choice({"auto"}), Type::duration()}), required, "",
                              "Computing time between checkpoints, or auto (Young/Daly's optimum for the nodes it runs on)"},
                             {"cost", Type::duration(), required, "", "Pause to write a checkpoint"},
                             {"restore", Type::duration(), "0", "", "Pause to read it back when it restarts"},
                             {"restart_overhead", Type::duration(), "0", "",
                              "Time lost at every start, the first too, before it computes (getting an instance, setting "
                              "it up, reloading): Can't Be Late's changeover delay, billed like a restore"},
                             source_field(),
                         }};
  return s;
}

// The request fields inline jobs and generator classes share, after their GPU counts.
std::vector<Field> request_fields() {
  return {
      {"gpu_milli", Type::integer().at_least(1).at_most(1000), "1000", "milli-GPU",
       "Share of each GPU; below 1000 needs gpus: 1"},
      {"gpu_memory_mib", Type::integer().at_least(0), "0", "MiB", "GPU memory per GPU; 0: not stated (not accounted)"},
      {"cpu_milli", Type::integer().at_least(0), "0", "milli-CPU", "CPU per pod"},
      {"memory_mib", Type::integer().at_least(0), "0", "MiB", "Host memory per pod"},
      {"models", Type::string_list(), "", "", "GPU models (names or aliases) it may run on; absent: any"},
  };
}

// The fields after the duration both share.
std::vector<Field> job_fields() {
  return {
      {"kind", Type::enumeration<JobKind>(), "batch", "",
       "What the job is: sets its default compute demand, communication and checkpoints"},
      {"u", Type::number().at_least(0).at_most(1), "", "",
       "Compute demand, the share of each GPU's SMs it keeps busy; default by kind: training 0.95, inference 0.15, notebook "
       "0.05, "
       "batch 0.95"},
      {"occupancy", Type::number().above(0).at_most(1), "1", "",
       "The share of the SMs its kernels fill while they run (u is at most this; a kind's default u is then its "
       "duty x occupancy): time-slicing runs one context at a time whatever it fills, MPS runs clients side by side"},
      {"tenant", Type::string(), "default", "", "The team it belongs to (its Kubernetes namespace)"},
      {"namespace", Type::string(), "", "", "Its Kubernetes namespace: the same as tenant, which it may be given as"},
      {"labels", Type::map(Type::string()), "", "", "Its pod's metadata.labels"},
      {"priority_class", Type::string(), "", "",
       "Its pod's priorityClassName (tenancy.priority_classes); absent: the global default class"},
      {"queue", Type::string(), "", "", "The Kueue LocalQueue of its namespace it is submitted to (tenancy.kueue); absent: none"},
      {"termination_grace_period", Type::duration(), "30s", "",
       "Its pod's terminationGracePeriodSeconds: how long it may take to leave when preempted (a checkpoint that fits is "
       "written)"},
      {"priority", Type::integer().in(kPriorityRange), "0", "", "Larger runs first under the priority queue order"},
      {"deadline", Type::duration(), "", "",
       "How long after its arrival it must have ended (summary: deadlines met and missed, lateness); absent: none"},
      {"multi_node", Type::boolean(), "false", "", "A multi-GPU job may be split across nodes"},
      {"resource", Type::string(R"(^(nvidia\.com/(gpu|gpu\.shared|mig-.+)|amd\.com/[a-z0-9_]+|habana\.ai/gaudi)$)"), "", "",
       "The device-plugin resource it asks for: nvidia.com/gpu, nvidia.com/gpu.shared, nvidia.com/mig-<profile>, "
       "amd.com/gpu, amd.com/<compute>_<memory> (an AMD partition, mixed naming) or habana.ai/gaudi; absent: a whole "
       "GPU of any vendor"},
      {"claim", Type::section(claim_section()), "", "", "A capacity claim instead of a resource"},
      {"resource_claims",
       Type::one_of({Type::string(), Type::list(Type::one_of({Type::string(), Type::section(pod_resource_claim_section())}))}),
       "", "",
       "DRA claims its pod takes devices from instead of a resource: ResourceClaimTemplates (tenancy.resource_claim_templates) "
       "by name, or entries naming a template or a ResourceClaim (tenancy.resource_claims); gpus must be the request's count"},
      {"gpu_memory_limit_mib", Type::integer().at_least(1), "", "MiB",
       "The pod's own GPU memory limit (time-slicing cap, MPS pinned limit); absent: none"},
      {"mps_thread_percent", Type::integer().at_least(1).at_most(100), "", "%",
       "MPS active thread percentage; absent: the device plugin's 100 / replicas"},
      {"workers", Type::integer().at_least(1).at_most(kJobGpuRange.maximum->value), "1", "",
       "Worker pods, each with `gpus` whole GPUs on one node (workers x gpus at most 100000); more than one may span nodes"},
  };
}

// A job's fields after its duration, its speed settings included (a replica refuses those).
std::vector<Field> job_and_speed_fields() { return join_fields({job_fields(), job_speed_fields()}); }

}  // namespace

std::vector<Field> job_speed_fields() {
  return {
      {"reference_gpu", Type::string(), "", "",
       "The GPU model its duration is stated on, or any (it takes as long on every model); absent: the workload's "
       "reference_gpu"},
      {"throughput_class", Type::string(), "", "",
       "The row of the throughput table (gpusim catalog gpus) its speed on other GPU models follows; absent: its kind's "
       "(training and batch: training, inference: inference, notebook: interactive)"},
      {"speedup", Type::map(Type::number().above(0).at_most(1000)), "", "",
       "Its own speed on GPU models relative to its reference_gpu, e.g. {H100-80GB-SXM: 2.5}; a model not listed follows "
       "the throughput class"},
  };
}

std::optional<JobSpeed> read_job_speed(const Fields& e) {
  JobSpeed speed;
  if (auto r = e.get("reference_gpu")) speed.reference_gpu = r->as_string();
  if (auto c = e.get("throughput_class")) speed.throughput_class = c->as_string();
  if (auto m = e.get("speedup")) {
    if (speed.reference_gpu == JobSpeed::kAny)
      m->fail("reference_gpu any takes as long on every GPU model: expected no speedup (or a reference_gpu)");
    for (const auto& [gpu, ratio] : m->entries()) speed.speedup.emplace_back(gpu, ratio.as_number(e.range("speedup")));
  }
  if (speed == JobSpeed{}) return std::nullopt;
  return speed;
}

namespace {

Field checkpoint_field() {
  return {"checkpoint", checkpoint_type(), "", "", "How it saves its progress; absent: its kind's default (model.checkpoint)"};
}

}  // namespace

const Section& job_section() {
  static const Section s{
      "job", "An inline job",
      join_fields(
          {{
               {"name", Type::string(), required, "", "The job's name; with count, NAME-0, NAME-1, ..."},
               {"count", Type::integer().at_least(1), "1", "", "Copies of this entry"},
               {"arrival", Type::duration(), "0", "", "When it arrives"},
               {"duration", Type::duration(), "", "",
                "How long it runs alone on its request; required unless communication.iterations"},
               {"gpus", Type::integer().in(kJobGpuRange), required, "", "GPUs it asks for (of each worker, with workers)"},
               {"node", Type::string(), "", "",
                "The node it runs on, as a pod's spec.nodeName: the scheduler never places it, the node admits it when "
                "it fits there (a node of the cluster at time 0); absent: the scheduler places it"},
           },
           request_fields(),
           job_and_speed_fields(),
           node_rule_fields(),
           {{"communication", Type::section(job_communication_section()), "", "",
             "How a multi-GPU job communicates; absent: its kind's default (model.communication)"},
            checkpoint_field()}})};
  return s;
}

const Section& replica_pod_section() {
  static const Section s{"replica_pod", "The pod template of a service's replicas",
                         join_fields({request_fields(), job_and_speed_fields(), node_rule_fields(), {checkpoint_field()}})};
  return s;
}

namespace {

const Section& arrival_section() {
  static const Section s{"arrivals",
                         "When a generator class's jobs arrive",
                         {
                             {"start", Type::duration(), "0", "", "The first arrival"},
                             {"rate_per_hour", Type::number().above(0), "", "jobs per hour",
                              "Poisson arrivals at this rate; absent: every job at start"},
                         }};
  return s;
}

struct Distribution {
  enum class Kind { constant, exponential, lognormal, uniform } kind = Kind::constant;
  double a = 0, b = 0;  // constant: value; exponential: mean; lognormal: median, sigma; uniform: min, max (seconds)
  double sample_seconds(Rng& rng) const {
    const double p = uniform01(rng);
    switch (kind) {
      case Kind::constant: return a;
      case Kind::exponential: return boost::math::quantile(boost::math::exponential_distribution<>(1.0 / a), p);
      case Kind::lognormal: return boost::math::quantile(boost::math::lognormal_distribution<>(std::log(a), b), p);
      case Kind::uniform: return a + (b - a) * p;
    }
    return a;
  }
};

constexpr auto enum_table(Distribution::Kind) {
  using K = Distribution::Kind;
  return std::to_array<EnumName<K>>(
      {{K::constant, "constant"}, {K::exponential, "exponential"}, {K::lognormal, "lognormal"}, {K::uniform, "uniform"}});
}

// A section per kind of distribution, by kind: `distribution` names it, the rest are its parameters.
const std::array<Section, enum_count<Distribution::Kind>>& distribution_sections() {
  using K = Distribution::Kind;
  static const auto sections = [] {
    const auto kind = [](K k) -> Field { return {"distribution", Type::enumeration({k}), required, "", "The distribution"}; };
    return std::array<Section, enum_count<K>>{
        Section("constant_duration", "The same duration for every job",
                {kind(K::constant), {"value", Type::duration(), required, "", "The duration"}}),
        Section("exponential_duration", "Exponentially distributed durations",
                {kind(K::exponential), {"mean", Type::duration(), required, "", "Their mean (positive)"}}),
        Section("lognormal_duration", "Log-normally distributed durations",
                {kind(K::lognormal),
                 {"median", Type::duration(), required, "", "Their median (positive)"},
                 {"sigma", Type::number().above(0).at_most(10), required, "",
                  "Standard deviation of their logarithm (more than 10 puts most draws at 1 us or past 100 years)"}}),
        Section("uniform_duration", "Uniformly distributed durations",
                {kind(K::uniform),
                 {"min", Type::duration(), required, "", "The shortest"},
                 {"max", Type::duration(), required, "", "The longest"}}),
    };
  }();
  return sections;
}

Distribution read_distribution(const ConfigNode& node) {
  if (node.is_scalar()) return {Distribution::Kind::constant, node.as_duration().seconds(), 0};
  // Every section declares `distribution`, which says which one the rest is read by.
  const auto kind = Fields(distribution_sections().front(), node).at("distribution").as_enum<Distribution::Kind>(" or ");
  const Fields d = distribution_sections()[static_cast<std::size_t>(kind)].read(node);
  auto positive = [](const ConfigNode& n) {
    const double s = n.as_duration().seconds();
    if (s <= 0) n.fail("expected a positive duration");
    return s;
  };
  switch (kind) {
    case Distribution::Kind::constant: return {kind, d.at("value").as_duration().seconds(), 0};
    case Distribution::Kind::exponential: return {kind, positive(d.at("mean")), 0};
    case Distribution::Kind::lognormal: return {kind, positive(d.at("median")), d.number("sigma")};
    case Distribution::Kind::uniform: {
      const Distribution out{kind, d.at("min").as_duration().seconds(), d.at("max").as_duration().seconds()};
      if (out.b < out.a) d.fail("expected min <= max");
      return out;
    }
  }
  return {};
}

Type distribution_type() {
  std::vector<Type> alternatives{Type::duration()};
  for (const Section& s : distribution_sections()) alternatives.push_back(Type::section(s));
  return Type::one_of(std::move(alternatives));
}

const Section& class_section() {
  static const Section s{
      "job_class", "A class of generated jobs",
      join_fields(
          {{
               {"name", Type::string(), required, "",
                "The class's name: its jobs are NAME-0, NAME-1, ...; it draws from its own random streams"},
               {"count", Type::integer().at_least(1), required, "", "Jobs it generates"},
               {"arrival", Type::section(arrival_section()), "", "", "When they arrive; absent: all at 0"},
               {"gpus", Type::one_of({Type::integer().in(kJobGpuRange), Type::list(Type::integer().in(kJobGpuRange))}), required,
                "", "GPUs per job, or GPU counts to draw from"},
               {"gpu_weights", Type::list(Type::number().at_least(0)), "", "",
                "Weights of the GPU counts, one each; absent: equal"},
           },
           request_fields(),
           {{"duration", distribution_type(), required, "", "How long each runs alone: a duration, or a distribution of them"}},
           job_and_speed_fields(),
           node_rule_fields(),
           {{"communication", Type::section(communication_section()), "", "",
             "How a multi-GPU job communicates; absent: its kind's default (model.communication)"},
            checkpoint_field()}})};
  return s;
}

JobKind read_kind(const Fields& e) { return e.value("kind").as_enum<JobKind>(); }

// u and the occupancy in milli: a kind's default demand is read as its duty when an occupancy is given.
void read_demand(const Fields& e, Job& j) {
  double occupancy = 1;
  if (auto o = e.get("occupancy")) {
    occupancy = o->as_number(e.range("occupancy"));
    const double milli = occupancy * 1000;
    if (std::abs(milli - std::round(milli)) > 1e-6) o->fail("expected a multiple of 0.001");
    j.occupancy_milli = static_cast<uint16_t>(std::lround(milli));
  }
  auto u = e.get("u");
  j.u = u ? u->as_number(e.range("u")) : default_compute_demand(j.kind) * occupancy;
  if (u && j.u > occupancy + 1e-12)
    u->fail(fmt::format("expected u (the SMs it keeps busy over time) at most its occupancy {}", occupancy));
}

// The request fields shared by inline jobs and generator classes (gpus read by the caller).
void read_request_fields(const Fields& e, Request& q) {
  if (auto m = e.get("gpu_milli")) {
    q.milli_per_gpu = Milli{m->as_int<int32_t>(e.range("gpu_milli"))};
    if (q.milli_per_gpu < kWholeGpu && q.gpus != 1) m->fail("a GPU share below 1000 milli needs gpus: 1");
  }
  q.gpu_memory_mib = e.integer("gpu_memory_mib");
  q.cpu_milli = e.integer("cpu_milli");
  q.memory_mib = e.integer("memory_mib");
  q.models = e.string_list("models");
  if (auto r = e.get("resource")) {
    std::string resource = r->as_string();
    if (!is_device_resource(resource)) r->fail(fmt::format("expected {}, got '{}'", kDeviceResources, resource));
    if (resource.starts_with("nvidia.com/mig-") && q.milli_per_gpu < kWholeGpu)
      r->fail("a MIG instance cannot be requested together with gpu_milli");
    if (!resource.starts_with("nvidia.com/") && q.milli_per_gpu < kWholeGpu)
      r->fail(fmt::format("{} cannot be requested together with gpu_milli (milli-GPU shares are of NVIDIA GPUs)", resource));
    q.resource = resource;
  }
  if (auto node = e.get("claim")) {
    const Fields c = claim_section().read(*node);
    if (e.has("resource")) c.fail("give either a resource or a capacity claim, not both");
    q.claim = true;
    if (auto m = c.get("gpu_memory_mib")) q.gpu_memory_mib = m->as_int(c.range("gpu_memory_mib"));
    q.min_sms = c.integer<int32_t>("sms");
  }
  if (auto m = e.get("gpu_memory_limit_mib")) q.gpu_memory_limit_mib = m->as_int(e.range("gpu_memory_limit_mib"));
  if (auto m = e.get("mps_thread_percent")) q.thread_percent = m->as_int<int32_t>(e.range("mps_thread_percent"));
}

// The fields both read the same way once the request is known.
void read_job_fields(const Fields& e, JobSet& set, Job& j) {
  j.kind = read_kind(e);
  read_demand(e, j);
  if (auto t = e.get("tenant")) j.tenant = set.tenant(t->as_string());
  if (auto n = e.get("namespace")) {
    if (e.has("tenant") && n->as_string() != e.at("tenant").as_string())
      n->fail(fmt::format("the namespace is the tenant: give one of them, or the same name (tenant is '{}')",
                          e.at("tenant").as_string()));
    j.tenant = set.tenant(n->as_string());
  }
  PodSpec pod;
  if (auto l = e.get("labels"))
    for (const auto& [key, value] : l->entries()) pod.labels.emplace_back(key, value.as_string());
  std::sort(pod.labels.begin(), pod.labels.end());
  if (auto c = e.get("priority_class")) pod.priority_class = c->as_string();
  if (auto q = e.get("queue")) pod.queue = q->as_string();
  pod.node_rules = read_node_rules(e);
  if (auto c = e.get("resource_claims")) pod.resource_claims = read_pod_claims(*c);
  if (!pod.resource_claims.empty() && (e.has("resource") || e.has("claim")))
    e.at("resource_claims").fail("give either resource_claims (DRA) or a resource or capacity claim, not both");
  if (auto g = e.get("termination_grace_period")) pod.termination_grace = g->as_duration();
  pod.priority_given = e.has("priority");
  if (pod != PodSpec{}) j.pod = set.pod(std::move(pod));
  j.priority = e.integer<int32_t>("priority");
  j.multi_node = e.value("multi_node").as_bool();
  if (auto speed = read_job_speed(e)) j.speed = JobSet::add(set.speeds, std::move(*speed));
  if (auto c = e.get("checkpoint")) j.checkpoint = JobSet::add(set.checkpoints, parse_checkpoint_policy(*c));
}

// `deadline:`, after the job's arrival; none when absent.
std::optional<Duration> read_deadline(const Fields& e) {
  auto d = e.get("deadline");
  if (!d) return std::nullopt;
  const Duration after = d->as_duration();
  if (after <= Duration()) d->fail("expected a positive duration: a deadline is how long after its arrival the job must end");
  return after;
}

// `workers: N` (1 when not given) and where it was given, read once for all the jobs of an entry.
struct Workers {
  int32_t count = 1;
  std::optional<ConfigNode> node;
};
Workers read_workers(const Fields& e) {
  auto w = e.get("workers");
  if (!w) return {};
  return {w->as_int<int32_t>(e.range("workers")), w};
}

// `workers: N` makes `gpus` the GPUs of each of N worker pods (which may sit on different nodes).
void apply_workers(const Workers& w, Job& j) {
  if (w.count == 1) return;
  if (j.request.gpus == 0 || j.request.fractional()) w.node->fail("workers need whole GPUs (gpus >= 1, no gpu_milli)");
  const int64_t gpus = int64_t{w.count} * j.request.gpus;
  if (!kJobGpuRange.contains(static_cast<double>(gpus)))
    w.node->fail(fmt::format("{} workers x {} GPUs make {} GPUs; a job has at most {}", w.count, j.request.gpus, gpus,
                             kJobGpuRange.maximum->value));
  j.request.worker_gpus = j.request.gpus;
  j.request.gpus = static_cast<int32_t>(gpus);
  j.multi_node = true;
}

}  // namespace

const Section& communication_section() {
  static const Section s{
      "communication",
      "How a multi-GPU job communicates: per iteration it computes, then runs one collective",
      {
          {"compute_per_iteration", Type::duration(), required, "", "Computing time per iteration, alone on its reference GPU"},
          {"bytes_per_iteration", Type::number().at_least(0).at_most(1e15), required, "bytes",
           "Bytes the collective carries per iteration (at most 1e15, a petabyte)"},
          {"collective", Type::enumeration<Collective>(), "all-reduce", "", "The collective (nccl-tests names)"},
      }};
  return s;
}

Type checkpoint_type() { return Type::one_of({Type::choice({"none"}), Type::section(checkpoint_section())}); }

const Section& generator_section() {
  static const Section s{"generator",
                         "Synthetic jobs, drawn from seeded streams",
                         {
                             {"classes", Type::list(Type::section(class_section())), required, "", "Classes of jobs"},
                         }};
  return s;
}

CommProfile parse_comm_profile(const Fields& c) {
  CommProfile p;
  p.compute_per_iteration_s = c.at("compute_per_iteration").as_duration().seconds();
  if (p.compute_per_iteration_s <= 0) c.at("compute_per_iteration").fail("expected a positive time per iteration");
  p.bytes_per_iteration = c.at("bytes_per_iteration").as_number(c.range("bytes_per_iteration"));
  p.collective = c.value("collective").as_enum<Collective>();
  return p;
}

CheckpointPolicy parse_checkpoint_policy(const ConfigNode& node) {
  CheckpointPolicy p;
  if (node.is_null() || (node.is_scalar() && node.as_string() == "none")) return p;
  if (!node.is_map()) node.fail("expected none or a map {interval: DURATION | auto, cost: DURATION, restore: DURATION}");
  const Fields c = checkpoint_section().read(node);
  p.enabled = true;
  const ConfigNode interval = c.at("interval");
  if (interval.is_scalar() && interval.as_string() == "auto") {
    p.auto_interval = true;
  } else {
    p.interval = interval.as_duration();
    if (p.interval <= Duration()) interval.fail("expected a positive interval, or auto (Young/Daly)");
  }
  p.cost = c.at("cost").as_duration();
  if (p.auto_interval && p.cost <= Duration()) c.at("cost").fail("interval: auto needs a positive checkpoint cost");
  p.restore = c.value("restore").as_duration();
  p.restart_overhead = c.value("restart_overhead").as_duration();
  return p;
}

Job read_replica_pod(const ConfigNode& pod, int32_t gpus, JobSet& set) {
  const Fields e = replica_pod_section().read(pod);
  for (std::string_view refused :
       {"workers", "multi_node", "deadline", "u", "occupancy", "reference_gpu", "throughput_class", "speedup", "checkpoint"})
    if (auto f = e.get(refused))
      f->fail(refused == "u" || refused == "occupancy"
                  ? "a replica keeps its GPU busy while it has requests and idle otherwise (the serving model): no u"
              : refused == "reference_gpu" || refused == "throughput_class" || refused == "speedup"
                  ? fmt::format("a replica's speed comes from its model and its GPU (the serving model): no {}", refused)
              : refused == "checkpoint" ? "a replica saves nothing: a new one loads its model (cold_start)"
                                        : "a replica is one pod on one node: no workers, multi_node or deadline");
  Job j;
  j.request.gpus = gpus;
  read_request_fields(e, j.request);
  read_job_fields(e, set, j);
  if (e.has("kind") && j.kind != JobKind::inference) e.at("kind").fail("a replica is of kind inference");
  j.kind = JobKind::inference;
  j.u = 0;  // busy or idle, as its requests say: the engine asks the serving model
  j.speed = JobSet::add(set.speeds, JobSpeed{std::string(JobSpeed::kAny), {}, {}});  // the serving model's, not work
  j.strict = true;
  j.origin = set.origin(pod.where());
  return j;
}

JobSet parse_inline_jobs(const ConfigNode& list) {
  JobSet set;
  std::map<std::string, std::optional<int>, std::less<>> lines;  // job name -> line of the job that has it
  for (const auto& item : list.items()) {
    const Fields e = job_section().read(item);
    Job j;
    j.name = e.at("name").as_string();
    // Every name the item makes (name, or name-0 ... with count) once in the list.
    const auto claim = [&](const std::string& name) {
      const auto [it, fresh] = lines.emplace(name, e.at("name").where().line);
      if (!fresh)
        e.at("name").fail(fmt::format("two jobs are named '{}' (lines {} and {}): give each job its own name", name,
                                      it->second.value_or(0), e.at("name").where().line.value_or(0)));
    };
    j.arrival = Time() + e.value("arrival").as_duration();
    CommProfile comm;
    if (auto node = e.get("communication")) {
      const Fields c = job_communication_section().read(*node);
      comm = parse_comm_profile(c);
      if (auto i = c.get("iterations")) {
        if (e.has("duration")) e.at("duration").fail("give duration or communication.iterations, not both");
        const int64_t n = i->as_int(c.range("iterations"));
        const double work_s = static_cast<double>(n) * comm.compute_per_iteration_s;
        if (!kSpanSeconds.contains(work_s))
          i->fail(fmt::format("{} iterations of {} s are {:g} s of work; a job runs at most {}", n, comm.compute_per_iteration_s,
                              work_s, kMaxSpanText));
        j.work = Duration::from_seconds(work_s, Round::nearest);
        comm.work_is_compute = true;
      }
      j.communication = JobSet::add(set.profiles, comm);
    }
    if (!comm.work_is_compute) j.work = e.at("duration").as_duration();
    j.request.gpus = e.at("gpus").as_int<int32_t>(e.range("gpus"));
    read_request_fields(e, j.request);
    read_job_fields(e, set, j);
    apply_workers(read_workers(e), j);
    if (auto n = e.get("node")) {
      if (j.multi_node) n->fail("a job bound to one node has one pod: no workers, no multi_node");
      j.node = JobSet::add(set.texts, n->as_string());
    }
    j.strict = true;
    j.origin = set.origin(e.node().where());
    const int64_t count = e.integer("count");
    const std::optional<Duration> deadline = read_deadline(e);
    if (deadline)
      for (int64_t i = 0; i < count; ++i) set.set_deadline(set.jobs.size() + static_cast<std::size_t>(i), *deadline);
    if (count == 1) {
      claim(j.name);
      set.jobs.push_back(std::move(j));
      continue;
    }
    for (int64_t i = 0; i < count; ++i) {
      Job copy = j;
      copy.name = fmt::format("{}-{}", j.name, i);
      claim(copy.name);
      set.jobs.push_back(std::move(copy));
    }
  }
  return set;
}

JobSet generate_jobs(const ConfigNode& node, uint64_t seed) {
  const Fields spec = generator_section().read(node);
  JobSet set;
  std::map<std::string, std::optional<int>, std::less<>> lines;  // class name -> its line
  std::vector<Fields> classes;
  for (const auto& item : spec.at("classes").items()) classes.push_back(class_section().read(item));
  // Every class's jobs reserved at once: reserving class by class moved the jobs drawn so far at each
  // class (ten million jobs of 13 classes were moved 11 times, a fresh 3 GB each time).
  std::size_t total = 0;
  for (const Fields& c : classes) total += static_cast<std::size_t>(c.integer("count"));
  set.jobs.reserve(total);
  for (const Fields& c : classes) {
    const std::string name = c.at("name").as_string();
    // Its random streams and its jobs' names come from the name: two classes would draw the same jobs.
    if (const auto [it, fresh] = lines.emplace(name, c.at("name").where().line); !fresh)
      c.at("name").fail(fmt::format("two generator classes are named '{}' (lines {} and {}): give each class its own name", name,
                                    it->second.value_or(0), c.at("name").where().line.value_or(0)));
    const int64_t count = c.integer("count");
    Time start;
    double rate_per_s = 0;  // 0: every job arrives at `start`
    std::optional<ConfigNode> rate;
    if (auto arrival = c.get("arrival")) {
      const Fields a = arrival_section().read(*arrival);
      start = Time() + a.value("start").as_duration();
      if ((rate = a.get("rate_per_hour"))) rate_per_s = rate->as_number(a.range("rate_per_hour")) / kSecondsPerHour;
    }
    std::vector<int32_t> gpu_choices;
    const ConfigNode gpus = c.at("gpus");
    if (gpus.is_scalar()) gpu_choices.push_back(gpus.as_int<int32_t>(c.range("gpus")));
    else
      for (const auto& g : gpus.items()) gpu_choices.push_back(g.as_int<int32_t>(c.range("gpus")));
    if (gpu_choices.empty()) gpus.fail("expected at least one GPU count");
    std::vector<double> weights(gpu_choices.size(), 1.0);
    if (auto w = c.get("gpu_weights")) {
      const auto items = w->items();
      if (items.size() != gpu_choices.size())
        w->fail(fmt::format("expected {} weights, one per GPU count, got {}", gpu_choices.size(), items.size()));
      for (std::size_t i = 0; i < items.size(); ++i) weights[i] = items[i].as_number(c.range("gpu_weights"));
    }
    const double total_weight = std::accumulate(weights.begin(), weights.end(), 0.0);
    if (total_weight <= 0) c.fail("gpu_weights must not all be zero");
    const Distribution duration = read_distribution(c.at("duration"));
    Job proto;
    proto.request.gpus = gpu_choices.front();
    read_request_fields(c, proto.request);
    if (proto.request.fractional() && gpu_choices.size() > 1)
      c.at("gpu_milli").fail("a GPU share below 1000 milli needs gpus: 1");
    read_job_fields(c, set, proto);
    if (auto m = c.get("communication"))
      proto.communication = JobSet::add(set.profiles, parse_comm_profile(communication_section().read(*m)));
    proto.origin = set.origin(c.node().where());
    const Workers workers = read_workers(c);
    if (const std::optional<Duration> deadline = read_deadline(c))
      for (int64_t i = 0; i < count; ++i) set.set_deadline(set.jobs.size() + static_cast<std::size_t>(i), *deadline);

    Rng arrivals = make_stream(seed, "generator/" + name + "/arrivals");
    Rng sizes = make_stream(seed, "generator/" + name + "/gpus");
    Rng durations = make_stream(seed, "generator/" + name + "/durations");
    const boost::math::exponential_distribution<> gap(rate_per_s > 0 ? rate_per_s : 1.0);
    double t_s = start.seconds();
    for (int64_t i = 0; i < count; ++i) {
      Job j = proto;
      if (rate_per_s > 0) t_s += boost::math::quantile(gap, uniform01(arrivals));
      // Draws are checked where they become times: a tiny rate or a wide distribution must not
      // wrap the clock or make jobs of no work.
      if (!kSpanSeconds.contains(t_s))
        rate->fail(fmt::format("job {}-{} would arrive at {:g} s, past {}: expected a rate that brings its {} jobs within it",
                               name, i, t_s, kMaxSpanText, count));
      j.arrival = Time() + Duration::from_seconds(t_s, Round::nearest);
      double pick = uniform01(sizes) * total_weight;
      std::size_t k = 0;
      while (k + 1 < gpu_choices.size() && pick >= weights[k]) pick -= weights[k++];
      j.request.gpus = gpu_choices[k];
      apply_workers(workers, j);
      const double work_s = duration.sample_seconds(durations);
      if (!kSpanSeconds.contains(work_s))
        c.at("duration").fail(fmt::format("job {}-{} draws a duration of {:g} s, past {}", name, i, work_s, kMaxSpanText));
      j.work = std::max(Duration::from_us(1), Duration::from_seconds(work_s, Round::nearest));
      j.name = fmt::format("{}-{}", name, i);
      set.jobs.push_back(std::move(j));
    }
  }
  return set;
}

}  // namespace gpusim
