#pragma once
// Loading a scenario (sim/spec): for tests of the spec layer and what builds on it.
#include <string>
#include <vector>

#include "gpusim/sim/scenario.hpp"
#include "test_util.hpp"

namespace gpusim::test {

inline Scenario load(const std::string& path, std::vector<std::string> sets = {}) {
  return load_scenario(path, {std::move(sets), source_path("data"), {}, {}});
}

}  // namespace gpusim::test
