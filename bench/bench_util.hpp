#pragma once
// What the macro benchmarks share: a scenario written to a temporary file, and its replay.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gpusim/policies/registry.hpp"
#include "gpusim/sim/run.hpp"
#include "gpusim/sim/scenario.hpp"

namespace gpusim::bench {

inline Scenario scenario_from_text(const std::string& file_name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "gpusim-bench";
  std::filesystem::create_directories(dir);
  const auto file = dir / file_name;
  std::ofstream(file) << text;
  return load_scenario(file.string(), {});
}

// Runs `s` under its own policy once per iteration; counts its events and rate changes.
inline void replay_scenario(benchmark::State& state, const Scenario& s) {
  uint64_t events = 0, changes = 0;
  for (auto _ : state) {
    auto scheduler = Registry::global().make(s.policy, policy_context(s), {});
    const RunResult r = simulate(s, *scheduler);
    events = r.events;
    changes = r.rate_changes;
    benchmark::DoNotOptimize(r.jobs.data());
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["rate_changes"] = static_cast<double>(changes);
}

}  // namespace gpusim::bench
