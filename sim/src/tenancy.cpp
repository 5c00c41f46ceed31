#include "gpusim/sim/tenancy.hpp"

#include "gpusim/sim/scenario.hpp"

namespace gpusim {

const Section& tenancy_section() {
  static const Section s{
      "tenancy",
      "The Kubernetes objects of a shared cluster: priorities, quotas, queues, devices",
      {{"kueue", Type::section(kueue_section()), "", "", "Kueue queues, cohorts and flavors (README, Tenants: Kueue)"}}};
  return s;
}

TenancySpec read_tenancy(const std::optional<ConfigNode>& node, const Scenario& s) {
  TenancySpec t;
  if (node)
    if (const auto k = tenancy_section().read(*node).get("kueue")) t.kueue = read_kueue(*k, s);
  check_kueue_queues(t.kueue, s);
  return t;
}

}  // namespace gpusim
