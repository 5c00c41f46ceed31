#include "gpusim/workloads/pod_autoscaler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>

#include "gpusim/core/number.hpp"

namespace gpusim {

namespace {

// Kubernetes v1.28 pkg/apis/autoscaling/v2 validation and types (T:185, T:225) bound these.
constexpr int64_t kMaxWindowSeconds = 3600, kMaxPeriodSeconds = 1800;
constexpr double kMaxReplicas = 10000;      // as service.replicas
constexpr double kMaxSeconds = 3153600000;  // kMaxSpan

Type quantity() { return Type::one_of({Type::number(), Type::string()}); }

const Section& target_section() {
  static const Section s{"hpa_metric_target",
                         "A metric's target (MetricTarget)",
                         {
                             {"type", Type::choice({"Utilization", "Value", "AverageValue"}), required, "",
                              "AverageValue (per pod) or Value (External only); Utilization needs a CPU metric gpusim lacks"},
                             {"value", quantity(), "", "", "The metric's target (type Value), a quantity such as 75 or 100m"},
                             {"averageValue", quantity(), "", "", "The target per pod (type AverageValue)"},
                             {"averageUtilization", Type::integer(), "", "percent", "Not modelled: gpusim has no CPU metric"},
                         }};
  return s;
}

const Section& identifier_section() {
  static const Section s{"hpa_metric_identifier",
                         "The series a metric reads",
                         {{"name", Type::string(), required, "",
                           "DCGM_FI_DEV_GPU_UTIL, vllm:num_requests_running, vllm:num_requests_waiting (per pod), "
                           "gpusim_service_queue_length or gpusim_service_request_rate (the service's)"}}};
  return s;
}

const Section& metric_source_section() {
  static const Section s{"hpa_metric_source",
                         "A Pods or External metric: the series and its target",
                         {
                             {"metric", Type::section(identifier_section()), required, "", "The series"},
                             {"target", Type::section(target_section()), required, "", "Its target"},
                         }};
  return s;
}

const Section& hpa_metric_section() {
  static const Section s{
      "hpa_metric",
      "One metric of an HPA (autoscaling/v2 MetricSpec)",
      {
          {"type", Type::choice({"Pods", "External", "Resource", "ContainerResource", "Object"}), required, "",
           "Pods (averaged over the pods) or External (one value); gpusim models no Resource, ContainerResource or Object"},
          {"pods", Type::section(metric_source_section()), "", "", "The Pods metric"},
          {"external", Type::section(metric_source_section()), "", "", "The External metric"},
          {"resource", Type::any(), "", "", "Not modelled"},
          {"containerResource", Type::any(), "", "", "Not modelled"},
          {"object", Type::any(), "", "", "Not modelled"},
      }};
  return s;
}

const Section& policy_section() {
  static const Section s{"hpa_scaling_policy",
                         "A rate limit: at most value pods (or percent) per periodSeconds",
                         {
                             {"type", Type::enumeration<PolicyType>(), required, "", "Pods or Percent"},
                             {"value", Type::int32().at_least(1).at_most(1000000), required, "",
                              "Pods, or percent of the count at the period's start (at most 1,000,000)"},
                             {"periodSeconds", Type::integer().at_least(1).at_most(kMaxPeriodSeconds), required, "s",
                              "The period the change is counted over"},
                         }};
  return s;
}

const Section& rules_section() {
  static const Section s{
      "hpa_scaling_rules",
      "scaleUp or scaleDown of an HPA's behavior; absent fields take Kubernetes' defaults (scaleUp: window 0, Pods 4 and "
      "Percent 100 per 15 s, Max; scaleDown: window 300 s, Percent 100 per 15 s, Max)",
      {
          {"stabilizationWindowSeconds", Type::integer().at_least(0).at_most(kMaxWindowSeconds), "", "s",
           "Recommendations considered: up takes their minimum, down their maximum"},
          {"selectPolicy", Type::enumeration<SelectPolicy>(), "Max", "",
           "Max: the policy allowing the largest change; Min: the smallest; Disabled: no change this way"},
          {"policies", Type::list(Type::section(policy_section())), "", "", "Rate limits (at least one)"},
          {"tolerance", Type::number().at_least(0).below(1), "", "",
           "Dead band around a usage ratio of 1 this way (Kubernetes v1.33+); absent: the HPA's tolerance"},
      }};
  return s;
}

const Section& behavior_section() {
  static const Section s{"hpa_behavior",
                         "How fast an HPA scales (HorizontalPodAutoscalerBehavior); absent: the legacy rules",
                         {
                             {"scaleUp", Type::section(rules_section()), "", "", "Rules when scaling up"},
                             {"scaleDown", Type::section(rules_section()), "", "", "Rules when scaling down"},
                         }};
  return s;
}

const Section& hpa_section() {
  static const Section s{
      "hpa",
      "A HorizontalPodAutoscaler (autoscaling/v2), synced every 15 s as kube-controller-manager's default",
      {
          {"minReplicas", Type::integer().at_least(0).at_most(kMaxReplicas), "1", "", "Fewest replicas (at least 1)"},
          {"maxReplicas", Type::integer().at_least(1).at_most(kMaxReplicas), required, "", "Most replicas"},
          {"metrics", Type::list(Type::section(hpa_metric_section())), required, "",
           "The metrics; the largest count any asks for wins"},
          {"behavior", Type::section(behavior_section()), "", "",
           "Stabilization windows and rate limits; absent: a 300 s scale-down window and at most max(2 x current, 4) up"},
          {"tolerance", Type::number().at_least(0).below(1), "0.1", "",
           "Dead band around a usage ratio of 1 (--horizontal-pod-autoscaler-tolerance)"},
      }};
  return s;
}

const Section& keda_metadata_section() {
  static const Section s{
      "keda_prometheus_metadata",
      "A prometheus trigger's metadata",
      {
          {"query", Type::string(), required, "",
           "sum(M), avg(M) or max(M), M a metric name, optionally M{service=\"NAME\"} naming this service"},
          {"threshold", quantity(), required, "",
           "Target of the query's value: per replica (AverageValue) or of the value itself (Value)"},
          {"activationThreshold", quantity(), "0", "",
           "The trigger is active (wakes a service at zero) while the value exceeds it"},
          {"serverAddress", Type::string(), "", "", "Accepted for pasted specs and ignored: gpusim answers the query"},
      }};
  return s;
}

const Section& keda_trigger_section() {
  static const Section s{"keda_trigger",
                         "A ScaledObject trigger",
                         {
                             {"type", Type::choice({"prometheus"}), required, "", "The scaler: prometheus"},
                             {"metricType", Type::enumeration<TargetType>(), "AverageValue", "",
                              "How KEDA's HPA uses the threshold: per replica (AverageValue) or as the value's target (Value)"},
                             {"metadata", Type::section(keda_metadata_section()), required, "", "The query and thresholds"},
                         }};
  return s;
}

const Section& keda_hpa_config_section() {
  static const Section s{"keda_hpa_config",
                         "The HPA KEDA makes",
                         {{"behavior", Type::section(behavior_section()), "", "", "Its behavior, as an HPA's"}}};
  return s;
}

const Section& keda_advanced_section() {
  static const Section s{
      "keda_advanced",
      "Advanced ScaledObject settings",
      {{"horizontalPodAutoscalerConfig", Type::section(keda_hpa_config_section()), "", "", "The HPA KEDA makes"}}};
  return s;
}

const Section& keda_section() {
  static const Section s{
      "keda",
      "A KEDA ScaledObject (v2.20): KEDA polls its triggers for 0 <-> 1, an HPA it makes scales 1 <-> N",
      {
          {"pollingInterval", Type::integer().at_least(1).at_most(kMaxSeconds), "30", "s", "Seconds between polls"},
          {"cooldownPeriod", Type::integer().at_least(0).at_most(kMaxSeconds), "300", "s",
           "After the last active poll, how long before scaling to zero (or idle)"},
          {"initialCooldownPeriod", Type::integer().at_least(0).at_most(kMaxSeconds), "0", "s",
           "After creation, how long before a never-active service may scale to zero"},
          {"minReplicaCount", Type::integer().at_least(0).at_most(kMaxReplicas), "0", "", "Fewest replicas; 0 scales to zero"},
          {"maxReplicaCount", Type::integer().at_least(1).at_most(kMaxReplicas), "100", "", "Most replicas"},
          {"idleReplicaCount", Type::integer().at_least(0).at_most(kMaxReplicas), "", "",
           "Replicas while no trigger is active (below minReplicaCount); absent: minReplicaCount"},
          {"triggers", Type::list(Type::section(keda_trigger_section())), required, "", "The triggers; any active one activates"},
          {"advanced", Type::section(keda_advanced_section()), "", "", "horizontalPodAutoscalerConfig.behavior"},
      }};
  return s;
}

[[noreturn]] void fail_no_cpu(const ConfigNode& node) {
  node.fail("gpusim models no CPU or memory metric: scale on the GPU with a Pods metric DCGM_FI_DEV_GPU_UTIL and an "
            "AverageValue target (e.g. {type: Pods, pods: {metric: {name: DCGM_FI_DEV_GPU_UTIL}, target: {type: AverageValue, "
            "averageValue: 70}}})");
}

ServiceMetric read_metric_name(const ConfigNode& node) {
  const std::string name = node.as_string();
  if (const auto m = parse_enum<ServiceMetric>(name)) return *m;
  node.fail(fmt::format("unknown metric '{}': expected one of {}", name, enum_choices<ServiceMetric>(", ")));
}

int64_t positive_quantity(const ConfigNode& node) {
  const int64_t milli = read_quantity_milli(node);
  if (milli <= 0) node.fail(fmt::format("expected a positive quantity, got '{}'", node.as_string()));
  return milli;
}

MetricSpec read_hpa_metric(const ConfigNode& node) {
  const Fields f = hpa_metric_section().read(node);
  const std::string type = f.at("type").as_string();
  if (type == "Resource" || type == "ContainerResource") fail_no_cpu(f.at("type"));
  if (type == "Object")
    f.at("type").fail("gpusim models no Kubernetes objects' metrics: expected Pods or External (e.g. External "
                      "gpusim_service_queue_length or gpusim_service_request_rate)");
  if (type != "Pods" && type != "External") f.at("type").fail(fmt::format("expected Pods or External, got '{}'", type));
  MetricSpec m;
  m.source = type == "Pods" ? MetricSource::pods : MetricSource::external;
  const std::string key = type == "Pods" ? "pods" : "external";
  for (const std::string_view other : {"pods", "external", "resource", "containerResource", "object"})
    if (other != key && f.has(other)) f.at(other).fail(fmt::format("a metric of type {} has no {}", type, other));
  const Fields src = metric_source_section().read(f.value(key));
  m.metric = read_metric_name(identifier_section().read(src.at("metric")).at("name"));
  const Fields target = target_section().read(src.at("target"));
  const std::string target_type = target.at("type").as_string();
  if (target_type == "Utilization") fail_no_cpu(target.at("type"));
  if (target.has("averageUtilization")) fail_no_cpu(target.at("averageUtilization"));
  m.target_type = target.at("type").as_enum<TargetType>(" or ");
  if (m.source == MetricSource::pods) {
    if (!per_pod(m.metric))
      src.at("metric").fail(
          fmt::format("{} is the service's series, not one each pod reports: read it with type External", to_string(m.metric)));
    // Kubernetes' validation: a Pods metric has an AverageValue target, positive (V:376-379).
    if (m.target_type != TargetType::average_value || !target.has("averageValue"))
      target.fail("a Pods metric needs type AverageValue with a positive averageValue");
  }
  const std::string_view value_key = m.target_type == TargetType::value ? "value" : "averageValue";
  const std::string_view other_key = m.target_type == TargetType::value ? "averageValue" : "value";
  if (target.has(other_key))
    target.at(other_key).fail(fmt::format("a target of type {} has {}, not {}", target_type, value_key, other_key));
  m.target_milli = positive_quantity(target.value(value_key));
  return m;
}

ScalingRules read_rules(const std::optional<ConfigNode>& node, bool up, Tolerances& tolerance) {
  // Kubernetes' defaults (pkg/apis/autoscaling/v2/defaults.go:27-64), field by field.
  ScalingRules r;
  r.stabilization_window = Duration::from_seconds(up ? 0 : 300);
  if (up)
    r.policies = {{PolicyType::pods, 4, Duration::from_seconds(15)}, {PolicyType::percent, 100, Duration::from_seconds(15)}};
  else r.policies = {{PolicyType::percent, 100, Duration::from_seconds(15)}};
  if (!node) return r;
  const Fields f = rules_section().read(*node);
  if (auto w = f.get("stabilizationWindowSeconds"))
    r.stabilization_window = Duration::from_seconds(w->as_int(f.range("stabilizationWindowSeconds")));
  r.select = f.value("selectPolicy").as_enum<SelectPolicy>(" or ");
  if (auto list = f.get("policies")) {
    r.policies.clear();
    for (const ConfigNode& item : list->items()) {
      const Fields p = policy_section().read(item);
      r.policies.push_back({p.value("type").as_enum<PolicyType>(" or "), p.integer<int32_t>("value"),
                            Duration::from_seconds(p.integer("periodSeconds"))});
    }
    // Kubernetes' validation (V:207-209).
    if (r.policies.empty()) list->fail("expected at least one policy");
  }
  if (auto t = f.get("tolerance")) (up ? tolerance.scale_up : tolerance.scale_down) = t->as_number(f.range("tolerance"));
  return r;
}

std::optional<Behavior> read_behavior(const std::optional<ConfigNode>& node, Tolerances& tolerance) {
  if (!node) return std::nullopt;
  const Fields f = behavior_section().read(*node);
  return Behavior{read_rules(f.get("scaleUp"), true, tolerance), read_rules(f.get("scaleDown"), false, tolerance)};
}

HpaSpec read_hpa(const ConfigNode& node) {
  const Fields f = hpa_section().read(node);
  HpaSpec h;
  h.min_replicas = f.integer<int32_t>("minReplicas");
  h.max_replicas = f.integer<int32_t>("maxReplicas");
  if (h.min_replicas == 0)
    f.at("minReplicas")
        .fail("minReplicas 0 needs the alpha HPAScaleToZero feature gate; use keda (minReplicaCount: 0) to scale to zero");
  if (h.min_replicas > h.max_replicas)
    f.at("maxReplicas").fail(fmt::format("expected at least minReplicas ({}), got {}", h.min_replicas, h.max_replicas));
  const ConfigNode metrics = f.at("metrics");
  for (const ConfigNode& item : metrics.items()) h.metrics.push_back(read_hpa_metric(item));
  if (h.metrics.empty()) metrics.fail("expected at least one metric");
  h.tolerance.scale_up = h.tolerance.scale_down = f.number("tolerance");
  h.behavior = read_behavior(f.get("behavior"), h.tolerance);
  return h;
}

// The query forms accepted: agg(M) or agg(M{service="NAME"}), agg in sum, avg, max. A Prometheus
// scaler fails on a query returning several series (prometheus_scaler.go:273-275), so one aggregates.
KedaTrigger read_trigger(const ConfigNode& node, const std::string& service) {
  const Fields f = keda_trigger_section().read(node);
  if (const ConfigNode type = f.at("type"); type.as_string() != "prometheus")
    type.fail(fmt::format("expected prometheus (the scaler gpusim models), got '{}'", type.as_string()));
  const Fields meta = keda_metadata_section().read(f.at("metadata"));
  KedaTrigger t;
  const ConfigNode query = meta.at("query");
  t.query = query.as_string();
  static const std::regex form(
      R"re(^\s*(\w+)\s*\(\s*([A-Za-z_:][A-Za-z0-9_:]*)\s*(\{\s*(\w+)\s*=\s*"([^"]*)"\s*\})?\s*\)\s*$)re");
  std::smatch m;
  const std::string forms = fmt::format("sum(M), avg(M) or max(M), optionally M{{service=\"{}\"}}, with M one of {}", service,
                                        enum_choices<ServiceMetric>(", "));
  if (!std::regex_match(t.query, m, form)) query.fail(fmt::format("cannot read query '{}': expected {}", t.query, forms));
  const auto aggregation = parse_enum<Aggregation>(m[1].str());
  if (!aggregation)
    query.fail(fmt::format("query '{}' aggregates with {}: expected sum, avg or max ({})", t.query, m[1].str(), forms));
  const auto metric = parse_enum<ServiceMetric>(m[2].str());
  if (!metric) query.fail(fmt::format("query '{}' reads unknown metric '{}': expected {}", t.query, m[2].str(), forms));
  if (m[3].matched && (m[4].str() != "service" || m[5].str() != service))
    query.fail(fmt::format("query '{}' selects {}=\"{}\": a trigger reads its own service's series, expected {}", t.query,
                           m[4].str(), m[5].str(), forms));
  t.metric.source = MetricSource::external;
  t.metric.metric = *metric;
  t.metric.aggregation = *aggregation;
  t.metric.target_type = f.value("metricType").as_enum<TargetType>(" or ");
  t.metric.target_milli = positive_quantity(meta.at("threshold"));
  const ConfigNode activation = meta.value("activationThreshold");
  t.activation_milli = read_quantity_milli(activation);
  if (t.activation_milli < 0) activation.fail(fmt::format("expected a quantity >= 0, got '{}'", activation.as_string()));
  return t;
}

KedaSpec read_keda(const ConfigNode& node, const std::string& service) {
  const Fields f = keda_section().read(node);
  KedaSpec k;
  k.polling_interval = Duration::from_seconds(f.integer("pollingInterval"));
  k.cooldown = Duration::from_seconds(f.integer("cooldownPeriod"));
  k.initial_cooldown = Duration::from_seconds(f.integer("initialCooldownPeriod"));
  k.min_replicas = f.integer<int32_t>("minReplicaCount");
  k.max_replicas = f.integer<int32_t>("maxReplicaCount");
  // KEDA's webhook (scaledobject_types.go:360-366).
  if (k.min_replicas > k.max_replicas)
    f.at("maxReplicaCount").fail(fmt::format("expected at least minReplicaCount ({}), got {}", k.min_replicas, k.max_replicas));
  if (auto idle = f.get("idleReplicaCount")) {
    k.idle_replicas = idle->as_int<int32_t>(f.range("idleReplicaCount"));
    // KEDA supports 0 alone: an idle count above 0 is below its HPA's minimum, which restores it at its next sync.
    if (*k.idle_replicas != 0) idle->fail(fmt::format("expected 0 (the only value KEDA supports), got {}", *k.idle_replicas));
    if (k.min_replicas == 0) idle->fail("expected no idleReplicaCount with minReplicaCount 0 (it must be below it)");
  }
  const ConfigNode triggers = f.at("triggers");
  for (const ConfigNode& item : triggers.items()) k.triggers.push_back(read_trigger(item, service));
  if (k.triggers.empty()) triggers.fail("expected at least one trigger");
  // With no pod, a pod's series is empty, which the prometheus scaler reads as 0 (ignoreNullValues):
  // never above an activation threshold, so such a service would stay at zero for ever.
  const bool reaches_zero = k.min_replicas == 0 || k.idle_replicas == 0;
  if (reaches_zero &&
      std::all_of(k.triggers.begin(), k.triggers.end(), [](const KedaTrigger& t) { return per_pod(t.metric.metric); }))
    triggers.fail(
        "every trigger reads a series the service's pods report, which is empty at zero replicas: it could never scale "
        "from zero; add a trigger on gpusim_service_queue_length or gpusim_service_request_rate, or set minReplicaCount "
        "above 0");
  if (auto advanced = f.get("advanced"))
    if (auto config = keda_advanced_section().read(*advanced).get("horizontalPodAutoscalerConfig"))
      k.behavior = read_behavior(keda_hpa_config_section().read(*config).get("behavior"), k.tolerance);
  return k;
}

}  // namespace

int32_t AutoscalerSpec::min_replicas() const {
  return std::visit([](const auto& a) { return a.min_replicas; }, of);
}

int32_t AutoscalerSpec::max_replicas() const {
  return std::visit([](const auto& a) { return a.max_replicas; }, of);
}

bool AutoscalerSpec::reads(ServiceMetric m) const {
  if (const auto* h = std::get_if<HpaSpec>(&of))
    return std::any_of(h->metrics.begin(), h->metrics.end(), [m](const MetricSpec& s) { return s.metric == m; });
  const auto& triggers = std::get<KedaSpec>(of).triggers;
  return std::any_of(triggers.begin(), triggers.end(), [m](const KedaTrigger& t) { return t.metric.metric == m; });
}

const Section& autoscaler_section() {
  static const Section s{"autoscaler",
                         "A service's pod autoscaler: hpa or keda (docs/serving.md#autoscaling)",
                         {
                             {"hpa", Type::section(hpa_section()), "", "", "A HorizontalPodAutoscaler"},
                             {"keda", Type::section(keda_section()), "", "", "A KEDA ScaledObject"},
                             {"metrics_delay", Type::duration(), "0s", "",
                              "How old the readings are at a sync or poll: the metrics pipeline's scrape and "
                              "adapter (under the shortest sync or poll interval)"},
                         }};
  return s;
}

AutoscalerSpec read_autoscaler(const ConfigNode& node, const std::string& service) {
  const Fields f = autoscaler_section().read(node);
  if (f.has("hpa") == f.has("keda")) f.fail("expected one of hpa or keda");
  const Duration delay = f.value("metrics_delay").as_duration();
  AutoscalerSpec spec = f.has("hpa") ? AutoscalerSpec{read_hpa(f.at("hpa")), delay}
                                     : AutoscalerSpec{read_keda(f.at("keda"), service), delay};
  // Readings are taken once per sync or poll: one must be taken after the previous sync.
  Duration shortest = Duration::from_seconds(15);
  if (const auto* keda = std::get_if<KedaSpec>(&spec.of)) shortest = std::min(shortest, keda->polling_interval);
  if (spec.metrics_delay >= shortest)
    f.at("metrics_delay")
        .fail(fmt::format("expected less than the shortest sync or poll interval ({} s), got {} s", shortest.seconds(),
                          spec.metrics_delay.seconds()));
  return spec;
}

int64_t read_quantity_milli(const ConfigNode& node) {
  double q = 0;
  try {
    q = parse_quantity(node.as_string(), Range::between(-1e15, 1e15));
  } catch (const std::invalid_argument& e) {
    node.fail(e.what());
  }
  // Rounded up as Quantity.MilliValue does; a product within rounding of a whole number is that number
  // ("0.1" x 1000 is 100.00000000000001 in double).
  const double milli = q * 1000;
  const double whole = std::round(milli);
  return static_cast<int64_t>(std::abs(milli - whole) <= 1e-9 * std::max(1.0, std::abs(whole)) ? whole : std::ceil(milli));
}

}  // namespace gpusim
