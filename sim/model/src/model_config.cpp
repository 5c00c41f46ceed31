// The execution model's configuration: the fields of a `model:` map (model.yaml's shape, with its
// defaults), the compiled-in sim/data/model.yaml, a scenario's overrides applied onto it, and the
// lookups its per-GPU and named entries answer. The rate functions are execution.cpp's.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/gpu_entries.hpp"
#include "gpusim/workloads/spec.hpp"

namespace gpusim {

namespace embedded {
std::string_view model_yaml();
}  // namespace embedded

namespace {

// model.yaml's tree: the defaults the schema states for the sections below.
const YAML::Node& builtin_model_doc() {
  static const YAML::Node doc = YAML::Load(std::string(embedded::model_yaml()));
  return doc;
}

// The section `model.KEY`, with a source and model.yaml's defaults.
Section model_subsection(const std::string& key, std::string description, std::vector<Field> fields) {
  fields.push_back(source_field());
  return Section("model_" + key, std::move(description), std::move(fields)).with_defaults(builtin_model_doc()[key]);
}

// The figures of one GPU generation (an entry) or, at the top of a scenario's `time_slicing`, of every one.
std::vector<Field> time_slicing_figures(const FieldDefault& presence) {
  return {
      {"timeslice", Type::duration(), presence, "", "How long a context runs before it is preempted when another has work"},
      {"preempt_switch", Type::duration(), presence, "", "GPU time lost when a slice ends with work left"},
      {"yield_switch", Type::duration(), presence, "", "GPU time lost when another context takes the GPU after a yield"},
      {"context_memory_mib", Type::integer().at_least(0), presence, "MiB", "Device memory each CUDA context costs"},
  };
}

const Section& time_slicing_entry_section() {
  static const Section s = [] {
    std::vector<Field> fields{
        {"gpus", Type::string_list(), "", "", "GPU models (names or aliases) it applies to; absent: a default entry"},
        {"min_compute_capability", Type::number().at_least(0), "0", "",
         "A default entry applies to GPUs not listed whose compute capability reaches this (the highest wins)"},
        {"generation", Type::string(), "", "", "What it covers, e.g. hopper"},
    };
    for (Field& f : time_slicing_figures(required)) fields.push_back(std::move(f));
    fields.push_back({"assumed", Type::string_list(), "", "", "Fields whose values are carried from another GPU"});
    fields.push_back(source_field());
    return Section{"model_time_slicing_entry", "Time-slicing's figures on some GPU models (a generation)", std::move(fields)};
  }();
  return s;
}

const Section& time_slicing_section() {
  static const Section s = [] {
    std::vector<Field> fields = time_slicing_figures("");
    for (Field& f : fields) f.description += " (given here: on every GPU)";
    fields.push_back({"max_contexts", Type::integer().at_least(1).at_most(60), "", "", "Contexts the driver allows per GPU"});
    fields.push_back({"entries", Type::list(Type::section(time_slicing_entry_section())), "", "",
                      "The figures by GPU generation; a scenario's entries are searched before model.yaml's"});
    return model_subsection("time_slicing", "CUDA time-slicing of a GPU shared by several pods", std::move(fields));
  }();
  return s;
}

Duration positive(const ConfigNode& n) {
  const Duration t = n.as_duration();
  if (t <= Duration()) n.fail("expected a positive duration");
  return t;
}

// A time-slicing block's figures (an entry's, or the top level's) onto `m`.
void read_time_slicing_figures(const Fields& t, TimeSlicingModel& m) {
  if (auto v = t.get("timeslice")) m.timeslice = positive(*v);
  if (auto v = t.get("preempt_switch")) m.preempt_switch = v->as_duration();
  if (auto v = t.get("yield_switch")) m.yield_switch = v->as_duration();
  if (auto v = t.get("context_memory_mib")) m.context_memory_mib = v->as_int(t.range("context_memory_mib"));
}

const Section& mps_section() {
  static const Section s = model_subsection(
      "mps", "MPS clients sharing a GPU",
      {
          {"bandwidth_interference", Type::number().at_least(0).below(1), "", "",
           "Speed a client loses per unit of SM share the other clients use"},
          {"fault_rate_per_hour", Type::number().at_least(0), "", "faults per client-hour", "Fatal faults injected; 0: off"},
      });
  return s;
}

const Section& mig_section() {
  static const Section s = model_subsection(
      "mig", "MIG repartitioning",
      {
          {"reconfiguration_delay", Type::duration(), "", "", "Drain-to-ready time of a MIG layout change"},
          {"partition_reconfiguration_delay", Type::duration(), "", "",
           "Drain-to-ready time of an AMD compute and memory partition change"},
      });
  return s;
}

const Section& restart_section() {
  static const Section s = model_subsection(
      "restart", "What happens to a killed job (Kubernetes CrashLoopBackOff)",
      {
          {"policy", Type::choice({"requeue", "fail"}), "", "", "Requeue a killed job, or let it fail"},
          {"backoff", Type::duration(), "", "", "First delay before it is queued again; doubles per restart"},
          {"backoff_max", Type::duration(), "", "", "The longest delay"},
          {"max_restarts", Type::int32().at_least(0), "", "", "Restarts before the job fails"},
      });
  return s;
}

const Section& communication_default_section() {
  static const Section s{"model_communication_default", "A kind's default communication profile",
                         join_fields({communication_section().fields(), {source_field()}})};
  return s;
}

const Section& speed_section() {
  static const Section s = model_subsection(
      "speed", "How fast jobs run on each GPU model (docs/hardware.md#job-speed)",
      {
          {"reference_gpu", Type::string(), "", "",
           "The GPU a job's duration is stated on when neither it nor workload.reference_gpu names one"},
          {"classes", Type::map(Type::string(), {enum_names<JobKind>.begin(), enum_names<JobKind>.end()}), "", "",
           "The throughput class (a row of the catalog's throughput table) each job kind follows"},
      });
  return s;
}

const Section& model_communication_section() {
  static const Section s = model_subsection(
      "communication", "Communication of multi-GPU jobs that state none",
      {
          {"defaults",
           Type::map(Type::one_of({Type::choice({"none"}), Type::section(communication_default_section())}),
                     {enum_names<JobKind>.begin(), enum_names<JobKind>.end()}),
           "", "", "Profile by job kind; none: that kind does not communicate"},
          {"default_network", Type::section(network_section()), "", "",
           "The network of pools whose node template describes none"},
      });
  return s;
}

const Section& checkpoint_defaults_section() {
  static const Section s = model_subsection(
      "checkpoint", "Checkpoints of jobs that state none",
      {
          {"defaults", Type::map(checkpoint_type(), {enum_names<JobKind>.begin(), enum_names<JobKind>.end()}), "", "",
           "Checkpoint policy by job kind"},
      });
  return s;
}

const Section& preemption_section() {
  static const Section s = model_subsection(
      "preemption", "What a scheduler's preemption costs a job without a checkpoint policy",
      {
          {"suspend", Type::duration(), "", "", "Writing its state before its GPUs are released"},
          {"resume", Type::duration(), "", "", "Reading it back before it computes again"},
      });
  return s;
}

const Section& spot_section() {
  static const Section s = model_subsection(
      "spot", "Spot reclaims",
      {
          {"notice", Type::map(Type::duration()), "", "", "Warning before a spot node is taken back, by provider"},
          {"provider", Type::string(), "", "", "The provider of a spot pool that names none"},
          {"aws_frequency", Type::map(Type::number().at_least(0).below(1)), "", "",
           "AWS Spot Instance Advisor bucket -> probability that a node is interrupted within a 730-h month"},
      });
  return s;
}

const Section& autoscaler_section() {
  static const Section s = model_subsection(
      "autoscaler", "The cluster autoscaler",
      {
          {"scale_up_delay", Type::duration(), "", "", "A pod unschedulable this long asks for a node"},
          {"scale_down_after", Type::duration(), "", "", "An empty node is removed after this long"},
          {"provisioning_delay", Type::duration(), "", "", "From a node's request to its being ready"},
      });
  return s;
}

const Section& low_utilization_section() {
  static const Section s = model_subsection(
      "low_utilization", "The low-utilization alert",
      {
          {"threshold", Type::number().above(0).at_most(1), "", "", "Effective utilization below which a pool is burning money"},
          {"min_duration", Type::duration(), "", "", "Shorter dips are not reported"},
      });
  return s;
}

const Section& power_entry_section() {
  static const Section s{
      "model_power_entry",
      "A GPU model's power draw (sim/power.hpp); its watts scale to another TDP",
      {
          {"gpus", Type::string_list(), "", "",
           "GPU models (names or aliases) it applies to; absent: the default, for every other GPU"},
          {"tdp_w", Type::number().above(0), required, "W",
           "The TDP its watts are for; a GPU of another TDP scales them by its own"},
          {"idle_low_w", Type::number().at_least(0), required, "W", "Idle at low clocks"},
          {"idle_high_w", Type::number().at_least(0), required, "W", "Idle with the clocks still up after work"},
          {"clock_hold", Type::duration(), required, "", "How long the clocks stay up after the last work"},
          {"fp32_w", Type::number().at_least(0), required, "W", "Busy all the time with FP32 math, at full clock"},
          {"memory_w", Type::number().at_least(0), required, "W", "Busy all the time with memory-bound work, at full clock"},
          {"capped_w", Type::number().above(0), required, "W", "What it draws held at its power limit"},
          {"throttled_clock", Type::number().above(0).below(1), required, "",
           "SM clock over its maximum under sustained tensor math at the cap"},
          {"throttled_throughput", Type::number().above(0).at_most(1), required, "",
           "Tensor throughput over the full-clock one at the cap"},
          {"assumed", Type::string_list(), "", "", "Fields whose values are documented assumptions"},
          source_field(),
      }};
  return s;
}

const Section& serving_decode_section() {
  static const Section s{"serving_decode_point",
                         "One measured decode draw",
                         {
                             {"batch", Type::number().at_least(1), required, "requests", "Requests in each decode step"},
                             {"power_w", Type::number().above(0), required, "W", "The GPU's mean draw, always busy"},
                         }};
  return s;
}

const Section& power_section() {
  static const Section s = model_subsection(
      "power", "The power model: energy accounting and metrics.om's DCGM_FI_DEV_POWER_USAGE",
      {
          {"entries", Type::list(Type::section(power_entry_section())), "", "",
           "Draw by GPU model; a scenario's entries are searched before model.yaml's"},
          {"bound_by",
           Type::map(Type::one_of({Type::enumeration<PowerBound>(),
                                   Type::map(Type::number().at_least(0).at_most(1),
                                             {enum_names<PowerBound>.begin(), enum_names<PowerBound>.end()})}),
                     {enum_names<JobKind>.begin(), enum_names<JobKind>.end()}),
           "", "", "What each job kind's busy time is bound by: tensor, fp32, memory, or shares of them summing to 1"},
          {"host", Type::section(host_power_section()), "", "",
           "What a node draws besides its GPUs where its template gives no host_power (a node list's nodes)"},
          {"serving_decode", Type::list(Type::section(serving_decode_section())), "", "",
           "Measured decode draw by batch on the default entry's GPU: serving replicas' mix follows their batch "
           "(docs/guide/energy.md#serving-replicas); absent: they draw as the inference kind"},
          {"assumed", Type::string_list(), "", "", "Fields whose values are documented assumptions"},
      });
  return s;
}

// A power entry, checked: idle_low_w <= idle_high_w <= each busy draw, idle_high_w < capped_w.
PowerModel::Entry parse_power_entry(const Fields& e) {
  PowerModel::Entry entry;
  entry.gpus = e.string_list("gpus");
  entry.tdp_w = e.number("tdp_w");
  GpuPower& p = entry.power;
  p.idle_low_w = e.number("idle_low_w");
  p.idle_high_w = e.number("idle_high_w");
  p.clock_hold = e.value("clock_hold").as_duration();
  p.busy_w[static_cast<std::size_t>(PowerBound::fp32)] = e.number("fp32_w");
  p.busy_w[static_cast<std::size_t>(PowerBound::memory)] = e.number("memory_w");
  p.capped_w = e.number("capped_w");
  p.throttled_clock = e.number("throttled_clock");
  p.throttled_throughput = e.number("throttled_throughput");
  if (p.idle_low_w > p.idle_high_w) e.at("idle_low_w").fail("expected idle_low_w <= idle_high_w");
  for (const char* busy : {"fp32_w", "memory_w"})
    if (e.number(busy) < p.idle_high_w) e.at(busy).fail(fmt::format("expected idle_high_w <= {}", busy));
  if (p.capped_w <= p.idle_high_w) e.at("capped_w").fail("expected idle_high_w < capped_w");
  // Tensor math at full clock: what draws capped_w at the throttled clock, the draw above idle
  // following the clock (power_throttle's assumption).
  p.busy_w[static_cast<std::size_t>(PowerBound::tensor)] = p.idle_high_w + (p.capped_w - p.idle_high_w) / p.throttled_clock;
  entry.assumed = e.string_list("assumed");
  if (auto src = e.get("source")) entry.source = src->as_string();
  return entry;
}

// A kind's bound: a bound's name, or shares of the bounds summing to 1.
BoundMix parse_bound_mix(const ConfigNode& n) {
  BoundMix mix{};
  if (n.is_scalar()) {
    mix[static_cast<std::size_t>(n.as_enum<PowerBound>())] = 1;
    return mix;
  }
  n.allow_only(enum_names<PowerBound>);
  double total = 0;
  for (const auto& [bound, share] : n.entries()) {
    const double u = share.as_number(Range::between(0, 1));
    mix[static_cast<std::size_t>(*parse_enum<PowerBound>(bound))] = u;
    total += u;
  }
  if (std::abs(total - 1) > 1e-9) n.fail(fmt::format("expected shares summing to 1, got {}", total));
  return mix;
}

const Section& serving_efficiency_section() {
  static const Section s{
      "model_serving_efficiency",
      "Roofline efficiencies and overheads of LLM replicas on some GPU models",
      {
          {"gpus", Type::string_list(), "", "", "GPU models (names or aliases) it applies to; absent: a default entry"},
          {"min_compute_capability", Type::number().at_least(0), "0", "",
           "A default entry applies to GPUs not listed whose compute capability reaches this (the highest wins)"},
          {"e_flops", Type::number().above(0).at_most(1), required, "", "Achieved over peak FLOP/s of the weight matmuls"},
          {"e_bw", Type::number().above(0).at_most(1), required, "", "Achieved over peak memory bandwidth"},
          {"e_attn", Type::number().above(0).at_most(1), required, "", "Achieved over peak FLOP/s of attention (causal FLOPs)"},
          {"e_link", Type::number().above(0).at_most(1), required, "", "Achieved over the ring link's bandwidth in all-reduces"},
          {"overhead_tp1", Type::duration(), required, "", "Fixed cost of an iteration at tensor-parallel degree 1"},
          {"overhead_tp", Type::duration(), required, "", "Fixed cost of an iteration at tensor-parallel degree 2 or more"},
          {"alpha", Type::number().at_least(0), required, "s", "Latency of one step of a ring all-reduce"},
          {"assumed", Type::string_list(), "", "", "Fields whose values are documented assumptions"},
          source_field(),
      }};
  return s;
}

const Section& serving_section() {
  static const Section s = model_subsection(
      "serving", "LLM serving: vLLM's cache settings and the iteration-time roofline's efficiencies",
      {
          {"gpu_memory_utilization", Type::number().above(0).at_most(1), "", "",
           "vLLM's gpu_memory_utilization: the fraction of the memory a replica sees that it uses"},
          {"block_size", Type::int32().at_least(1), "", "tokens", "Tokens per KV-cache block"},
          {"efficiency", Type::list(Type::section(serving_efficiency_section())), "", "",
           "Efficiencies by GPU model; a scenario's entries are searched before model.yaml's"},
      });
  return s;
}

}  // namespace

const Section& model_section() {
  static const Section s{
      "model",
      "The execution model's constants (sim/data/model.yaml); every field optional",
      {
          {"include", Type::string(), "", "",
           "A file (relative to the scenario) whose model: map, or top-level map, is applied before "
           "these keys, e.g. gpusim calibrate's output"},
          {"speed", Type::section(speed_section()), "", "", "Jobs' speed on GPU models"},
          {"time_slicing", Type::section(time_slicing_section()), "", "", "CUDA time-slicing"},
          {"mps", Type::section(mps_section()), "", "", "MPS"},
          {"mig", Type::section(mig_section()), "", "", "MIG repartitioning"},
          {"restart", Type::section(restart_section()), "", "", "Killed jobs"},
          {"communication", Type::section(model_communication_section()), "", "", "Communication defaults"},
          {"checkpoint", Type::section(checkpoint_defaults_section()), "", "", "Checkpoint defaults"},
          {"preemption", Type::section(preemption_section()), "", "", "Preemption costs"},
          {"spot", Type::section(spot_section()), "", "", "Spot reclaims"},
          {"autoscaler", Type::section(autoscaler_section()), "", "", "The cluster autoscaler"},
          {"low_utilization", Type::section(low_utilization_section()), "", "", "The low-utilization alert"},
          {"power", Type::section(power_section()), "", "", "The power model: energy accounting and metrics.om"},
          {"serving", Type::section(serving_section()), "", "", "LLM serving"},
      }};
  return s;
}

const ExecutionModel& ExecutionModel::builtin() {
  static const ExecutionModel model = [] {
    ExecutionModel m;
    m.apply(ConfigNode::parse(std::string(embedded::model_yaml()), "<builtin>/sim/data/model.yaml", YamlText::builtin));
    return m;
  }();
  return model;
}

void ExecutionModel::apply(const ConfigNode& model) {
  const Fields doc = model_section().read(model);
  if (auto block = doc.get("speed")) {
    const Fields sp = speed_section().read(*block);
    if (auto v = sp.get("reference_gpu")) speed.reference_gpu = v->as_string();
    if (auto c = sp.get("classes")) {
      c->allow_only(enum_names<JobKind>);
      for (const auto& [kind_name, name] : c->entries())
        speed.classes[static_cast<std::size_t>(*parse_enum<JobKind>(kind_name))] = name.as_string();
    }
  }
  if (auto block = doc.get("time_slicing")) {
    const Fields t = time_slicing_section().read(*block);
    if (auto list = t.get("entries"))
      for (const auto& item : list->items()) {
        const Fields e = time_slicing_entry_section().read(item);
        TimeSlicingModels::Entry entry;
        entry.gpus = e.string_list("gpus");
        if (!entry.gpus.empty() && e.has("min_compute_capability"))
          e.at("min_compute_capability").fail("expected either gpus or min_compute_capability, not both");
        entry.min_compute_capability = e.number("min_compute_capability");
        if (auto v = e.get("generation")) entry.generation = v->as_string();
        // The driver's context cap is one figure for every GPU: an entry takes the one in force.
        if (!time_slicing.entries.empty()) entry.model.max_contexts = time_slicing.entries.front().model.max_contexts;
        for (const char* figure : {"timeslice", "preempt_switch", "yield_switch", "context_memory_mib"})
          e.value(figure);  // an entry states each (an input error naming the one it lacks)
        read_time_slicing_figures(e, entry.model);
        entry.assumed = e.string_list("assumed");
        if (auto src = e.get("source")) entry.source = src->as_string();
        time_slicing.entries.push_back(std::move(entry));
      }
    // Figures at the top apply to every generation (`--set model.time_slicing.timeslice=0.01`).
    for (TimeSlicingModels::Entry& entry : time_slicing.entries) {
      read_time_slicing_figures(t, entry.model);
      if (auto v = t.get("max_contexts")) entry.model.max_contexts = v->as_int<int>(t.range("max_contexts"));
    }
  }
  if (auto block = doc.get("mps")) {
    const Fields m = mps_section().read(*block);
    if (auto v = m.get("bandwidth_interference")) mps.bandwidth_interference = v->as_number(m.range("bandwidth_interference"));
    if (auto v = m.get("fault_rate_per_hour")) mps.fault_rate_per_hour = v->as_number(m.range("fault_rate_per_hour"));
  }
  if (auto block = doc.get("mig")) {
    const Fields m = mig_section().read(*block);
    if (auto v = m.get("reconfiguration_delay")) mig.reconfiguration_delay = v->as_duration();
    if (auto v = m.get("partition_reconfiguration_delay")) mig.partition_reconfiguration_delay = v->as_duration();
  }
  if (auto block = doc.get("communication")) {
    const Fields c = model_communication_section().read(*block);
    if (auto d = c.get("defaults")) {
      d->allow_only(enum_names<JobKind>);
      for (const auto& [kind_name, profile] : d->entries()) {
        CommProfile& p = communication.defaults[static_cast<std::size_t>(*parse_enum<JobKind>(kind_name))];
        if (profile.is_null() || (profile.is_scalar() && profile.as_string() == "none")) {
          p = {};
          continue;
        }
        p = parse_comm_profile(communication_default_section().read(profile));
      }
    }
    if (auto n = c.get("default_network")) communication.default_network = NetworkSpec::parse(*n);
  }
  if (auto block = doc.get("checkpoint")) {
    const Fields c = checkpoint_defaults_section().read(*block);
    if (auto d = c.get("defaults")) {
      d->allow_only(enum_names<JobKind>);
      for (const auto& [kind_name, policy] : d->entries())
        checkpoint.defaults[static_cast<std::size_t>(*parse_enum<JobKind>(kind_name))] = parse_checkpoint_policy(policy);
    }
  }
  if (auto block = doc.get("preemption")) {
    const Fields p = preemption_section().read(*block);
    if (auto v = p.get("suspend")) preemption.suspend = v->as_duration();
    if (auto v = p.get("resume")) preemption.resume = v->as_duration();
  }
  if (auto block = doc.get("spot")) {
    const Fields sp = spot_section().read(*block);
    if (auto n = sp.get("notice"))
      for (const auto& [provider, value] : n->entries()) {
        const Duration t = value.as_duration();
        // A named capture: clang (and so clang-tidy) before 16 cannot capture a structured binding.
        std::erase_if(spot.notice, [&name = provider](const auto& e) { return e.first == name; });
        spot.notice.emplace_back(provider, t);
      }
    if (auto p = sp.get("provider")) {
      if (!spot.notice_of(p->as_string())) p->fail(fmt::format("no notice is known for provider '{}'", p->as_string()));
      spot.provider = p->as_string();
    }
    if (auto f = sp.get("aws_frequency"))
      for (const auto& [bucket, value] : f->entries()) {
        const double p = value.as_number(sp.range("aws_frequency"));
        std::erase_if(spot.aws_frequency, [&name = bucket](const auto& e) { return e.first == name; });
        spot.aws_frequency.emplace_back(bucket, p);
      }
  }
  if (auto block = doc.get("autoscaler")) {
    const Fields a = autoscaler_section().read(*block);
    if (auto v = a.get("scale_up_delay")) autoscaler.scale_up_delay = v->as_duration();
    if (auto v = a.get("scale_down_after")) autoscaler.scale_down_after = v->as_duration();
    if (auto v = a.get("provisioning_delay")) autoscaler.provisioning_delay = v->as_duration();
  }
  if (auto block = doc.get("low_utilization")) {
    const Fields l = low_utilization_section().read(*block);
    if (auto v = l.get("threshold")) low_utilization.threshold = v->as_number(l.range("threshold"));
    if (auto v = l.get("min_duration")) low_utilization.min_duration = v->as_duration();
  }
  if (auto block = doc.get("power")) {
    const Fields p = power_section().read(*block);
    if (auto list = p.get("entries"))
      for (const auto& item : list->items()) power.entries.push_back(parse_power_entry(power_entry_section().read(item)));
    if (auto b = p.get("bound_by")) {
      b->allow_only(enum_names<JobKind>);
      for (const auto& [kind_name, mix] : b->entries())
        power.bound_by[static_cast<std::size_t>(*parse_enum<JobKind>(kind_name))] = parse_bound_mix(mix);
    }
    if (auto h = p.get("host")) power.host = HostPower::parse(*h);
    if (auto list = p.get("serving_decode")) {
      power.serving_decode.clear();
      for (const auto& item : list->items()) {
        const Fields d = serving_decode_section().read(item);
        if (!power.serving_decode.empty() && d.number("batch") <= power.serving_decode.back().batch)
          d.at("batch").fail("expected batches in increasing order");
        power.serving_decode.push_back({d.number("batch"), d.number("power_w")});
      }
    }
  }
  if (auto block = doc.get("serving")) {
    const Fields sv = serving_section().read(*block);
    if (auto v = sv.get("gpu_memory_utilization"))
      serving.gpu_memory_utilization = v->as_number(sv.range("gpu_memory_utilization"));
    if (auto v = sv.get("block_size")) serving.block_size = v->as_int<int32_t>(sv.range("block_size"));
    if (auto list = sv.get("efficiency"))
      for (const auto& item : list->items()) {
        const Fields e = serving_efficiency_section().read(item);
        ServingModel::Entry entry;
        entry.gpus = e.string_list("gpus");
        if (!entry.gpus.empty() && e.has("min_compute_capability"))
          e.at("min_compute_capability").fail("expected either gpus or min_compute_capability, not both");
        entry.min_compute_capability = e.number("min_compute_capability");
        ServingEfficiency& f = entry.efficiency;
        f.e_flops = e.number("e_flops");
        f.e_bw = e.number("e_bw");
        f.e_attn = e.number("e_attn");
        f.e_link = e.number("e_link");
        f.overhead_tp1 = e.value("overhead_tp1").as_duration();
        f.overhead_tp = e.value("overhead_tp").as_duration();
        f.alpha_s = e.number("alpha");
        entry.assumed = e.string_list("assumed");
        if (auto src = e.get("source")) entry.source = src->as_string();
        serving.efficiency.push_back(std::move(entry));
      }
  }
  if (auto block = doc.get("restart")) {
    const Fields r = restart_section().read(*block);
    if (auto v = r.get("policy")) {
      const auto p = v->as_string();
      if (p != "requeue" && p != "fail") v->fail(fmt::format("expected requeue or fail, got '{}'", p));
      restart.requeue = p == "requeue";
    }
    if (auto v = r.get("backoff")) restart.backoff = v->as_duration();
    if (auto v = r.get("backoff_max")) restart.backoff_max = v->as_duration();
    if (auto v = r.get("max_restarts")) restart.max_restarts = v->as_int<int>(r.range("max_restarts"));
    if (restart.backoff_max < restart.backoff) r.fail("expected 0 <= backoff <= backoff_max");
  }
}

std::optional<Duration> SpotModel::notice_of(std::string_view name) const {
  for (const auto& [p, t] : notice)
    if (p == name) return t;
  return std::nullopt;
}

std::optional<double> SpotModel::aws_bucket(std::string_view bucket) const {
  for (const auto& [b, p] : aws_frequency)
    if (b == bucket) return p;
  return std::nullopt;
}

const TimeSlicingModel& TimeSlicingModels::of(const GpuModel& gpu) const {
  const Entry* found = entry_for(entries, gpu);
  if (!found) throw std::logic_error("time_slicing: no entry applies to GPU " + gpu.name);
  return found->model;
}

}  // namespace gpusim
