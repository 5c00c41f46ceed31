#pragma once
// Serving as a module of the kernel (sim/module.hpp): the services' replicas are its jobs. It tells
// the serving component (sim/serving.hpp) where a replica runs and what share of its GPUs it has,
// gives the kernel each replica's demand (1 while it has requests), and runs the services'
// Deployments and pod autoscalers (sim/service_controller.hpp), which create and delete pods.
#include <memory>
#include <vector>

#include "gpusim/sim/module.hpp"
#include "gpusim/sim/service_controller.hpp"
#include "gpusim/sim/serving.hpp"

namespace gpusim {

struct Scenario;

class ServingModule final : public Module {
 public:
  ServingModule(const Scenario& s, ServingRecords keep);

  void start(ModuleHost& host) override;
  std::optional<Time> next_time(bool idle) override;
  bool done() const override { return serving_.done(); }
  uint32_t live_jobs() const override { return end_job - ended_; }
  void advance(Time now) override;
  void decided(Time now) override;
  Ahead run_ahead(Time until) override;

  bool arrives(JobId id) override;
  double demand(JobId id) const override { return serving_.busy(id) ? 1.0 : 0.0; }
  // A replica draws as its batch says (model.power.serving_decode), by power level.
  std::optional<BoundMix> power_mix(JobId id) const override;
  void adjust_claim(JobId id, const Pool& pool, const Gpu& gpu, GpuClaim& claim) const override;
  void placed(JobId id, Time now) override;
  void share_changed(JobId id, Time now) override;
  void stopping(JobId id, Time now) override { serving_.stopped(id, now); }
  bool notice(JobId id, Time now) override;
  Departure leaving(JobId id) const override { return deployments_.has_pod(id) ? Departure::restart : Departure::parked; }
  void parked(JobId id, Time now) override { reconcile(deployments_.service_of(id), now); }
  bool restart_due(JobId id, uint32_t kills) const override;
  void ended(JobId) override { ++ended_; }
  uint64_t events() const override { return serving_.events(); }

  // The figures at the end (`end`), once the run is over.
  std::vector<ServiceFigures> services(Time end) { return serving_.finish(end); }
  std::vector<ScalingFigures> scaling(Time end) { return deployments_.finish(end); }
  std::vector<RequestRow> take_requests() { return serving_.take_requests(); }
  std::vector<RouteRow> take_routes() { return serving_.take_routes(); }
  std::vector<ReplicaCount> take_counts() { return deployments_.take_counts(); }
  std::vector<Time> take_first_created() { return deployments_.take_first_created(); }

 private:
  // What the replica has of its GPUs now (MIG slice, MPS shares, its turn on a time-sliced GPU).
  ReplicaShare share(JobId id) const;
  ReplicaDevice device(JobId id) const;
  // Bytes per second a KV cache moves at from replica `from` to replica `to` (disaggregated serving).
  double kv_link_bytes_per_s(JobId from, JobId to) const;
  // Serves what is due now, then hands the kernel the replicas' busy changes.
  void serve(Time now);
  // Where a replica slot's pod is.
  SlotState slot_state(JobId id, Time now) const;
  std::function<SlotState(JobId)> slot_fn(Time now) const {
    return [this, now](JobId id) { return slot_state(id, now); };
  }
  void reconcile(uint32_t service, Time now);
  void create_pod(JobId id);
  void delete_pod(JobId id, Time now);

  const Scenario& scenario_;
  ModuleHost* host_ = nullptr;
  Serving serving_;
  ServiceController deployments_;
  std::vector<bool> arrived_;        // per replica slot: has it had a pod yet?
  std::vector<BoundMix> level_mix_;  // by power level (Serving::power_level)
  uint32_t ended_ = 0;               // replicas failed or rejected for good
};

}  // namespace gpusim
