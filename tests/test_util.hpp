#pragma once
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gpusim/core/error.hpp"
#include "gpusim/policies/registry.hpp"
#include "gpusim/sim/report.hpp"
#include "gpusim/sim/run.hpp"
#include "gpusim/sim/scenario.hpp"

namespace gpusim::test {

inline std::string source_path(const std::string& rel) { return fmt::format("{}/{}", GPUSIM_SOURCE_DIR, rel); }

// Writes `content` to a fresh file in the test's temporary directory and returns its path.
inline std::string write_file(const std::string& name, const std::string& content) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::temp_directory_path() / "gpusim-tests" / info->test_suite_name() / info->name();
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << content;
  return path.string();
}

inline Scenario load(const std::string& path, std::vector<std::string> sets = {}) {
  return load_scenario(path, {std::move(sets), source_path("data"), {}, {}});
}

// Runs the scenario under its own policy, or `policy`.
inline RunResult simulate_scenario(const Scenario& s, const std::string& policy = "") {
  auto scheduler = Registry::global().make(policy.empty() ? s.policy : policy, policy_context(s), s.policy_where);
  return simulate(s, *scheduler);
}

inline Json run(const Scenario& s, const std::string& policy = "") { return summarize(s, simulate_scenario(s, policy)); }

// Runs the scenario under its own policy keeping a row per request (as requests.csv's writer asks);
// `audit` checks the run's invariants after every event.
inline RunResult simulate_keeping_requests(const Scenario& s, bool audit = false) {
  struct KeepRequests final : Observer, WantsRequests {
  } keep;
  auto scheduler = Registry::global().make(s.policy, policy_context(s), s.policy_where);
  return simulate(s, *scheduler, {{}, {&keep}, audit});
}

// The row of request `id` (its service's arrival order) of a run with a single service.
inline const RequestRow& request_row(const RunResult& r, uint64_t id) {
  for (const RequestRow& q : r.requests)
    if (q.id == id) return q;
  throw std::runtime_error("no such request");
}

// The message of the InputError `f` throws; fails the test if it throws nothing.
template <typename F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return "";
}

// The serving tests' hardware: a toy GPU TOY of 100 TFLOP/s and `bandwidth_gb_per_s` on one-GPU nodes
// toy-1x, with serving efficiencies 1 and no overheads, so that iteration times come out round.
// `gpus` adds catalog GPU entries (given the same efficiencies when `efficiency_gpus` names them).
inline std::string toy_serving_hardware(int bandwidth_gb_per_s, const std::string& gpus = "",
                                        const std::string& efficiency_gpus = "TOY") {
  return fmt::format(
      "catalog:\n"
      "  gpus:\n"
      "    - {{name: TOY, memory_mib: 10240, sms: 100, bf16_tflops: 100, fp32_tflops: 10, memory_bandwidth_gb_per_s: {},\n"
      "       tdp_w: 100, nvlink_gb_per_s: 0, pcie_gen: 4, compute_capability: 8.0, source: test}}\n"
      "{}"
      "  nodes:\n"
      "    - {{name: toy-1x, gpu: TOY, gpus: 1, cpu_milli: 1000, memory_mib: 1024, price_per_node_hour_usd: 1, source: test}}\n"
      "model:\n"
      "  serving:\n"
      "    efficiency:\n"
      "      - {{gpus: [{}], e_flops: 1, e_bw: 1, e_attn: 1, e_link: 1, overhead_tp1: 0, overhead_tp: 0, alpha: 0, source: "
      "test}}\n",
      bandwidth_gb_per_s, gpus, efficiency_gpus);
}

}  // namespace gpusim::test
