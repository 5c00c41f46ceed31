#include "compare_plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

#include "gpusim/core/error.hpp"

namespace gpusim::cli {

namespace {

using Variants = std::vector<std::pair<std::string, Scenario>>;

// --variant: those variants alone, in the scenario's order; a name it does not have is refused.
void keep_named(Variants& loaded, const std::vector<std::string>& names, const std::string& scenario) {
  for (const std::string& name : names)
    if (std::none_of(loaded.begin(), loaded.end(), [&](const auto& v) { return v.first == name; })) {
      std::vector<std::string> known;
      for (const auto& v : loaded) known.push_back(v.first.empty() ? "(none)" : v.first);
      throw InputError({"", std::nullopt, "--variant"},
                       fmt::format("{} has no variant '{}'; its variants: {}", scenario, name, fmt::join(known, ", ")));
    }
  if (!names.empty())
    std::erase_if(loaded, [&](const auto& v) { return std::find(names.begin(), names.end(), v.first) == names.end(); });
}

// A column is named by what varies: the policy without variants, the variant alone under one policy.
std::string label(const std::string& variant, const std::string& policy, std::size_t policies) {
  if (variant.empty()) return policy;
  return policies > 1 ? fmt::format("{} {}", variant, policy) : variant;
}

}  // namespace

ComparePlan compare_plan(const std::string& scenario, const LoadOptions& options, const CompareOptions& compare) {
  // One load of the variants per seed (the seed set last, so it wins over a variant's).
  std::vector<Variants> loaded;
  for (std::size_t k = 0; k < std::max<std::size_t>(compare.seeds.size(), 1); ++k) {
    LoadOptions seeded = options;
    if (!compare.seeds.empty()) seeded.overrides.push_back(fmt::format("seed={}", compare.seeds[k]));
    loaded.push_back(load_variants(scenario, seeded));
    keep_named(loaded.back(), compare.variants, scenario);
  }
  if (compare.policies.empty() && loaded.front().front().first.empty())
    throw InputError({"", std::nullopt, "--policies"}, fmt::format("give {}, or a scenario with variants", compare.policies_arg));
  ComparePlan plan;
  for (std::size_t v = 0; v < loaded.front().size(); ++v) {
    const auto& [variant, s0] = loaded.front()[v];
    const std::vector<std::string> policies = compare.policies.empty() ? std::vector<std::string>{s0.policy} : compare.policies;
    for (std::size_t p = 0; p < policies.size(); ++p)
      for (const Variants& per_seed : loaded) {
        const Scenario& s = per_seed[v].second;
        const SourceLocation where = compare.policies.empty() ? s.policy_where
                                                              : SourceLocation{compare.policy_source, std::nullopt, policies[p]};
        plan.specs.push_back({label(variant, policies[p], policies.size()), s, policies[p], where, false, compare.keep_files});
        plan.origins.push_back({variant, compare.policies.empty() ? std::nullopt : std::optional(p)});
      }
  }
  return plan;
}

}  // namespace gpusim::cli
