#pragma once
// The pod autoscalers' decisions, as pure controllers: given what the metrics pipeline reads at a sync
// and the service's replica count, the count the controller sets. They know nothing of the engine:
// it calls evaluate() at next_time() and applies the count. The rules (Kubernetes v1.28's HPA
// controller, KEDA v2.20's scale executor) are docs/serving.md#autoscaling's; file:line references
// below are to those sources (H = horizontal.go, R = replica_calculator.go, SO =
// scale_scaledobjects.go).
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/workloads/pod_autoscaler.hpp"

namespace gpusim {

// A pod as the HPA groups it (R:378-422): pending (not yet running: counts 0 on a scale-up), starting
// (running, not ready: for a non-CPU metric its sample counts as any other), ready.
enum class PodPhase : uint8_t { pending, starting, ready };

struct PodReading {
  PodPhase phase = PodPhase::pending;
  std::array<std::optional<double>, kServiceMetrics> value{};  // by ServiceMetric; nullopt: no sample
};

// What a controller reads at one instant: the Deployment's replica count (spec.replicas), its pods
// (not terminating) and the service's own series (by ServiceMetric; those per pod are ignored here).
struct AutoscalerReadings {
  int32_t spec_replicas = 0;
  std::vector<PodReading> pods;
  std::array<double, kServiceMetrics> service{};
};

// The v1.33+ dead band (replica_calculator.go Tolerances.isWithin): a ratio in [1 - down, 1 + up]
// keeps the count. v1.28 tested |1 - ratio| <= tolerance, which differs at the edge (77 / 70 is
// 1.1 in double, but 1 - 1.1 is -0.10000000000000009).
constexpr bool within_tolerance(double ratio, const Tolerances& t) {
  return 1.0 - t.scale_down <= ratio && ratio <= 1.0 + t.scale_up;
}

class PodAutoscaler {
 public:
  // `created`: when the HPA or ScaledObject appears (0 for a service present at the start).
  PodAutoscaler(const AutoscalerSpec& spec, Time created);

  // The next HPA sync (created + k x 15 s, k >= 1: the controller queues an HPA one period after it
  // sees it) or KEDA poll (created + k x pollingInterval, k >= 0: KEDA polls at once), whichever is first.
  Time next_time() const;
  // Does what is due at `now` (a KEDA poll before an HPA sync at the same instant), and returns the
  // replica count to set (readings.spec_replicas when unchanged).
  int32_t evaluate(Time now, const AutoscalerReadings& readings);

 private:
  struct Record {
    Time at;
    int32_t replicas;  // a recommendation, or a scale event's change
  };
  int32_t sync(Time now, const AutoscalerReadings& r, int32_t current);
  int32_t poll(Time now, const AutoscalerReadings& r, int32_t current);
  int32_t normalize_legacy(Time now, int32_t current, int32_t desired);
  int32_t normalize_with_behavior(Time now, int32_t current, int32_t desired);
  int32_t change_within(const std::vector<Record>& events, Duration period, Time now) const;

  HpaSpec hpa_;  // the HPA, or the one KEDA makes
  std::optional<KedaSpec> keda_;
  Time created_, next_sync_, next_poll_ = Time::max();
  std::vector<Record> recommendations_;          // unstabilized, with their times (H:921-946, H:1098-1154)
  std::vector<Record> up_events_, down_events_;  // the HPA's own changes (H:1047-1093), behavior only
  std::optional<Time> last_active_;              // KEDA's status.lastActiveTime
};

}  // namespace gpusim
