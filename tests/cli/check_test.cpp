// The regression check's verdicts and the sweep's grid, as pure functions.
#include <gtest/gtest.h>

#include <map>

#include "check.hpp"
#include "sweep.hpp"
#include "table.hpp"
#include "test_util.hpp"

namespace gpusim::cli {
namespace {

// A move inside the larger of abs and rel x |baseline| is within tolerance, whatever its direction;
// beyond it, the direction decides.
TEST(Check, VerdictFollowsToleranceAndDirection) {
  const Tolerance higher{Worse::higher, 1.0, 0.01};  // allowance max(1, 1% of 200) = 2
  EXPECT_EQ(judge(200, 200.0, higher), Verdict::same);
  EXPECT_EQ(judge(200, 202.0, higher), Verdict::within);
  EXPECT_EQ(judge(200, 197.5, higher), Verdict::better);
  EXPECT_EQ(judge(200, 202.5, higher), Verdict::worse);
  const Tolerance lower{Worse::lower, 0.002, 0};
  EXPECT_EQ(judge(0.5, 0.497, lower), Verdict::worse);
  EXPECT_EQ(judge(0.5, 0.503, lower), Verdict::better);
  EXPECT_EQ(judge(0.5, 0.5015, lower), Verdict::within);
  // either: any move beyond tolerance is a regression; no tolerance means exact.
  const Tolerance either{Worse::either, 0, 0};
  EXPECT_EQ(judge(48, 49.0, either), Verdict::worse);
  EXPECT_EQ(judge(48, 47.0, either), Verdict::worse);
  EXPECT_EQ(judge(48, std::nullopt, either), Verdict::missing);
  EXPECT_DOUBLE_EQ(Tolerance({Worse::higher, 0, 0.05}).allowance(-100), 5);
}

TEST(Check, ReadsTolerancesAndRejectsUntoleratedMetrics) {
  const std::string file = test::write_file("baseline.yaml", "version: 1\n"
                                                             "tolerances: {cost_usd: {worse: higher, rel: 0.01}}\n"
                                                             "runs:\n"
                                                             "  - scenario: q.yaml\n"
                                                             "    tolerances: {jobs_completed: {worse: lower}}\n"
                                                             "    metrics: {cost_usd: 10, jobs_completed: 3}\n");
  const Baseline b = read_baseline(file);
  ASSERT_EQ(b.runs.size(), 1u);
  EXPECT_EQ(b.runs[0].metrics.size(), 2u);
  EXPECT_EQ(b.tolerance(b.runs[0], "jobs_completed")->worse, Worse::lower);
  EXPECT_DOUBLE_EQ(b.tolerance(b.runs[0], "cost_usd")->rel, 0.01);
  const std::string bad = test::write_file("bad-baseline.yaml",
                                           "version: 1\nruns:\n  - scenario: q.yaml\n    metrics: {cost_usd: 10}\n");
  const std::string msg = test::input_error([&] { read_baseline(bad); });
  EXPECT_NE(msg.find("line 4: runs[0].metrics.cost_usd: no tolerance for 'cost_usd'"), std::string::npos) << msg;
  const std::string worse = test::write_file("bad-worse.yaml",
                                             "version: 1\ntolerances: {x: {worse: up}}\nruns: [{scenario: q.yaml}]\n");
  EXPECT_NE(test::input_error([&] { read_baseline(worse); }).find("expected higher, lower or either"), std::string::npos);
}

TEST(Sweep, GridAxisParses) {
  const GridAxis a = parse_grid_axis("cluster.pools[0].count=4,8,16");
  EXPECT_EQ(a.path, "cluster.pools[0].count");
  EXPECT_EQ(a.values, (std::vector<std::string>{"4", "8", "16"}));
  EXPECT_NE(test::input_error([] { parse_grid_axis("seed=1,,2"); }).find("empty value"), std::string::npos);
  EXPECT_NE(test::input_error([] { parse_grid_axis("=1"); }).find("expected PATH=V1,V2"), std::string::npos);
}

// Variants outermost, then the grid with its last axis fastest, then policies.
TEST(Sweep, PointsComeInAFixedOrder) {
  const std::string file = test::source_path("scenarios/gang-vs-greedy.yaml");
  const auto points = sweep_points(file, {{}, test::source_path("data"), {}, {}}, {parse_grid_axis("seed=1,2")},
                                   {"fifo+first-fit", "fifo+best-fit"});
  ASSERT_EQ(points.size(), 8u);
  EXPECT_EQ(points[0].columns,
            (std::vector<std::pair<std::string, std::string>>{{"variant", "gang"}, {"seed", "1"}, {"policy", "fifo+first-fit"}}));
  EXPECT_EQ(points[3].columns[1].second, "2");
  EXPECT_EQ(points[3].policy, "fifo+best-fit");
  EXPECT_EQ(points[4].columns[0].second, "greedy");
  EXPECT_EQ(points[4].overrides.back(), "seed=1");
}

// --- the compare table's stars (issue 20) --------------------------------------------------------

std::vector<bool> marks(std::vector<std::optional<double>> values, std::vector<std::string> printed, Better better) {
  return best_marks(values, printed, better);
}

// A star needs a direction and a difference the reader can see: three makespans that all print
// "6.9 d" tie, however they differ in the last second; where the best printed value is shared, every
// run that prints it is marked; a run without the figure ("-") is never marked.
TEST(CompareTable, StarsFollowDirectionAndPrintedValues) {
  using V = std::vector<std::optional<double>>;
  using P = std::vector<std::string>;
  EXPECT_EQ(marks(V{596000, 596100, 596200}, P{"6.9 d", "6.9 d", "6.9 d"}, Better::lower), std::vector<bool>(3, false));
  EXPECT_EQ(marks(V{0.948, 0.935, 0.333}, P{"94.8 %", "93.5 %", "33.3 %"}, Better::higher),
            (std::vector<bool>{true, false, false}));
  EXPECT_EQ(marks(V{8, 8, 7, std::nullopt}, P{"8", "8", "7", "-"}, Better::higher),
            (std::vector<bool>{true, true, false, false}));
  // 3.24 d and 3.21 d both print 3.2 d: both are the best the reader sees.
  EXPECT_EQ(marks(V{280000, 277500, 800000}, P{"3.2 d", "3.2 d", "9.3 d"}, Better::lower),
            (std::vector<bool>{true, true, false}));
  EXPECT_EQ(marks(V{0.169, 0.078}, P{"16.9 %", "7.8 %"}, Better::neither), (std::vector<bool>{false, false}));
  EXPECT_EQ(marks(V{std::nullopt, std::nullopt}, P{"-", "-"}, Better::lower), (std::vector<bool>{false, false}));
}

// Figures that count collective stalls, re-run work or idle gangs as use have no direction: a 3x
// slower placement and a spot run without checkpoints score better by them. Goodput ratio has one.
TEST(CompareTable, MetricDirections) {
  std::map<std::string, Better> by_pointer;
  for (const MetricRow& r : metric_rows()) EXPECT_TRUE(by_pointer.emplace(r.pointer, r.better).second) << r.pointer;
  for (const char* p :
       {"/gpu_hours_allocated", "/gpu_hours_busy", "/allocation_ratio", "/effective_utilization", "/cost/waste_usd",
        "/low_utilization/hours", "/gpu_hours_goodput", "/spot/gpu_hours_checkpointing", "/slowdown/all/mean"})
    EXPECT_EQ(by_pointer.at(p), Better::neither) << p;
  EXPECT_EQ(by_pointer.at("/goodput_ratio"), Better::higher);
  EXPECT_EQ(by_pointer.at("/cost_usd"), Better::lower);
  EXPECT_EQ(by_pointer.at("/makespan_s"), Better::lower);
  EXPECT_EQ(by_pointer.at("/spot/gpu_hours_lost_to_rollback"), Better::lower);
}

}  // namespace
}  // namespace gpusim::cli
