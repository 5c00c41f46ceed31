#include "packing.hpp"

#include <fmt/format.h>

#include <chrono>
#include <ostream>

#include "gpusim/core/error.hpp"
#include "gpusim/policies/registry.hpp"
#include "runs.hpp"

namespace gpusim::cli {

std::vector<PackingRun> run_packing_grid(const std::string& scenario, const LoadOptions& options,
                                         const std::vector<std::string>& policies, const std::vector<uint64_t>& seeds,
                                         int workers, Progress* progress, bool placements) {
  std::vector<PackingRun> runs;
  for (const auto& p : policies)
    for (uint64_t seed : seeds) runs.push_back({p, seed, {}, 0, {}});
  std::vector<Scenario> scenarios;
  for (uint64_t seed : seeds) {
    LoadOptions o = options;
    o.overrides.push_back(fmt::format("seed={}", seed));
    scenarios.push_back(load_scenario(scenario, o));
    if (!scenarios.back().packing)
      throw InputError({scenario, std::nullopt, "workload.packing"}, "expected a packing workload (workload.packing: {until: 1.3})");
  }
  for (const auto& p : policies)  // bad names fail before any run
    Registry::global().make(p, policy_context(scenarios.front()), {"--policies", std::nullopt, p});
  if (progress) progress->start_runs(runs.size());
  parallel_for(runs.size(), workers, [&](std::size_t i) {
    const Scenario& s = scenarios[i % seeds.size()];
    auto scheduler = Registry::global().make(runs[i].policy, policy_context(s), {"--policies", std::nullopt, runs[i].policy});
    const auto t0 = std::chrono::steady_clock::now();
    PackingResult r = run_packing(s, *scheduler, placements);
    runs[i].checkpoints = std::move(r.checkpoints);
    runs[i].placements = std::move(r.placements);
    runs[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (progress) progress->run_done();
  });
  return runs;
}

std::optional<PackingCheckpoint> at_percent(const std::vector<PackingCheckpoint>& c, int percent) {
  if (percent < 0 || static_cast<std::size_t>(percent) >= c.size()) return std::nullopt;
  return c[static_cast<std::size_t>(percent)];
}

std::string packing_table(const std::vector<PackingRun>& runs) {
  struct Column {
    const char* title;
    int percent;
    bool allocation;  // else fragmentation ratio
  };
  static constexpr Column kColumns[] = {{"alloc@100%", 100, true}, {"alloc@130%", 130, true}, {"frag@50%", 50, false},
                                        {"frag@70%", 70, false},   {"frag@80%", 80, false},    {"frag@90%", 90, false}};
  std::vector<std::string> policies;
  for (const auto& r : runs)
    if (std::find(policies.begin(), policies.end(), r.policy) == policies.end()) policies.push_back(r.policy);
  std::size_t width = 6;
  for (const auto& p : policies) width = std::max(width, p.size());
  std::string out = fmt::format("  {:<{}}", "policy", width);
  for (const Column& c : kColumns) out += fmt::format(" {:>10}", c.title);
  out += fmt::format(" {:>12} {:>6} {:>9}\n", "failed@130%", "seeds", "s/run");
  for (const auto& p : policies) {
    out += fmt::format("  {:<{}}", p, width);
    std::size_t n = 0;
    double seconds = 0;
    for (const Column& c : kColumns) {
      double sum = 0;
      std::size_t count = 0;
      for (const auto& r : runs)
        if (r.policy == p)
          if (auto v = at_percent(r.checkpoints, c.percent)) {
            sum += c.allocation ? v->allocation_ratio : v->frag_ratio;
            ++count;
          }
      out += count ? fmt::format(" {:>9.2f}%", 100 * sum / static_cast<double>(count)) : fmt::format(" {:>10}", "-");
    }
    double failed = 0;
    for (const auto& r : runs)
      if (r.policy == p) {
        ++n;
        seconds += r.seconds;
        if (auto v = at_percent(r.checkpoints, 130)) failed += v->failed_pods;
      }
    out += fmt::format(" {:>12.1f} {:>6} {:>9.3f}\n", failed / static_cast<double>(n), n, seconds / static_cast<double>(n));
  }
  out += "\n  alloc@X%: allocated GPU / GPU capacity once the pods that arrived ask for X% of capacity (mean over seeds);\n"
         "  frag@X%: fragmented idle GPU / idle GPU (FGD's measure against the workload's task mix).\n";
  return out;
}

void write_packing_csv(std::ostream& out, const std::vector<PackingRun>& runs) {
  out << "policy,seed,percent,allocation_ratio,frag_ratio,frag_gpus,arrived_pods,failed_pods\n";
  for (const auto& r : runs)
    for (const auto& c : r.checkpoints)
      out << fmt::format("{},{},{},{:.6f},{:.6f},{:.3f},{},{}\n", r.policy, r.seed, c.percent, c.allocation_ratio, c.frag_ratio,
                         c.frag_gpus, c.arrived_pods, c.failed_pods);
}

}  // namespace gpusim::cli
