#pragma once
// Running a scenario end to end: simulate() (sim/run) under the policy the scenario names, so a test that includes
// this links gpusim_policies.
#include <stdexcept>
#include <string>

#include "gpusim/policies/registry.hpp"
#include "gpusim/sim/report.hpp"
#include "gpusim/sim/run.hpp"
#include "scenario_util.hpp"

namespace gpusim::test {

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

}  // namespace gpusim::test
