// metrics.om (sim/open_metrics.hpp, sim/outputs/src/metrics_writer.cpp): the pure pieces, and the series of a
// tiny run worked out by hand.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "gpusim/sim/open_metrics.hpp"
#include "gpusim/sim/output_spec.hpp"
#include "gpusim/sim/outputs.hpp"
#include "run_util.hpp"

using namespace gpusim;

TEST(OpenMetrics, EscapesLabelValues) {
  EXPECT_EQ(om_escape("team-a"), "team-a");
  EXPECT_EQ(om_escape(R"(a"b\c)"), R"(a\"b\\c)");
  EXPECT_EQ(om_escape("two\nlines"), "two\\nlines");
}

TEST(OpenMetrics, ParsesUtcDates) {
  // 2026-01-01: 56 years after 1970 with 14 leap days (1972 .. 2024) = 20454 days = 1767225600 s.
  EXPECT_EQ(parse_utc_date("2026-01-01"), 1767225600);
  EXPECT_EQ(parse_utc_date("2026-01-01T00:00:00Z"), 1767225600);
  EXPECT_EQ(parse_utc_date("2026-01-01T01:02:03Z"), 1767225600 + 3723);
  EXPECT_EQ(parse_utc_date("1970-01-01"), 0);
  EXPECT_EQ(parse_utc_date("2024-02-29"), 1709164800);  // a leap day
  for (const char* bad : {"2025-02-29", "2026-04-31", "2026-13-01", "2026-1-01", "1969-12-31", "2026-01-01T24:00:00Z",
                          "2026-01-01T00:00:00", "2026-01-01T00:00:00+01:00", "yesterday", ""})
    EXPECT_FALSE(parse_utc_date(bad)) << bad;
}

TEST(OpenMetrics, TimestampsInSeconds) {
  EXPECT_EQ(om_timestamp(1767225600, Time::from_seconds(3600)), "1767229200");
  EXPECT_EQ(om_timestamp(1767225600, Time::from_us(1'500'000)), "1767225601.5");
  EXPECT_EQ(om_timestamp(0, Time::from_us(7)), "0.000007");
}

TEST(OpenMetrics, StepAverage) {
  // Busy 0.5 for 30 of 60 minutes, then idle: 0.5 x 1800 s over 3600 s = 0.25.
  const Duration hour = Duration::from_seconds(3600);
  EXPECT_DOUBLE_EQ(step_average(1e9, 1e9 + 0.5 * 1800e6, hour), 0.25);
  EXPECT_DOUBLE_EQ(step_average(0, 3600e6 * 1.0000001, hour), 1.0);  // rounding never exceeds 1
  EXPECT_DOUBLE_EQ(step_average(5, 5, Duration()), 0.0);
}

namespace {

// One exclusive A100-80GB (400 W, 81,920 MiB, $2 an hour) and one split into 7 x 1g.10gb (14 of 108 SMs,
// 9,728 MiB each); a training job at u 0.5 for 90 minutes and an inference job at u 0.1 for the whole run.
// Power (sim/power.hpp, model.yaml): the H200's watts x 400 / 700 W: idle 44 W, 69.14 W with clocks up
// (5 s after work), tensor math 69.14 + (394.29 - 69.14) / 0.753 = 500.94 W, memory 214.29 W.
constexpr const char* kTiny = R"(
name: tiny-metrics
seed: 1
horizon: 3h
catalog:
  nodes:
    - {name: one-a100, gpu: A100-80GB-SXM, gpus: 1, cpu_milli: 16000, memory_mib: 131072, source: "test"}
cluster:
  pools:
    - {name: whole, node: one-a100, count: 1, sharing: exclusive, price_per_gpu_hour_usd: 2}
    - {name: mig, node: one-a100, count: 1, mig: {strategy: mixed, config: all-1g.10gb}, price_per_gpu_hour_usd: 1}
workload:
  jobs:
    - {name: train, gpus: 1, kind: training, u: 0.5, duration: 90m, gpu_memory_mib: 10000, tenant: "team \"a\""}
    - {name: infer, gpus: 1, resource: nvidia.com/mig-1g.10gb, kind: inference, u: 0.1, duration: 30d, tenant: serving}
policy: fifo+first-fit
outputs: {timeseries_step: 1h, metrics_start: "2026-01-01"}
)";

std::string run_metrics(const Scenario& s) {
  auto scheduler = Registry::global().make(s.policy, policy_context(s), s.policy_where);
  const std::unique_ptr<OutputWriter> writer = make_output_writer(*find_output("metrics"));
  const RunResult r = simulate(s, *scheduler, {{}, {writer.get()}, true});
  std::ostringstream out;
  writer->write(out, s, r, summarize(s, r));
  return out.str();
}

bool has_line(const std::string& text, const std::string& line) { return text.find(line + "\n") != std::string::npos; }

// The value of the sample that starts `series` (name and labels) and ends with ` timestamp`.
double sample(const std::string& text, const std::string& series, const std::string& timestamp) {
  for (std::size_t at = text.find(series + " "); at != std::string::npos; at = text.find(series + " ", at + 1)) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    if (line.ends_with(" " + timestamp)) return std::stod(line.substr(series.size() + 1));
  }
  ADD_FAILURE() << "no sample " << series << " at " << timestamp;
  return 0;
}

}  // namespace

TEST(OpenMetrics, TinyRunByHand) {
  const Scenario s = test::load(test::write_file("tiny.yaml", kTiny));
  const std::string om = run_metrics(s);
  const std::string whole = R"(gpu="0",UUID="GPU-00000000-0000-4000-8000-000000000000",device="nvidia0",)"
                            R"(modelName="NVIDIA A100-SXM4-80GB",Hostname="whole-0",instance="whole-0:9400")";
  const std::string pod = R"(,namespace="team \"a\"",pod="train",container="main")";
  // 0-1h: busy 0.5 all the time with training (tensor math): 50%, 69.14 + 0.5 x (500.94 - 69.14) = 285.0 W,
  // its 10,000 MiB used.
  EXPECT_TRUE(has_line(om, "DCGM_FI_DEV_GPU_UTIL{" + whole + pod + "} 50 1767229200")) << om;
  EXPECT_TRUE(has_line(om, "DCGM_FI_PROF_GR_ENGINE_ACTIVE{" + whole + pod + "} 0.5000 1767229200"));
  EXPECT_TRUE(has_line(om, "DCGM_FI_DEV_FB_USED{" + whole + pod + "} 10000 1767229200"));
  EXPECT_TRUE(has_line(om, "DCGM_FI_DEV_FB_FREE{" + whole + pod + "} 71920 1767229200"));
  EXPECT_TRUE(has_line(om, "DCGM_FI_DEV_POWER_USAGE{" + whole + "} 285.0 1767229200"));
  // 1-2h: busy 0.5 for 30 minutes: 25%; the job is gone at 2h. Power: 1,800 s at 285.04 W, 5 s with the
  // clocks up at 69.14 W, 1,795 s at 44 W: (513,075 + 346 + 78,980) / 3,600 = 164.6 W.
  EXPECT_TRUE(has_line(om, "DCGM_FI_DEV_GPU_UTIL{" + whole + "} 25 1767232800"));
  EXPECT_TRUE(has_line(om, "DCGM_FI_DEV_FB_USED{" + whole + "} 0 1767232800"));
  EXPECT_TRUE(has_line(om, "DCGM_FI_DEV_POWER_USAGE{" + whole + "} 164.6 1767232800"));
  // The MIG instance: u 0.1 of the GPU is 0.1 x 108 / 14 = 0.7714 of its 14 SMs; its job states no
  // memory, so it is taken to fill the instance's 9,728 MiB.
  // The GPU itself, busy 0.1 with inference (60% memory, 40% tensor math), draws
  // 69.14 + 0.06 x (214.29 - 69.14) + 0.04 x (500.94 - 69.14) = 95.1 W and has no DCGM_FI_DEV_GPU_UTIL.
  const std::string mig = R"(gpu="0",UUID="GPU-00000000-0000-4000-8000-000000000001",device="nvidia0",)"
                          R"(modelName="NVIDIA A100-SXM4-80GB",Hostname="mig-0",instance="mig-0:9400")";
  const std::string slice = R"(,GPU_I_PROFILE="1g.10gb",GPU_I_ID="0",namespace="serving",pod="infer",container="main")";
  EXPECT_TRUE(has_line(om, "DCGM_FI_PROF_GR_ENGINE_ACTIVE{" + mig + slice + "} 0.7714 1767229200"));
  EXPECT_TRUE(has_line(om, "DCGM_FI_DEV_FB_USED{" + mig + slice + "} 9728 1767229200"));
  EXPECT_TRUE(has_line(om, "DCGM_FI_DEV_POWER_USAGE{" + mig + "} 95.1 1767229200"));
  EXPECT_EQ(om.find("DCGM_FI_DEV_GPU_UTIL{" + mig), std::string::npos);
  // An empty instance: nothing used, all free, idle.
  EXPECT_TRUE(has_line(om, "DCGM_FI_DEV_FB_FREE{" + mig + R"(,GPU_I_PROFILE="1g.10gb",GPU_I_ID="6"} 9728 1767232800)"));
  // gpusim's own: cost at $2 and $1 an hour from time 0, jobs running.
  EXPECT_TRUE(has_line(om, R"(gpusim_cost_usd_total{pool="whole"} 0.0000 1767225600)"));
  EXPECT_TRUE(has_line(om, R"(gpusim_cost_usd_total{pool="whole"} 4.0000 1767232800)"));
  EXPECT_TRUE(has_line(om, R"(gpusim_cost_usd_total{pool="mig"} 2.0000 1767232800)"));
  EXPECT_TRUE(has_line(om, "gpusim_running_pods 2 1767229200"));
  EXPECT_TRUE(has_line(om, "gpusim_running_pods 1 1767232800"));
  EXPECT_TRUE(om.ends_with("# EOF\n"));
  // Same scenario, same bytes.
  EXPECT_EQ(om, run_metrics(s));
}

// A vLLM replica on a MIG instance reports the engine activity its requests give it (it was 0.0000 in
// every sample: replicas have no fixed u): on a GPU with that one instance in use, the instance's
// activity x its 14 of 108 SMs is the GPU's utilization, which its power draw shows: as inference work
// (serving_decode: [], so that the replica draws the inference kind's fixed mix whatever its batch),
// 69.14 + util x (0.6 x (214.29 - 69.14) + 0.4 x (500.94 - 69.14)) = 69.14 + 259.8 x util W (with requests
// every half second the clocks stay up between them).
TEST(OpenMetrics, ReplicasOnMigReportTheirEngineActivity) {
  const Scenario s = test::load(test::write_file("mig-serving.yaml", R"(
name: mig-serving
horizon: 30m
catalog:
  nodes:
    - {name: one-a100, gpu: A100-80GB-SXM, gpus: 1, cpu_milli: 16000, memory_mib: 131072, price_per_node_hour_usd: 1, source: "test"}
cluster:
  pools:
    - {name: mig, node: one-a100, count: 1, mig: {strategy: mixed, config: all-1g.10gb}}
workload:
  services:
    - {name: chat, model: qwen2-0.5b, cold_start: none, pod: {resource: nvidia.com/mig-1g.10gb},
       requests: {generator: {rate: 2, duration: 30m, prompt_tokens: 500, output_tokens: 100}}}
outputs: {timeseries_step: 5m, metrics_start: "2026-01-01"}
model: {power: {serving_decode: []}}
)"));
  const std::string om = run_metrics(s);
  std::map<std::string, double> activity, power;  // by timestamp
  std::istringstream lines(om);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("DCGM_")) continue;
    const auto value_at = line.rfind(' ', line.rfind(' ') - 1);
    const std::string ts = line.substr(line.rfind(' ') + 1);
    const double value = std::stod(line.substr(value_at + 1, line.rfind(' ') - value_at - 1));
    if (line.starts_with("DCGM_FI_PROF_GR_ENGINE_ACTIVE{") && line.find(R"(pod="chat-0")") != std::string::npos)
      activity[ts] = value;
    if (line.starts_with("DCGM_FI_DEV_POWER_USAGE{")) power[ts] = value;
  }
  ASSERT_EQ(activity.size(), 5u) << om;  // at 5, 10, ... 25 minutes (the first sample has no step before it)
  for (const auto& [ts, a] : activity) {
    EXPECT_GT(a, 0.0) << ts;
    EXPECT_LE(a, 1.0) << ts;
    EXPECT_NEAR(a * 14 / 108, (power.at(ts) - 69.143) / 259.81, 1e-3) << ts;
  }
}

// Time-slicing's switches keep the GPU busy to DCGM but do no work (measured on an H200: two long-kernel
// contexts read 99-100 % while doing 90 %): DCGM_FI_DEV_GPU_UTIL counts them, GR_ENGINE_ACTIVE does not.
// Two jobs with work u of the time on one time-sliced H200: the switches take preempt_switch /
// (timeslice + preempt_switch) = 0.227 / 2.277 = 0.09969 of the GPU while both have work (u^2 of the time).
TEST(OpenMetrics, TimeSlicingSwitchesCountAsBusyToDcgm) {
  const auto gauges = [](double u) {
    const Scenario s = test::load(test::write_file("ts.yaml", fmt::format(R"(
name: ts-metrics
horizon: 2h
catalog:
  nodes:
    - {{name: one-h200, gpu: H200, gpus: 1, cpu_milli: 16000, memory_mib: 131072, price_per_node_hour_usd: 1, source: "test"}}
cluster:
  pools:
    - {{name: ts, node: one-h200, count: 1, sharing: {{timeSlicing: {{resources: [{{name: nvidia.com/gpu, replicas: 2}}]}}}}}}
workload:
  jobs:
    - {{name: a, gpus: 1, kind: training, u: {0}, duration: 30d}}
    - {{name: b, gpus: 1, kind: training, u: {0}, duration: 30d}}
outputs: {{timeseries_step: 1h, metrics_start: "2026-01-01"}}
)",
                                                                          u)));
    const std::string om = run_metrics(s);
    const auto value = [&](const std::string& family) {
      const auto at = om.find(family + "{gpu=\"0\"");
      const auto end = om.find('\n', at);
      const std::string line = om.substr(at, end - at);
      return std::stod(line.substr(line.rfind(' ', line.rfind(' ') - 1) + 1));
    };
    return std::pair{value("DCGM_FI_DEV_GPU_UTIL"), value("DCGM_FI_PROF_GR_ENGINE_ACTIVE")};
  };
  // Both always have work: 0.9003 of the GPU does it, the rest switches; DCGM reads 100 %.
  const auto [full_util, full_active] = gauges(1.0);
  EXPECT_EQ(full_util, 100);
  EXPECT_DOUBLE_EQ(full_active, 0.9003);
  // Work 0.3 of the time each: both at full speed (0.6 busy), switching 0.09 x 0.09969 = 0.0090: 61 %.
  const auto [light_util, light_active] = gauges(0.3);
  EXPECT_EQ(light_util, 61);
  EXPECT_DOUBLE_EQ(light_active, 0.6);
}

// AMD and Intel GPUs under their exporters' names (issue 46): an MI300X in CPX/NPS4 reports VRAM per
// partition, activity on partition 0 of the GPU and power there with 0 on the other partitions (AMD's
// device metrics exporter); a Gaudi reports habanalabs_* with its pod in pod_namespace/pod_name, named by
// its serial, the node in `instance`, its energy in mJ. No DCGM series for either.
TEST(OpenMetrics, OtherVendorsUnderTheirExportersNames) {
  const Scenario s = test::load(test::write_file("vendors.yaml", R"(
name: vendors
seed: 1
cluster:
  pools:
    - {name: amd, node: mi300x-8x, count: 1, partition: {computePartition: CPX, memoryPartition: NPS4, resource_naming_strategy: mixed}}
    - {name: gaudi, node: gaudi3-8x, count: 1}
workload:
  jobs:
    - {name: a, gpus: 1, resource: amd.com/cpx_nps4, u: 0.96, duration: 2h, gpu_memory_mib: 10000, reference_gpu: any}
    - {name: b, gpus: 1, resource: habana.ai/gaudi, u: 0.5, duration: 2h, gpu_memory_mib: 20000, reference_gpu: any}
policy: fifo+first-fit
outputs: {timeseries_step: 1h, metrics_start: "2026-01-01"}
)"));
  const std::string om = run_metrics(s);
  const std::string amd = R"(gpu_id="0",serial_number="0000000000000000",card_model="AMD Instinct MI300X OAM",hostname="amd-0",)"
                          R"(gpu_partition_id="{}",gpu_compute_partition_type="cpx",gpu_memory_partition_type="nps4",)"
                          R"(deployment_mode="baremetal")";
  const auto partition = [&](int p) { return fmt::format(fmt::runtime(amd), p); };
  // The job would keep 0.96 of a whole GPU busy; its partition is 38 of the 304 CUs, which it fills: 12.5 %
  // of the GPU, rounded as the exporter's integer percent.
  EXPECT_TRUE(has_line(om, "gpu_gfx_activity{" + partition(0) + "} 13 1767229200")) << om;
  EXPECT_TRUE(
      has_line(om, "gpu_used_vram{" + partition(0) + R"(,namespace="default",pod="a",container="main"} 10000 1767229200)"));
  EXPECT_TRUE(has_line(om, "gpu_total_vram{" + partition(7) + "} 24576 1767229200"));
  EXPECT_EQ(om.find("gpu_gfx_activity{" + partition(1)), std::string::npos);  // partition 0 only
  EXPECT_EQ(om.find("gpu_energy_consumed{" + partition(1)), std::string::npos);
  EXPECT_GT(sample(om, "gpu_package_power{" + partition(0) + "}", "1767229200"), 0);
  EXPECT_TRUE(has_line(om, "gpu_package_power{" + partition(7) + "} 0.0 1767229200"));
  const std::string gaudi = R"(Serial="SN0000000008",UUID="0000000000000008",device="SN0000000008",id="0",)"
                            R"(instance="gaudi-0:41611",pod_namespace="default",pod_name="b")";
  EXPECT_TRUE(has_line(om, "habanalabs_utilization{" + gaudi + "} 50 1767229200"));
  EXPECT_TRUE(has_line(om, "habanalabs_memory_used_bytes{" + gaudi + "} 20971520000 1767229200"));
  EXPECT_TRUE(has_line(om, "habanalabs_memory_total_bytes{" + gaudi + "} 137438953472 1767229200"));
  // Over the first hour, drawn from 0: the energy (mJ) is the hour's mean power (mW, rounded) x 3,600 s.
  const double mw = sample(om, "habanalabs_power_mW{" + gaudi + "}", "1767229200");
  EXPECT_GT(mw, 0);
  EXPECT_NEAR(sample(om, "habanalabs_energy{" + gaudi + "}", "1767229200"), mw * 3600, 3600);
  EXPECT_EQ(om.find("DCGM_FI_DEV_POWER_USAGE{"), std::string::npos);
}

TEST(OpenMetrics, BadStartDate) {
  const std::string path = test::write_file("tiny.yaml", kTiny);
  const std::string msg = test::input_error([&] { test::load(path, {"outputs.metrics_start=2026-02-30"}); });
  EXPECT_NE(msg.find("outputs.metrics_start"), std::string::npos) << msg;
  EXPECT_NE(msg.find("YYYY-MM-DD"), std::string::npos) << msg;
}
