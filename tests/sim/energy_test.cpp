// Energy accounting (issue 45; docs/guide/energy.md): a tiny run's energy per GPU, host, pool and job,
// worked out by hand from the power model (sim/power.hpp, model.yaml) and the node's host_power.
#include <gtest/gtest.h>

#include "run_util.hpp"

using namespace gpusim;

namespace {

// Two nodes of one A100-80GB (400 W) each, hosts drawing 100 W idle and 300 W with their GPU busy, PUE 1.5.
// `half` (training, u 0.5) holds node 0's GPU for 90 minutes; `full` (training, u 1) node 1's for an hour.
constexpr const char* kTwoNodes = R"(
name: tiny-energy
seed: 1
horizon: 3h
catalog:
  nodes:
    - name: one-a100
      gpu: A100-80GB-SXM
      gpus: 1
      cpu_milli: 16000
      memory_mib: 131072
      host_power: {idle_w: 100, busy_w: 300, source: "test"}
      source: "test"
cluster:
  pue: 1.5
  pools:
    - {name: p, node: one-a100, count: 2, price_per_gpu_hour_usd: 2}
workload:
  jobs:
    - {name: half, gpus: 1, kind: training, u: 0.5, duration: 90m}
    - {name: full, gpus: 1, kind: training, u: 1.0, duration: 1h}
policy: fifo+first-fit
)";

// The H200's watts x 400 / 700 (model.yaml): idle 44 W, 69.142857 W with the clocks up (5 s after
// work), capped at 394.285714 W; tensor math at full clock 69.142857 + 325.142857 / 0.753 W.
constexpr double kIdleLow = 77.0 * 4 / 7, kIdleHigh = 121.0 * 4 / 7, kCapped = 690.0 * 4 / 7;
constexpr double kTensorAbove = (kCapped - kIdleHigh) / 0.753;  // 431.796623 W above idle_high
constexpr double kPue = 1.5, kHostIdle = 100, kHostBusy = 200;  // busy: above idle, with the GPU busy

}  // namespace

TEST(Energy, TwoJobsByHand) {
  const Scenario s = test::load(test::write_file("energy.yaml", kTwoNodes));
  const RunResult r = test::simulate_keeping_requests(s, true);  // audited: its energy integral checked too
  // half: 0.5 x 431.80 = 215.90 W above idle_high, under the cap (scale 1), for 5,400 s; then 5 s with the
  // clocks up and 5,395 s at idle_low.
  const double gpu0 = (kIdleHigh + 0.5 * kTensorAbove) * 5400 + kIdleHigh * 5 + kIdleLow * 5395;
  // full: 431.80 W wanted, held at the cap (scale 0.753) for 3,600 s; then 5 s up, 7,195 s low.
  const double gpu1 = kCapped * 3600 + kIdleHigh * 5 + kIdleLow * 7195;
  // Hosts: 100 W for 3 h, plus 200 W x the GPU's busy fraction while it is busy.
  const double host0 = kHostIdle * 10800 + kHostBusy * 0.5 * 5400, host1 = kHostIdle * 10800 + kHostBusy * 1.0 * 3600;
  // A job pays the share of its GPU and host idle draw it holds, and its busy share of what it draws above idle
  // (its demand at the GPU's scale, and the host's busy part), all x the PUE.
  const double half = kPue * ((kIdleHigh + kHostIdle) * 5400 + 0.5 * (kTensorAbove + kHostBusy) * 5400);
  const double full = kPue * ((kIdleHigh + kHostIdle) * 3600 + 1.0 * ((kCapped - kIdleHigh) + kHostBusy) * 3600);
  EXPECT_NEAR(r.jobs[0].energy_ws, half, 1e-6 * half);  // 3,928,833 W s = 1.0913 kWh
  EXPECT_NEAR(r.jobs[1].energy_ws, full, 1e-6 * full);  // 3,749,143 W s = 1.0414 kWh
  const PoolEnergy& e = r.metrics.pool_energy(PoolId{0});
  EXPECT_NEAR(e.gpu_ws, gpu0 + gpu1, 1e-6 * (gpu0 + gpu1));
  EXPECT_NEAR(e.host_ws, host0 + host1, 1e-6 * (host0 + host1));
  EXPECT_NEAR(r.metrics.gpu_energy_ws(GpuId{0}, r.end), gpu0, 1e-6 * gpu0);

  const Json j = summarize(s, r);
  const double facility_kwh = kPue * (gpu0 + gpu1 + host0 + host1) / 3.6e6;  // 2.8889 kWh
  EXPECT_NEAR(j["energy"]["kwh"].get<double>(), facility_kwh, 1e-6);
  EXPECT_NEAR(j["energy"]["jobs_kwh"].get<double>(), (half + full) / 3.6e6, 1e-6);
  EXPECT_NEAR(j["energy"]["unallocated_kwh"].get<double>(), facility_kwh - (half + full) / 3.6e6, 1e-6);
  EXPECT_NEAR(j["energy"]["average_power_kw"].get<double>(), facility_kwh / 3, 1e-6);
  EXPECT_DOUBLE_EQ(j["pools"][0]["energy"]["pue"].get<double>(), 1.5);
  EXPECT_NEAR(j["pools"][0]["energy"]["host_kwh"].get<double>(), (host0 + host1) / 3.6e6, 1e-6);
}

TEST(Energy, UnpoweredNodesDrawNothing) {
  // The same fleet with the second node requested only by the autoscaler: while it is off it draws nothing.
  Scenario s = test::load(test::write_file("energy.yaml", kTwoNodes));
  s.pools[0].initial_nodes = 1;
  const RunResult r = test::simulate_scenario(s);
  EXPECT_EQ(r.metrics.gpu_energy_ws(GpuId{1}, r.end), 0.0);
}
