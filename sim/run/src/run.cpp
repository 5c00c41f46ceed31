#include "gpusim/sim/run.hpp"

#include <algorithm>
#include <memory>

#include "gpusim/sim/serving_module.hpp"
#include "gpusim/sim/tenancy_admission.hpp"

namespace gpusim {

namespace {

// `cluster`: the world's, copied or moved in (the admissions read the world's before it moves).
RunResult compose(const World& world, const std::function<Cluster()>& cluster, Scheduler& scheduler, const RunOptions& options) {
  const Scenario& s = world.scenario;
  RunOptions attached = options;
  std::vector<std::unique_ptr<Admission>> admissions = make_admissions(world);
  RunExtensions extensions;
  for (const auto& a : admissions) extensions.admissions.push_back(a.get());
  std::unique_ptr<TenantLedger> tenants;
  if (s.tenancy.given) {
    tenants = std::make_unique<TenantLedger>(s, kueue_state(extensions.admissions));
    attached.observers.push_back(tenants.get());
  }
  std::unique_ptr<ServingModule> serving;
  if (!s.services.empty()) {
    const auto wants = [&]<class T>(T*) {
      return std::any_of(options.observers.begin(), options.observers.end(), [](Observer* o) { return dynamic_cast<T*>(o); });
    };
    serving = std::make_unique<ServingModule>(
        s, ServingRecords{wants(static_cast<WantsRequests*>(nullptr)), wants(static_cast<WantsRoutes*>(nullptr))});
    extensions.modules.push_back(serving.get());
  }

  RunResult r{run_kernel(world, cluster(), scheduler, attached, extensions), std::nullopt, {}, {}, {}, {}, {}, {}};
  if (tenants) r.tenancy = tenants->take();
  if (serving) {
    r.services = serving->services(r.end);
    r.scaling = serving->scaling(r.end);
    r.requests = serving->take_requests();
    r.routes = serving->take_routes();
    r.replica_counts = serving->take_counts();
    r.replica_created = serving->take_first_created();
  }
  return r;
}

}  // namespace

RunResult simulate(const World& world, Scheduler& scheduler, const RunOptions& options) {
  return compose(
      world, [&] { return world.cluster; }, scheduler, options);
}

RunResult simulate(const Scenario& scenario, Scheduler& scheduler, const RunOptions& options) {
  World world = build_world(scenario);
  // The world is not kept: its run takes the cluster.
  return compose(
      world, [&] { return std::move(world.cluster); }, scheduler, options);
}

}  // namespace gpusim
