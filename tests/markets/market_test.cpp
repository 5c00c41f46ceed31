// Markets, spot reclaims, checkpointing, the autoscaler and cost (issue 5): the pure models first,
// then small scenarios whose outcome follows in closed form, then the shipped scenarios.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "gpusim/sim/autoscaler.hpp"
#include "gpusim/sim/goodput.hpp"
#include "gpusim/sim/market.hpp"
#include "gpusim/sim/metrics.hpp"
#include "run_util.hpp"

using namespace gpusim;
using test::source_path;
using test::write_file;

namespace {

Time hours(double h) { return Time::from_us(std::llround(h * 3.6e9)); }

struct Outcome {
  Scenario scenario;
  RunResult result;
  Json summary;
};

Outcome run_text(const std::string& text, std::vector<std::string> sets = {}, const std::string& policy = "") {
  Scenario s = test::load(write_file("scenario.yaml", text), std::move(sets));
  auto scheduler = Registry::global().make(policy.empty() ? s.policy : policy, policy_context(s), s.policy_where);
  RunResult r = simulate(s, *scheduler);
  Json j = summarize(s, r);
  return {std::move(s), std::move(r), std::move(j)};
}

JobId job_id(const Outcome& r, const std::string& name) {
  for (const Job& j : r.scenario.jobs.jobs)
    if (j.name == name) return j.id;
  ADD_FAILURE() << "no job " << name;
  return JobId{0};
}

const JobRecord& job(const Outcome& r, const std::string& name) { return r.result.jobs[job_id(r, name)]; }

// A one-node spot pool that the market takes away at 2 h and gives back at 4 h (1-h ticks).
std::string one_node_trace() {
  return write_file("trace.json", R"({"metadata": {"gap_seconds": 3600}, "data": [1, 1, 0, 0, 1, 1, 1, 1, 1, 1]})");
}

std::string spot_job_scenario(const std::string& trace, const std::string& checkpoint) {
  return fmt::format(R"(name: one-spot-job
cluster:
  pools:
    - name: spot
      node: l4-4x
      count: 1
      market: spot
      provisioning_delay: 0
      spot: {{availability: {{path: {}}}, notice: 2m}}
workload:
  reference_gpu: any
  jobs:
    - {{name: train, gpus: 4, kind: training, duration: 5h, checkpoint: {}}}
)",
                     trace, checkpoint);
}

}  // namespace

// --- pure models ---------------------------------------------------------------------------------

TEST(Market, HazardsFromRatesAndAwsBuckets) {
  EXPECT_DOUBLE_EQ(hazard_from_monthly_rate(73), 0.1);  // 73 per 730-h month
  // A 25% chance of an interruption within a month: P(T <= 730 h) = 1 - exp(-730 lambda).
  const double h = hazard_from_monthly_probability(0.25);
  EXPECT_NEAR(1 - std::exp(-730 * h), 0.25, 1e-12);
  // The AWS buckets (model.yaml) are monthly probabilities at their midpoints.
  const SpotModel& m = ExecutionModel::builtin().spot;
  EXPECT_DOUBLE_EQ(*m.aws_bucket("5-10%"), 0.075);
  EXPECT_DOUBLE_EQ(*m.aws_bucket(">20%"), 0.25);
  EXPECT_FALSE(m.aws_bucket("30%"));
  EXPECT_EQ(*m.notice_of("aws"), Duration::from_seconds(120));
  EXPECT_EQ(*m.notice_of("gcp"), Duration::from_seconds(30));
  EXPECT_EQ(*m.notice_of("azure"), Duration::from_seconds(30));
}

// Young/Daly: tau = sqrt(2 C M); a minute's checkpoint under a 24-h MTBF is every 53.7 minutes.
TEST(Market, YoungDalyInterval) {
  EXPECT_EQ(*young_daly_interval(Duration::from_seconds(60), 24),
            Duration::from_us(std::llround(std::sqrt(2.0 * 60 * 86400) * 1e6)));
  EXPECT_FALSE(young_daly_interval(Duration::from_seconds(60), std::numeric_limits<double>::infinity()));
}

TEST(Market, ReadsSkypilotSeries) {
  const auto s = read_skypilot_series(
      write_file("t.json", R"({"metadata": {"gap_seconds": 600}, "data": [2, 2, 0, 1], "prices": [1, 1, 2, 2]})"));
  EXPECT_EQ(s.gap, Duration::from_seconds(600));
  EXPECT_EQ(s.tick_at(Time::from_seconds(1199)), 1u);
  EXPECT_EQ(s.tick_at(Time::from_seconds(99999)), 3u);  // the last value holds
  // 2 nodes lost over (2 + 2 + 0 + 1) node-ticks of 10 min: 2 / (5/6 h).
  EXPECT_DOUBLE_EQ(s.reclaims_per_node_hour(), 2.4);
  EXPECT_EQ(s.price_per_node_hour_usd[2], 2.0);
  for (const auto& [text, field] : {std::pair{R"({"data": [1]})", "metadata.gap_seconds"},
                                    {R"({"metadata": {"gap_seconds": 60}, "data": [1, -1]})", "data"},
                                    {R"({"metadata": {"gap_seconds": 60}, "data": [1, 1], "prices": [1]})", "prices"},
                                    {R"([1, 2)", ""}}) {
    const std::string msg = test::input_error([&, t = text] { read_skypilot_series(write_file("bad.json", t)); });
    EXPECT_NE(msg.find("bad.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find(field), std::string::npos) << msg;
  }
}

// The scale-up estimate: capacity on the way first, then the cheapest pool, gangs across nodes.
TEST(Autoscaler, PacksOnTheWayThenCheapestPool) {
  const NodeShape eight{8, 81920, 64000, 512000};
  ScaleUpPlan plan;
  plan.add_pool(PoolId{0}, eight, 1, 4, 3.0);  // one node provisioning, 4 more allowed
  plan.add_pool(PoolId{1}, eight, 0, 4, 1.0);  // cheaper
  const auto job = [](uint16_t p, int32_t gpus, bool multi = false) {
    return PodDemand{PoolId{p}, gpus, kWholeGpu, 0, 1000, 1024, multi ? 8 : 1, multi, multi};
  };
  EXPECT_EQ(ScaleUp::placed, plan.place({job(0, 4), job(1, 4)}));  // fits the node on its way to pool 0
  EXPECT_EQ(ScaleUp::placed, plan.place({job(0, 4), job(1, 4)}));
  EXPECT_EQ(plan.added(PoolId{0}) + plan.added(PoolId{1}), 0u);
  EXPECT_EQ(ScaleUp::placed, plan.place({job(0, 8), job(1, 8)}));  // needs a new node: the cheaper pool
  EXPECT_EQ(plan.added(PoolId{1}), 1u);
  EXPECT_EQ(ScaleUp::placed, plan.place({job(0, 24, true), job(1, 24, true)}));  // a 3-worker gang: 3 new nodes of pool 1
  EXPECT_EQ(plan.added(PoolId{1}), 4u);
  EXPECT_EQ(ScaleUp::placed, plan.place({job(0, 8), job(1, 8)}));  // pool 1 is full: pool 0
  EXPECT_EQ(plan.added(PoolId{0}), 1u);
  EXPECT_EQ(ScaleUp::no_room, plan.place({job(0, 40, true)}));  // 5 nodes; pool 0 has room for 3 more
  EXPECT_EQ(plan.added(PoolId{0}), 1u);
}

// A gang partly fits what is free on a ready node and takes one new node for the rest.
TEST(Autoscaler, GangUsesFreeReadyCapacity) {
  ScaleUpPlan plan;
  plan.add_pool(PoolId{0}, {8, 81920, 64000, 512000}, 0, 1, 1.0);
  plan.add_free_node(PoolId{0}, std::vector<int32_t>(8, 1000), std::vector<int64_t>(8, 81920), 64000, 512000);
  EXPECT_EQ(ScaleUp::placed, plan.place({{PoolId{0}, 16, kWholeGpu, 0, 1000, 1024, 8, true, true}}));
  EXPECT_EQ(plan.added(PoolId{0}), 1u);
}

// Cost integrates billed nodes x a price that changes; the per-GPU price integral prices shares.
TEST(Metrics, CostAndLowUtilizationWindows) {
  Metrics m(1, 1, 8, Duration::from_seconds(3600), {0.5, Duration::from_seconds(1800)});
  m.set_price(PoolId{0}, 8.0, 1.0);
  m.add_capacity(PoolId{0}, 8, 1);
  m.add_busy(PoolId{0}, GpuId{0}, 1.0, Time());  // 1 of 8 GPUs busy: under 50%
  m.advance(hours(1), 0, 0);
  m.set_price(PoolId{0}, 16.0, 2.0);
  m.add_busy(PoolId{0}, GpuId{1}, 3.0, hours(1));  // 4 of 8: not under 50%
  m.advance(hours(2), 0, 0);
  m.add_busy(PoolId{0}, GpuId{1}, -3.0, hours(2));  // a 20-min dip: shorter than min_duration, not reported
  m.advance(hours(2) + Duration::from_seconds(1200), 0, 0);
  m.add_busy(PoolId{0}, GpuId{1}, 3.0, hours(2) + Duration::from_seconds(1200));
  m.advance(hours(3), 0, 0);
  m.finish(hours(3));
  EXPECT_NEAR(m.cost_usd(PoolId{0}), 8 + 16 + 16, 1e-9);
  EXPECT_NEAR(m.price_integral_usd(PoolId{0}, hours(3)), 1 + 2 + 2, 1e-9);
  EXPECT_NEAR(m.billed_node_time(PoolId{0}).seconds(), 3 * 3600, 1e-6);
  EXPECT_NEAR(m.capacity_gpu_time(PoolId{0}).seconds(), 24 * 3600, 1e-6);
  ASSERT_EQ(m.low_utilization().size(), 1u);
  EXPECT_EQ(m.low_utilization()[0].end, hours(1));
  EXPECT_NEAR(m.low_utilization()[0].cost_usd, 8, 1e-9);
}

// --- checkpoints and reclaims, in closed form ----------------------------------------------------

// On-demand: 10 h of work with a 6-min checkpoint every hour of computing ends at 10 h + 9 x 6 min
// (no checkpoint is due in the last hour), having written 9.
TEST(Checkpoint, PeriodicCheckpointsPauseTheJob) {
  const Outcome r = run_text(R"(name: ckpt
cluster: {pools: [{name: p, node: l4-4x, count: 1}]}
workload:
  reference_gpu: any
  jobs: [{name: j, gpus: 2, kind: training, duration: 10h, checkpoint: {interval: 1h, cost: 6m, restore: 1m}}]
)");
  const JobRecord& j = job(r, "j");
  EXPECT_EQ(j.end, hours(10.9));
  EXPECT_EQ(j.checkpoints, 9u);
  EXPECT_NEAR(r.summary["spot"]["gpu_hours_checkpointing"].get<double>(), 9 * 0.1 * 2, 1e-9);
  // The GPUs are idle while it writes: busy = work x u.
  EXPECT_NEAR(r.summary["gpu_hours_busy"].get<double>(), 10 * 2 * 0.95, 1e-6);
}

// The market takes the node at 2 h with a 2-min notice. A 1-min checkpoint fits the notice: the
// job saves its progress (1 h + 59 min), leaves at 2:01, and resumes when the node is back at 4 h,
// checkpointing at 5:00, 6:01 and 7:02, and ends at 7:04 having lost nothing.
TEST(Checkpoint, ACheckpointThatFitsTheNoticeLosesNothing) {
  const Outcome r = run_text(spot_job_scenario(one_node_trace(), "{interval: 1h, cost: 1m}"));
  const JobRecord& j = job(r, "train");
  EXPECT_EQ(j.status, JobStatus::completed);
  EXPECT_EQ(j.end, hours(7) + Duration::from_seconds(240));
  EXPECT_EQ(j.evictions, 1u);
  EXPECT_EQ(j.checkpoints, 5u);
  EXPECT_EQ(j.lost_gpu.us(), 0.0);
  EXPECT_EQ(r.summary["spot"]["reclaim_notices"], 1);
}

// A 3-min checkpoint does not fit: the job runs on until the node goes at 2:02 and rolls back to
// its checkpoint at 1 h, losing 59 minutes of work on 4 GPUs.
TEST(Checkpoint, ACheckpointLongerThanTheNoticeRollsBack) {
  const Outcome r = run_text(spot_job_scenario(one_node_trace(), "{interval: 1h, cost: 3m}"));
  const JobRecord& j = job(r, "train");
  EXPECT_NEAR(j.lost_work.us(), 59 * 60e6, 1);
  EXPECT_NEAR(r.summary["spot"]["gpu_hours_lost_to_rollback"].get<double>(), 4 * 59 / 60.0, 1e-6);
  // Without checkpoints it loses its 2 h 2 min of progress and starts over at 4 h.
  const Outcome none = run_text(spot_job_scenario(one_node_trace(), "none"));
  EXPECT_NEAR(job(none, "train").lost_work.us(), 122 * 60e6, 1);
  EXPECT_EQ(job(none, "train").end, hours(9));
  EXPECT_GT(job(none, "train").end, j.end);
}

// --- goodput (issue 20) --------------------------------------------------------------------------

// A job holds 4 GPUs for 10 h: 8 h computing, 1.5 h writing checkpoints, 0.5 h restoring; 20% of its
// computing time waits in collectives, and an eviction throws away 2 h of its computing. Computing
// 4 x 8 = 32 GPU-h; stall 0.2 x 32 = 6.4; re-run: the non-stalled part of those 2 h, 4 x 2 x 0.8
// = 6.4. Goodput 32 - 6.4 - 6.4 = 19.2 GPU-h of the 40 held: 48%. Checkpoints and restores are held
// but not computing, so they are not in it.
TEST(Goodput, ComputingLessStallsAndRerunWork) {
  const auto h = [](double hours) { return GpuTime::from_us(hours * 3.6e9); };
  const GpuTime g = goodput({h(32), h(6.4), h(6.4)});
  EXPECT_NEAR(g.hours(), 19.2, 1e-9);
  EXPECT_NEAR(goodput_ratio(g, h(40)), 0.48, 1e-12);
  EXPECT_EQ(goodput_ratio(g, GpuTime()), 0.0);           // nothing held
  EXPECT_EQ(goodput({h(1), h(0.5), h(0.6)}).us(), 0.0);  // never negative
}

// Per iteration 100 ms of compute at full speed, then a 25 ms collective: 20% of the time waits. At
// half speed the compute takes 200 ms and the wait is 25 / 225.
TEST(Goodput, CollectiveStallFraction) {
  const CommProfile p{0.1, 1e9, Collective::all_reduce, false};
  EXPECT_NEAR(collective_stall_fraction(1.0, p, 0.025), 0.2, 1e-12);
  EXPECT_NEAR(collective_stall_fraction(0.5, p, 0.025), 0.025 / 0.225, 1e-12);
  EXPECT_EQ(collective_stall_fraction(1.0, CommProfile{}, 0.025), 0.0);  // no profile
}

// The rollback scenario above with a collective: 525 MB all-reduced over 4 L4s (31.5 GB/s, bus
// factor 2 x 3/4) takes 25 ms after 100 ms of compute, so 20% of its computing waits. Its work is
// a duration on that same ring, so it runs at rate 1. It computes 1 h, checkpoints (3 min), computes
// 59 min until the node goes at 2:02 and loses them, restarts at 4 h, and computes its remaining 4 h
// with three more checkpoints, ending at 8:09.
//   computing 4 GPUs x (1 h + 59 min + 4 h) = 23.933 GPU-h; stall 0.2 x that = 4.787;
//   re-run 4 x 59 min x 0.8 = 3.147; goodput = 16 = 5 h of work x 4 GPUs x 0.8.
//   held 4 x (2:02 + 4:09) = 24.733 GPU-h; ratio 16 / 24.733.
TEST(Goodput, EvictionCheckpointsAndStallsByHand) {
  std::string text = spot_job_scenario(one_node_trace(), "{interval: 1h, cost: 3m}");
  const std::string plain = "kind: training, duration: 5h,";
  ASSERT_NE(text.find(plain), std::string::npos);
  text.replace(text.find(plain), plain.size(),
               "kind: training, duration: 5h, communication: {compute_per_iteration: 100ms, bytes_per_iteration: 525e6},");
  const Outcome r = run_text(text);
  const JobRecord& j = job(r, "train");
  EXPECT_EQ(j.end, hours(8) + Duration::from_seconds(9 * 60));
  EXPECT_EQ(j.checkpoints, 4u);
  const double computing = 4 * (5 + 59 / 60.0);
  EXPECT_NEAR(r.summary["goodput"]["gpu_hours_computing"].get<double>(), computing, 1e-6);
  EXPECT_NEAR(r.summary["goodput"]["gpu_hours_comm_stall"].get<double>(), 0.2 * computing, 1e-6);
  EXPECT_NEAR(r.summary["goodput"]["gpu_hours_rerun"].get<double>(), 4 * 59 / 60.0 * 0.8, 1e-6);
  EXPECT_NEAR(r.summary["gpu_hours_goodput"].get<double>(), 16, 1e-6);
  const double held = 4 * (2 + 2 / 60.0 + 4 + 9 / 60.0);
  EXPECT_NEAR(r.summary["gpu_hours_allocated"].get<double>(), held, 1e-6);
  EXPECT_NEAR(r.summary["goodput_ratio"].get<double>(), 16 / held, 1e-6);
  // Busy GPU-hours count the stalls and the lost 59 minutes; goodput does not.
  EXPECT_GT(r.summary["gpu_hours_busy"].get<double>(), r.summary["gpu_hours_goodput"].get<double>());
}

// cost.csv rolls the jobs' held GPU-hours up by tenant, job kind and GPU model; each roll-up sums to
// the total's allocated GPU-hours (every job that held GPUs is in one row of each), priced or not.
TEST(CostCsv, AllocatedGpuHoursRollUpToTheTotal) {
  const Outcome r = run_text(R"(name: rollup
cluster:
  pools:
    - {name: l4, node: l4-4x, count: 1}
    - {name: free, node: l4-4x, count: 1, price_per_node_hour_usd: 0}
workload:
  reference_gpu: any
  jobs:
    - {name: t, count: 3, gpus: 2, kind: training, duration: 2h, tenant: a}
    - {name: i, count: 4, gpus: 1, gpu_milli: 500, kind: inference, duration: 3h, tenant: b}
    - {name: n, arrival: 1h, gpus: 1, kind: notebook, duration: 30m, tenant: b}
)");
  std::ostringstream csv;
  write_cost_csv(csv, r.scenario, r.result);
  std::map<std::string, double> sums;
  std::map<std::string, int> rows;
  std::istringstream in(csv.str());
  std::string line;
  std::getline(in, line);  // header: gpu_hours_allocated is the 11th column
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cells.push_back(c);
    ASSERT_GE(cells.size(), 11u) << line;
    sums[cells[0]] += std::stod(cells[10]);
    rows[cells[0]]++;
  }
  const double total = r.summary["gpu_hours_allocated"].get<double>();
  EXPECT_NEAR(total, 3 * 2 * 2 + 4 * 3 + 0.5, 1e-6);  // a share request on an exclusive pool takes a whole GPU
  EXPECT_NEAR(sums["total"], total, 1e-6);
  EXPECT_EQ(rows["kind"], 3);
  for (const char* scope : {"tenant", "kind", "gpu_model"}) EXPECT_NEAR(sums[scope], total, 1e-5) << scope;
}

// The node costs only while the market gives it to us: 1 node x (2 h + the 2-min notice + 3 h).
TEST(Checkpoint, SpotNodesAreBilledWhileTheyExist) {
  const Outcome r = run_text(spot_job_scenario(one_node_trace(), "none"), {"horizon=7h"});
  const double price = r.scenario.pools[0].price_per_node_hour_usd;
  EXPECT_DOUBLE_EQ(price, 1.42);  // the l4-4x template's typical spot price
  EXPECT_NEAR(r.summary["cost_usd"].get<double>(), std::round(price * (5 + 2 / 60.0) * 100) / 100, 1e-9);
  EXPECT_NEAR(r.summary["pools"][0]["node_hours_billed"].get<double>(), 5 + 2 / 60.0, 1e-6);  // rounded to 6 digits
}

// interval: auto takes Young/Daly's optimum from the pool's hazard. The trace loses one node in 19
// node-hours (MTBF 19 h); with a 72-s checkpoint, tau = sqrt(2 x 72 s x 68,400 s) = 3,138 s, so a
// 1-h job checkpoints once and ends at 1 h + 72 s.
TEST(Checkpoint, AutoIntervalIsYoungDaly) {
  const std::string trace = write_file(
      "t.json", R"({"metadata": {"gap_seconds": 3600}, "data": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1]})");
  const Outcome r = run_text(fmt::format(R"(name: auto
cluster:
  pools:
    - {{name: s, node: l4-4x, count: 1, market: spot, spot: {{availability: {{path: {}}}}}}}
workload:
  reference_gpu: any
  jobs: [{{name: j, gpus: 1, kind: training, duration: 1h, checkpoint: {{interval: auto, cost: 72s}}}}]
)",
                                         trace));
  const JobRecord& j = job(r, "j");
  EXPECT_EQ(j.checkpoints, 1u);
  EXPECT_EQ(j.end, Time::from_seconds(3600 + 72));
  // On an on-demand pool nothing interrupts it: no checkpoint at all.
  const Outcome od = run_text(fmt::format(R"(name: auto
cluster: {{pools: [{{name: p, node: l4-4x, count: 1}}]}}
workload:
  reference_gpu: any
  jobs: [{{name: j, gpus: 1, kind: training, duration: 1h, checkpoint: {{interval: auto, cost: 72s}}}}]
)"));
  EXPECT_EQ(job(od, "j").checkpoints, 0u);
  EXPECT_EQ(job(od, "j").end, hours(1));
}

// Poisson reclaims are drawn from the pool's own stream: same seed, same run; a higher rate evicts
// more; without checkpoints more work is lost than with them.
TEST(Spot, PoissonReclaimsAreSeededAndScaleWithTheRate) {
  const std::string base = R"(name: poisson
horizon: 20d
cluster:
  pools:
    - {name: s, node: dgx-a100-80gb, autoscale: {min: 0, max: 8}, market: spot, spot: {interruptions_per_node_month: 30}}
workload:
  reference_gpu: any
  jobs: [{name: t, count: 8, gpus: 8, kind: training, duration: 48h, checkpoint: {interval: 1h, cost: 3m, restore: 3m}}]
)";
  const Outcome a = run_text(base), b = run_text(base);
  EXPECT_EQ(a.summary.dump(), b.summary.dump());
  EXPECT_GT(a.summary["spot"]["evictions"].get<int>(), 0);
  const Outcome more = run_text(base, {"cluster.pools.0.spot.interruptions_per_node_month=300"});
  EXPECT_GT(more.summary["spot"]["evictions"].get<int>(), a.summary["spot"]["evictions"].get<int>());
  const Outcome none = run_text(base, {"workload.jobs.0.checkpoint=none"});
  EXPECT_GT(none.summary["spot"]["gpu_hours_lost_to_rollback"].get<double>(),
            a.summary["spot"]["gpu_hours_lost_to_rollback"].get<double>());
  // The cost of what jobs held and of idle capacity adds up to the bill.
  const Json& c = a.summary["cost"];
  EXPECT_NEAR(c["idle_usd"].get<double>() + c["allocated_usd"].get<double>(), c["total_usd"].get<double>(), 0.02);
  EXPECT_NEAR(c["by_kind"]["training"]["cost_usd"].get<double>(), c["allocated_usd"].get<double>(), 0.02);
}

// A trace's price series bills each tick at its price.
TEST(Spot, TracePricesAreBilledPerTick) {
  const std::string trace = write_file("priced.json",
                                       R"({"metadata": {"gap_seconds": 3600}, "data": [1, 1, 1], "prices": [1.0, 3.0, 2.0]})");
  const Outcome r = run_text(fmt::format(R"(name: priced
horizon: 3h
cluster:
  pools:
    - {{name: s, node: l4-4x, count: 1, market: spot, spot: {{availability: {{path: {}, prices: true}}}}}}
workload:
  reference_gpu: any
  jobs: [{{name: j, gpus: 4, duration: 3h}}]
)",
                                         trace));
  EXPECT_NEAR(r.summary["cost_usd"].get<double>(), 6.0, 1e-9);
  EXPECT_NEAR(job(r, "j").cost_usd, 6.0, 1e-9);  // it held the whole node throughout
}

// --- policy ----------------------------------------------------------------------------------------

// spot-aware: checkpointable training goes to spot, inference and training without checkpoints to
// on-demand; a training job that finds spot full waits, then falls back after spot_fallback_after.
TEST(SpotAware, PrefersSpotForCheckpointableTrainingAndFallsBack) {
  const std::string text = R"(name: spot-aware
cluster:
  pools:
    - {name: spot, node: l4-4x, count: 1, market: spot, spot: {interruptions_per_node_month: 0}}
    - {name: od, node: l4-4x, count: 1}
workload:
  reference_gpu: any
  jobs:
    - {name: t1, gpus: 4, kind: training, duration: 4h, checkpoint: {interval: 1h, cost: 0}}
    - {name: infer, gpus: 1, kind: inference, duration: 4h}
    - {name: plain, gpus: 1, kind: training, duration: 4h}
    - {name: t2, gpus: 2, kind: training, duration: 1h, arrival: 60, checkpoint: {interval: 1h, cost: 0}}
policy: {name: fifo+spot-aware, params: {spot_fallback_after: 30m}}
)";
  const Outcome r = run_text(text);
  const auto pool_of = [](const Outcome& run, const std::string& name) {
    return run.result.cluster.pool_of(run.result.placement(job_id(run, name)).nodes.front()).name;
  };
  EXPECT_EQ(pool_of(r, "t1"), "spot");
  EXPECT_EQ(pool_of(r, "infer"), "od");
  EXPECT_EQ(pool_of(r, "plain"), "od");
  EXPECT_EQ(pool_of(r, "t2"), "od");
  EXPECT_EQ(job(r, "t2").first_start, Time::from_seconds(60 + 1800));  // waited exactly the threshold
  // A spot-unaware placement (the policy parameter is known, and ignored by it) fills spot with
  // whatever comes first: the inference job lands there.
  const Outcome first_fit = run_text(text, {}, "fifo+first-fit");
  EXPECT_EQ(pool_of(first_fit, "t1"), "spot");
  EXPECT_EQ(pool_of(first_fit, "infer"), "od");
  EXPECT_EQ(pool_of(first_fit, "t2"), "od");
  EXPECT_EQ(job(first_fit, "t2").first_start, Time::from_seconds(60));
}

// spot-aware's wait counts over all of a job's waits (issue 23): on a spot node the market takes away
// every other half hour, a job that waits 30 min after each eviction has waited its hour in all at
// its second wait's end (2 h): it takes spot once more (preferred while free), and when evicted at
// 2.5 h it goes to on-demand at once. Counted from its last eviction, it never fell back.
TEST(SpotAware, FallsBackOnceItsWaitsAddUp) {
  const std::string trace = write_file(
      "trace.json", R"({"metadata": {"gap_seconds": 1800}, "data": [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0]})");
  const Outcome r = run_text(fmt::format(R"(name: flapping-spot
cluster:
  pools:
    - {{name: spot, node: l4-4x, count: 1, market: spot, provisioning_delay: 0, spot: {{availability: {{path: {}}}}}}}
    - {{name: od, node: l4-4x, count: 1}}
workload:
  reference_gpu: any
  jobs:
    - {{name: t, gpus: 1, kind: training, duration: 10h, checkpoint: {{interval: 1h, cost: 0}}}}
policy: {{name: fifo+spot-aware, params: {{spot_fallback_after: 1h}}}}
)",
                                         trace));
  const JobRecord& t = job(r, "t");
  EXPECT_EQ(t.evictions, 3u);
  EXPECT_EQ(t.start, hours(2.5));  // its last start, on on-demand
  EXPECT_EQ(r.result.cluster.pool_of(r.result.placement(job_id(r, "t")).nodes.front()).name, "od");
  EXPECT_EQ(t.end, hours(11));  // 1.5 h done on spot
}

// --- the shipped scenarios -----------------------------------------------------------------------

namespace {

// Each variant of a shipped scenario, run: label -> summary.
std::map<std::string, Json> variants(const std::string& file) {
  const Scenario base = test::load(source_path(file));
  std::map<std::string, Json> out;
  for (const auto& v : base.variants) out[v.name] = test::run(test::load(source_path(file), v.overrides));
  return out;
}

double cost(const Json& j) { return j["cost_usd"].get<double>(); }

}  // namespace

// The common claim: spot cuts GPU cost 60-90%; training needs checkpoints to survive reclaims.
TEST(ShippedScenarios, SpotTraining) {
  auto v = variants("scenarios/spot-training.yaml");
  const Json& od = v["on-demand"];
  const Json& spot = v["spot"];
  const Json& no_ckpt = v["spot no-ckpt"];
  for (const auto& [name, j] : v) EXPECT_EQ(j["jobs_total"], 8) << name;
  EXPECT_EQ(od["jobs_completed"], 8);
  EXPECT_EQ(spot["jobs_completed"], 8);
  const double saving = 1 - cost(spot) / cost(od);
  EXPECT_GE(saving, 0.60);
  EXPECT_LE(saving, 0.90);
  EXPECT_GT(spot["spot"]["evictions"].get<int>(), 0);
  EXPECT_GT(spot["spot"]["gpu_hours_lost_to_rollback"].get<double>(), 0);  // reported, and small
  EXPECT_LT(spot["spot"]["gpu_hours_lost_to_rollback"].get<double>(), 0.05 * spot["gpu_hours_busy"].get<double>());
  // Without checkpoints the same reclaims throw away far more work and the batch takes longer.
  EXPECT_GT(no_ckpt["spot"]["gpu_hours_lost_to_rollback"].get<double>(),
            10 * spot["spot"]["gpu_hours_lost_to_rollback"].get<double>());
  EXPECT_GT(no_ckpt["makespan_s"].get<double>(), 2 * spot["makespan_s"].get<double>());
  EXPECT_GT(no_ckpt["jct_s"]["mean"].get<double>(), spot["jct_s"]["mean"].get<double>());
  // The sweep: cost grows with the interruption rate; checkpointed spot still pays at 300 a
  // node-month and no longer at 1000; without checkpoints it stops paying between 3 and 30.
  EXPECT_LT(cost(spot), cost(v["spot 100/mo"]));
  EXPECT_LT(cost(v["spot 100/mo"]), cost(v["spot 300/mo"]));
  EXPECT_LT(cost(v["spot 300/mo"]), cost(od));
  EXPECT_GT(cost(v["spot 1000/mo"]), cost(od));
  EXPECT_LT(cost(v["no-ckpt 3/mo"]), cost(od));
  EXPECT_GT(cost(v["no-ckpt 30/mo"]), cost(od));
}

TEST(ShippedScenarios, SpotTrace) {
  auto v = variants("scenarios/spot-trace.yaml");
  const Json& mixed = v["spot + on-demand"];
  const Json& spot_only = v["spot only"];
  const Json& od_only = v["on-demand only"];
  for (const Json* j : {&mixed, &spot_only, &od_only}) EXPECT_EQ((*j)["jobs_completed"], 150);
  EXPECT_GT(mixed["spot"]["evictions"].get<int>(), 0);
  EXPECT_EQ(od_only["cost"]["by_market_usd"].value("spot", 0.0), 0.0);  // jobs without checkpoints stay off spot
  EXPECT_EQ(spot_only["cost"]["by_market_usd"].value("on-demand", 0.0), 0.0);
  // Spot with an on-demand fallback is cheaper than on-demand and much faster than spot alone.
  EXPECT_LT(cost(mixed), cost(od_only));
  EXPECT_LT(cost(spot_only), cost(mixed));
  EXPECT_GT(spot_only["jct_s"]["mean"].get<double>(), 3 * mixed["jct_s"]["mean"].get<double>());
  // The spot pool never holds more nodes than the trace has (16 at most).
  EXPECT_LE(mixed["pools"][0]["gpus_peak"].get<int>(), 16);
}

// An autoscaled pool builds a node slot when it first provisions it (issue 19): with a maximum of a
// million nodes the burst runs exactly as with a maximum of eight, the pool holds the five nodes it
// had, and the pool after it keeps the ids it always had (they are reserved past the maximum).
TEST(Autoscaler, BuildsOnlyTheSlotsItProvisions) {
  const std::string text = R"(name: lazy
seed: 1
horizon: 6h
cluster:
  pools:
    - {name: a, node: dgx-a100-80gb, count: 1, autoscale: {min: 1, max: 1000000}}
    - {name: b, node: l4-4x, count: 1}
workload:
  reference_gpu: any
  jobs:
    - {name: small, count: 4, gpus: 1, gpu_memory_mib: 20000, duration: 3h, arrival: 0}
    - {name: burst, count: 40, gpus: 1, gpu_memory_mib: 40000, duration: 2h, arrival: 1h}
policy: fifo+best-fit
)";
  Outcome big = run_text(text), eight = run_text(text, {"cluster.pools.0.autoscale.max=8"});
  const Cluster& c = big.result.cluster;
  EXPECT_EQ(big.summary["pools"][0]["autoscale"]["nodes_requested"], 4);
  EXPECT_EQ(c.pool(PoolId{0}).built, 5u);
  EXPECT_EQ(c.pool(PoolId{0}).gpus_built, 40u);
  EXPECT_EQ(c.node_count(), 1000001u);
  EXPECT_EQ(c.pool(PoolId{1}).first_gpu, 8000000u);
  EXPECT_TRUE(c.has_node(NodeId{4}));
  EXPECT_FALSE(c.has_node(NodeId{5}));
  EXPECT_EQ(c.slot_node(NodeId{999999}).name, "a-999999");
  EXPECT_EQ(c.slot_node(NodeId{999999}).state, NodeState::off);
  EXPECT_EQ(c.slot_gpu(GpuId{7999999}).node, 999999u);
  EXPECT_EQ(c.node(NodeId{1000000}).name, "b-0");
  // The same run: only the slot counts (nodes, GPUs, the maximum) differ.
  for (Json* s : {&big.summary, &eight.summary}) {
    s->erase("gpus");
    for (const char* key : {"nodes", "gpus"}) (*s)["pools"][0].erase(key);
    (*s)["pools"][0]["autoscale"].erase("max");
  }
  EXPECT_EQ(big.summary.dump(), eight.summary.dump());
}

// The burst waits the scale-up delay plus the provisioning delay; the added nodes are removed an
// idle period after the burst, and the pool is back to its minimum. Cost: node 0 for 12 h plus six
// nodes from their request (1 h + 10 s) until 10 min after the burst ends (1:05:10 + 2 h).
TEST(ShippedScenarios, Autoscale) {
  auto v = variants("scenarios/autoscale.yaml");
  const Json& as = v["autoscaled 1-8"];
  EXPECT_EQ(as["jobs_completed"], 48);
  EXPECT_EQ(as["queue_delay_s"]["p50"], 310.0);  // 10 s + 300 s
  EXPECT_EQ(as["pools"][0]["autoscale"]["nodes_requested"], 6);
  EXPECT_EQ(as["pools"][0]["autoscale"]["nodes_removed"], 6);
  const double node_hours = 12 + 6 * (3910.0 + 7200 + 600 - 3610) / 3600;
  EXPECT_NEAR(cost(as), 27.45 * node_hours, 0.011);
  EXPECT_LT(cost(as), cost(v["fixed 8 nodes"]));
  EXPECT_GT(v["fixed 1 node"]["queue_delay_s"]["mean"].get<double>(), 10 * as["queue_delay_s"]["mean"].get<double>());
  EXPECT_EQ(v["fixed 8 nodes"]["queue_delay_s"]["p99"], 0.0);
}
