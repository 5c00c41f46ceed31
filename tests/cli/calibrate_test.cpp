// gpusim calibrate's derivations, each on a few hand-written lines whose answer is worked out here.
#include <gtest/gtest.h>

#include "calibrate.hpp"
#include "gpusim/core/error.hpp"

namespace gpusim::cli {
namespace {

JsonLines lines(const std::string& text) { return parse_json_lines(text, "f.jsonl"); }

// The slice is the median run between pauses; runs without pauses (one context) are left out.
TEST(Calibrate, TimesliceIsTheMedianRunOfPausedRuns) {
  const JsonLines t = lines(R"({"run":"slice_n1_1","gaps":0,"run_med_ms":0,"gap_med_ms":0}
{"run":"slice_n2_1","gaps":4,"run_med_ms":2.0,"gap_med_ms":2.5}
{"run":"slice_n3_1","gaps":4,"run_med_ms":2.1,"gap_med_ms":4.8}
{"run":"slice_n3_2","gaps":4,"run_med_ms":2.2,"gap_med_ms":4.8})");
  EXPECT_DOUBLE_EQ(timeslice_ms(t), 2.1);
  // (2 + 2.5) / 2 - 2 = 0.25; (2.1 + 4.8) / 3 - 2.1 = 0.2; (2.2 + 4.8) / 3 - 2.2 = 0.1333: mean 0.1944.
  EXPECT_NEAR(preempt_switch_ms(t), (0.25 + 0.2 + (7.0 / 3 - 2.2)) / 3, 1e-12);
}

// Two contexts complete 8,000 launches in 3 s (0.375 ms a step) where one alone did 12,000 (0.25 ms):
// 0.125 ms a switch. Duty < 1, MPS and n = 1 runs are left out.
TEST(Calibrate, YieldSwitchIsTheStepTimeOverTheSoloOne) {
  const JsonLines s = lines(R"({"group":"ts-a","n":1,"duty":1,"dur":3,"procs":[{"launches":12000}]}
{"group":"ts-a","n":2,"duty":1,"dur":3,"procs":[{"launches":4000},{"launches":4000}]}
{"group":"ts-d","n":1,"duty":0.5,"dur":3,"procs":[{"launches":100}]}
{"group":"ts-d","n":2,"duty":0.5,"dur":3,"procs":[{"launches":10},{"launches":10}]}
{"group":"mps-a","n":2,"duty":1,"dur":3,"procs":[{"launches":1},{"launches":1}]})");
  EXPECT_NEAR(yield_switch_ms(s), 0.125, 1e-12);
}

TEST(Calibrate, ContextMemoryIsTheMedianUsedMib) {
  const JsonLines s = lines(R"({"group":"ts-a","n":3,"apps_mem":"816, 524\n817, 530\n815, 520"})");
  EXPECT_DOUBLE_EQ(context_memory_mib(s), 524);
}

// Four quarter-GPU clients each at 99% of one alone: 1% interference; faster than alone is none.
TEST(Calibrate, BandwidthInterferenceIsTheLossPerClient) {
  const JsonLines s = lines(R"({"group":"mps-alu-quarter","n":1,"procs":[{"launches":1000}]}
{"group":"mps-alu-quarter","n":4,"procs":[{"launches":990},{"launches":990},{"launches":980},{"launches":1000}]})");
  EXPECT_NEAR(bandwidth_interference(s), 0.01, 1e-12);
  const JsonLines faster = lines(R"({"group":"mps-alu-quarter","n":1,"procs":[{"launches":1000}]}
{"group":"mps-alu-quarter","n":4,"procs":[{"launches":1001},{"launches":1001},{"launches":1001},{"launches":1001}]})");
  EXPECT_EQ(bandwidth_interference(faster), 0);
}

// fp32: 100 W idle with clocks up, 400 W at 75% busy -> 100 + 300 / 0.75 = 500 W; the throttled
// clock is over the highest clock any phase ran at (2,000 MHz).
TEST(Calibrate, PowerFiguresFollowTheirPhases) {
  const JsonLines phases = lines(R"({"phase":"idle","n":0,"power_w":70,"util_gpu":0,"sm_mhz":300}
{"phase":"pw-alu","n":1,"power_w":400,"util_gpu":75,"sm_mhz":2000}
{"phase":"ts-mem","n":1,"power_w":300,"util_gpu":100,"sm_mhz":2000})");
  const JsonLines tensor = lines(R"({"phase":"idle","power_w":90,"sm_mhz":2000,"secs":4}
{"phase":"gemm8192","power_w":600,"sm_mhz":1500,"limit_w":650,"tflops":400,"secs":8}
{"phase":"idle_after","power_w":110,"sm_mhz":2000,"secs":5})");
  const JsonLines ceilings = lines(R"({"gpu":"X"}
{"probe":"gemm8192","tflops":500})");
  const PowerFigures p = power_figures(phases, tensor, ceilings);
  EXPECT_EQ(p.tdp_w, 650);
  EXPECT_EQ(p.idle_low_w, 70);
  EXPECT_EQ(p.idle_high_w, 100);
  EXPECT_EQ(p.clock_hold_s, 5);
  EXPECT_DOUBLE_EQ(p.fp32_w, 500);
  EXPECT_DOUBLE_EQ(p.memory_w, 300);
  EXPECT_EQ(p.capped_w, 600);
  EXPECT_DOUBLE_EQ(p.throttled_clock, 0.75);
  EXPECT_DOUBLE_EQ(p.throttled_throughput, 0.8);
}

TEST(Calibrate, CatalogGpuMatchesNvmlProductNames) {
  const Catalog& c = Catalog::builtin();
  ASSERT_NE(catalog_gpu(c, "NVIDIA H200"), nullptr);
  EXPECT_EQ(catalog_gpu(c, "NVIDIA H200")->name, "H200-141GB");
  EXPECT_EQ(catalog_gpu(c, "NVIDIA Nonesuch"), nullptr);
}

// A bad line or field names the file, the line and the field.
TEST(Calibrate, BadInputNamesFileLineAndField) {
  try {
    lines("{\"run\":\"slice_n2_1\"}\n{not json");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "f.jsonl");
    EXPECT_EQ(e.where().line, 2);
  }
  try {
    timeslice_ms(lines(R"({"run":"slice_n2_1","gaps":3})"));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 1);
    EXPECT_EQ(e.where().field, "run_med_ms");
  }
  EXPECT_THROW(preempt_switch_ms(lines(R"({"run":"other","gaps":3,"run_med_ms":2,"gap_med_ms":2})")), InputError);
}

}  // namespace
}  // namespace gpusim::cli
