#pragma once
// PriorityClasses and PodDisruptionBudgets (`tenancy.priority_classes`, `tenancy.pod_disruption_budgets`;
// docs/guide/tenants.md): the rules kube-scheduler's default preemption goes by. A job's class sets its
// priority as the Priority admission controller does
// (https://kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/fields.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

// A PriorityClass's preemptionPolicy: Never pods wait for room instead of preempting.
enum class PreemptionPolicy : uint8_t { PreemptLowerPriority, Never };
constexpr auto enum_table(PreemptionPolicy) {
  return std::to_array<EnumName<PreemptionPolicy>>(
      {{PreemptionPolicy::PreemptLowerPriority, "PreemptLowerPriority"}, {PreemptionPolicy::Never, "Never"}});
}

struct PriorityClass {
  std::string name;
  int32_t value = 0;
  PreemptionPolicy preemption = PreemptionPolicy::PreemptLowerPriority;
  bool global_default = false;
  std::string description;
};

// A PodDisruptionBudget: of the pods of `tenant` (its namespace) whose labels include every one of
// `match_labels`, at least min_available stay up, or at most max_unavailable are down; a count, or
// a percent of the matching pods (rounded up, as the disruption controller does).
struct DisruptionBudget {
  static constexpr uint16_t kNoTenant = 0xFFFFu;
  std::string name;
  uint16_t tenant = kNoTenant;  // JobSet::tenants; kNoTenant: a namespace no job is in (it matches none)
  std::vector<std::pair<std::string, std::string>> match_labels;  // sorted by key; empty matches nothing
  bool min_available = true;                                      // else max_unavailable
  int32_t value = 0;
  bool percent = false;
  bool matches(const JobSet& jobs, const Job& j) const;
  // How many of `matching` pods (healthy of them running, not leaving) may be disrupted now:
  // Status.DisruptionsAllowed (0 at least).
  int64_t disruptions_allowed(int64_t healthy, int64_t matching) const;
};

struct PrioritySpec {
  std::vector<PriorityClass> classes;
  std::vector<DisruptionBudget> budgets;
  // The job's class: the one it names, else the global default; null when neither.
  const PriorityClass* class_of(const JobSet& jobs, const Job& j) const;
  PreemptionPolicy preemption_policy(const JobSet& jobs, const Job& j) const {
    const PriorityClass* c = class_of(jobs, j);
    return c ? c->preemption : PreemptionPolicy::PreemptLowerPriority;
  }
  // The job's pod's terminationGracePeriodSeconds.
  static Duration termination_grace(const JobSet& jobs, const Job& j) {
    const PodSpec* p = jobs.pod(j);
    return p ? p->termination_grace : PodSpec{}.termination_grace;
  }

 private:
  std::optional<std::size_t> global_default_;
  friend void read_priority_classes(const Fields*, JobSet&, PrioritySpec&);
};

const Section& priority_class_section();
const Section& disruption_budget_section();

// Reads tenancy.priority_classes and tenancy.pod_disruption_budgets from the tenancy block `t` (null: none) and
// gives each job its class's priority (Job::priority). Throws InputError naming the file, the field
// and what was expected (an unknown class, two global defaults, a job whose priority is not its class's).
void read_priority_classes(const Fields* t, JobSet& jobs, PrioritySpec& out);

// A budget's "N%" as Kubernetes validates it (IsValidPercent, ^[0-9]+%$, and "must not be greater
// than 100%"): N, or none when `text` is not a whole percent from 0% to 100%.
std::optional<int32_t> budget_percent(std::string_view text);

}  // namespace gpusim
