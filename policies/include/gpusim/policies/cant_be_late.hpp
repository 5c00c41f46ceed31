#pragma once
// The rules of "Can't Be Late: Optimizing Spot Instance Savings under Deadlines" (Wu et al., NSDI '24,
// §3-§5) for one job that may run on spot or on-demand capacity: small pure functions, so that each
// rule is tested alone; the placement in cant_be_late.cpp applies them at decision points.
#include <cstdint>
#include <optional>

#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/time.hpp"

namespace gpusim::cbl {

// Which rule moves the job (the paper's policies; docs/guide/markets.md).
//   greedy            spot whenever available; on-demand for good once idle with R(t) <= C(t) + 2d (§3.4)
//   uniform-plain     Uniform Progress without hysteresis: idle and behind ep(t) -> on-demand; spot
//                     whenever available, from on-demand too (§5.2.2 rules 1-2)
//   uniform-progress  the paper's policy: uniform-plain whose on-demand job leaves for spot only once
//                     cp(t) >= ep(t + 2d) (rule 3, hysteresis)
//   on-demand         on-demand only
//   spot              spot only
// All but the last two take the Safety Net (§3.3) and never leave a spot instance of their own accord
// (Exploitation Rule).
enum class Rule : uint8_t { greedy, uniform_plain, uniform_progress, on_demand, spot };
constexpr auto enum_table(Rule) {
  return std::to_array<EnumName<Rule>>({{Rule::greedy, "greedy"},
                                        {Rule::uniform_plain, "uniform-plain"},
                                        {Rule::uniform_progress, "uniform-progress"},
                                        {Rule::on_demand, "on-demand"},
                                        {Rule::spot, "spot"}});
}

// Where the job is, or should be.
enum class Where : uint8_t { idle, spot, on_demand };

// One job's clock in the paper's terms, all from its arrival: C(0) its work, R(0) its deadline,
// t the time since it arrived, C(t) its work left, d its restart overhead (changeover delay).
struct JobClock {
  Duration work;       // C(0)
  Duration deadline;   // R(0)
  Duration elapsed;    // t
  Duration remaining;  // C(t)
  Duration overhead;   // d
};

// R(t) - C(t): how long it may still spend not computing and end in time.
Duration slack(const JobClock& c);
// Safety Net Rule: R(t) <= C(t) + 2d, past which an idle job must take on-demand (one more spot
// changeover could miss the deadline). At equality already, so that a decision point asked for at
// that instant acts on it.
bool safety_net(const JobClock& c);
// Uniform progress: is cp(t) = C(0) - C(t) behind ep(t) = t C(0) / R(0)?
bool behind(const JobClock& c);
// Hysteresis: cp(t) >= ep(t + 2d).
bool hysteresis_met(const JobClock& c);

// When (as a time since arrival, after c.elapsed) an idle job reaches the Safety Net; nullopt if it has.
std::optional<Duration> safety_net_at(const JobClock& c);
// When an idle job falls behind ep (its progress is fixed while idle); nullopt if it is behind.
std::optional<Duration> behind_at(const JobClock& c);
// When a job computing at full speed meets the hysteresis; nullopt if it does, or never can
// (R(0) <= C(0): ep grows as fast as it computes).
std::optional<Duration> hysteresis_at(const JobClock& c);

// Where the rule sends a job that is at `at` now, given whether a spot instance is free for it.
Where decide(Rule rule, Where at, bool spot_free, const JobClock& c);

}  // namespace gpusim::cbl
