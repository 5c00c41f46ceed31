#include "gpusim/workloads/spec.hpp"

#include <boost/math/distributions/exponential.hpp>
#include <boost/math/distributions/lognormal.hpp>
#include <fmt/format.h>

#include <cmath>
#include <numeric>
#include <optional>

#include "gpusim/core/random.hpp"

namespace gpusim {

namespace {

JobKind read_kind(const ConfigNode& e) {
  auto k = e.get("kind");
  return k ? k->as_enum<JobKind>() : JobKind::batch;
}

double read_u(const ConfigNode& e, JobKind kind) {
  auto u = e.get("u");
  if (!u) return default_compute_demand(kind);
  const double v = u->as_number();
  if (v < 0 || v > 1) u->fail(fmt::format("expected a compute demand between 0 and 1, got {}", v));
  return v;
}

// The request fields shared by inline jobs and generator classes (gpus read by the caller).
void read_request_fields(const ConfigNode& e, Request& q) {
  if (auto m = e.get("gpu_milli")) {
    const auto v = m->as_positive_int();
    if (v > 1000) m->fail(fmt::format("expected at most 1000 milli-GPU per GPU, got {}", v));
    if (v < 1000 && q.gpus != 1) m->fail("a GPU share below 1000 milli needs gpus: 1");
    q.milli_per_gpu = Milli{static_cast<int32_t>(v)};
  }
  if (auto m = e.get("gpu_memory_mib")) q.gpu_memory_mib = m->as_non_negative_int();
  if (auto m = e.get("cpu_milli")) q.cpu_milli = m->as_non_negative_int();
  if (auto m = e.get("memory_mib")) q.memory_mib = m->as_non_negative_int();
  q.models = e.string_list("models");
  if (auto r = e.get("resource")) {
    q.resource = r->as_string();
    if (q.resource == "nvidia.com/gpu") q.resource.clear();
    if (!q.resource.empty() && q.resource != "nvidia.com/gpu.shared" && !q.resource.starts_with("nvidia.com/mig-"))
      r->fail(fmt::format("expected nvidia.com/gpu, nvidia.com/gpu.shared or nvidia.com/mig-<profile>, got '{}'", q.resource));
    if (q.resource.starts_with("nvidia.com/mig-") && q.milli_per_gpu < kWholeGpu)
      r->fail("a MIG instance cannot be requested together with gpu_milli");
  }
  if (auto c = e.get("claim")) {
    c->allow_only({"gpu_memory_mib", "sms"});
    if (e.has("resource")) c->fail("give either a resource or a capacity claim, not both");
    q.claim = true;
    if (auto m = c->get("gpu_memory_mib")) q.gpu_memory_mib = m->as_non_negative_int();
    if (auto m = c->get("sms")) q.min_sms = static_cast<int32_t>(m->as_non_negative_int());
  }
  if (auto m = e.get("gpu_memory_limit_mib")) q.gpu_memory_limit_mib = m->as_positive_int();
  if (auto m = e.get("mps_thread_percent")) {
    const auto v = m->as_positive_int();
    if (v > 100) m->fail(fmt::format("expected a percentage in 1..100, got {}", v));
    q.thread_percent = static_cast<int32_t>(v);
  }
}

// `communication:` {compute_per_iteration, bytes_per_iteration, collective}; with `iterations`
// (inline jobs) the job's work is iterations x compute_per_iteration.
CommProfile read_communication(const ConfigNode& c, bool allow_iterations, std::optional<int64_t>& iterations) {
  if (allow_iterations) c.allow_only({"compute_per_iteration", "bytes_per_iteration", "collective", "iterations"});
  else c.allow_only({"compute_per_iteration", "bytes_per_iteration", "collective"});
  CommProfile p = parse_comm_profile(c);
  if (auto i = c.get("iterations")) {
    iterations = i->as_positive_int();
    p.work_is_compute = true;
  }
  return p;
}

// `workers: N` makes `gpus` the GPUs of each of N worker pods (which may sit on different nodes).
void read_workers(const ConfigNode& e, Job& j) {
  auto w = e.get("workers");
  if (!w) return;
  const auto workers = w->as_positive_int();
  if (workers > 100000) w->fail("too many workers");
  if (workers == 1) return;
  if (j.request.gpus == 0 || j.request.fractional()) w->fail("workers need whole GPUs (gpus >= 1, no gpu_milli)");
  j.request.worker_gpus = j.request.gpus;
  j.request.gpus *= static_cast<int32_t>(workers);
  j.multi_node = true;
}

int32_t read_gpu_count(const ConfigNode& n) {
  const auto v = n.as_non_negative_int();
  if (v > 100000) n.fail(fmt::format("GPU count {} is out of range", v));
  return static_cast<int32_t>(v);
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

Distribution read_distribution(const ConfigNode& d) {
  if (d.is_scalar()) return {Distribution::Kind::constant, d.as_duration().seconds(), 0};
  const auto kind = d.at("distribution").as_enum<Distribution::Kind>(" or ");
  Distribution out;
  auto positive = [](const ConfigNode& n) {
    const double s = n.as_duration().seconds();
    if (s <= 0) n.fail("expected a positive duration");
    return s;
  };
  switch (kind) {
    case Distribution::Kind::constant:
      d.allow_only({"distribution", "value"});
      out = {kind, d.at("value").as_duration().seconds(), 0};
      break;
    case Distribution::Kind::exponential:
      d.allow_only({"distribution", "mean"});
      out = {kind, positive(d.at("mean")), 0};
      break;
    case Distribution::Kind::lognormal: {
      d.allow_only({"distribution", "median", "sigma"});
      const double sigma = d.at("sigma").as_number();
      if (sigma <= 0) d.at("sigma").fail("expected sigma > 0");
      out = {kind, positive(d.at("median")), sigma};
      break;
    }
    case Distribution::Kind::uniform:
      d.allow_only({"distribution", "min", "max"});
      out = {kind, d.at("min").as_duration().seconds(), d.at("max").as_duration().seconds()};
      if (out.a < 0 || out.b < out.a) d.fail("expected 0 <= min <= max");
      break;
  }
  return out;
}

}  // namespace

CommProfile parse_comm_profile(const ConfigNode& c) {
  CommProfile p;
  p.compute_per_iteration_s = c.at("compute_per_iteration").as_duration().seconds();
  if (p.compute_per_iteration_s <= 0) c.at("compute_per_iteration").fail("expected a positive time per iteration");
  p.bytes_per_iteration = c.at("bytes_per_iteration").as_non_negative_number();
  if (auto k = c.get("collective")) p.collective = k->as_enum<Collective>();
  return p;
}

CheckpointPolicy parse_checkpoint_policy(const ConfigNode& c) {
  CheckpointPolicy p;
  if (c.is_null() || (c.is_scalar() && c.as_string() == "none")) return p;
  if (!c.is_map()) c.fail("expected none or a map {interval: DURATION | auto, cost: DURATION, restore: DURATION}");
  c.allow_only({"interval", "cost", "restore", "source"});
  p.enabled = true;
  const ConfigNode interval = c.at("interval");
  if (interval.is_scalar() && interval.as_string() == "auto") {
    p.auto_interval = true;
  } else {
    p.interval = interval.as_duration();
    if (p.interval <= Time()) interval.fail("expected a positive interval, or auto (Young/Daly)");
  }
  p.cost = c.at("cost").as_duration();
  if (p.cost < Time()) c.at("cost").fail("expected a duration >= 0");
  if (p.auto_interval && p.cost <= Time()) c.at("cost").fail("interval: auto needs a positive checkpoint cost");
  if (auto r = c.get("restore")) {
    p.restore = r->as_duration();
    if (p.restore < Time()) r->fail("expected a duration >= 0");
  }
  return p;
}

JobSet parse_inline_jobs(const ConfigNode& list) {
  JobSet set;
  for (const auto& e : list.items()) {
    e.allow_only({"name", "count", "arrival", "duration", "gpus", "gpu_milli", "gpu_memory_mib", "cpu_milli",
                  "memory_mib", "models", "kind", "u", "tenant", "priority", "multi_node", "resource", "claim",
                  "gpu_memory_limit_mib", "mps_thread_percent", "reference_gpu", "workers", "communication", "checkpoint"});
    Job j;
    j.name = e.at("name").as_string();
    j.arrival = e.has("arrival") ? e.at("arrival").as_duration() : Time();
    if (j.arrival < Time()) e.at("arrival").fail("expected an arrival time >= 0");
    std::optional<int64_t> iterations;
    if (auto c = e.get("communication")) j.communication = read_communication(*c, true, iterations);
    if (iterations) {
      if (e.has("duration")) e.at("duration").fail("give duration or communication.iterations, not both");
      j.work = Time::from_us(std::llround(static_cast<double>(*iterations) * j.communication.compute_per_iteration_s * 1e6));
    } else {
      j.work = e.at("duration").as_duration();
      if (j.work < Time()) e.at("duration").fail("expected a duration >= 0");
    }
    j.request.gpus = read_gpu_count(e.at("gpus"));
    read_request_fields(e, j.request);
    j.kind = read_kind(e);
    j.u = read_u(e, j.kind);
    if (auto t = e.get("tenant")) j.tenant = set.tenant(t->as_string());
    if (auto p = e.get("priority")) j.priority = static_cast<int32_t>(p->as_int());
    if (auto m = e.get("multi_node")) j.multi_node = m->as_bool();
    read_workers(e, j);
    if (auto r = e.get("reference_gpu")) j.reference_gpu = r->as_string();
    if (auto c = e.get("checkpoint")) j.checkpoint = parse_checkpoint_policy(*c);
    j.strict = true;
    const auto w = e.where();
    j.origin = w.line ? fmt::format("{}:{}", w.file, *w.line) : w.file;
    const int64_t count = e.has("count") ? e.at("count").as_positive_int() : 1;
    if (count == 1) {
      set.jobs.push_back(std::move(j));
      continue;
    }
    for (int64_t i = 0; i < count; ++i) {
      Job copy = j;
      copy.name = fmt::format("{}-{}", j.name, i);
      set.jobs.push_back(std::move(copy));
    }
  }
  return set;
}

JobSet generate_jobs(const ConfigNode& spec, uint64_t seed) {
  spec.allow_only({"classes"});
  JobSet set;
  for (const auto& c : spec.at("classes").items()) {
    c.allow_only({"name", "count", "arrival", "gpus", "gpu_weights", "gpu_milli", "gpu_memory_mib", "cpu_milli",
                  "memory_mib", "models", "duration", "kind", "u", "tenant", "priority", "multi_node", "resource", "claim",
                  "gpu_memory_limit_mib", "mps_thread_percent", "reference_gpu", "workers", "communication", "checkpoint"});
    const std::string name = c.at("name").as_string();
    const int64_t count = c.at("count").as_positive_int();
    Time start;
    double rate_per_s = 0;  // 0: every job arrives at `start`
    if (auto a = c.get("arrival")) {
      a->allow_only({"start", "rate_per_hour"});
      if (auto s = a->get("start")) start = s->as_duration();
      if (auto r = a->get("rate_per_hour")) {
        rate_per_s = r->as_number() / 3600.0;
        if (rate_per_s <= 0) r->fail("expected a positive arrival rate");
      }
    }
    std::vector<int32_t> gpu_choices;
    const ConfigNode gpus = c.at("gpus");
    if (gpus.is_scalar()) gpu_choices.push_back(read_gpu_count(gpus));
    else
      for (const auto& g : gpus.items()) gpu_choices.push_back(read_gpu_count(g));
    if (gpu_choices.empty()) gpus.fail("expected at least one GPU count");
    std::vector<double> weights(gpu_choices.size(), 1.0);
    if (auto w = c.get("gpu_weights")) {
      const auto items = w->items();
      if (items.size() != gpu_choices.size())
        w->fail(fmt::format("expected {} weights, one per GPU count, got {}", gpu_choices.size(), items.size()));
      for (std::size_t i = 0; i < items.size(); ++i) weights[i] = items[i].as_non_negative_number();
    }
    const double total_weight = std::accumulate(weights.begin(), weights.end(), 0.0);
    if (total_weight <= 0) c.fail("gpu_weights must not all be zero");
    const Distribution duration = read_distribution(c.at("duration"));
    Job proto;
    proto.request.gpus = gpu_choices.front();
    read_request_fields(c, proto.request);
    if (proto.request.fractional() && gpu_choices.size() > 1)
      c.at("gpu_milli").fail("a GPU share below 1000 milli needs gpus: 1");
    proto.kind = read_kind(c);
    proto.u = read_u(c, proto.kind);
    if (auto t = c.get("tenant")) proto.tenant = set.tenant(t->as_string());
    if (auto p = c.get("priority")) proto.priority = static_cast<int32_t>(p->as_int());
    if (auto m = c.get("multi_node")) proto.multi_node = m->as_bool();
    if (auto r = c.get("reference_gpu")) proto.reference_gpu = r->as_string();
    if (auto k = c.get("checkpoint")) proto.checkpoint = parse_checkpoint_policy(*k);
    std::optional<int64_t> no_iterations;
    if (auto m = c.get("communication")) proto.communication = read_communication(*m, false, no_iterations);
    const auto w = c.where();
    proto.origin = w.line ? fmt::format("{}:{} (generator class {})", w.file, *w.line, name) : name;

    Rng arrivals = make_stream(seed, "generator/" + name + "/arrivals");
    Rng sizes = make_stream(seed, "generator/" + name + "/gpus");
    Rng durations = make_stream(seed, "generator/" + name + "/durations");
    const boost::math::exponential_distribution<> gap(rate_per_s > 0 ? rate_per_s : 1.0);
    double t_s = start.seconds();
    set.jobs.reserve(set.jobs.size() + static_cast<std::size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      Job j = proto;
      if (rate_per_s > 0) t_s += boost::math::quantile(gap, uniform01(arrivals));
      j.arrival = Time::from_us(static_cast<int64_t>(std::llround(t_s * 1e6)));
      double pick = uniform01(sizes) * total_weight;
      std::size_t k = 0;
      while (k + 1 < gpu_choices.size() && pick >= weights[k]) pick -= weights[k++];
      j.request.gpus = gpu_choices[k];
      read_workers(c, j);
      j.work = Time::from_us(std::max<int64_t>(1, std::llround(duration.sample_seconds(durations) * 1e6)));
      j.name = fmt::format("{}-{}", name, i);
      set.jobs.push_back(std::move(j));
    }
  }
  return set;
}

}  // namespace gpusim
