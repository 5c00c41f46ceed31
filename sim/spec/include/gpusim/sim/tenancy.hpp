#pragma once
// A scenario's `tenancy:` block (issue 17; docs/guide/tenants.md): the Kubernetes objects of a shared
// cluster. Some sit in front of the scheduler (admission: namespace ResourceQuotas, Kueue queues);
// the others are rules the scheduler places and preempts by (PriorityClasses, disruption budgets,
// DRA device classes). Each part has its own reader; the whole is checked against the scenario's
// jobs and pools once they are read.
#include <optional>

#include "gpusim/core/config.hpp"
#include "gpusim/core/fields.hpp"
#include "gpusim/sim/dra.hpp"
#include "gpusim/sim/kueue_spec.hpp"
#include "gpusim/sim/priority_classes.hpp"
#include "gpusim/sim/resource_quota.hpp"

namespace gpusim {

struct Scenario;

struct TenancySpec {
  bool given = false;  // the scenario has a tenancy: block (then runs keep per-namespace figures)
  // The kube-apiserver admission plugin ExtendedResourceToleration is on (node_placement.hpp).
  bool extended_resource_toleration = false;
  DraSpec dra;                                 // DeviceClasses and ResourceClaimTemplates (sim/dra.hpp)
  PrioritySpec priority;                       // priority_classes, pod_disruption_budgets
  std::vector<ResourceQuota> resource_quotas;  // admission at pod creation
  KueueSpec kueue;                             // ResourceFlavors, ClusterQueues, Cohorts, LocalQueues (sim/kueue_spec.hpp)
};

const Section& tenancy_section();

// Reads `tenancy:` (absent: none) once the scenario's pools and jobs are final, and checks what the
// jobs name in it. Throws InputError naming the file, the field and what was expected.
TenancySpec read_tenancy(const std::optional<ConfigNode>& node, Scenario& s);

}  // namespace gpusim
