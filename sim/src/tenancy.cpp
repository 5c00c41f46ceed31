#include "gpusim/sim/tenancy.hpp"

#include "gpusim/sim/scenario.hpp"

namespace gpusim {

const Section& tenancy_section() {
  static const Section s{"tenancy", "The Kubernetes objects of a shared cluster: priorities, quotas, queues, devices",
                         join_fields({dra_fields()})};
  return s;
}

TenancySpec read_tenancy(const std::optional<ConfigNode>& node, const Scenario&) {
  TenancySpec t;
  if (!node) return t;
  const Fields f = tenancy_section().read(*node);
  t.dra = read_dra(f);
  return t;
}

}  // namespace gpusim
