// Energy accounting (issue 45; docs/guide/energy.md): a tiny run's energy per GPU, host, pool and job,
// worked out by hand from the power model (sim/power.hpp, model.yaml) and the node's host_power.
#include <gtest/gtest.h>

#include "run_util.hpp"

using namespace gpusim;

namespace {

// A node of one A100-80GB (400 W), its host drawing 100 W idle and 300 W with its GPU busy.
constexpr const char* kOneA100 = R"(
catalog:
  nodes:
    - name: one-a100
      gpu: A100-80GB-SXM
      gpus: 1
      cpu_milli: 16000
      memory_mib: 131072
      host_power: {idle_w: 100, busy_w: 300, source: "test"}
      source: "test"
)";

// Two of those nodes, PUE 1.5. `half` (training, u 0.5) holds node 0's GPU for 90 minutes; `full`
// (training, u 1) node 1's for an hour.
const std::string kTwoNodes = std::string(kOneA100) + R"(
name: tiny-energy
seed: 1
horizon: 3h
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

TEST(Energy, CarbonWeighsEachWattSecondByItsHour) {
  // The same fleet on a grid at 100, 500 and 200 gCO2e/kWh in its first, second and third hour.
  const std::string grid = test::write_file("grid.csv", "timestamp,g\n2026-01-01T00:00:00Z,100\n2026-01-01T01:00:00Z,500\n"
                                                        "2026-01-01T02:00:00Z,200\n");
  std::string text = kTwoNodes;
  text.replace(text.find("  pue: 1.5"), 10, "  pue: 1.5\n  carbon_g_per_kwh: {file: " + grid + ", column: g}");
  const Scenario s = test::load(test::write_file("carbon.yaml", text));
  const RunResult r = test::simulate_keeping_requests(s, true);
  const auto g = [](double ws, double g_per_kwh) { return ws * g_per_kwh / 3.6e6; };  // grams
  // full: its draw is constant over its hour at 100 g/kWh. half: 3,600 s at 100, 1,800 s at 500.
  const double full_ws = kPue * ((kIdleHigh + kHostIdle) + (kCapped - kIdleHigh) + kHostBusy) * 3600;
  const double half_w = kPue * ((kIdleHigh + kHostIdle) + 0.5 * (kTensorAbove + kHostBusy));
  EXPECT_NEAR(r.job_factors[1][0], full_ws * 100, 1e-6 * full_ws * 100);
  EXPECT_NEAR(r.job_factors[0][0], half_w * (3600 * 100 + 1800 * 500), 1e-6 * half_w * 3600 * 100);
  // Node 1's GPU idles after its job: 5 s with the clocks up, then low, through the second and third hours.
  const double gpu1 = g(kCapped * 3600, 100) + g(kIdleHigh * 5 + kIdleLow * 3595, 500) + g(kIdleLow * 3600, 200);
  const double host1 = g((kHostIdle + kHostBusy) * 3600, 100) + g(kHostIdle * 3600, 500) + g(kHostIdle * 3600, 200);
  const double gpu0 = g((kIdleHigh + 0.5 * kTensorAbove) * 3600, 100) +
                      g((kIdleHigh + 0.5 * kTensorAbove) * 1800 + kIdleHigh * 5 + kIdleLow * 1795, 500) + g(kIdleLow * 3600, 200);
  const double host0 = g((kHostIdle + 0.5 * kHostBusy) * 3600, 100) + g((kHostIdle + 0.5 * kHostBusy) * 1800, 500) +
                       g(kHostIdle * 1800, 500) + g(kHostIdle * 3600, 200);
  const Json j = summarize(s, r);
  const double fleet_kg = kPue * (gpu0 + gpu1 + host0 + host1) / 1e3;
  EXPECT_NEAR(j["energy"]["carbon_kg"].get<double>(), fleet_kg, 1e-6);
  EXPECT_NEAR(j["pools"][0]["energy"]["carbon_kg"].get<double>(), fleet_kg, 1e-6);
  EXPECT_NEAR(j["energy"]["jobs_carbon_kg"].get<double>(), (r.job_factors[0][0] + r.job_factors[1][0]) / 3.6e9, 1e-6);
  EXPECT_FALSE(j["energy"].contains("energy_cost_usd"));  // no price given: no figure
}

TEST(Energy, APowerLimitHoldsTheDrawAndSlowsTensorMath) {
  // One H200 (700 W) limited to 500 W, one training job (u 1, tensor math) of an hour on an H200 at its default limit.
  const Scenario s = test::load(test::write_file("capped.yaml", R"(
name: capped
seed: 1
catalog:
  nodes:
    - {name: one-h200, gpu: H200-141GB, gpus: 1, cpu_milli: 16000, memory_mib: 131072,
       host_power: {idle_w: 0, busy_w: 0, source: "test"}, source: "test"}
cluster:
  pools:
    - {name: p, node: one-h200, count: 1, power_limit_w: 500}
workload:
  jobs:
    - {name: gemm, gpus: 1, kind: training, u: 1.0, duration: 1h, reference_gpu: H200-141GB}
policy: fifo+first-fit
)"));
  const RunResult r = test::simulate_keeping_requests(s, true);
  // Held at 690 x 500 / 700 = 492.86 W (power.hpp's limited_to), at 0.7522 of its speed at 700 W
  // (Power.PowerLimitSlowsTensorMathAsTheThrottleCurveSays): 3,600 / 0.75224 = 4,785.7 s.
  const double speed = (1 - (1 - (690.0 * 5 / 7 - 121) / (569 / 0.753)) * 0.19 / 0.247) / 0.81;
  const double run_s = 3600 / speed;
  EXPECT_NEAR((r.jobs[0].end - Time()).seconds(), run_s, 1e-3);
  EXPECT_NEAR(r.metrics.gpu_energy_ws(GpuId{0}, r.jobs[0].end), 690.0 * 5 / 7 * run_s, 1.0);
  const Json j = summarize(s, r);
  EXPECT_DOUBLE_EQ(j["pools"][0]["energy"]["power_limit_w"].get<double>(), 500);
}

TEST(Energy, CarbonAwareWaitsForTheCleanestHourItsDeadlineAllows) {
  // A grid at 500, 100 and 300 gCO2e/kWh in its three hours, repeating. Three one-hour batch jobs arrive
  // at 0: `slack` may end by 3 h (its run sees 100 on average from 1 h: it waits until then), `tight` by
  // 1.5 h (its latest start, 0.5 h, comes before the grid changes: it starts at once), `free` has no
  // deadline (not deferrable: at once).
  const std::string grid = test::write_file("grid3.csv", "timestamp,g\n2026-01-01T00:00:00Z,500\n2026-01-01T01:00:00Z,100\n"
                                                         "2026-01-01T02:00:00Z,300\n");
  const Scenario s = test::load(test::write_file("shift.yaml", R"(
name: shift
seed: 1
cluster:
  carbon_g_per_kwh: {file: )" + grid + R"(, column: g}
  pools:
    - {name: p, node: dgx-a100-80gb, count: 1}
workload:
  jobs:
    - {name: slack, gpus: 1, kind: batch, duration: 1h, deadline: 3h}
    - {name: tight, gpus: 1, kind: batch, duration: 1h, deadline: 90m}
    - {name: free, gpus: 1, kind: batch, duration: 1h}
policy: fifo+carbon-aware
)"));
  const RunResult r = test::simulate_keeping_requests(s, true);
  EXPECT_EQ(r.jobs[0].first_start, Time() + Duration::from_seconds(3600));
  EXPECT_EQ(r.jobs[1].first_start, Time());
  EXPECT_EQ(r.jobs[2].first_start, Time());
  // Its energy all drawn at 100 g/kWh, the others' at 500.
  EXPECT_NEAR(r.job_factors[0][0], r.jobs[0].energy_ws * 100, 1e-6 * r.jobs[0].energy_ws * 100);
  EXPECT_NEAR(r.job_factors[1][0], r.jobs[1].energy_ws * 500, 1e-6 * r.jobs[1].energy_ws * 500);
  // With shift_by: price and no price given, nothing waits.
  Scenario p = s;
  p.policy_params = ConfigNode::parse("{shift_by: price}", "params.yaml");
  const RunResult q = test::simulate_keeping_requests(p, true);
  EXPECT_EQ(q.jobs[0].first_start, Time());
}

// Power budgets (docs/guide/energy.md#power-budgets): what a node and a claim hold, by hand. The H200 at
// its 700 W default: a node of 8 holds 8 x 121 W (idle, clocks up) + its host's 1,530 W idle; a training
// claim of one GPU holds 690 - 121 = 569 W (bf16 GEMM wants 756 W above idle, the cap allows 569) and an
// eighth of the host's 4,600 - 1,530 W; at a 500 W limit the cap is 690 x 500 / 700 = 492.86 W.
TEST(PowerBudget, NodeAndClaimHoldsByHand) {
  const ExecutionModel& m = ExecutionModel::builtin();
  const GpuModel& h200 = *Catalog::builtin().find_gpu("H200-141GB");
  const HostPower host{1530, 4600, {}, ""};
  const BoundMix& tensor = m.power.bound_by[static_cast<std::size_t>(JobKind::training)];
  EXPECT_DOUBLE_EQ(node_budget_w(m.power.of(h200), host, 8), 8 * 121.0 + 1530);
  EXPECT_NEAR(claim_budget_w(m.power.of(h200), host, 8, tensor), 569 + 3070.0 / 8, 1e-9);
  EXPECT_NEAR(claim_budget_w(m.power.of(h200, 500.0), host, 8, tensor), 690.0 * 5 / 7 - 121 + 3070.0 / 8, 1e-9);
  // FP32 math wants 464 - 121 = 343 W, under the cap: held as wanted.
  EXPECT_NEAR(claim_budget_w(m.power.of(h200), host, 8, BoundMix{0, 1, 0}), 343 + 3070.0 / 8, 1e-9);
  // A serving replica at batch 256 wants 687.7 - 121 = 566.7 W, more than the inference kind's 454.66 W:
  // an inference claim holds that.
  EXPECT_NEAR(claim_budget_w(m.power.of(h200), host, 8, m.power.serving_mix(256)), 566.7 + 3070.0 / 8, 1e-9);
}

namespace {

// The two one-A100 nodes above, two 1-GPU training jobs of an hour at time 0, and a budget of `kw`. A
// node holds 69.142857 + 100 = 169.142857 W; a training claim min(431.80, 394.285714 - 69.142857) + 200 =
// 525.142857 W (in milliwatts, rounded up: 169,143 and 525,143).
std::string budget_scenario(const std::string& pool, double kw) {
  return kOneA100 + fmt::format(R"(
name: tiny-budget
seed: 1
cluster:
  pools:
    - {}
  power_budgets:
    - {{name: rack, pools: [p], kw: {}}}
workload:
  jobs:
    - {{name: a, gpus: 1, kind: training, duration: 1h}}
    - {{name: b, gpus: 1, kind: training, duration: 1h}}
policy: fifo+first-fit
)",
                                pool, kw);
}

}  // namespace

// Two nodes hold 338.286 W of a 1 kW budget: a claim (525.143 W) fits, a second does not, so b waits an
// hour for power beside a free GPU.
TEST(PowerBudget, JobWaitsForRoom) {
  const Scenario s = test::load(test::write_file("budget.yaml", budget_scenario("{name: p, node: one-a100, count: 2}", 1.0)));
  const RunResult r = test::simulate_keeping_requests(s, true);
  EXPECT_EQ(r.jobs[0].start, Time());
  EXPECT_EQ(r.jobs[1].start, Time::from_seconds(3600));
  ASSERT_EQ(r.power_budgets.size(), 1u);
  EXPECT_EQ(r.power_budgets[0].jobs_waited, 1u);
  EXPECT_DOUBLE_EQ(r.power_budgets[0].peak_w, (2 * 169143 + 525143) / 1000.0);
  // 1.4 kW holds both.
  const Scenario roomy = test::load(test::write_file("budget.yaml", budget_scenario("{name: p, node: one-a100, count: 2}", 1.4)));
  const RunResult both = test::simulate_keeping_requests(roomy, true);
  EXPECT_EQ(both.jobs[1].start, Time());
  EXPECT_EQ(both.power_budgets[0].jobs_waited, 0u);
  EXPECT_DOUBLE_EQ(both.power_budgets[0].peak_w, 2 * (169143 + 525143) / 1000.0);
}

// An autoscaled pool of one node: a second node for b holds its idle draw and b's claim, 694.286 W. With
// 1.3 kW (605.714 W left beside a's) the autoscaler may not add it and b waits for a; with 1.5 kW it may.
TEST(PowerBudget, AutoscalerAddsOnlyWhatFits) {
  const std::string pool = "{name: p, node: one-a100, count: 1, autoscale: {min: 1, max: 2}, provisioning_delay: 10m}";
  const RunResult tight = test::simulate_keeping_requests(test::load(test::write_file("budget.yaml", budget_scenario(pool, 1.3))),
                                                          true);
  EXPECT_EQ(tight.jobs[1].start, Time::from_seconds(3600));
  EXPECT_EQ(tight.power_budgets[0].jobs_waited, 1u);
  EXPECT_EQ(tight.pools[0].nodes_requested, 0u);
  const RunResult roomy = test::simulate_keeping_requests(test::load(test::write_file("budget.yaml", budget_scenario(pool, 1.5))),
                                                          true);
  EXPECT_EQ(roomy.jobs[1].start, Time::from_seconds(610));  // the scale-up delay (model.yaml: 10 s), then 10 minutes
  EXPECT_EQ(roomy.power_budgets[0].jobs_waited, 0u);
  EXPECT_EQ(roomy.pools[0].nodes_requested, 1u);
}

TEST(PowerBudget, BadBudgetsAreNamed) {
  const auto error = [](const std::string& budgets) {
    return test::input_error([&] {
      test::load(test::write_file("bad-budget.yaml", R"(
name: bad-budget
cluster:
  pools:
    - {name: p, node: hgx-h200, count: 2}
    - {name: q, node: hgx-h200, count: 1}
  power_budgets:
)" + budgets + R"(
workload:
  jobs:
    - {name: a, gpus: 1, duration: 1h}
)"));
    });
  };
  EXPECT_NE(error("    - {name: r, pools: [z], kw: 40}").find("no pool is named 'z'"), std::string::npos);
  EXPECT_NE(error("    - {name: r, pools: [p], kw: 40}\n    - {name: s, pools: [p], kw: 40}").find("already in power budget 'r'"),
            std::string::npos);
  EXPECT_NE(
      error("    - {name: r, pools: [p], kw: 40}\n    - {name: r, pools: [q], kw: 40}").find("two power budgets are named 'r'"),
      std::string::npos);
  // Two nodes idle at 2 x (8 x 121 + 1,530) W = 4.996 kW.
  const std::string low = error("    - {name: r, pools: [p], kw: 4}");
  EXPECT_NE(low.find("4.996 kW idle"), std::string::npos) << low;
  EXPECT_NE(low.find("power_budgets"), std::string::npos) << low;
  EXPECT_NE(error("    - {name: r, pools: [p], kw: 0}").find("kw"), std::string::npos);
}

// Owned hardware (docs/guide/energy.md#owned-hardware): a node bought for 35,040 USD written off over two
// years (2 USD an hour) with 8,760 USD a year of maintenance (1 USD an hour) costs 3 USD a node-hour, and
// its electricity at 0.5 USD per kWh as it is drawn. One training job holds the node's A100 for an hour
// of a 2-hour run (PUE 1).
TEST(OwnedHardware, AmortizationPlusElectricityByHand) {
  const Scenario s = test::load(test::write_file("owned.yaml", kOneA100 + std::string(R"(
name: owned
seed: 1
horizon: 2h
cluster:
  electricity_usd_per_kwh: 0.5
  pools:
    - {name: p, node: one-a100, count: 1, market: owned,
       owned: {purchase_usd: 35040, amortization_years: 2, maintenance_usd_per_year: 8760}}
workload:
  jobs:
    - {name: full, gpus: 1, kind: training, u: 1.0, duration: 1h}
policy: fifo+first-fit
)")));
  const RunResult r = test::simulate_keeping_requests(s, true);
  constexpr double kUsdPerWs = 0.5 / 3.6e6;
  // The GPU at its cap for an hour, 5 s with the clocks up, then low; the host idle for 2 h and busy for 1 h.
  const double it_ws = kCapped * 3600 + kIdleHigh * 5 + kIdleLow * 3595 + kHostIdle * 7200 + kHostBusy * 3600;
  const double idle_ws = kIdleHigh * 3600 + kIdleHigh * 5 + kIdleLow * 3595 + kHostIdle * 7200;  // what no work drew
  EXPECT_NEAR(r.metrics.cost_usd(PoolId{0}), 3 * 2 + it_ws * kUsdPerWs, 1e-9);
  // The job: its node-hour, its claim's idle draw and what it drew above idle.
  const double job_idle_ws = (kIdleHigh + kHostIdle) * 3600, job_busy_ws = (kCapped - kIdleHigh + kHostBusy) * 3600;
  EXPECT_NEAR(r.jobs[0].cost_usd, 3 + (job_idle_ws + job_busy_ws) * kUsdPerWs, 1e-9);
  EXPECT_NEAR(r.jobs[0].busy_cost_usd, 3 + job_busy_ws * kUsdPerWs, 1e-9);
  // The pool's decomposition: busy is all the draw above idle (the job's), allocated what the job holds.
  EXPECT_NEAR(r.metrics.busy_cost_usd(PoolId{0}), 3 + (it_ws - idle_ws) * kUsdPerWs, 1e-9);
  EXPECT_NEAR(r.metrics.busy_cost_usd(PoolId{0}), r.jobs[0].busy_cost_usd, 1e-9);
  EXPECT_NEAR(r.metrics.allocated_cost_usd(PoolId{0}), r.jobs[0].cost_usd, 1e-9);
}

TEST(OwnedHardware, BadOwnedPoolsAreNamed) {
  const auto error = [](const std::string& pool, const std::string& cluster = "  electricity_usd_per_kwh: 0.1\n") {
    return test::input_error([&] {
      test::load(test::write_file("bad-owned.yaml", "name: bad-owned\ncluster:\n" + cluster + "  pools:\n    - " + pool +
                                                        "\nworkload:\n  jobs:\n    - {name: a, gpus: 1, duration: 1h}\n"));
    });
  };
  const std::string owned = "owned: {purchase_usd: 300000, amortization_years: 4}";
  EXPECT_NE(error("{name: p, node: hgx-h200, count: 1, market: owned}").find("needs an owned: block"), std::string::npos);
  EXPECT_NE(error("{name: p, node: hgx-h200, count: 1, " + owned + "}").find("applies to pools with market: owned"),
            std::string::npos);
  EXPECT_NE(error("{name: p, node: hgx-h200, count: 1, market: owned, price_per_gpu_hour_usd: 2, " + owned + "}")
                .find("price comes from its owned: block"),
            std::string::npos);
  EXPECT_NE(
      error("{name: p, node: hgx-h200, market: owned, autoscale: {min: 0, max: 2}, " + owned + "}").find("cannot autoscale"),
      std::string::npos);
  EXPECT_NE(error("{name: p, node: hgx-h200, count: 1, market: owned, " + owned + "}", "").find("pays for its electricity"),
            std::string::npos);
  EXPECT_NE(error("{name: p, node: hgx-h200, count: 1, market: owned, owned: {purchase_usd: 1, amortization_years: 0}}")
                .find("amortization_years"),
            std::string::npos);
}
