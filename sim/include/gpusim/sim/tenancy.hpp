#pragma once
// A scenario's `tenancy:` block (issue 17; README "Tenants"): the Kubernetes objects of a shared
// cluster. Some sit in front of the scheduler (admission: namespace ResourceQuotas, Kueue queues);
// the others are rules the scheduler places and preempts by (PriorityClasses, disruption budgets,
// DRA device classes). Each part has its own reader; the whole is checked against the scenario's
// jobs and pools once they are read.
#include <optional>

#include "gpusim/core/config.hpp"
#include "gpusim/core/fields.hpp"
#include "gpusim/sim/kueue_spec.hpp"

namespace gpusim {

struct Scenario;

struct TenancySpec {
  KueueSpec kueue;
};

const Section& tenancy_section();

// Reads `tenancy:` (absent: none) once the scenario's pools and jobs are final, and checks what the
// jobs name in it. Throws InputError naming the file, the field and what was expected.
TenancySpec read_tenancy(const std::optional<ConfigNode>& node, const Scenario& s);

}  // namespace gpusim
