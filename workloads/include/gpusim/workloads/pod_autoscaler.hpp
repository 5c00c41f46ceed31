#pragma once
// A service's pod autoscaler as a scenario states it: a Kubernetes HorizontalPodAutoscaler
// (autoscaling/v2) or a KEDA ScaledObject, in their own field names so specs pasted from Kubernetes
// docs parse. The controllers that act on these specs are sim/pod_autoscaler.hpp's; the rules they
// follow and the defaults' sources are docs/serving.md#autoscaling.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/fields.hpp"
#include "gpusim/core/time.hpp"

namespace gpusim {

// The series an autoscaler may read, by the names users write. Per pod: the pod's GPU duty cycle in
// percent (DCGM's utilization.gpu), the requests its engine runs and holds waiting (vLLM's gauges).
// Per service: requests arrived and not yet started on any replica (also those held while no replica
// is ready, which is how a service at zero replicas shows demand), and requests per second arriving,
// averaged over the last 60 s.
enum class ServiceMetric : uint8_t { gpu_util, requests_running, requests_waiting, queue_length, request_rate };
constexpr auto enum_table(ServiceMetric) {
  using M = ServiceMetric;
  return std::to_array<EnumName<M>>({{M::gpu_util, "DCGM_FI_DEV_GPU_UTIL"},
                                     {M::requests_running, "vllm:num_requests_running"},
                                     {M::requests_waiting, "vllm:num_requests_waiting"},
                                     {M::queue_length, "gpusim_service_queue_length"},
                                     {M::request_rate, "gpusim_service_request_rate"}});
}
inline constexpr std::size_t kServiceMetrics = enum_count<ServiceMetric>;

// A series each pod reports (absent while the service has no pod), as opposed to one of the service.
constexpr bool per_pod(ServiceMetric m) {
  return m == ServiceMetric::gpu_util || m == ServiceMetric::requests_running || m == ServiceMetric::requests_waiting;
}

// How an HPA metric's samples become a replica count (autoscaling/v2 MetricSpec; R = the v1.28
// replica_calculator.go). pods: the pods' average against the per-pod target (Pods metric);
// external: one value, the sum of the series or a KEDA query's result, against the target
// (External metric; KEDA's triggers are External metrics of its HPA).
enum class MetricSource : uint8_t { pods, external };
// External targets: value (ratio x ready pods) or average_value (per replica: ceil(usage / target)).
enum class TargetType : uint8_t { value, average_value };
constexpr auto enum_table(TargetType) {
  return std::to_array<EnumName<TargetType>>({{TargetType::value, "Value"}, {TargetType::average_value, "AverageValue"}});
}
// How a KEDA query or an External metric combines several series.
enum class Aggregation : uint8_t { sum, avg, max };
constexpr auto enum_table(Aggregation) {
  return std::to_array<EnumName<Aggregation>>({{Aggregation::sum, "sum"}, {Aggregation::avg, "avg"}, {Aggregation::max, "max"}});
}

struct MetricSpec {
  MetricSource source = MetricSource::pods;
  ServiceMetric metric = ServiceMetric::gpu_util;
  Aggregation aggregation = Aggregation::sum;  // external: over the pods' series (the HPA sums them)
  TargetType target_type = TargetType::average_value;
  int64_t target_milli = 0;  // the target quantity in thousandths, as the controller compares them
};

// scaleUp / scaleDown rules of `behavior` (autoscaling/v2 HPAScalingRules).
enum class SelectPolicy : uint8_t { max, min, disabled };
constexpr auto enum_table(SelectPolicy) {
  return std::to_array<EnumName<SelectPolicy>>(
      {{SelectPolicy::max, "Max"}, {SelectPolicy::min, "Min"}, {SelectPolicy::disabled, "Disabled"}});
}
enum class PolicyType : uint8_t { pods, percent };
constexpr auto enum_table(PolicyType) {
  return std::to_array<EnumName<PolicyType>>({{PolicyType::pods, "Pods"}, {PolicyType::percent, "Percent"}});
}
struct ScalingPolicy {
  PolicyType type = PolicyType::pods;
  int32_t value = 0;  // pods, or percent of the replicas at the period's start
  Duration period;
};
struct ScalingRules {
  Duration stabilization_window;
  SelectPolicy select = SelectPolicy::max;
  std::vector<ScalingPolicy> policies;
};
struct Behavior {
  ScalingRules scale_up, scale_down;
};

// The dead band around a usage ratio of 1 within which the HPA keeps the count (v1.33+ per direction).
struct Tolerances {
  double scale_down = 0.1, scale_up = 0.1;
};

struct HpaSpec {
  int32_t min_replicas = 1, max_replicas = 0;
  std::vector<MetricSpec> metrics;
  std::optional<Behavior> behavior;  // absent: the legacy path (300 s window, at most max(2x, 4) up)
  Tolerances tolerance;
};

struct KedaTrigger {
  std::string query;  // as written
  MetricSpec metric;  // external; target = threshold
  int64_t activation_milli = 0;
};

struct KedaSpec {
  Duration polling_interval = Duration::from_seconds(30), cooldown = Duration::from_seconds(300), initial_cooldown;
  int32_t min_replicas = 0, max_replicas = 100;
  std::optional<int32_t> idle_replicas;
  std::vector<KedaTrigger> triggers;
  std::optional<Behavior> behavior;  // advanced.horizontalPodAutoscalerConfig.behavior of KEDA's HPA
  Tolerances tolerance;              // KEDA's HPA runs with the controller's default
};

struct AutoscalerSpec {
  std::variant<HpaSpec, KedaSpec> of;
  Duration metrics_delay;        // the readings a sync or poll acts on were taken this long before it
  int32_t min_replicas() const;  // KEDA: may be 0
  int32_t max_replicas() const;
  bool reads(ServiceMetric m) const;  // does a metric or trigger read m
};

const Section& autoscaler_section();

// `autoscaler:` of service `service` (for KEDA queries naming a service), checked as the Kubernetes
// API server and KEDA's webhook would, plus gpusim's own limits (docs/serving.md#autoscaling).
AutoscalerSpec read_autoscaler(const ConfigNode& node, const std::string& service);

// A Kubernetes quantity ("75", "100m", "2k", or a number) in thousandths, rounded up as
// Quantity.MilliValue does.
int64_t read_quantity_milli(const ConfigNode& node);

}  // namespace gpusim
