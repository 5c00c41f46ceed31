// The HTML report's pure pieces (cli/html_report.hpp), with expected numbers worked by hand, and
// its handling of bad run files.
#include <gtest/gtest.h>

#include "gpusim/core/error.hpp"
#include "html_report.hpp"

namespace gpusim::cli {
namespace {

using namespace report_detail;

TEST(ReportTicks, RoundStepsCoverTheRange) {
  // [0, 7.3] in at most 8 ticks: raw step 7.3 / 7 = 1.04, the next of 1, 2, 5 x 10^0 is 2; the
  // last tick is ceil(7.3 / 2) x 2 = 8.
  Ticks t = nice_ticks(0, 7.3, 8);
  EXPECT_DOUBLE_EQ(t.step, 2);
  EXPECT_EQ(t.values, (std::vector<double>{0, 2, 4, 6, 8}));
  // [0, 1] in 6: raw 0.2 = 2 x 10^-1.
  t = nice_ticks(0, 1, 6);
  EXPECT_DOUBLE_EQ(t.step, 0.2);
  ASSERT_EQ(t.values.size(), 6u);
  EXPECT_NEAR(t.values.back(), 1.0, 1e-12);
  // An empty range [3, 3] widens to [3, 6]: raw 3 / 4 = 0.75, so a step of 1 (0.5 is too small).
  t = nice_ticks(3, 3, 5);
  EXPECT_EQ(t.values, (std::vector<double>{3, 4, 5, 6}));
  // [1234, 98765] in 6: raw 19,506 -> 2 x 10^4; 0 .. 100,000.
  t = nice_ticks(1234, 98765, 6);
  EXPECT_DOUBLE_EQ(t.step, 20000);
  EXPECT_DOUBLE_EQ(t.lo, 0);
  EXPECT_DOUBLE_EQ(t.hi, 100000);
}

TEST(ReportDownsample, GroupsBecomeTheirFirstXAndMeanY) {
  const Points five{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}};
  // 5 points into at most 2: groups of ceil(5 / 2) = 3, then the 2 left: (0, 2) and (3, 4.5).
  EXPECT_EQ(downsample(five, 2), (Points{{0, 2}, {3, 4.5}}));
  EXPECT_EQ(downsample(five, 5), five);
}

TEST(ReportCdf, EqualSharesOfTheSortedValues) {
  // Every value when they fit: sorted 1..5 at 1/5, 2/5, ... 5/5.
  EXPECT_EQ(cdf_points({5, 1, 3, 2, 4}, 10), (Points{{1, 0.2}, {2, 0.4}, {3, 0.6}, {4, 0.8}, {5, 1.0}}));
  // 1..10 in 4 points: the last value of each quarter, index ceil(i x 10 / 4) - 1 = 2, 4, 7, 9.
  EXPECT_EQ(cdf_points({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 4), (Points{{3, 0.3}, {5, 0.5}, {8, 0.8}, {10, 1.0}}));
  EXPECT_TRUE(cdf_points({}, 4).empty());
}

TEST(ReportMig, InstancesOnMemoryAndComputeSlices) {
  // A100: 8 memory slices, 7 compute slices. 3g.40gb@4 takes memory 4-7 and, the eighth memory
  // slice having no GPC, compute 4-6 (min(4, 7 - 3)); 2g.20gb@0 memory 0-1, compute 0-1;
  // 1g.10gb@2 memory 2, compute 2. An unknown profile is left out.
  const MigGeometry g = mig_geometry("A100-80GB-SXM", "3g.40gb@4+2g.20gb@0+1g.10gb@2+9g.90gb@0");
  EXPECT_EQ(g.memory_slices, 8);
  EXPECT_EQ(g.compute_slices, 7);
  ASSERT_EQ(g.boxes.size(), 3u);
  const auto box = [&](std::size_t i) {
    const MigBox& b = g.boxes[i];
    return std::tuple(b.profile, b.memory_start, b.memory_slices, b.compute_start, b.compute_slices);
  };
  EXPECT_EQ(box(0), std::tuple(std::string("3g.40gb"), 4, 4, 4, 3));
  EXPECT_EQ(box(1), std::tuple(std::string("2g.20gb"), 0, 2, 0, 2));
  EXPECT_EQ(box(2), std::tuple(std::string("1g.10gb"), 2, 1, 2, 1));
  // 7g.80gb@0: all 8 memory slices and all 7 compute slices.
  EXPECT_EQ(mig_geometry("A100-80GB-SXM", "7g.80gb@0").boxes.at(0).compute_slices, 7);
  EXPECT_TRUE(mig_geometry("no-such-gpu", "1g.10gb@0").boxes.empty());
}

TEST(ReportInput, MalformedFilesNameTheFileAndLine) {
  const std::string summary = R"({"scenario":"s","policy":"p","pools":[]})";
  // A summary alone renders (every other section says what is missing).
  EXPECT_NE(html_report({{"summary.json", summary}}, "dir").find("<!DOCTYPE html>"), std::string::npos);
  try {
    html_report({{"summary.json", summary}, {"jobs.csv", "id,jct_s,queue_delay_s\n1,abc,0\n"}}, "dir");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "dir/jobs.csv");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.reason().find("column 'jct_s': expected a number >= 0, got 'abc'"), std::string::npos) << e.reason();
  }
  try {
    html_report({{"summary.json", summary}, {"pool_timeseries.csv", "time_s,pool\n0,a\n"}}, "dir");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "dir/pool_timeseries.csv");
    EXPECT_NE(e.reason().find("column 'gpus_ready'"), std::string::npos) << e.reason();
  }
  EXPECT_THROW(html_report({{"summary.json", "[1, 2"}}, "dir"), InputError);
  EXPECT_THROW(read_run_dir("/nonexistent/run"), InputError);
}

// A run directory edited by hand: a value of the wrong type or out of its range is refused naming
// the file and the field (a JSON pointer), never drawn as "-" or as NaN in the SVG.
TEST(ReportInput, JsonFieldsOfTheWrongTypeNameTheFileAndField) {
  const auto refused = [](const RunFiles& run) -> std::pair<std::string, std::string> {
    try {
      html_report(run, "dir");
    } catch (const InputError& e) {
      return {e.where().file + " " + e.where().field, e.reason()};
    }
    return {"accepted", ""};
  };
  const std::string summary = R"({"scenario":"s","policy":"p","pools":[]})";
  EXPECT_EQ(refused({{"summary.json", R"({"scenario":"s","cost_usd":"12"})"}}),
            std::pair(std::string("dir/summary.json /cost_usd"),
                      std::string("expected a number >= 0 as gpusim writes it, got \"12\"")));
  EXPECT_EQ(refused({{"summary.json", R"({"services":[{"name":"a","cost_usd":[1]}]})"}}).first,
            "dir/summary.json /services/0/cost_usd");
  EXPECT_EQ(refused({{"summary.json", R"({"failed_reasons":[{"jobs":-1,"reason":"x"}]})"}}).first,
            "dir/summary.json /failed_reasons/0/jobs");
  // The table's figures in their ranges: shares in 0..1, the rest >= 0.
  EXPECT_EQ(refused({{"summary.json", R"({"allocation_ratio":1.5})"}}),
            std::pair(std::string("dir/summary.json /allocation_ratio"),
                      std::string("expected a number in 0..1 as gpusim writes it, got 1.5")));
  EXPECT_EQ(refused({{"summary.json", R"({"jobs_total":-5})"}}).first, "dir/summary.json /jobs_total");
  EXPECT_EQ(refused({{"summary.json", R"({"allocation_ratio":1,"jobs_total":0})"}}).first, "accepted");
  const std::string occ = R"({"columns":2,"column_s":COL,"end_s":2,"rows":[{"pool":"p","first_node":"a","last_node":"a",
                              "up":[1,UP],"allocated":[0,0]}],"events":[]})";
  const auto occupancy = [&](const std::string& col, const std::string& up) {
    std::string o = occ;
    o.replace(o.find("COL"), 3, col);
    o.replace(o.find("UP"), 2, up);
    return refused({{"summary.json", summary}, {"occupancy.json", o}});
  };
  EXPECT_EQ(occupancy("1", "1").first, "accepted");
  EXPECT_EQ(occupancy("-1", "1"), std::pair(std::string("dir/occupancy.json /column_s"),
                                            std::string("expected a number > 0 as gpusim writes it, got -1")));
  EXPECT_EQ(occupancy("1", "\"x\"").first, "dir/occupancy.json /rows/0/up/1");
  EXPECT_EQ(occupancy("1", "1,1"),
            std::pair(std::string("dir/occupancy.json /rows/0/up"), std::string("expected 2 values (columns), got 3")));
  // CSV rows take numbers only: "nan" is refused with its line and column.
  const auto pools = refused(
      {{"summary.json", summary},
       {"pool_timeseries.csv", "time_s,pool,gpus_ready,gpus_allocated,gpus_busy,nodes_billed\nnan,p,1,1,1,1\n"}});
  EXPECT_EQ(pools.first, "dir/pool_timeseries.csv ");
  EXPECT_NE(pools.second.find("column 'time_s'"), std::string::npos) << pools.second;
}

// Figures a summary may lack (a service with no completed request has no latencies) are shown as "-".
TEST(ReportInput, AbsentFiguresAreDashes) {
  const std::string html = html_report({{"summary.json", R"({"services":[{"name":"a"}],"serving":{}})"}}, "dir");
  EXPECT_NE(html.find("<td>a</td>"), std::string::npos);
}

TEST(ReportInput, AMissingJobsCsvIsNoted) {
  const std::string summary = R"({"scenario":"s","policy":"p","pools":[]})";
  const std::string without = html_report({{"summary.json", summary}}, "dir");
  EXPECT_NE(without.find("jobs.csv is missing from the run directory"), std::string::npos);
  const std::string with = html_report({{"summary.json", summary}, {"jobs.csv", "jct_s,queue_delay_s\n10,1\n"}}, "dir");
  EXPECT_EQ(with.find("jobs.csv is missing"), std::string::npos);
  EXPECT_NE(with.find("JCT of completed jobs"), std::string::npos);
}

}  // namespace
}  // namespace gpusim::cli
