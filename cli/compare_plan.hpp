#pragma once
// The runs of a comparison, for `gpusim compare` and gpusim.compare alike: each variant of the
// scenario (or those named) under every policy, then each seed. They come in that order, labelled
// as the table's columns, so the table and the DataFrame are the same whatever runs them (run_all's
// threads, or Python's thread for a policy written in Python).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpusim/sim/scenario.hpp"
#include "runs.hpp"

namespace gpusim::cli {

struct CompareOptions {
  std::vector<std::string> policies;  // QUEUE+PLACEMENT each; empty: each variant's own
  std::vector<std::string> variants;  // only these, in the scenario's order; empty: all
  std::vector<uint64_t> seeds;        // each setup once per seed (set last, over a variant's); empty: the scenario's
  bool keep_files = false;            // RunSpec::keep_files (compare --report)
  // How errors name the policy list when it is missing, and the place of a policy name the
  // registry refuses: the CLI's flag, or Python's argument.
  std::string policies_arg = "--policies";
  std::string policy_source = "--policies";
};

struct ComparePlan {
  struct Origin {
    std::string variant;                // "" when the scenario has none
    std::optional<std::size_t> policy;  // index into CompareOptions::policies; none: the variant's own
  };
  std::vector<RunSpec> specs;   // variant-major, then policy, then seed
  std::vector<Origin> origins;  // per spec
};

// Loads the scenario's variants (once per seed) and lists the runs; an InputError for a variant the
// scenario has not, or for no policies and no variants.
ComparePlan compare_plan(const std::string& scenario, const LoadOptions& options, const CompareOptions& compare);

}  // namespace gpusim::cli
