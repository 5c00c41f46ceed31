// The sharing model replayed against the measurements on an NVIDIA H200 (data/measurements/h200-2026-11-28):
// every time-slicing and MPS group of sharing.jsonl and the long kernels of timeslice.jsonl, per process and
// in all, each within 10 % (the table: docs/guide/sharing.md#checked-against-an-h200).
//
// Each group is what its README says it is: N processes, one CUDA context each, repeating a kernel
// and a synchronize for 3 s, kept busy `duty` of their wall time. Time-slicing goes through the slot
// model (round_robin), its contexts taking their group's solo figures as their step; MPS through the
// fluid rates (mps_rates), a quarter-GPU kernel filling a quarter of the SMs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/time_slices.hpp"
#include "test_util.hpp"

namespace gpusim {
namespace {

using nlohmann::json;

constexpr double kTolerance = 0.10;

std::vector<json> read_lines(const std::string& file) {
  std::ifstream in(test::source_path("data/measurements/h200-2026-11-28/" + file));
  std::vector<json> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(json::parse(line));
  return out;
}

struct Group {
  std::string name;
  int n = 0;
  double duty = 1, seconds = 0;
  bool quarter = false;
  std::vector<double> launches;           // per process
  double busy_s = 0;                      // summed over processes
  double gap_p50_ms = 0, gap_p99_ms = 0;  // of the first process: device-clock time between its kernels' starts
};

std::vector<Group> groups() {
  std::vector<Group> out;
  for (const json& g : read_lines("sharing.jsonl")) {
    Group x{g["group"],
            g["n"],
            g["duty"],
            g["dur"],
            g["blocks"] == 33,
            {},
            0,
            g["procs"][0]["gap_p50_ms"],
            g["procs"][0]["gap_p99_ms"]};
    for (const json& p : g["procs"]) {
      x.launches.push_back(p["launches"]);
      x.busy_s += p["busy_s"].get<double>();
    }
    out.push_back(std::move(x));
  }
  return out;
}

// The solo run a group's processes are measured against: the same kernel and duty alone (MPS groups
// without one of their own take the time-slicing group's: one context alone is not shared either way).
const Group& solo(const std::vector<Group>& all, const Group& g) {
  const std::string base = g.name.substr(g.name.find('-') + 1);
  for (const std::string& prefix : {g.name.substr(0, g.name.find('-')), std::string("ts")})
    for (const Group& s : all)
      if (s.n == 1 && s.name == prefix + "-" + base) return s;
  throw std::runtime_error("no solo run for " + g.name);
}

Duration ms(double v) { return Duration::from_us(std::llround(v * 1000)); }

struct Row {
  std::string group;
  int n;
  double measured, model;  // launches per process (mean)
};

std::vector<Row>& table() {
  static std::vector<Row> rows;
  return rows;
}

// The rows so far, as docs/guide/sharing.md's table has them (launches per process, or the kernel's ms).
void print_table() {
  for (const Row& r : table())
    fmt::print("| {} | {} | {:.0f} | {:.0f} | {:+.1f} % |\n", r.group, r.n, r.measured, r.model,
               (r.model / r.measured - 1) * 100);
  table().clear();
}

void check(const Group& g, double model_per_process) {
  double sum = 0;
  for (std::size_t i = 0; i < g.launches.size(); ++i) {
    sum += g.launches[i];
    EXPECT_NEAR(model_per_process / g.launches[i], 1.0, kTolerance) << g.name << " n=" << g.n << " process " << i;
  }
  EXPECT_NEAR(model_per_process * g.n / sum, 1.0, kTolerance) << g.name << " n=" << g.n << " in all";
  table().push_back({g.name, g.n, sum / g.n, model_per_process});
}

TEST(MeasuredSharing, TimeSlicingGroups) {
  const TimeSlicingModel& m = ExecutionModel::builtin().time_slicing.of(*Catalog::builtin().find_gpu("H200"));
  const auto all = groups();
  int checked = 0;
  for (const Group& g : all) {
    if (g.name.rfind("ts-", 0) != 0 || g.n < 2) continue;
    const Group& alone = solo(all, g);
    // Alone, a step is its mean latency (kernel, launch and synchronize); a duty-cycled loop then
    // sleeps latency x (1 - duty) / duty, overshooting by what its solo cycle shows beyond that.
    const double cycle_ms = alone.seconds * 1e3 / alone.launches[0];
    const double latency_ms = alone.busy_s * 1e3 / alone.launches[0];
    // Its sleeps vary as much as its solo cycle does (the spread from median to 99th percentile).
    const double jitter_ms = g.duty < 1 ? alone.gap_p99_ms - alone.gap_p50_ms : 0;
    const SlicedContext c{ms(g.duty < 1 ? latency_ms : cycle_ms), ms(g.duty < 1 ? cycle_ms - latency_ms / g.duty : 0), g.duty,
                          ms(jitter_ms)};
    const auto out = round_robin(std::vector<SlicedContext>(static_cast<std::size_t>(g.n), c), m, ms(g.seconds * 1e3));
    double steps = 0;
    for (const SlicedOutcome& o : out) steps += static_cast<double>(o.steps);
    check(g, steps / g.n);
    ++checked;
  }
  EXPECT_EQ(checked, 12);  // ts-alu-full x3, ts-alu-quarter x2, ts-mem x2, ts-duty25 x3, ts-duty50, ts-alu-full-long
  print_table();
}

TEST(MeasuredSharing, MpsGroups) {
  const MpsModel& m = ExecutionModel::builtin().mps;
  const auto all = groups();
  int checked = 0;
  for (const Group& g : all) {
    if (g.name.rfind("mps-", 0) != 0 || g.n < 2) continue;
    const auto n = static_cast<std::size_t>(g.n);
    std::vector<double> duty(n, g.duty), occupancy(n, g.quarter ? 0.25 : 1.0), caps(n, 1.0), rates(n);
    mps_rates(duty, occupancy, caps, m, rates);
    check(g, rates[0] * solo(all, g).launches[0]);
    ++checked;
  }
  EXPECT_EQ(checked, 10);  // mps-alu-full x3, mps-alu-quarter x3, mps-mem x2, mps-duty25 x2
  print_table();
}

// One long kernel (48.45 ms alone) per context, 2 and 3 at once: each context's kernel takes as long
// as all of them with the preemptions between slices.
TEST(MeasuredSharing, LongKernelsTakeTurns) {
  const TimeSlicingModel& m = ExecutionModel::builtin().time_slicing.of(*Catalog::builtin().find_gpu("H200"));
  const auto runs = read_lines("timeslice.jsonl");
  double alone_ms = 0;
  for (const json& r : runs)
    if (r["gaps"] == 0) alone_ms = r["kernel_med_ms"];
  ASSERT_GT(alone_ms, 40);
  int checked = 0;
  for (const json& r : runs) {
    if (r["gaps"] == 0) continue;
    const std::string name = r["run"];
    const std::size_t n = name[7] - '0';  // slice_nN_k
    const auto out = round_robin(std::vector<SlicedContext>(n, SlicedContext{ms(alone_ms), ms(1e6), 1, {}}), m, ms(1e3));
    double model_ms = 0;
    for (const SlicedOutcome& o : out) model_ms = std::max(model_ms, static_cast<double>(o.busy.us()) / 1e3);
    EXPECT_NEAR(model_ms / r["kernel_med_ms"].get<double>(), 1.0, 0.02) << name;
    table().push_back({name, static_cast<int>(n), r["kernel_med_ms"], model_ms});
    ++checked;
  }
  EXPECT_EQ(checked, 5);
  print_table();
}

}  // namespace
}  // namespace gpusim
