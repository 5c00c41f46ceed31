#include "gpusim/workloads/service.hpp"

#include <fmt/format.h>

#include <optional>
#include <set>

#include "gpusim/core/time.hpp"
#include "gpusim/workloads/spec.hpp"

namespace gpusim {

namespace {

const Section& engine_section() {
  static const Section s{
      "service_engine",
      "vLLM engine settings of a service's replicas; absent: vLLM's defaults for the replica's device",
      {
          {"max_num_batched_tokens", Type::integer().at_least(1).at_most(1 << 20), "", "tokens",
           "Token budget of one iteration; absent: 2048 on A100s and devices under 70 GiB, else 8192 (vLLM's OpenAI server)"},
          {"max_num_seqs", Type::integer().at_least(1).at_most(1 << 16), "", "",
           "Sequences in one iteration; absent: 256 on A100s and devices under 70 GiB, else 1024"},
          {"gpu_memory_utilization", Type::number().above(0).at_most(1), "", "",
           "Share of the device's memory the engine takes (weights, activations, KV cache); absent: model.serving's"},
          {"enable_prefix_caching", Type::boolean(), "", "",
           "Reuse the KV blocks of cached prefixes (vLLM V1: on by default); absent: on where the requests carry their "
           "content (hash ids, a generator's shared prefix or sessions), since only then is a prefix known"},
          {"enable_chunked_prefill", Type::boolean(), "true", "",
           "vLLM V1's scheduler: prompts in chunks, in one batch with the decodes. false: vLLM V0's default (as in "
           "DistServe's and most 2023-24 papers' baselines): waiting prompts first and whole, in batches of their own; "
           "decodes only when no prompt can start"},
      }};
  return s;
}

// The defaults are assumptions with public sources (docs/serving.md#cold-start).
const Section& cold_start_section() {
  static const Section s{
      "cold_start",
      "How a new replica becomes ready: image pull (once per node), weight load, engine start",
      {
          {"image_gb", Type::number().at_least(0), "10", "GB",
           "Compressed serving image; vllm/vllm-openai is 9-12 GB (vllm-project/vllm issues 7609, 27154); assumed"},
          {"registry_gb_per_s", Type::number().above(0), "0.1", "GB/s",
           "Image pull speed; 12 GB take 2-8 minutes (blog.zmalik.dev, Lazy-Pulling Container Images); assumed"},
          {"load_gb_per_s", Type::number().above(0), "0.89", "GB/s",
           "Weight load speed: Llama-3.1-8B, 16 GB in 18 s from a cached volume (Tensorfuse, Reducing GPU Cold Start "
           "Time when using vLLM, 2025); assumed"},
          {"engine_init", Type::duration(), "64s", "",
           "Imports, compilation, CUDA-graph capture and KV allocation (same source, cached); assumed"},
      }};
  return s;
}

const Section& baseline_section() {
  static const Section s{
      "service_baseline",
      "The first replicas on a pod template of their own: an on-demand baseline, the rest (pod) on spot",
      {
          {"replicas", Type::integer().at_least(0).at_most(10000), required, "", "How many of the service's replicas"},
          {"pod", Type::section(replica_pod_section()), required, "", "Their pod, e.g. {node_selector: {market: on-demand}}"},
      }};
  return s;
}

// The fields of a service's replicas, for its decode pool: tensor_parallel, pod, engine and cold_start
// are the service's unless given.
const Section& decode_section();

}  // namespace

const Section& service_section() {
  static const Section s{
      "service",
      "An inference service (a Deployment): a model served by replicas, and its requests",
      {
          {"name", Type::string(), required, "",
           "The service's name; its replicas are NAME-0, NAME-1, ... (with count: the services are NAME-0, NAME-1, ...)"},
          {"count", Type::integer().at_least(1).at_most(10000), "1", "",
           "Copies of this service, each with its own replicas and requests (drawn from its own streams), named NAME-0, "
           "NAME-1, ..."},
          {"model", Type::string(), required, "",
           "The model it serves (workloads/data/models.yaml; a scenario adds its own under models:)"},
          {"replicas", Type::integer().at_least(0).at_most(10000), "", "",
           "Replica pods at the start (0 only under keda); absent: the autoscaler's minimum, else 1"},
          {"tensor_parallel", Type::integer().at_least(1).at_most(64), "1", "",
           "GPUs of one replica, on one node, the model split across them"},
          {"pod", Type::section(replica_pod_section()), "{}", "",
           "The replicas' pod: resource (e.g. nvidia.com/mig-1g.10gb), gpu_milli, models, tenant, priority, ..."},
          {"baseline", Type::section(baseline_section()), "", "",
           "The first replicas on a pod of their own (an on-demand baseline; pod places the rest, e.g. on spot)"},
          {"router", Type::one_of({Type::string(), Type::map(Type::any())}), "round-robin", "",
           "Which ready replica a request goes to: a router's name (round-robin, least-outstanding, least-kv, "
           "prefix-affinity, or one registered from Python), or {name, ...its parameters} (docs/serving.md#routing)"},
          {"slo", Type::map(Type::duration()), "", "",
           "Latency targets: ttft, tpot, itl, e2e or queue hold every request (goodput counts the requests meeting all); "
           "with _p50, _p90, _p99 or _mean they hold the service's figure"},
          {"engine", Type::section(engine_section()), "{}", "", "vLLM engine settings"},
          {"timeout", Type::duration(), "", "",
           "A client gives up on a request not completed within this long, and the engine aborts it (freeing its "
           "KV cache) when it next looks at it; absent: clients wait"},
          {"cold_start", Type::one_of({Type::choice({"none"}), Type::section(cold_start_section())}), "{}", "",
           "How a replica starts; none: ready once placed"},
          {"requests", Type::section(request_source_section()), required, "", "The requests: a trace or a generator"},
          {"autoscaler", Type::section(autoscaler_section()), "", "",
           "hpa or keda, in Kubernetes' and KEDA's field names; it owns the replica count from the start"},
          {"decode", Type::section(decode_section()), "", "",
           "Disaggregated prefill and decode (docs/serving.md#disaggregated-serving): the replicas above prefill (and "
           "make the first token), these decode, each request's KV cache sent between the two"},
      }};
  return s;
}

namespace {

const Section& decode_section() {
  static const Section s{
      "service_decode",
      "A disaggregated service's decode pool (its Deployment NAME-decode); the service's own replica fields make its "
      "prefill pool (NAME-prefill)",
      {
          {"replicas", Type::integer().at_least(0).at_most(10000), "", "",
           "Decode replicas at the start (0 only under keda); absent: the autoscaler's minimum, else 1"},
          {"tensor_parallel", Type::integer().at_least(1).at_most(64), "", "",
           "GPUs of one decode replica; absent: the service's"},
          {"pod", Type::section(replica_pod_section()), "", "", "The decode replicas' pod; absent: the service's"},
          {"baseline", Type::section(baseline_section()), "", "", "The first decode replicas on a pod of their own"},
          {"router", Type::one_of({Type::string(), Type::map(Type::any())}), "round-robin", "",
           "Which ready decode replica a prefilled request goes to (as the service's router field)"},
          {"engine", Type::section(engine_section()), "", "",
           "vLLM engine settings of the decode replicas; absent: the service's"},
          {"cold_start", Type::one_of({Type::choice({"none"}), Type::section(cold_start_section())}), "", "",
           "How a decode replica starts; absent: as the service's"},
          {"autoscaler", Type::section(autoscaler_section()), "", "", "The decode pool's own hpa or keda"},
      }};
  return s;
}

SloTarget read_slo(const std::string& key, const ConfigNode& value) {
  SloTarget t;
  t.key = key;
  std::string metric = key;
  if (const auto cut = key.rfind('_'); cut != std::string::npos) {
    const std::string stat = key.substr(cut + 1);
    const std::set<std::string> stats{"p50", "p90", "p99", "mean"};
    if (stats.contains(stat)) {
      metric = key.substr(0, cut);
      t.percentile = stat == "mean" ? -1 : std::stoi(stat.substr(1));
    }
  }
  const auto m = parse_enum<LatencyMetric>(metric);
  if (!m)
    value.fail(fmt::format("unknown SLO metric '{}': expected one of {}, alone (every request) or with _p50, _p90, _p99 or _mean",
                           key, enum_choices<LatencyMetric>(", ")));
  t.metric = *m;
  t.where = value.where();
  t.limit = value.as_duration();
  if (t.limit <= Duration()) value.fail("expected a positive latency target");
  return t;
}

// A pool's fields (a service's replicas, or its decode pool's): `own` gives them; where it does not, a
// decode pool takes the service's (`base`) tensor_parallel, pod, engine and cold_start.
struct PoolFields {
  const Fields& own;
  const Fields* base = nullptr;
  const Fields& of(std::string_view name) const {
    const bool inherited = name == "tensor_parallel" || name == "pod" || name == "engine" || name == "cold_start";
    return base && inherited && !own.has(name) ? *base : own;
  }
  bool has(std::string_view name) const { return of(name).has(name); }
  std::optional<ConfigNode> get(std::string_view name) const { return of(name).get(name); }
  ConfigNode at(std::string_view name) const { return of(name).at(name); }
  ConfigNode value(std::string_view name) const { return of(name).value(name); }
};

// The fields of `s` its pool gives, and its replica slots, appended to `jobs`.
void read_pool(ServiceSpec& s, const PoolFields& e, JobSet& jobs) {
  if (auto a = e.get("autoscaler")) {
    s.autoscaler = read_autoscaler(*a, s.deployment);
    // A fixed-time model is not served by vLLM: its replicas have no vLLM gauges to read.
    for (const ServiceMetric m : {ServiceMetric::requests_running, ServiceMetric::requests_waiting})
      if (s.model->kind == ModelKind::fixed && s.autoscaler->reads(m))
        a->fail(fmt::format("model {} is of kind fixed (not served by vLLM): its replicas report no {}; expected "
                            "DCGM_FI_DEV_GPU_UTIL, gpusim_service_queue_length or gpusim_service_request_rate",
                            s.model->name, to_string(m)));
  }
  s.replicas = e.has("replicas") ? e.value("replicas").as_int<int32_t>(e.of("replicas").range("replicas"))
               : s.autoscaler    ? s.autoscaler->min_replicas()
                                 : 1;
  s.max_replicas = s.autoscaler ? s.autoscaler->max_replicas() : s.replicas;
  if (s.autoscaler && (s.replicas < s.autoscaler->min_replicas() || s.replicas > s.max_replicas))
    e.at("replicas")
        .fail(fmt::format("expected a count within the autoscaler's {} to {}, got {}", s.autoscaler->min_replicas(),
                          s.max_replicas, s.replicas));
  if (s.replicas == 0 && !(s.autoscaler && std::holds_alternative<KedaSpec>(s.autoscaler->of)))
    e.at("replicas").fail("expected at least 1: only a keda autoscaler scales a service from zero");
  s.tensor_parallel = e.of("tensor_parallel").integer<int32_t>("tensor_parallel");
  // vLLM splits the attention heads across the GPUs and refuses a degree that does not divide them.
  if (s.model->kind == ModelKind::llm && s.model->heads > 0 && s.model->heads % s.tensor_parallel != 0)
    e.at("tensor_parallel")
        .fail(fmt::format("model {} has {} attention heads, which {} GPUs cannot split evenly (vLLM refuses it): "
                          "expected a tensor_parallel that divides {}",
                          s.model->name, s.model->heads, s.tensor_parallel, s.model->heads));
  {
    const ConfigNode r = e.value("router");
    s.router.where = r.where();
    if (r.is_scalar()) {
      s.router.name = r.as_string();
    } else {
      if (!r.has("name")) r.fail("expected a router's name, or a map {name: ROUTER, ...its parameters}");
      s.router.name = r.at("name").as_string();
      s.router.params = r;
    }
  }
  const Fields engine = engine_section().read(e.value("engine"));
  if (auto v = engine.get("max_num_batched_tokens"))
    s.engine.max_num_batched_tokens = v->as_int<int32_t>(engine.range("max_num_batched_tokens"));
  if (auto v = engine.get("max_num_seqs")) s.engine.max_num_seqs = v->as_int<int32_t>(engine.range("max_num_seqs"));
  if (auto v = engine.get("gpu_memory_utilization"))
    s.engine.gpu_memory_utilization = v->as_number(engine.range("gpu_memory_utilization"));
  if (auto v = engine.get("enable_prefix_caching")) s.engine.enable_prefix_caching = v->as_bool();
  s.engine.enable_chunked_prefill = engine.value("enable_chunked_prefill").as_bool();
  // vLLM's rule that a batch's tokens hold one per sequence is checked per device (check_services): a
  // device sets the default of the one not given.
  if (const ConfigNode c = e.value("cold_start"); !c.is_scalar()) {
    const Fields f = cold_start_section().read(c);
    s.cold_start.image_gb = f.number("image_gb");
    s.cold_start.registry_gb_per_s = f.number("registry_gb_per_s");
    s.cold_start.load_gb_per_s = f.number("load_gb_per_s");
    s.cold_start.engine_init = f.value("engine_init").as_duration();
    // The longest start (image pulled, then the weights loaded) must be a time the clock holds. With the
    // defaults only weights no GPU holds exceed it, and check_services refuses those by name.
    const double start_s = s.cold_start.image_gb / s.cold_start.registry_gb_per_s +
                           s.model->weights_bytes() / 1e9 / s.cold_start.load_gb_per_s + s.cold_start.engine_init.seconds();
    if (e.has("cold_start") && !kSpanSeconds.contains(start_s))
      c.fail(fmt::format("a replica of {} would take {:g} s to start (image_gb / registry_gb_per_s + its {:g} GB of "
                         "weights / load_gb_per_s + engine_init): expected at most {}",
                         s.model->name, start_s, s.model->weights_bytes() / 1e9, kMaxSpanText));
  } else if (c.as_string() != "none") {
    c.fail(fmt::format("expected none or a map of image_gb, registry_gb_per_s, load_gb_per_s, engine_init, got '{}'",
                       c.as_string()));
  }

  // A pod template, with the checks a tensor-parallel replica needs.
  const auto read_pod = [&](const ConfigNode& pod) {
    // Before the pod is read: its reader would refuse a share of several GPUs without naming tensor_parallel.
    if (s.tensor_parallel > 1 && pod.is_map())
      if (auto milli = pod.get("gpu_milli"); milli && milli->as_int(Range::between(1, 1000)) < 1000)
        milli->fail(
            fmt::format("a tensor-parallel replica (tensor_parallel: {}) holds whole GPUs: expected no gpu_milli below 1000",
                        s.tensor_parallel));
    Job j = read_replica_pod(pod, s.tensor_parallel, jobs);
    if (s.tensor_parallel > 1 && j.request.resource->starts_with("nvidia.com/mig-"))
      pod.fail("a tensor-parallel replica cannot use MIG instances: they have no peer-to-peer link");
    j.work = kMaxSpan;  // it serves until the run ends: the engine never completes a replica
    return j;
  };
  // Kueue admits a workload's pods once; pods an autoscaler creates and deletes would bypass it.
  if (s.autoscaler && e.value("pod").has("queue"))
    e.at("pod").at("queue").fail("an autoscaled service's pods cannot wait in a Kueue queue: expected no queue");
  const Job proto = read_pod(e.value("pod"));
  // The first replicas on their own template (e.g. on-demand nodes), the others on `pod` (e.g. spot).
  int32_t baseline = 0;
  std::optional<Job> base;
  if (auto b = e.get("baseline")) {
    const Fields f = baseline_section().read(*b);
    baseline = f.integer<int32_t>("replicas");
    if (baseline > s.max_replicas)
      f.at("replicas")
          .fail(fmt::format("expected at most the service's {}replicas ({}), got {}", s.autoscaler ? "most " : "", s.max_replicas,
                            baseline));
    base = read_pod(f.at("pod"));
  }
  s.first_job = static_cast<uint32_t>(jobs.jobs.size());
  for (int32_t i = 0; i < s.max_replicas; ++i) {
    Job j = i < baseline ? *base : proto;
    j.name = fmt::format("{}-{}", s.deployment, i);
    jobs.jobs.push_back(std::move(j));
  }
}

}  // namespace

std::vector<ServiceSpec> read_services(const ConfigNode& list, const ModelCatalog& models, const std::string& data_dir,
                                       uint64_t seed, JobSet& jobs) {
  std::vector<ServiceSpec> out;
  for (const ConfigNode& item : list.items()) {
    const Fields e = service_section().read(item);
    // count: N copies, NAME-0 .. NAME-N-1, each its own service (its own streams follow from its name).
    const int64_t count = e.integer("count");
    for (int64_t copy = 0; copy < count; ++copy) {
      ServiceSpec s;
      s.where = item.where();
      s.name = count == 1 ? e.at("name").as_string() : fmt::format("{}-{}", e.at("name").as_string(), copy);
      for (const ServiceSpec& other : out)
        if (other.name == s.name) e.at("name").fail(fmt::format("two services are named '{}'", s.name));
      const ConfigNode model = e.at("model");
      s.model = models.find(model.as_string());
      if (!s.model) {
        std::vector<std::string> known;
        for (const ServedModel& m : models.models()) known.push_back(m.name);
        model.fail(fmt::format("unknown model '{}'; known: {}", model.as_string(), fmt::join(known, ", ")));
      }
      const std::optional<ConfigNode> decode = e.get("decode");
      if (decode && s.model->kind != ModelKind::llm)
        decode->fail(
            fmt::format("model {} is of kind fixed: it has no prefill and decode to split; expected no decode", s.model->name));
      s.role = decode ? PoolRole::prefill : PoolRole::colocated;
      s.deployment = decode ? s.name + "-prefill" : s.name;
      if (auto slo = e.get("slo"))
        for (const auto& [key, value] : slo->entries()) {
          s.slo.push_back(read_slo(key, value));
          if (s.model->kind == ModelKind::fixed && s.slo.back().metric != LatencyMetric::e2e &&
              s.slo.back().metric != LatencyMetric::queue)
            value.fail(
                fmt::format("model {} is of kind fixed: it makes no tokens, expected an SLO on e2e or queue", s.model->name));
        }
      if (auto t = e.get("timeout")) {
        s.timeout = t->as_duration();
        if (*s.timeout <= Duration()) t->fail("expected a positive duration");
      }
      s.requests = read_request_source(e.at("requests"), data_dir, seed, s.name);
      // The decode pool takes the service's model, requests and timeout; its requests' figures are the service's.
      ServiceSpec d;
      if (decode) {
        d.where = decode->where();
        d.name = s.name;
        d.deployment = s.name + "-decode";
        d.role = PoolRole::decode;
        d.model = s.model;
        d.timeout = s.timeout;
        d.requests = s.requests;
      }
      read_pool(s, PoolFields{e}, jobs);
      out.push_back(std::move(s));
      if (decode) {
        const Fields f = decode_section().read(*decode);
        read_pool(d, PoolFields{f, &e}, jobs);
        d.peer = static_cast<uint32_t>(out.size() - 1);
        out.back().peer = static_cast<uint32_t>(out.size());
        out.push_back(std::move(d));
      }
    }
  }
  return out;
}

}  // namespace gpusim
