#pragma once
// STUB (lead's tree; replaced by the hpa branch at merge)
#include <array>
#include <optional>
#include <vector>
#include "gpusim/core/time.hpp"
#include "gpusim/workloads/pod_autoscaler.hpp"
namespace gpusim {
enum class PodPhase : uint8_t { pending, starting, ready };
struct PodReading { PodPhase phase; std::array<std::optional<double>, kServiceMetrics> value; };
struct AutoscalerReadings { int32_t spec_replicas = 0; std::vector<PodReading> pods; std::array<double, kServiceMetrics> service{}; };
class PodAutoscaler {
 public:
  PodAutoscaler(const AutoscalerSpec&, Time created) : t_(created + Duration::from_seconds(15)) {}
  Time next_time() const { return t_; }
  int32_t evaluate(Time now, const AutoscalerReadings& r) { t_ = now + Duration::from_seconds(15); return r.spec_replicas; }
 private:
  Time t_;
};
}  // namespace gpusim
