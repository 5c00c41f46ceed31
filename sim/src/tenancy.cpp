#include "gpusim/sim/tenancy.hpp"

#include "gpusim/sim/scenario.hpp"

namespace gpusim {

const Section& tenancy_section() {
  static const Section s{"tenancy", "The Kubernetes objects of a shared cluster: priorities, quotas, queues, devices",
                         join_fields({{
                                          {"extended_resource_toleration", Type::boolean(), "false", "",
                                           "The ExtendedResourceToleration admission plugin: pods asking a GPU resource "
                                           "tolerate NoSchedule taints keyed by it (README, Taints, selectors and affinity)"},
                                      },
                                      dra_fields()})};
  return s;
}

TenancySpec read_tenancy(const std::optional<ConfigNode>& node, const Scenario&) {
  TenancySpec t;
  if (!node) return t;
  const Fields f = tenancy_section().read(*node);
  t.extended_resource_toleration = f.value("extended_resource_toleration").as_bool();
  t.dra = read_dra(f);
  t.given = true;
  return t;
}

}  // namespace gpusim
