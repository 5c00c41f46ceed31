#pragma once
// One run, composed (the composition root): the kernel with the scenario's admissions (namespace
// quotas, Kueue), its modules (serving) and the tenant ledger, and what each leaves at the end.
#include <optional>
#include <vector>

#include "gpusim/sim/engine.hpp"
#include "gpusim/sim/service_controller.hpp"
#include "gpusim/sim/serving.hpp"
#include "gpusim/sim/tenant_ledger.hpp"

namespace gpusim {

// An observer that also derives from this asks the run to keep a row per request of the scenario's
// services (RunResult::requests): requests.csv's writer.
class WantsRequests {
 public:
  virtual ~WantsRequests() = default;
};

// ... and a row per routing decision (RunResult::routes): the Perfetto trace's writer.
class WantsRoutes {
 public:
  virtual ~WantsRoutes() = default;
};

struct RunResult : KernelResult {
  std::optional<TenancyFigures> tenancy;  // per-namespace figures, when the scenario has a tenancy: block
  std::vector<ServiceFigures> services;   // per service, in the scenario's order
  std::vector<RequestRow> requests;       // per request, when an observer wants them (WantsRequests)
  std::vector<RouteRow> routes;           // per routing decision, when an observer wants them (WantsRoutes)
  std::vector<ScalingFigures> scaling;    // per service: its pods over time, its autoscaler's decisions
  std::vector<ReplicaCount>
      replica_counts;                 // each change of a service's desired, created and ready replicas (with an autoscaler)
  std::vector<Time> replica_created;  // by replica slot: when its first pod was created (Time::max(): never)
  // When job `id` entered the system: its arrival, or a replica slot's first pod's creation.
  Time arrival(const Job& j) const {
    return j.id < replica_created.size() && replica_created[j.id] != Time::max() ? replica_created[j.id] : j.arrival;
  }
};

RunResult simulate(const World& world, Scheduler& scheduler, const RunOptions& options = {});
// Builds the scenario's world (checking it, see build_world) and runs it.
RunResult simulate(const Scenario& scenario, Scheduler& scheduler, const RunOptions& options = {});

}  // namespace gpusim
