#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "gpusim/workloads/spec.hpp"
#include "gpusim/workloads/traces.hpp"
#include "test_util.hpp"

using namespace gpusim;
using test::source_path;
using test::write_file;

TEST(OpenbReader, ReadsTheDefaultPodList) {
  const JobSet s = read_openb_pods(source_path("data/alibaba-gpu-v2023-openb/openb_pod_list_default.csv"), {});
  ASSERT_EQ(s.jobs.size(), 8152u);  // SOURCE.md row count
  const Job& first = s.jobs.front();
  EXPECT_EQ(first.name, "openb-pod-0000");
  EXPECT_EQ(first.arrival, Time());
  EXPECT_EQ(first.work, Duration::from_seconds(12537496));  // deletion_time - creation_time
  EXPECT_EQ(first.request.cpu_milli, 12000);
  EXPECT_TRUE(std::is_sorted(s.jobs.begin(), s.jobs.end(), [](auto& a, auto& b) { return a.arrival < b.arrival; }));
  // Distribution from SOURCE.md: 1,088 CPU-only pods, 44 pods with 8 GPUs.
  EXPECT_EQ(std::count_if(s.jobs.begin(), s.jobs.end(), [](auto& j) { return j.request.gpus == 0; }), 1088);
  EXPECT_EQ(std::count_if(s.jobs.begin(), s.jobs.end(), [](auto& j) { return j.request.gpus == 8; }), 44);
}

TEST(OpenbReader, SharesSpecsAndDefaults) {
  const auto path = write_file(
      "pods.csv",
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
      "p0,1000,1024,1,250,V100M16|V100M32|V100M32,LS,Running,10,70,10\n"
      "p1,1000,1024,0,0,,BE,Running,5,6,5\n");
  const JobSet s = read_openb_pods(path, {});
  ASSERT_EQ(s.jobs.size(), 2u);
  EXPECT_EQ(s.jobs[0].name, "p1");  // sorted by arrival
  const Job& p0 = s.jobs[1];
  EXPECT_EQ(p0.request.milli_per_gpu, Milli{250});
  EXPECT_TRUE(p0.request.fractional());
  EXPECT_EQ(*p0.request.models, (std::vector<std::string>{"V100M16", "V100M32"}));  // duplicates dropped
  EXPECT_DOUBLE_EQ(p0.u, 0.25);                                                     // a pod keeps busy the share it asked for
  EXPECT_EQ(p0.work, Duration::from_seconds(60));
}

TEST(PhillyReader, SortsUnsortedRowsAndSkipsTheTrailingBlankLine) {
  const JobSet s = read_philly_jobs(source_path("data/philly-pollux-jobs/philly.csv"), {});
  ASSERT_EQ(s.jobs.size(), 82247u);
  EXPECT_EQ(s.jobs.front().arrival, Time());
  EXPECT_TRUE(std::is_sorted(s.jobs.begin(), s.jobs.end(), [](auto& a, auto& b) { return a.arrival < b.arrival; }));
  EXPECT_EQ(s.tenants.size() - 1, 15u);  // 15 virtual clusters (plus "default")
  EXPECT_EQ(std::count_if(s.jobs.begin(), s.jobs.end(), [](auto& j) { return j.request.gpus > 1; }), 5620);
  const double gpu_hours = std::accumulate(s.jobs.begin(), s.jobs.end(), 0.0,
                                           [](double a, const Job& j) { return a + j.work.hours() * j.request.gpus; });
  EXPECT_NEAR(gpu_hours, 978078, 1);  // SOURCE.md: 978,078 GPU-hours
  EXPECT_TRUE(s.jobs.front().multi_node);
  EXPECT_EQ(s.jobs.front().kind, JobKind::training);
}

// One virtual cluster alone (SOURCE.md: b436b2 has 7,423 jobs), its first job at time 0.
TEST(PhillyReader, KeepsTheVirtualClustersAsked) {
  TraceOptions o;
  o.virtual_clusters = {"b436b2"};
  const JobSet s = read_philly_jobs(source_path("data/philly-pollux-jobs/philly.csv"), o);
  ASSERT_EQ(s.jobs.size(), 7423u);
  EXPECT_EQ(s.jobs.front().arrival, Time());
  EXPECT_EQ(s.tenants, (std::vector<std::string>{"default", "b436b2"}));
}

TEST(PhillyReader, ParsesTimestamps) {
  EXPECT_EQ(parse_timestamp("1970-01-02 00:00:01"), 86401);
  EXPECT_EQ(parse_timestamp("2017-10-09 07:01:55"), 1507532515);
  EXPECT_EQ(parse_timestamp("2017-13-09 07:01:55"), std::nullopt);
  EXPECT_EQ(parse_timestamp("2017-10-09T07:01:55"), std::nullopt);
}

TEST(GenericCsv, ReadsOptionalColumns) {
  const auto path = write_file("jobs.csv", "name,arrival_s,duration_s,gpus,gpu_milli,kind,tenant,models,priority\n"
                                           "a,0,60,1,500,inference,team-a,T4|L4,3\n"
                                           "b,1.5,3600,4,,training,,,\n");
  const JobSet s = read_generic_csv(path, {});
  ASSERT_EQ(s.jobs.size(), 2u);
  EXPECT_EQ(s.jobs[0].request.milli_per_gpu, Milli{500});
  EXPECT_DOUBLE_EQ(s.jobs[0].u, 0.15);  // inference default
  EXPECT_EQ(s.tenants[s.jobs[0].tenant], "team-a");
  EXPECT_EQ(*s.jobs[0].request.models, (std::vector<std::string>{"T4", "L4"}));
  EXPECT_EQ(s.jobs[0].priority, 3);
  EXPECT_EQ(s.jobs[1].arrival, Time::from_us(1'500'000));
  EXPECT_EQ(s.jobs[1].request.gpus, 4);
}

// deadline_s: seconds after the row's arrival; empty, none. It follows its job when rows of one
// arrival are sorted, and a limit drops the deadlines of the rows it drops.
TEST(GenericCsv, ReadsDeadlines) {
  const auto path = write_file("jobs.csv", "name,arrival_s,duration_s,gpus,deadline_s\n"
                                           "a,0,60,1,\n"
                                           "b,10,3600,1,7200\n"
                                           "c,20,60,1,90.5\n");
  const JobSet s = read_generic_csv(path, {});
  ASSERT_EQ(s.jobs.size(), 3u);
  EXPECT_EQ(s.deadline(s.jobs[0]), std::nullopt);
  EXPECT_EQ(s.deadline(s.jobs[1]), Duration::from_seconds(7200));
  EXPECT_EQ(s.deadline(s.jobs[2]), Duration::from_us(90'500'000));
  EXPECT_TRUE(s.any_deadline());
  TraceOptions first;
  first.limit = 1;
  EXPECT_FALSE(read_generic_csv(path, first).any_deadline());
}

TEST(Generator, IsDeterministicPerSeedAndFollowsItsDistributions) {
  const auto spec = ConfigNode::parse(R"(
classes:
  - name: a
    count: 20000
    arrival: {rate_per_hour: 60}
    gpus: [1, 8]
    gpu_weights: [3, 1]
    duration: {distribution: exponential, mean: 2h}
)",
                                      "g.yaml");
  const JobSet x = generate_jobs(spec, 1), y = generate_jobs(spec, 1), z = generate_jobs(spec, 2);
  ASSERT_EQ(x.jobs.size(), 20000u);
  for (std::size_t i = 0; i < x.jobs.size(); ++i) {
    EXPECT_EQ(x.jobs[i].arrival, y.jobs[i].arrival);
    EXPECT_EQ(x.jobs[i].work, y.jobs[i].work);
  }
  EXPECT_NE(x.jobs[5].work, z.jobs[5].work);
  // Law of large numbers with a fixed seed: mean 2 h within 3%, 60 arrivals per hour, 3:1 GPU mix.
  const double mean_h = std::accumulate(x.jobs.begin(), x.jobs.end(), 0.0, [](double a, auto& j) { return a + j.work.hours(); }) /
                        20000;
  EXPECT_NEAR(mean_h, 2.0, 0.06);
  EXPECT_NEAR(x.jobs.back().arrival.hours(), 20000 / 60.0, 20000 / 60.0 * 0.03);
  const auto ones = std::count_if(x.jobs.begin(), x.jobs.end(), [](auto& j) { return j.request.gpus == 1; });
  EXPECT_NEAR(static_cast<double>(ones) / 20000.0, 0.75, 0.02);
}

TEST(InlineJobs, CountExpandsNames) {
  const auto list = ConfigNode::parse("- {name: t, count: 3, gpus: 2, duration: 1h, kind: training}", "s.yaml");
  const JobSet s = parse_inline_jobs(list);
  ASSERT_EQ(s.jobs.size(), 3u);
  EXPECT_EQ(s.jobs[2].name, "t-2");
  EXPECT_DOUBLE_EQ(s.jobs[0].u, 0.95);
  EXPECT_TRUE(s.jobs[0].strict);
}
