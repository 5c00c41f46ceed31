// The regression check's verdicts and the sweep's grid, as pure functions.
#include <gtest/gtest.h>

#include "check.hpp"
#include "sweep.hpp"
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
  const std::string file = test::write_file("baseline.yaml",
                                            "version: 1\n"
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
  const std::string bad = test::write_file("bad-baseline.yaml", "version: 1\nruns:\n  - scenario: q.yaml\n    metrics: {cost_usd: 10}\n");
  const std::string msg = test::input_error([&] { read_baseline(bad); });
  EXPECT_NE(msg.find("line 4: runs[0].metrics.cost_usd: no tolerance for 'cost_usd'"), std::string::npos) << msg;
  const std::string worse = test::write_file("bad-worse.yaml", "version: 1\ntolerances: {x: {worse: up}}\nruns: [{scenario: q.yaml}]\n");
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
  const auto points = sweep_points(file, {{}, test::source_path("data"), {}}, {parse_grid_axis("seed=1,2")},
                                   {"fifo+first-fit", "fifo+best-fit"});
  ASSERT_EQ(points.size(), 8u);
  EXPECT_EQ(points[0].columns, (std::vector<std::pair<std::string, std::string>>{
                                   {"variant", "gang"}, {"seed", "1"}, {"policy", "fifo+first-fit"}}));
  EXPECT_EQ(points[3].columns[1].second, "2");
  EXPECT_EQ(points[3].policy, "fifo+best-fit");
  EXPECT_EQ(points[4].columns[0].second, "greedy");
  EXPECT_EQ(points[4].overrides.back(), "seed=1");
}

}  // namespace
}  // namespace gpusim::cli
