#pragma once
// Human tables for the terminal: one list of metric rows serves `run` and `compare`.
#include <string>
#include <vector>

#include "gpusim/sim/report.hpp"

namespace gpusim::cli {

std::string run_table(const Json& summary);
// Policies side by side; the best value of each comparable row is marked with '*'.
std::string compare_table(const std::vector<Json>& summaries);

}  // namespace gpusim::cli
