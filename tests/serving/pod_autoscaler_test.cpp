// The pod autoscalers' decisions on cases worked by hand (research note T1-T9; docs/serving.md#autoscaling).
// Targets and samples are in the units users write; the controller compares them in thousandths.
#include "gpusim/sim/pod_autoscaler.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/workloads/pod_autoscaler.hpp"
#include "scenario_util.hpp"

namespace gpusim {
namespace {

AutoscalerSpec parse(const std::string& yaml, const std::string& service = "chat") {
  return read_autoscaler(ConfigNode::parse(yaml, "scenario.yaml"), service);
}

std::string error_of(const std::string& yaml) {
  try {
    parse(yaml);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError for " << yaml;
  return "";
}

constexpr auto kGpu = static_cast<std::size_t>(ServiceMetric::gpu_util);
constexpr auto kRunning = static_cast<std::size_t>(ServiceMetric::requests_running);
constexpr auto kQueue = static_cast<std::size_t>(ServiceMetric::queue_length);

PodReading pod(PodPhase phase, std::optional<double> value, std::size_t metric = kGpu) {
  PodReading p;
  p.phase = phase;
  p.value[metric] = value;
  return p;
}

// `n` ready pods each reporting `value` of `metric`.
AutoscalerReadings ready_pods(int32_t n, double value, std::size_t metric = kGpu) {
  AutoscalerReadings r;
  r.spec_replicas = n;
  r.pods.assign(static_cast<std::size_t>(n), pod(PodPhase::ready, value, metric));
  return r;
}

Time at_s(int64_t s) { return Time::from_seconds(s); }

// Runs the controller from its first due time to `until_s`, with the readings `at(t, replicas)` gives,
// applying each decision at once; returns the replica count after each evaluation, keyed by second.
std::vector<std::pair<int64_t, int32_t>> drive(PodAutoscaler& a, int32_t replicas, int64_t until_s,
                                               const std::function<AutoscalerReadings(int64_t, int32_t)>& at) {
  std::vector<std::pair<int64_t, int32_t>> out;
  while (a.next_time() <= at_s(until_s)) {
    const Time t = a.next_time();
    const int64_t s = t.us() / 1'000'000;
    AutoscalerReadings r = at(s, replicas);
    r.spec_replicas = replicas;
    replicas = a.evaluate(t, r);
    out.emplace_back(s, replicas);
  }
  return out;
}

// The first time the count reaches `n`; -1 if never.
int64_t first_time(const std::vector<std::pair<int64_t, int32_t>>& trace, int32_t n) {
  for (const auto& [t, replicas] : trace)
    if (replicas == n) return t;
  return -1;
}

const std::string kPodsGpu70 =
    "hpa: {minReplicas: 1, maxReplicas: 20, metrics: [{type: Pods, pods: {metric: {name: DCGM_FI_DEV_GPU_UTIL}, "
    "target: {type: AverageValue, averageValue: '70'}}}]}";

// T1: 4 pods at 90, 90, 80, 100 against 70: usage 90, ratio 1.2857, ceil(1.2857 x 4) = ceil(5.14) = 6;
// the legacy limit max(2 x 4, 4) = 8 does not bind.
TEST(PodAutoscaler, T1PodsMetricRoundsUp) {
  PodAutoscaler a(parse(kPodsGpu70), Time());
  AutoscalerReadings r = ready_pods(4, 0);
  const double samples[] = {90, 90, 80, 100};
  for (std::size_t i = 0; i < 4; ++i) r.pods[i].value[kGpu] = samples[i];
  EXPECT_EQ(a.next_time(), at_s(15));  // one sync period after creation
  EXPECT_EQ(a.evaluate(at_s(15), r), 6);
  EXPECT_EQ(a.next_time(), at_s(30));
}

// T2: usage 77 against 70 is a ratio of 77000 / 70000 = 1.1 in double: inside v1.33's band
// (ratio <= 1 + 0.1) so 4 stay; v1.28's |1 - ratio| <= 0.1 was false there (0.10000000000000009)
// and gave ceil(4.4) = 5. Usage 63: ratio 0.9, kept in both forms.
TEST(PodAutoscaler, T2ToleranceEdges) {
  EXPECT_TRUE(within_tolerance(77000.0 / 70000.0, Tolerances{}));
  EXPECT_GT(std::abs(1.0 - 77000.0 / 70000.0), 0.1);  // the v1.28 form would scale
  EXPECT_TRUE(within_tolerance(63000.0 / 70000.0, Tolerances{}));
  for (const double usage : {77.0, 63.0}) {
    PodAutoscaler a(parse(kPodsGpu70), Time());
    EXPECT_EQ(a.evaluate(at_s(15), ready_pods(4, usage)), 4) << usage;
  }
  PodAutoscaler a(parse(kPodsGpu70), Time());
  EXPECT_EQ(a.evaluate(at_s(15), ready_pods(4, 78)), 5);  // 1.114: ceil(4.46) = 5
}

// T3: 6 pods at 50 against 50 (desired 6) up to t = 600 s, then at 25 (ratio 0.5, desired 3).
// Legacy: a recommendation counts unless strictly older than now - 300 s, so the 600 s "6" still
// counts at 900 s: 3 at 915 s. Behavior (scaleDown window 300 s): only recommendations strictly
// newer than now - 300 s count: 3 at 900 s.
TEST(PodAutoscaler, T3DownscaleWindowLegacyAndBehavior) {
  const auto load = [](int64_t t, int32_t replicas) { return ready_pods(replicas, t <= 600 ? 50 : 25); };
  const std::string metric =
      "metrics: [{type: Pods, pods: {metric: {name: DCGM_FI_DEV_GPU_UTIL}, target: {type: AverageValue, averageValue: 50}}}]";
  PodAutoscaler legacy(parse("hpa: {maxReplicas: 10, " + metric + "}"), Time());
  EXPECT_EQ(first_time(drive(legacy, 6, 1000, load), 3), 915);
  PodAutoscaler behavior(
      parse("hpa: {maxReplicas: 10, " + metric + ", behavior: {scaleDown: {stabilizationWindowSeconds: 300}}}"), Time());
  EXPECT_EQ(first_time(drive(behavior, 6, 1000, load), 3), 900);
}

// T4: from 2, every sync asks for 20 (max 20). Behavior defaults (Pods 4 and Percent 100 per 15 s,
// Max): 2 -> max(2 + 4, ceil(2 x 2)) = 6 at 15 s; the +4 event is exactly 15 s old at 30 s and no
// longer counts: 6 -> max(10, 12) = 12; 12 -> min(max(16, 24), 20) = 20 at 45 s. Legacy (at most
// max(2 x current, 4)): 2 -> 4 -> 8 -> 16 -> 20 at 15, 30, 45, 60 s.
TEST(PodAutoscaler, T4ScaleUpRate) {
  // Each pod at 100 against 10: ratio 10, so ceil(10 x pods) >= 20 whatever the count.
  const auto load = [](int64_t, int32_t replicas) { return ready_pods(replicas, 100); };
  const std::string metric =
      "metrics: [{type: Pods, pods: {metric: {name: DCGM_FI_DEV_GPU_UTIL}, target: {type: AverageValue, averageValue: 10}}}]";
  PodAutoscaler behavior(parse("hpa: {minReplicas: 2, maxReplicas: 20, " + metric + ", behavior: {}}"), Time());
  EXPECT_EQ(drive(behavior, 2, 60, load), (std::vector<std::pair<int64_t, int32_t>>{{15, 6}, {30, 12}, {45, 20}, {60, 20}}));
  PodAutoscaler legacy(parse("hpa: {minReplicas: 2, maxReplicas: 20, " + metric + "}"), Time());
  EXPECT_EQ(drive(legacy, 2, 75, load),
            (std::vector<std::pair<int64_t, int32_t>>{{15, 4}, {30, 8}, {45, 16}, {60, 20}, {75, 20}}));
}

// T5: background 003's behavior (scaleUp window 60 s, Percent 50 per 60 s), min 2, a metric asking
// for 5 from 15 s on. The initial recommendation (2 at 15 s) holds the up window's minimum at 2 until
// it is no longer strictly newer than now - 60 s: at 75 s, limited to ceil(2 x 1.5) = 3. The +1 event
// of 75 s keeps the period's start at 2 until it is 60 s old: 5 at 135 s (ceil(3 x 1.5) = 5).
TEST(PodAutoscaler, T5BackgroundBehavior) {
  // An External AverageValue metric of 50 against 10 asks ceil(50 / 10) = 5 at any count.
  PodAutoscaler a(
      parse("hpa: {minReplicas: 2, maxReplicas: 20, metrics: [{type: External, external: {metric: {name: "
            "gpusim_service_queue_length}, target: {type: AverageValue, averageValue: '10'}}}], behavior: "
            "{scaleUp: {stabilizationWindowSeconds: 60, policies: [{type: Percent, value: 50, periodSeconds: 60}]}}}"),
      Time());
  const auto load = [](int64_t, int32_t replicas) {
    AutoscalerReadings r = ready_pods(replicas, 0);
    r.service[kQueue] = 50;
    return r;
  };
  const auto trace = drive(a, 2, 150, load);
  EXPECT_EQ(first_time(trace, 3), 75);
  EXPECT_EQ(first_time(trace, 5), 135);
  for (const auto& [t, replicas] : trace) EXPECT_EQ(replicas, t < 75 ? 2 : t < 135 ? 3 : 5) << t;
}

// T6: External AverageValue (KEDA's default), threshold 10, 3 pods. Sum 45: ratio 45 / 30 = 1.5, so
// ceil(45 / 10) = 5. Sum 31: ratio 1.033, kept at 3. Sum 0: asks 0, held at 3 while the initial
// recommendation (3 at 15 s) is in the legacy 300 s window (it counts at 315 s, not at 330 s), then
// clamped to minReplicas 1.
TEST(PodAutoscaler, T6ExternalAverageValue) {
  const std::string spec =
      "hpa: {maxReplicas: 10, metrics: [{type: External, external: {metric: {name: gpusim_service_queue_length}, "
      "target: {type: AverageValue, averageValue: 10}}}]}";
  const auto queue = [](double q) {
    return [q](int64_t, int32_t replicas) {
      AutoscalerReadings r = ready_pods(replicas, 0);
      r.service[kQueue] = q;
      return r;
    };
  };
  PodAutoscaler up(parse(spec), Time());
  EXPECT_EQ(drive(up, 3, 15, queue(45)).back().second, 5);
  PodAutoscaler keep(parse(spec), Time());
  EXPECT_EQ(drive(keep, 3, 15, queue(31)).back().second, 3);
  PodAutoscaler idle(parse(spec), Time());
  const auto trace = drive(idle, 3, 345, queue(0));
  EXPECT_EQ(first_time(trace, 1), 330);
  EXPECT_EQ(trace[trace.size() - 3], (std::pair<int64_t, int32_t>{315, 3}));
}

// T7 (KEDA): a trigger on the queue, polling 30 s, cooldown 300 s, min 0, activation 5, threshold 10.
// The queue is 8 up to the 600 s poll, 0 after: polls from 630 s are inactive, and the service goes
// to 0 at the first poll with 600 + 300 < now, 930 s. Three requests are held from 1,000 s, three more
// from 1,100 s: polls at 1,020-1,080 s see 3 <= 5; the 1,110 s poll sees 6 and sets 1 replica. With
// activationThreshold 0 the 1,020 s poll wakes it.
TEST(PodAutoscaler, T7KedaToZeroAndBack) {
  const auto spec = [](const std::string& activation) {
    return parse("keda: {pollingInterval: 30, cooldownPeriod: 300, minReplicaCount: 0, maxReplicaCount: 10, triggers: [{type: "
                 "prometheus, metadata: {query: 'sum(gpusim_service_queue_length{service=\"chat\"})', threshold: '10', "
                 "activationThreshold: '" +
                 activation + "'}}]}");
  };
  const auto load = [](int64_t t, int32_t replicas) {
    AutoscalerReadings r = ready_pods(replicas, 0);
    r.service[kQueue] = t <= 600 ? 8 : t < 1000 ? 0 : t < 1100 ? 3 : 6;
    return r;
  };
  PodAutoscaler a(spec("5"), Time());
  EXPECT_EQ(a.next_time(), Time());  // KEDA polls at once
  const auto trace = drive(a, 1, 1200, load);
  // Up to 930 s the HPA keeps 1 (ceil(8 / 10) = 1; then 0 asked, clamped to its minimum 1).
  for (const auto& [t, replicas] : trace) EXPECT_EQ(replicas, t < 930 || t >= 1110 ? 1 : 0) << t;
  EXPECT_EQ(first_time(trace, 0), 930);
  PodAutoscaler eager(spec("0"), Time());
  const auto eager_trace = drive(eager, 1, 1200, load);
  int64_t woke = -1;
  for (const auto& [t, replicas] : eager_trace)
    if (t > 930 && replicas == 1 && woke < 0) woke = t;
  EXPECT_EQ(woke, 1020);
}

// T8: (a) 2 ready pods at 100 and 2 pending, target 50: ratio 2 with unready pods, which count 0:
// (200 + 0 + 0) / 4 = 50, ratio 1: keep 4 (no double scale-up). (b) the 2 are running, not ready,
// reporting 0: non-CPU samples count whatever the readiness: average 50, keep 4. (c) vLLM's running
// requests 8 and 8 on ready pods, 2 pods without the series yet, target 4: ratio 2, the missing count 0
// on a scale-up: 16 / 4 = 4, ratio 1: keep 4.
TEST(PodAutoscaler, T8StartingPods) {
  const std::string gpu50 =
      "hpa: {maxReplicas: 10, metrics: [{type: Pods, pods: {metric: {name: DCGM_FI_DEV_GPU_UTIL}, target: {type: "
      "AverageValue, averageValue: 50}}}]}";
  AutoscalerReadings pending = ready_pods(2, 100);
  pending.spec_replicas = 4;
  pending.pods.push_back(pod(PodPhase::pending, std::nullopt));
  pending.pods.push_back(pod(PodPhase::pending, 0.0));
  PodAutoscaler a(parse(gpu50), Time());
  EXPECT_EQ(a.evaluate(at_s(15), pending), 4);

  AutoscalerReadings loading = ready_pods(2, 100);
  loading.spec_replicas = 4;
  loading.pods.push_back(pod(PodPhase::starting, 0.0));
  loading.pods.push_back(pod(PodPhase::starting, 0.0));
  PodAutoscaler b(parse(gpu50), Time());
  EXPECT_EQ(b.evaluate(at_s(15), loading), 4);

  AutoscalerReadings missing = ready_pods(2, 8, kRunning);
  missing.spec_replicas = 4;
  missing.pods.push_back(pod(PodPhase::starting, std::nullopt, kRunning));
  missing.pods.push_back(pod(PodPhase::ready, std::nullopt, kRunning));
  PodAutoscaler c(parse("hpa: {maxReplicas: 10, metrics: [{type: Pods, pods: {metric: {name: vllm:num_requests_running}, "
                        "target: {type: AverageValue, averageValue: 4}}}]}"),
                  Time());
  EXPECT_EQ(c.evaluate(at_s(15), missing), 4);
}

// T9: at 0 replicas with min 1 the HPA does nothing (ScalingDisabled); above max it goes to max with no
// metric read; selectPolicy Disabled on scaleDown never goes below the current count.
TEST(PodAutoscaler, T9MinMaxDisabled) {
  PodAutoscaler zero(parse(kPodsGpu70), Time());
  AutoscalerReadings none;
  EXPECT_EQ(zero.evaluate(at_s(15), none), 0);
  PodAutoscaler above(parse(kPodsGpu70), Time());
  AutoscalerReadings many = ready_pods(25, 0);
  for (PodReading& p : many.pods) p.value[kGpu].reset();  // no metric needed
  EXPECT_EQ(above.evaluate(at_s(15), many), 20);
  PodAutoscaler held(parse("hpa: {maxReplicas: 10, metrics: [{type: Pods, pods: {metric: {name: DCGM_FI_DEV_GPU_UTIL}, "
                           "target: {type: AverageValue, averageValue: 70}}}], behavior: {scaleDown: {selectPolicy: Disabled}}}"),
                     Time());
  for (const auto& [t, replicas] : drive(held, 5, 1200, [](int64_t, int32_t n) { return ready_pods(n, 0); }))
    EXPECT_EQ(replicas, 5) << t;
}

// Several metrics: the largest proposal wins; a failing metric (no pod reports it) blocks a scale-down
// but not a scale-up (H:336-342).
TEST(PodAutoscaler, MaxOverMetricsAndInvalidOnes) {
  const std::string two =
      "hpa: {maxReplicas: 10, metrics: [{type: Pods, pods: {metric: {name: vllm:num_requests_waiting}, target: {type: "
      "AverageValue, averageValue: 1}}}, {type: External, external: {metric: {name: gpusim_service_queue_length}, target: "
      "{type: AverageValue, averageValue: 10}}}]}";
  AutoscalerReadings r = ready_pods(4, 0);  // no pod reports vllm:num_requests_waiting: that metric fails
  r.service[kQueue] = 80;                   // ceil(80 / 10) = 8
  PodAutoscaler up(parse(two), Time());
  EXPECT_EQ(up.evaluate(at_s(15), r), 8);
  r.service[kQueue] = 10;  // would ask 1
  PodAutoscaler down(parse(two), Time());
  EXPECT_EQ(down.evaluate(at_s(15), r), 4);
}

TEST(PodAutoscalerSpec, KubernetesSpellingsAndDefaults) {
  // Background 003's HPA, as pasted (quantities as strings, partial behavior).
  const AutoscalerSpec a = parse(R"(
hpa:
  minReplicas: 2
  maxReplicas: 20
  metrics:
    - type: Pods
      pods: {metric: {name: DCGM_FI_DEV_GPU_UTIL}, target: {type: AverageValue, averageValue: "75"}}
    - type: External
      external: {metric: {name: gpusim_service_request_rate}, target: {type: Value, value: "100m"}}
  behavior:
    scaleUp:
      stabilizationWindowSeconds: 60
      policies: [{type: Percent, value: 50, periodSeconds: 60}]
)");
  const HpaSpec& h = std::get<HpaSpec>(a.of);
  EXPECT_EQ(a.min_replicas(), 2);
  EXPECT_EQ(a.max_replicas(), 20);
  ASSERT_EQ(h.metrics.size(), 2u);
  EXPECT_EQ(h.metrics[0].target_milli, 75000);
  EXPECT_EQ(h.metrics[1].source, MetricSource::external);
  EXPECT_EQ(h.metrics[1].target_type, TargetType::value);
  EXPECT_EQ(h.metrics[1].target_milli, 100);
  ASSERT_TRUE(h.behavior);
  EXPECT_EQ(h.behavior->scale_up.stabilization_window, Duration::from_seconds(60));
  EXPECT_EQ(h.behavior->scale_up.select, SelectPolicy::max);
  ASSERT_EQ(h.behavior->scale_up.policies.size(), 1u);
  // scaleDown absent: Kubernetes' defaults (window 300 s, Percent 100 per 15 s).
  EXPECT_EQ(h.behavior->scale_down.stabilization_window, Duration::from_seconds(300));
  ASSERT_EQ(h.behavior->scale_down.policies.size(), 1u);
  EXPECT_EQ(h.behavior->scale_down.policies[0].type, PolicyType::percent);
  EXPECT_EQ(h.behavior->scale_down.policies[0].period, Duration::from_seconds(15));
  EXPECT_DOUBLE_EQ(h.tolerance.scale_up, 0.1);
  EXPECT_TRUE(a.reads(ServiceMetric::gpu_util));
  EXPECT_FALSE(a.reads(ServiceMetric::queue_length));

  const AutoscalerSpec k = parse(R"(
keda:
  triggers:
    - type: prometheus
      metadata: {serverAddress: "http://prometheus:9090", query: 'avg(DCGM_FI_DEV_GPU_UTIL)', threshold: '75'}
      metricType: Value
    - type: prometheus
      metadata: {query: 'sum(gpusim_service_queue_length)', threshold: 10, activationThreshold: 5}
  advanced: {horizontalPodAutoscalerConfig: {behavior: {scaleUp: {selectPolicy: Max, policies: [{type: Percent, value: 100, periodSeconds: 30}]}}}}
)");
  const KedaSpec& s = std::get<KedaSpec>(k.of);
  EXPECT_EQ(s.polling_interval, Duration::from_seconds(30));
  EXPECT_EQ(s.cooldown, Duration::from_seconds(300));
  EXPECT_EQ(k.min_replicas(), 0);
  EXPECT_EQ(k.max_replicas(), 100);
  ASSERT_EQ(s.triggers.size(), 2u);
  EXPECT_EQ(s.triggers[0].metric.aggregation, Aggregation::avg);
  EXPECT_EQ(s.triggers[0].metric.target_type, TargetType::value);
  EXPECT_EQ(s.triggers[1].metric.target_type, TargetType::average_value);
  EXPECT_EQ(s.triggers[1].activation_milli, 5000);
  ASSERT_TRUE(s.behavior);
  EXPECT_EQ(s.behavior->scale_up.policies[0].period, Duration::from_seconds(30));
  EXPECT_EQ(s.behavior->scale_up.policies.size(), 1u);
}

TEST(PodAutoscalerSpec, Quantities) {
  const auto q = [](const std::string& text) { return read_quantity_milli(ConfigNode::parse("q: " + text, "x.yaml").at("q")); };
  EXPECT_EQ(q("'75'"), 75000);
  EXPECT_EQ(q("100m"), 100);
  EXPECT_EQ(q("0.1"), 100);  // not 101: 0.1 x 1000 is 100.00000000000001 in double
  EXPECT_EQ(q("2k"), 2000000);
  EXPECT_EQ(q("0.0005"), 1);  // rounded up, as Quantity.MilliValue
}

TEST(PodAutoscalerSpec, BadSpecsNameTheFieldAndTheExpectation) {
  const std::string pods =
      "metrics: [{type: Pods, pods: {metric: {name: DCGM_FI_DEV_GPU_UTIL}, target: {type: AverageValue, averageValue: 70}}}]";
  EXPECT_NE(error_of("hpa: {minReplicas: 0, maxReplicas: 3, " + pods + "}").find("HPAScaleToZero"), std::string::npos);
  EXPECT_NE(error_of("hpa: {minReplicas: 4, maxReplicas: 3, " + pods + "}").find("hpa.maxReplicas"), std::string::npos);
  EXPECT_NE(error_of("hpa: {maxReplicas: 3, metrics: [{type: Resource, resource: {name: cpu}}]}").find("DCGM_FI_DEV_GPU_UTIL"),
            std::string::npos);
  EXPECT_NE(error_of("hpa: {maxReplicas: 3, metrics: [{type: Pods, pods: {metric: {name: gpu_utilization}, target: "
                     "{type: AverageValue, averageValue: 70}}}]}")
                .find("unknown metric 'gpu_utilization'"),
            std::string::npos);
  EXPECT_NE(error_of("keda: {triggers: [{type: prometheus, metadata: {query: 'sum(vllm:num_requests_waiting)', threshold: 1}}]}")
                .find("could never scale from zero"),
            std::string::npos);
  EXPECT_NE(error_of("keda: {triggers: [{type: prometheus, metadata: {query: "
                     "'sum(gpusim_service_queue_length{service=\"other\"})', threshold: 1}}]}")
                .find("its own service"),
            std::string::npos);
  EXPECT_NE(error_of("keda: {triggers: [{type: prometheus, metadata: {query: 'rate(x[1m])', threshold: 1}}]}")
                .find("cannot read query"),
            std::string::npos);
}

// A service has max_replicas replica slots (jobs), the first `replicas` running at the start; without
// an autoscaler the two are equal, as before autoscalers.
TEST(PodAutoscalerSpec, ServicesHaveSlotsUpToTheirMaximum) {
  const Scenario s = test::load(test::write_file("s.yaml", R"(
name: slots
horizon: 10m
cluster: {pools: [{name: a100, node: dgx-a100-80gb, count: 1}]}
workload:
  services:
    - name: chat
      model: qwen2-0.5b
      requests: {generator: {rate: 1, duration: 1m, prompt_tokens: 100, output_tokens: 10}}
      autoscaler:
        keda: {maxReplicaCount: 4, triggers: [{type: prometheus, metadata: {query: 'sum(gpusim_service_queue_length)', threshold: 10}}]}
    - name: fixed
      model: qwen2-0.5b
      replicas: 2
      requests: {generator: {rate: 1, duration: 1m, prompt_tokens: 100, output_tokens: 10}}
policy: fifo+first-fit
)"));
  ASSERT_EQ(s.services.size(), 2u);
  EXPECT_EQ(s.services[0].replicas, 0);  // KEDA's minReplicaCount
  EXPECT_EQ(s.services[0].max_replicas, 4);
  EXPECT_EQ(s.services[1].replicas, 2);
  EXPECT_EQ(s.services[1].max_replicas, 2);
  EXPECT_EQ(s.services[1].first_job, 4u);
  EXPECT_EQ(replica_jobs(s.services), 6u);
  EXPECT_EQ(s.jobs.jobs[3].name, "chat-3");
  EXPECT_EQ(s.jobs.jobs[5].name, "fixed-1");
}

}  // namespace
}  // namespace gpusim
