#pragma once
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gpusim/core/error.hpp"
#include "gpusim/policies/registry.hpp"
#include "gpusim/sim/engine.hpp"
#include "gpusim/sim/report.hpp"
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

}  // namespace gpusim::test
