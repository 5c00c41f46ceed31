#include "gpusim/sim/tenancy.hpp"

#include "gpusim/sim/scenario.hpp"

namespace gpusim {

const Section& tenancy_section() {
  static const Section s{
      "tenancy", "The Kubernetes objects of a shared cluster: priorities, quotas, queues, devices",
      join_fields(
          {{{"extended_resource_toleration", Type::boolean(), "false", "",
             "The ExtendedResourceToleration admission plugin: pods asking a GPU resource tolerate NoSchedule taints "
             "keyed by it (docs/guide/tenants.md, Taints, selectors and affinity)"},
            {"priority_classes", Type::list(Type::section(priority_class_section())), "", "", "PriorityClasses jobs name"},
            {"pod_disruption_budgets", Type::list(Type::section(disruption_budget_section())), "", "",
             "PodDisruptionBudgets the scheduler's preemption avoids violating"},
            {"resource_quotas", Type::list(Type::section(resource_quota_section())), "", "",
             "Namespace ResourceQuotas: a job over one is rejected when its pods are created"},
            {"kueue", Type::section(kueue_section()), "", "",
             "Kueue queues, cohorts and flavors (docs/guide/tenants.md, Kueue)"}},
           dra_fields()})};
  return s;
}

TenancySpec read_tenancy(const std::optional<ConfigNode>& node, Scenario& s) {
  TenancySpec t;
  const std::optional<Fields> f = node ? std::optional(tenancy_section().read(*node)) : std::nullopt;
  read_priority_classes(f ? &*f : nullptr, s.jobs, t.priority);  // also without a block: a job naming a class is an error
  if (f) {
    t.given = true;
    t.extended_resource_toleration = f->value("extended_resource_toleration").as_bool();
    t.dra = read_dra(*f);
    if (auto q = f->get("resource_quotas")) t.resource_quotas = read_resource_quotas(*q, s.jobs);
    if (auto k = f->get("kueue")) t.kueue = read_kueue(*k, s);
  }
  check_kueue_queues(t.kueue, s);  // also without a block: a job naming a queue is an error
  return t;
}

}  // namespace gpusim
