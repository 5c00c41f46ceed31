// Deadlines and the Can't Be Late spot policies (issue 23): the rules one by one, then one job on a
// hand-written spot trace whose outcome under each policy is worked out by hand below.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "gpusim/policies/cant_be_late.hpp"
#include "run_util.hpp"

using namespace gpusim;
using namespace gpusim::cbl;
using test::write_file;

namespace {

Duration h(double hours) { return Duration::from_us(std::llround(hours * 3.6e9)); }

// C(0) = 4 h, R(0) = 6 h (ep grows 2/3 h an hour), d = 15 min.
JobClock at(double elapsed_h, double remaining_h) { return {h(4), h(6), h(elapsed_h), h(remaining_h), h(0.25)}; }

}  // namespace

TEST(CantBeLateRules, SlackAndSafetyNet) {
  EXPECT_EQ(slack(at(1, 3.25)), h(1.75));  // R = 5, C = 3.25
  EXPECT_FALSE(safety_net(at(1, 3.25)));
  EXPECT_TRUE(safety_net(at(2.25, 3.25)));  // R - C = 0.5 = 2d: already
  EXPECT_TRUE(safety_net(at(3, 2.75)));
  EXPECT_EQ(safety_net_at(at(1, 3.25)), h(2.25));  // idle: the slack falls an hour an hour
  EXPECT_EQ(safety_net_at(at(2.25, 3.25)), std::nullopt);
}

TEST(CantBeLateRules, UniformProgress) {
  // cp = 0.75 h; ep(1 h) = 0.667 h: ahead; ep(1.125 h) = 0.75 h: not yet behind (strictly).
  EXPECT_FALSE(behind(at(1, 3.25)));
  EXPECT_FALSE(behind(at(1.125, 3.25)));
  EXPECT_TRUE(behind(at(1.2, 3.25)));
  EXPECT_EQ(behind_at(at(1, 3.25)), h(1.125) + Duration::from_us(1));  // the first microsecond behind
  EXPECT_EQ(behind_at(at(1.2, 3.25)), std::nullopt);
  // Hysteresis: cp(t) >= ep(t + 2d). At 2 h with cp = 1.375 h: ep(2.5 h) = 1.667 h, not met. Computing
  // on, cp + (t' - 2) >= (t' + 0.5) 2/3 from t' = 2.875 h (cp 2.25 h = ep(3.375 h)).
  EXPECT_FALSE(hysteresis_met(at(2, 2.625)));
  EXPECT_EQ(hysteresis_at(at(2, 2.625)), h(2.875));
  EXPECT_TRUE(hysteresis_met(at(2.875, 1.75)));
  EXPECT_EQ(hysteresis_at(at(2.875, 1.75)), std::nullopt);
  // With R(0) <= C(0) ep grows as fast as any progress: never.
  EXPECT_EQ(hysteresis_at({h(4), h(4), h(1), h(3.5), h(0.25)}), std::nullopt);
}

TEST(CantBeLateRules, Decisions) {
  const JobClock ahead = at(1, 3.25), late = at(1.2, 3.25), net = at(3, 2.5), od_behind = at(2, 2.625);
  // Exploitation: nothing leaves a spot instance of its own accord, even past the Safety Net.
  for (Rule r : {Rule::greedy, Rule::uniform_plain, Rule::uniform_progress, Rule::spot})
    EXPECT_EQ(decide(r, Where::spot, false, net), Where::spot);
  // The Safety Net sends an idle job to on-demand, spot or not, and keeps it there.
  for (Rule r : {Rule::greedy, Rule::uniform_plain, Rule::uniform_progress}) {
    EXPECT_EQ(decide(r, Where::idle, true, net), Where::on_demand);
    EXPECT_EQ(decide(r, Where::on_demand, true, net), Where::on_demand);
  }
  // Greedy waits for spot however far behind, and stays on on-demand.
  EXPECT_EQ(decide(Rule::greedy, Where::idle, false, late), Where::idle);
  EXPECT_EQ(decide(Rule::greedy, Where::idle, true, late), Where::spot);
  EXPECT_EQ(decide(Rule::greedy, Where::on_demand, true, od_behind), Where::on_demand);
  // Uniform progress: idle and behind -> on-demand; spot whenever free (Taking Risks).
  for (Rule r : {Rule::uniform_plain, Rule::uniform_progress}) {
    EXPECT_EQ(decide(r, Where::idle, false, ahead), Where::idle);
    EXPECT_EQ(decide(r, Where::idle, false, late), Where::on_demand);
    EXPECT_EQ(decide(r, Where::idle, true, late), Where::spot);
    EXPECT_EQ(decide(r, Where::on_demand, false, od_behind), Where::on_demand);
  }
  // From on-demand to a free spot: plain at once, the paper's only past the hysteresis.
  EXPECT_EQ(decide(Rule::uniform_plain, Where::on_demand, true, od_behind), Where::spot);
  EXPECT_EQ(decide(Rule::uniform_progress, Where::on_demand, true, od_behind), Where::on_demand);
  EXPECT_EQ(decide(Rule::uniform_progress, Where::on_demand, true, at(2.875, 1.75)), Where::spot);
  // The single-market rules.
  EXPECT_EQ(decide(Rule::on_demand, Where::idle, true, ahead), Where::on_demand);
  EXPECT_EQ(decide(Rule::spot, Where::idle, false, net), Where::idle);
  EXPECT_EQ(decide(Rule::spot, Where::idle, true, net), Where::spot);
}

namespace {

struct Outcome {
  Scenario scenario;
  RunResult result;
  Json summary;
  const JobRecord& job() const { return result.jobs[JobId{0}]; }
};

// One 4-h job, deadline 6 h, restart overhead 15 min, on one spot instance (1 USD/h) whose trace (1-h
// ticks) has it in [0, 1) and [2, 3) only, or one on-demand instance (3 USD/h). A reclaimed job saves
// at the notice (checkpoint cost 0) and loses nothing but the overhead of its next start.
Outcome run_policy(const std::string& placement) {
  const std::string trace = write_file("trace.json",
                                       R"({"metadata": {"gap_seconds": 3600}, "data": [1, 0, 1, 0, 0, 0, 0, 0, 0, 0]})");
  const std::string text = fmt::format(R"(name: one-deadline-job
horizon: 10h
catalog:
  nodes:
    - {{name: v1, gpu: V100-16GB, gpus: 1, cpu_milli: 8000, memory_mib: 60000, price_per_node_hour_usd: 3,
       spot_price_per_node_hour_usd: 1, source: test}}
cluster:
  pools:
    - {{name: spot, node: v1, count: 1, market: spot, provisioning_delay: 0, spot: {{availability: {{path: {}}}}}}}
    - {{name: od, node: v1, count: 1, provisioning_delay: 0}}
workload:
  reference_gpu: any
  jobs:
    - {{name: j, gpus: 1, kind: training, duration: 4h, deadline: 6h,
       checkpoint: {{interval: 1h, cost: 0, restart_overhead: 15m}}}}
policy: fifo+{}
)",
                                       trace, placement);
  Scenario s = test::load(write_file("scenario.yaml", text));
  RunResult r = test::simulate_scenario(s);
  Json j = summarize(s, r);
  return {std::move(s), std::move(r), std::move(j)};
}

double end_h(const Outcome& r) { return (r.job().end - Time()).hours(); }

}  // namespace

// By hand (hours; a start pays 0.25 before computing; cp = work done, ep(t) = 2t/3, 2d = 0.5):
// - greedy: spot [0, 1) computes 0.75. Idle at 1 (R - C = 5 - 3.25 = 1.75): waits; spot again at 2
//   (before its Safety Net at 2.25): computes [2.25, 3), cp 1.5. Reclaimed at 3: R - C = 3 - 2.5 = 0.5,
//   the Safety Net: on-demand, computes [3.25, 5.75). Ends 5.75; 2 h spot + 2.75 h on-demand = 10.25 USD.
// - uniform-plain: idle at 1 with cp 0.75 = ep(1.125): on-demand at 1.125, computes from 1.375. Spot at
//   2 (cp 1.375): moves at once, computes [2.25, 3), cp 2.125. Reclaimed at 3: behind after 3.1875,
//   on-demand computes the last 1.875 in [3.4375, 5.3125). 2 h spot + (0.875 + 2.125) h on-demand = 11 USD.
// - uniform-progress: on-demand at 1.125 too; spot at 2 but cp 1.375 < ep(2.5) = 1.667: it stays until
//   cp meets ep(t + 0.5) at 2.875 (cp 2.25), moves to spot, and loses it at 3 while still starting.
//   Behind after 3.375: on-demand computes 1.75 in [3.625, 5.375). 1.125 h spot + 3.75 h on-demand =
//   12.375 USD: the hysteresis waited for progress the spot was gone before it could use.
// - on-demand: [0, 4.25), 12.75 USD. spot: 2 h of spot, then no spot to the end: 1.5 h short, missed.
// (A uniform-progress switch to on-demand comes 1 us after cp = ep, the first instant it is behind.)
TEST(CantBeLate, OneJobOnAHandWrittenTrace) {
  const double us_h = 1 / 3.6e9;
  const Outcome greedy = run_policy("cbl-greedy");
  EXPECT_NEAR(end_h(greedy), 5.75, us_h);
  EXPECT_NEAR(greedy.job().cost_usd, 10.25, 1e-6);
  const Outcome plain = run_policy("cbl-uniform-plain");
  EXPECT_NEAR(end_h(plain), 5.3125, 3 * us_h);
  EXPECT_NEAR(plain.job().cost_usd, 11.0, 1e-5);
  const Outcome up = run_policy("cbl-uniform-progress");
  EXPECT_NEAR(end_h(up), 5.375, 3 * us_h);
  EXPECT_NEAR(up.job().cost_usd, 12.375, 1e-5);
  EXPECT_EQ(up.job().preemptions, 1u);  // its one move from on-demand to spot
  const Outcome od = run_policy("cbl-on-demand");
  EXPECT_NEAR(end_h(od), 4.25, us_h);
  EXPECT_NEAR(od.job().cost_usd, 12.75, 1e-6);
  for (const Outcome* r : {&greedy, &plain, &up, &od}) {
    EXPECT_EQ(r->summary["deadlines_met"], 1);
    EXPECT_EQ(r->summary["deadlines_missed"], 0);
    EXPECT_EQ(r->summary["lateness_max_s"], 0);
  }
  const Outcome spot = run_policy("cbl-spot");
  EXPECT_NE(spot.job().status, JobStatus::completed);
  EXPECT_NEAR(spot.job().cost_usd, 2.0, 1e-6);
  EXPECT_EQ(spot.summary["deadlines_met"], 0);
  EXPECT_EQ(spot.summary["deadlines_missed"], 1);
  EXPECT_TRUE(spot.summary["lateness_mean_s"].is_null());  // it never ended
}

// A run without deadlines reports none of their figures.
TEST(CantBeLate, NoDeadlineNoFigures) {
  const Json j = test::run(test::load(test::source_path("scenarios/quickstart.yaml")));
  EXPECT_FALSE(j.contains("deadlines_met"));
  EXPECT_FALSE(j.contains("lateness_mean_s"));
}

// The offset starts the run that many whole ticks into the trace (a partial tick counts whole, as
// the paper's simulator rounds up), and the deadline is after each job's own arrival.
TEST(CantBeLate, TraceOffsetAndDeadlines) {
  const Scenario s = test::load(test::source_path("scenarios/cant-be-late.yaml"),
                                {"cluster.pools[0].spot.availability.offset=601s", "workload.jobs[0].arrival=1h"});
  const Scenario whole = test::load(test::source_path("scenarios/cant-be-late.yaml"));
  const AvailabilitySeries& full = *whole.pools[0].spot.availability;
  const AvailabilitySeries& cut = *s.pools[0].spot.availability;
  ASSERT_EQ(cut.available.size(), full.available.size() - 2);
  EXPECT_TRUE(std::equal(cut.available.begin(), cut.available.end(), full.available.begin() + 2));
  EXPECT_EQ(s.jobs.deadline(s.jobs.jobs[0]), h(52));
}

// Deadlines follow their jobs when jobs from several sources are sorted by arrival (JobSet keeps them
// beside the jobs), and jobs.csv has their columns.
TEST(CantBeLate, DeadlinesFollowTheirJobs) {
  const Scenario s = test::load(write_file("scenario.yaml", R"(name: deadlines
cluster: {pools: [{name: p, node: l4-4x, count: 1}]}
workload:
  reference_gpu: any
  jobs:
    - {name: late, gpus: 1, duration: 1h, arrival: 5h, deadline: 1h}
    - {name: none, gpus: 1, duration: 1h, arrival: 1h}
  generator:
    classes: [{name: g, count: 2, gpus: 1, duration: 1h, arrival: {start: 2h}, deadline: 3h}]
)"));
  std::map<std::string, std::optional<Duration>> by_name;
  for (const Job& j : s.jobs.jobs) by_name[j.name] = s.jobs.deadline(j);
  EXPECT_EQ(by_name["late"], h(1));
  EXPECT_EQ(by_name["none"], std::nullopt);
  EXPECT_EQ(by_name["g-0"], h(3));
  EXPECT_EQ(by_name["g-1"], h(3));
  std::ostringstream csv;
  write_jobs_csv(csv, s, test::simulate_scenario(s));
  const std::string text = csv.str();
  EXPECT_NE(text.find(",deadline_s,deadline_met,lateness_s,reason\n"), std::string::npos) << text;
  EXPECT_NE(text.find(",late,"), std::string::npos);
  EXPECT_NE(text.find(",21600,1,0,\n"), std::string::npos) << text;  // late: due at 6 h, ended at 6 h; no reason
}
