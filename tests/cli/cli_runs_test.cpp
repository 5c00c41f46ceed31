// The CLI's seeds, confidence intervals, breakdown tables and progress line, as pure functions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "progress.hpp"
#include "seeds.hpp"
#include "table.hpp"
#include "test_util.hpp"

namespace gpusim::cli {
namespace {

TEST(Seeds, RangesListsAndBoth) {
  EXPECT_EQ(parse_seeds("1-5"), (std::vector<uint64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(parse_seeds("1,3,5"), (std::vector<uint64_t>{1, 3, 5}));
  EXPECT_EQ(parse_seeds("1-3,7"), (std::vector<uint64_t>{1, 2, 3, 7}));
  EXPECT_EQ(parse_seeds("42"), (std::vector<uint64_t>{42}));
  EXPECT_NE(test::input_error([] { parse_seeds("5-1"); }).find("expected FIRST <= LAST"), std::string::npos);
  EXPECT_NE(test::input_error([] { parse_seeds("1-3,2"); }).find("seed 2 is given twice"), std::string::npos);
  for (const char* bad : {"", "x", "1,,2", "1-", "-3", "+4", " 5", "1-2-3"})
    EXPECT_NE(test::input_error([&] { parse_seeds(bad); }).find("--seeds"), std::string::npos) << bad;
  EXPECT_EQ(seeds_text({1, 2, 3, 7}), "1-3,7");
  EXPECT_EQ(seeds_text({5}), "5");
  EXPECT_EQ(seeds_text({1, 3, 4}), "1,3-4");
}

// The half-width is t(0.975, n-1) x s / sqrt(n). With values 1..5: mean 3, s = sqrt(2.5), and the
// Student t quantile for 4 degrees of freedom is 2.7764 (any statistics table), so 1.9632.
TEST(Seeds, ConfidenceIntervalIsStudentT) {
  EXPECT_NEAR(*ci95_half_width({1, 2, 3, 4, 5}), 2.776445 * std::sqrt(2.5) / std::sqrt(5.0), 1e-5);
  // Two values: t(0.975, 1) = 12.7062, s = |a - b| / sqrt(2), so h = 12.7062 x |a - b| / 2.
  EXPECT_NEAR(*ci95_half_width({10, 12}), 12.706205, 1e-5);
  EXPECT_FALSE(ci95_half_width({7}).has_value());
  EXPECT_DOUBLE_EQ(*ci95_half_width({4, 4, 4}), 0.0);
}

Json summary(uint64_t seed, double cost, std::optional<double> makespan, bool second_tenant) {
  Json tenants = Json::array({{{"name", "a"}, {"jobs", 2}, {"cost_allocated_usd", cost / 2}}});
  if (second_tenant) tenants.push_back({{"name", "b"}, {"jobs", 1}, {"cost_allocated_usd", 1.0}});
  return {
      {"gpusim_version", "t"}, {"scenario", "s"},    {"policy", "p"},
      {"seed", seed},          {"cost_usd", cost},   {"makespan_s", makespan ? Json(*makespan) : Json(nullptr)},
      {"simulated_s", 60.0},   {"tenants", tenants}, {"cost", {{"by_kind", {{"training", {{"jobs", 3}, {"cost_usd", cost}}}}}}}};
}

// Per figure: mean and interval over the seeds that report it, the values in seed order (null where
// a seed has none), named rows keyed by name; the seed itself is not a figure.
TEST(Seeds, AggregatesEveryFigureBySeed) {
  const SeedSummary s = aggregate_seeds(
      {1, 2, 3}, {summary(1, 10, 100.0, false), summary(2, 12, std::nullopt, true), summary(3, 14, 300.0, false)});
  EXPECT_EQ(s.figure("seed"), nullptr);
  const SeedFigure& cost = *s.figure("cost_usd");
  EXPECT_DOUBLE_EQ(*cost.mean, 12);
  EXPECT_EQ(cost.n, 3u);
  EXPECT_NEAR(*cost.ci95, *ci95_half_width({10, 12, 14}), 1e-12);
  const SeedFigure& makespan = *s.figure("makespan_s");
  EXPECT_EQ(makespan.n, 2u);
  EXPECT_DOUBLE_EQ(*makespan.mean, 200);
  EXPECT_FALSE(makespan.values[1].has_value());
  EXPECT_EQ(s.figure("tenants.b.jobs")->n, 1u);
  EXPECT_FALSE(s.figure("tenants.b.jobs")->ci95.has_value());
  EXPECT_DOUBLE_EQ(*s.figure("cost.by_kind.training.jobs")->ci95, 0.0);  // the same every seed
  const Json j = s.json();
  EXPECT_EQ(j["seeds"], Json({1, 2, 3}));
  EXPECT_EQ(j["figures"]["makespan_s"]["values"], Json({100.0, nullptr, 300.0}));
  EXPECT_EQ(j["figures"]["cost_usd"]["n"], 3);
}

TEST(Table, SeedsShowMeanPlusMinusHalfWidth) {
  const SeedSummary s = aggregate_seeds(
      {1, 2, 3}, {summary(1, 10, 100.0, false), summary(2, 12, std::nullopt, true), summary(3, 14, 300.0, false)});
  Json with_pools = s.first;
  with_pools["pools"] = Json::array();
  with_pools["unschedulable_reasons"] = Json::array();
  SeedSummary t = s;
  t.first = with_pools;
  const std::string table = run_table(t);
  EXPECT_NE(table.find("seeds 1-3 (3 runs each)"), std::string::npos) << table;
  EXPECT_NE(table.find(fmt::format("12.00 ± {:.2f}", *ci95_half_width({10, 12, 14}))), std::string::npos) << table;
  // Tenants: rows from every seed; a column no row reports is left out.
  const std::string tenants = breakdown_table(s, Breakdown::tenant);
  EXPECT_NE(tenants.find("  tenant  jobs   cost (USD)"), std::string::npos) << tenants;
  EXPECT_NE(tenants.find("\n  b          1         1.00\n"), std::string::npos) << tenants;
  EXPECT_EQ(tenants.find("GPU-h busy"), std::string::npos) << tenants;
  const std::string kinds = breakdown_table(summary(1, 10, 1.0, false), Breakdown::kind);
  EXPECT_NE(kinds.find("  training     3       10.00\n"), std::string::npos) << kinds;
}

TEST(Progress, EtaFormatting) {
  EXPECT_EQ(format_eta(0), "0 s");
  EXPECT_EQ(format_eta(7.2), "8 s");
  EXPECT_EQ(format_eta(59.5), "1 min 00 s");
  EXPECT_EQ(format_eta(187), "3 min 07 s");
  EXPECT_EQ(format_eta(7500), "2 h 05 min");
  EXPECT_EQ(format_eta(-1), "-");
  EXPECT_EQ(format_eta(std::nan("")), "-");
  EXPECT_EQ(format_eta(1e9), "> 100 h");
  // Time left at the rate so far: 30 s for a quarter -> 90 s more; nothing before any progress.
  EXPECT_DOUBLE_EQ(*estimate_left(30, 0.25), 90);
  EXPECT_FALSE(estimate_left(30, 0).has_value());
  EXPECT_DOUBLE_EQ(*estimate_left(30, 1), 0);
}

// Not a terminal: no thread, nothing written, whatever is called.
TEST(Progress, DisabledDrawsNothing) {
  std::fflush(stderr);
  testing::internal::CaptureStderr();
  {
    Progress p("x", false);
    p.phase("loading");
    p.start_runs(3);
    p.run_done();
    EXPECT_FALSE(p.fraction_callback("y"));
    p.finish();
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace gpusim::cli
