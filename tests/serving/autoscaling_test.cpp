// Service autoscaling through the engine (docs/serving.md#autoscaling): the pure controllers'
// decisions (tests/serving/pod_autoscaler_test.cpp) acted on by the Deployment, with pods that load, drain,
// leave at their termination grace and wait for nodes, on a toy GPU whose iterations take 2 s.
#include <gtest/gtest.h>

#include <array>
#include <tuple>
#include <vector>

#include "run_util.hpp"

using namespace gpusim;
using test::write_file;

namespace {

// The toy of tests/serving/services_test.cpp with a memory bandwidth of 1 GB/s: its 2e9 bytes of weights
// make every iteration of a few requests take 2 s and a few microseconds (256 bytes of KV cache a
// token read at 1 GB/s: 0.256 us a token in the batch). `pool` adds to the pool's fields,
// `service` to the service's.
std::string toy(const std::string& pool, const std::string& service, const std::string& trace, const std::string& horizon = "") {
  return "name: toy\n" + (horizon.empty() ? "" : "horizon: " + horizon + "\n") + test::toy_serving_hardware(1) +
         "models:\n"
         "  - {name: toy, layers: 1, heads: 1, kv_heads: 1, head_dim: 64, hidden: 64, params: 1000000000, intermediate: 64,"
         " vocab: 64, max_model_len: 100000, source: test}\n"
         "cluster: {pools: [{name: p, node: toy-1x, " +
         pool +
         "}]}\n"
         "workload:\n"
         "  services:\n"
         "    - {name: s, model: toy, " +
         service + ",\n       requests: {trace: {format: azure-llm-2023, file: " + trace + "}}}\n";
}

// An azure-llm-2023 trace of (seconds from the first row, prompt tokens, output tokens) rows; the
// first row is time 0.
std::string trace(const std::string& name, const std::vector<std::array<int, 3>>& rows) {
  std::string text = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
  for (const auto& r : rows)
    text += fmt::format("2023-11-16 {:02}:{:02}:{:02}.0000000,{},{}\n", 18 + r[0] / 3600, r[0] / 60 % 60, r[0] % 60, r[1], r[2]);
  return write_file(name, text);
}

// The service's counts as replica_counts has them: {second, desired, pods, ready}.
std::vector<std::array<int64_t, 4>> counts(const RunResult& r) {
  std::vector<std::array<int64_t, 4>> out;
  for (const ReplicaCount& c : r.replica_counts) out.push_back({c.time.us() / 1'000'000, c.desired, c.pods, c.ready});
  return out;
}

constexpr int64_t kS = 1'000'000;  // microseconds a second

// 1. KEDA from zero and back (T7 in tests/serving/pod_autoscaler_test.cpp, through the engine): a trigger on
// the service's queue, threshold 10, polls every 30 s (0, 30, ...), cooldown 300 s, min 0, one pod at
// the start (a trace starts at its first row: the first requests come at 0 and need it); cold start =
// weights 2 GB at 2 GB/s + engine init 81 s = 82 s. Eight requests at 0, three at 1,000 s and three
// at 1,100 s (16 prompt and 10 output tokens: 10 iterations, ~20 s).
// Activation 5:
//   polls 0, 30, 60    the 8 are held (the pod loads until 82 s): 8 > 5, active; request 0 queues 82 s
//   polls 90..1080     nothing waits (0, then 3 <= 5 from 1,000 s): inactive; the first poll more than
//                      300 s after 60 is 390: desired 0, the idle pod leaves at once
//   poll 1110          6 held > 5: desired 1, a pod in slot 0 again, ready at 1,110 + 82 = 1,192 s;
//                      the 1,000 s requests queue 192 s, the 1,100 s ones 92 s
//   polls 1140, 1170   still held (loading): active; 1200 on: 0. Zero again at the first poll after
//                      1,170 + 300 = 1,470: 1,500.
// Between 1 and N KEDA's HPA asks ceil(queue / 10) = 1 (or 0, raised to its minimum 1): no change.
// Activation 0: the 1020 poll sees 3 > 0: ready at 1,102 s, queues 102 s and 2 s; the last active
// poll is 1080 (1110 finds all six running), so zero at 1,410 s.
TEST(Autoscaling, KedaScalesFromZeroAndBackThroughTheEngine) {
  std::vector<std::array<int, 3>> rows(8, {0, 16, 10});
  for (int t : {1000, 1100})
    for (int k = 0; k < 3; ++k) rows.push_back({t, 16, 10});
  const std::string file = trace("keda.csv", rows);
  const auto run_with = [&](const std::string& activation) {
    return test::simulate_keeping_requests(test::load(write_file(
        "keda.yaml",
        toy("count: 1",
            "replicas: 1, cold_start: {image_gb: 0, load_gb_per_s: 2, engine_init: 81s},\n"
            "       autoscaler: {keda: {pollingInterval: 30, cooldownPeriod: 300, minReplicaCount: 0, maxReplicaCount: 2,\n"
            "         triggers: [{type: prometheus, metadata: {query: 'sum(gpusim_service_queue_length)', threshold: '10', "
            "activationThreshold: '" +
                activation + "'}}]}}",
            file, "1600s"))));
  };
  const RunResult r = run_with("5");
  const std::vector<std::array<int64_t, 4>> want{{0, 1, 1, 0},    {82, 1, 1, 1},   {390, 0, 0, 0},
                                                 {1110, 1, 1, 0}, {1192, 1, 1, 1}, {1500, 0, 0, 0}};
  EXPECT_EQ(counts(r), want);
  EXPECT_EQ(test::request_row(r, 0).queue_us, 82 * kS);
  EXPECT_EQ(test::request_row(r, 8).queue_us, 192 * kS);
  EXPECT_EQ(test::request_row(r, 11).queue_us, 92 * kS);
  for (const RequestRow& q : r.requests) EXPECT_EQ(q.status, 0) << q.id;
  ASSERT_EQ(r.scaling.size(), 1u);
  EXPECT_EQ(r.scaling[0].scale_ups, 1u);
  EXPECT_EQ(r.scaling[0].scale_downs, 2u);
  EXPECT_EQ(r.scaling[0].max_pods, 1);
  // One pod over [0, 390] and [1110, 1500].
  EXPECT_DOUBLE_EQ(r.scaling[0].pod_s, 390 + 390);
  EXPECT_EQ(r.services[0].replica_starts, 2u);
  EXPECT_DOUBLE_EQ(r.services[0].cold_start_s, 82 + 82);
  EXPECT_EQ(r.services[0].retried, 0u);

  const RunResult eager = run_with("0");
  const std::vector<std::array<int64_t, 4>> eager_want{{0, 1, 1, 0},    {82, 1, 1, 1},   {390, 0, 0, 0},
                                                       {1020, 1, 1, 0}, {1102, 1, 1, 1}, {1410, 0, 0, 0}};
  EXPECT_EQ(counts(eager), eager_want);
  EXPECT_EQ(test::request_row(eager, 8).queue_us, 102 * kS);
  EXPECT_EQ(test::request_row(eager, 11).queue_us, 2 * kS);
}

// Two replicas (of at most 3, on 3 nodes) under a legacy HPA on vllm:num_requests_running, target 1;
// cold start none. The router goes round: request 0 at 0 (1 output token, done at 2 s) to s-0, then
// B and A at 5 s to s-1 and s-0. A has 15 output tokens: 15 iterations of ~2 s, done at ~35 s; B has
// `b_output`.
//   syncs 15, 30    running 1 and 1: average 1, ratio 1: recommendation 2
//   syncs 45 on     0 and 1: average 0.5, ratio 0.5: ceil(0.5 x 2) = 1; the 2 of 30 s counts up to
//                   330 s (a recommendation exactly 300 s old counts): desired 1 at 345 s, and of two
//                   ready pods the highest slot, s-1, is deleted with B in flight.
std::string two_replicas(const std::string& name, int b_output, std::vector<std::array<int, 3>> later = {}) {
  std::vector<std::array<int, 3>> rows{{0, 16, 1}, {5, 16, b_output}, {5, 16, 15}};
  rows.insert(rows.end(), later.begin(), later.end());
  return toy("count: 3",
             "replicas: 2, cold_start: none,\n"
             "       autoscaler: {hpa: {minReplicas: 1, maxReplicas: 3, metrics: [{type: Pods, pods: {metric: {name: "
             "'vllm:num_requests_running'}, target: {type: AverageValue, averageValue: '1'}}}]}}",
             trace(name + ".csv", rows));
}

// 2. B has 175 output tokens: done at ~5 + 350 = ~355 s, inside the 30 s grace from 345 s: s-1
// drains it and leaves then (no retry). Requests C and D at 400 s both go to s-0 (the only ready
// replica); the 405 sync sees 2 running on 1 pod: ratio 2, desired 2: the lowest free slot, 1,
// gets the pod (slot 2 never does), ready at once.
TEST(Autoscaling, HpaScaleDownDrainsAndTheSlotIsReused) {
  const Scenario s = test::load(write_file("drain.yaml", two_replicas("drain", 175, {{400, 16, 10}, {400, 16, 10}})));
  const RunResult r = test::simulate_keeping_requests(s);
  const std::vector<std::array<int64_t, 4>> want{{0, 2, 2, 2}, {345, 1, 1, 1}, {405, 2, 2, 2}};
  EXPECT_EQ(counts(r), want);
  const uint32_t s1 = s.services[0].first_job + 1;
  EXPECT_EQ(test::request_row(r, 1).replica, static_cast<int32_t>(s1));
  EXPECT_EQ(test::request_row(r, 1).retries, 0);
  EXPECT_EQ(test::request_row(r, 1).status, 0);
  EXPECT_GT(test::request_row(r, 1).arrival.us() + test::request_row(r, 1).e2e_us, 345 * kS);  // in flight when deleted
  EXPECT_LT(test::request_row(r, 1).arrival.us() + test::request_row(r, 1).e2e_us, 375 * kS);  // done within its grace
  EXPECT_EQ(test::request_row(r, 3).replica, static_cast<int32_t>(s.services[0].first_job));
  EXPECT_EQ(test::request_row(r, 4).replica, static_cast<int32_t>(s.services[0].first_job));
  EXPECT_EQ(r.services[0].retried, 0u);
  EXPECT_EQ(r.services[0].replica_starts, 3u);  // s-0, s-1, and s-1 again
  EXPECT_EQ(s.jobs.jobs[s1].name, "s-1");
  EXPECT_EQ(r.jobs[s1].attempt, 2u);
  EXPECT_EQ(r.jobs[s1].start, Time::from_seconds(405));
  EXPECT_EQ(r.jobs[s1 + 1].attempt, 0u);
  EXPECT_EQ(r.scaling[0].scale_ups, 1u);
  EXPECT_EQ(r.scaling[0].scale_downs, 1u);
  EXPECT_EQ(r.scaling[0].max_pods, 2);
}

// 3. B has 200 output tokens: ~25 s left at 345 s, more than the 30 s grace allows (done at ~405 s).
// s-1 leaves at 345 + 30 = 375 s exactly; B starts over on s-0 (idle since A ended): 200 more
// iterations of ~2 s, done at ~775 s (e2e ~770 s from its arrival at 5 s). s-0 then runs 1: ratio 1,
// it stays 1.
TEST(Autoscaling, TerminationGraceRetriesWhatIsLeft) {
  const Scenario s = test::load(write_file("grace.yaml", two_replicas("grace", 200)));
  const RunResult r = test::simulate_keeping_requests(s);
  const std::vector<std::array<int64_t, 4>> want{{0, 2, 2, 2}, {345, 1, 1, 1}};
  EXPECT_EQ(counts(r), want);
  EXPECT_EQ(r.services[0].retried, 1u);
  const RequestRow& b = test::request_row(r, 1);
  EXPECT_EQ(b.retries, 1);
  EXPECT_EQ(b.status, 0);
  EXPECT_EQ(b.replica, static_cast<int32_t>(s.services[0].first_job));
  EXPECT_GE(b.e2e_us, 770 * kS);
  EXPECT_LT(b.e2e_us, 771 * kS);
  const uint32_t s1 = s.services[0].first_job + 1;
  EXPECT_EQ(r.jobs[s1].end, Time::from_seconds(375));
}

// 4. The same scenario twice gives the same counts and rows, and the audit finds nothing broken.
TEST(Autoscaling, RunsAreDeterministicAndPassTheAudit) {
  const Scenario s = test::load(write_file("again.yaml", two_replicas("again", 200, {{400, 16, 10}, {400, 16, 10}})));
  const RunResult a = test::simulate_keeping_requests(s);
  const RunResult b = test::simulate_keeping_requests(s);
  EXPECT_EQ(counts(a), counts(b));
  ASSERT_EQ(a.requests.size(), b.requests.size());
  for (std::size_t k = 0; k < a.requests.size(); ++k) {
    const RequestRow &x = a.requests[k], &y = b.requests[k];
    EXPECT_EQ(std::tie(x.service, x.id, x.arrival, x.queue_us, x.ttft_us, x.e2e_us, x.generated, x.replica, x.retries, x.status),
              std::tie(y.service, y.id, y.arrival, y.queue_us, y.ttft_us, y.e2e_us, y.generated, y.replica, y.retries, y.status))
        << k;
  }
  EXPECT_NO_THROW(test::simulate_keeping_requests(s, true));
}

// 5. One node (autoscaled pool, 1 to 2 nodes, scale-up delay 10 s, provisioning 300 s), one replica
// (HPA on running requests, target 1, max 2), cold start 2 GB at 2 GB/s + 59 s = 60 s. Four requests
// at 0 (100 output tokens: ~200 s) are held until s-0 is ready at 60 s, then all four run on it.
//   syncs 15, 30, 45  s-0 loads: no vLLM gauges, no sample on a scale-up: nothing changes
//   sync 60           s-0 ready, 4 running: ratio 4, ceil(4 x 1) = 4, capped at 2: s-1 is created and
//                     stays pending (pods 2 > ready 1): the only node is full
//   70 s              s-1 has been unschedulable 10 s: a node is requested, ready at 370 s; s-1 is
//                     placed then and ready at 370 + 60 = 430 s
// The requests end at ~260 s; the 2 of the syncs up to 255 s hold the count past the 500 s horizon.
std::string pending(const std::string& name, const std::string& behavior, const std::string& engine_init = "59s",
                    const std::string& provisioning = "300s") {
  const std::vector<std::array<int, 3>> rows(4, {0, 16, 100});
  return toy("count: 1, autoscale: {min: 1, max: 2, scale_up_delay: 10s}, provisioning_delay: " + provisioning,
             "replicas: 1, cold_start: {image_gb: 0, load_gb_per_s: 2, engine_init: " + engine_init +
                 "},\n"
                 "       autoscaler: {hpa: {minReplicas: 1, maxReplicas: 2, metrics: [{type: Pods, pods: {metric: "
                 "{name: 'vllm:num_requests_running'}, target: {type: AverageValue, averageValue: '1'}}}]" +
                 behavior + "}}",
             trace(name + ".csv", rows), "500s");
}

TEST(Autoscaling, PendingReplicasWaitForAProvisionedNode) {
  const Scenario s = test::load(write_file("pending.yaml", pending("pending", "")));
  const RunResult r = test::simulate_keeping_requests(s);
  const std::vector<std::array<int64_t, 4>> want{{0, 1, 1, 0}, {60, 2, 2, 1}, {430, 2, 2, 2}};
  EXPECT_EQ(counts(r), want);
  const uint32_t s1 = s.services[0].first_job + 1;
  EXPECT_EQ(r.jobs[s1].first_start, Time::from_seconds(370));
  EXPECT_DOUBLE_EQ(r.services[0].cold_start_s, 60 + 60);
  for (uint64_t id = 0; id < 4; ++id) EXPECT_EQ(test::request_row(r, id).queue_us, 60 * kS);
}

// 6. The same with a scale-down window of 0 (behavior): the four requests end at ~260 s (100
// iterations of ~2.00007 s from 60 s), and the 270 s sync finds s-0 running none: desired 1 (the
// minimum). Of s-0 (ready) and s-1 (still pending: its node comes at 370 s) the Deployment deletes the
// pending one, which never starts.
// With a cold start of 160 s and nodes in 100 s: s-0 is ready at 160 s, the 165 s sync asks 2, the
// node asked at 175 s is ready at 275 s and s-1 loads from then to 435 s; the requests end at ~360 s
// and the 375 s sync deletes s-1, loading (not ready): it leaves at once, never ready.
TEST(Autoscaling, ScaleDownDeletesThePendingPodFirst) {
  const Scenario s = test::load(
      write_file("down.yaml", pending("down", ", behavior: {scaleDown: {stabilizationWindowSeconds: 0}}")));
  const RunResult r = test::simulate_keeping_requests(s);
  const std::vector<std::array<int64_t, 4>> want{{0, 1, 1, 0}, {60, 2, 2, 1}, {270, 1, 1, 1}};
  EXPECT_EQ(counts(r), want);
  EXPECT_EQ(r.services[0].replica_starts, 1u);
  EXPECT_EQ(r.jobs[s.services[0].first_job].attempt, 1u);      // s-0 kept
  EXPECT_EQ(r.jobs[s.services[0].first_job + 1].attempt, 0u);  // s-1 never placed
  EXPECT_EQ(r.scaling[0].scale_downs, 1u);

  const Scenario slow = test::load(
      write_file("slow.yaml", pending("slow", ", behavior: {scaleDown: {stabilizationWindowSeconds: 0}}", "159s", "100s")));
  const RunResult q = test::simulate_keeping_requests(slow);
  const std::vector<std::array<int64_t, 4>> slow_want{{0, 1, 1, 0}, {160, 1, 1, 1}, {165, 2, 2, 1}, {375, 1, 1, 1}};
  EXPECT_EQ(counts(q), slow_want);
  const uint32_t s1 = slow.services[0].first_job + 1;
  EXPECT_EQ(q.jobs[s1].first_start, Time::from_seconds(275));
  EXPECT_EQ(q.jobs[s1].end, Time::from_seconds(375));
  EXPECT_EQ(q.services[0].replica_starts, 2u);
  EXPECT_DOUBLE_EQ(q.services[0].cold_start_s, 160);  // s-1 never became ready
  EXPECT_EQ(q.jobs[slow.services[0].first_job].attempt, 1u);
}

// 7. DCGM_FI_DEV_GPU_UTIL is the pod's busy share of the last sync period, x100. One replica, target
// 60, a request at 0 of `output` tokens (iterations of ~2 s): at the 15 s sync, 5 tokens keep it busy
// ~10 s: 66.7, ratio 1.11 > 1.1: ceil(1.11) = 2. 4 tokens, ~8 s: 53.3, ratio 0.89: down, but to the
// minimum 1: no change. (The horizon keeps the run going past the request.) With metrics_delay 5s the
// 15 s sync acts on readings taken at 10 s: 4 tokens keep it busy ~8 s of those 10: 80, ratio 1.33: 2.
TEST(Autoscaling, GpuUtilIsTheBusyShareOfTheSyncPeriod) {
  const auto counts_with = [](int output, const std::string& delay) {
    return counts(test::simulate_keeping_requests(test::load(
        write_file("util.yaml", toy("count: 2",
                                    "cold_start: none,\n"
                                    "       autoscaler: {metrics_delay: " +
                                        delay +
                                        ", hpa: {minReplicas: 1, maxReplicas: 2, metrics: [{type: Pods, pods: {metric: "
                                        "{name: DCGM_FI_DEV_GPU_UTIL}, target: {type: AverageValue, averageValue: '60'}}}]}}",
                                    trace("util.csv", {{0, 16, output}}), "60s")))));
  };
  const std::vector<std::array<int64_t, 4>> up{{0, 1, 1, 1}, {15, 2, 2, 2}};
  EXPECT_EQ(counts_with(5, "0s"), up);
  const std::vector<std::array<int64_t, 4>> same{{0, 1, 1, 1}};
  EXPECT_EQ(counts_with(4, "0s"), same);
  EXPECT_EQ(counts_with(4, "5s"), up);
}

}  // namespace
