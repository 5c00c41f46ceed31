#include "gpusim/sim/pod_autoscaler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

namespace gpusim {

namespace {

// kube-controller-manager's --horizontal-pod-autoscaler-sync-period and
// --horizontal-pod-autoscaler-downscale-stabilization defaults (config/v1alpha1/defaults.go:40-48).
constexpr Duration kSyncPeriod = Duration::from_seconds(15);
constexpr Duration kDownscaleWindow = Duration::from_seconds(300);

// Metrics reach the controller as quantities in thousandths; gpusim's samples are exact, so rounded.
int64_t milli(double v) { return std::llround(v * 1000); }

// A replica count from a double the controller rounds up (math.Ceil then int32).
int32_t ceil_count(double v) {
  return static_cast<int32_t>(std::clamp(std::ceil(v), 0.0, static_cast<double>(std::numeric_limits<int32_t>::max())));
}

// The value of an External metric or a KEDA query: a service's series, or the pods' series combined
// (none: 0, as KEDA's prometheus scaler reads an empty result with ignoreNullValues).
int64_t external_usage(const MetricSpec& m, const AutoscalerReadings& r) {
  if (!per_pod(m.metric)) return milli(r.service[static_cast<std::size_t>(m.metric)]);
  double sum = 0, most = 0;
  int32_t n = 0;
  for (const PodReading& p : r.pods)
    if (const auto& v = p.value[static_cast<std::size_t>(m.metric)]) {
      sum += *v;
      most = n == 0 ? *v : std::max(most, *v);
      ++n;
    }
  switch (m.aggregation) {
    case Aggregation::sum: return milli(sum);
    case Aggregation::avg: return n == 0 ? 0 : milli(sum / n);
    case Aggregation::max: return milli(most);
  }
  return 0;
}

// A Pods metric with an AverageValue target (calcPlainMetricReplicas R:178-250, groupPods R:378-422);
// nullopt when the controller fails on it (no pods, or no pod with a sample).
std::optional<int32_t> pods_replicas(const MetricSpec& m, const AutoscalerReadings& r, int32_t current, const Tolerances& tol) {
  if (r.pods.empty()) return std::nullopt;
  int64_t total_milli = 0;
  int32_t ready = 0, unready = 0, missing = 0;
  for (const PodReading& p : r.pods) {
    const auto& v = p.value[static_cast<std::size_t>(m.metric)];
    if (p.phase == PodPhase::pending) {
      ++unready;
    } else if (!v) {
      ++missing;
    } else {  // readiness counts for the CPU resource only (R:399-418): a starting pod's sample counts
      total_milli += milli(*v);
      ++ready;
    }
  }
  if (ready == 0) return std::nullopt;
  const auto target = static_cast<double>(m.target_milli);
  // The average is in integer thousandths (metrics/utilization.go:57-66).
  const double ratio = static_cast<double>(total_milli / ready) / target;
  const bool up_with_unready = unready > 0 && ratio > 1.0;
  if (!up_with_unready && missing == 0) return within_tolerance(ratio, tol) ? current : ceil_count(ratio * ready);
  // The slow path: missing pods at the target on a scale-down, at 0 on a scale-up; unready at 0.
  int32_t n = ready;
  if (missing > 0 && ratio < 1.0) {
    total_milli += m.target_milli * missing;
    n += missing;
  } else if (missing > 0) {  // at 0 from a ratio of exactly 1 too (replica_calculator.go: `usageRatio < 1.0` or else)
    n += missing;
  }
  if (up_with_unready) n += unready;
  const double new_ratio = static_cast<double>(total_milli / n) / target;
  if (within_tolerance(new_ratio, tol) || (ratio < 1.0 && new_ratio > 1.0) || (ratio > 1.0 && new_ratio < 1.0)) return current;
  const int32_t replicas = ceil_count(new_ratio * n);
  if ((new_ratio < 1.0 && replicas > current) || (new_ratio > 1.0 && replicas < current)) return current;
  return replicas;
}

// An External metric (R:267-287 and R:332-376).
std::optional<int32_t> external_replicas(const MetricSpec& m, const AutoscalerReadings& r, int32_t current,
                                         const Tolerances& tol) {
  const auto usage = static_cast<double>(external_usage(m, r));
  const auto target = static_cast<double>(m.target_milli);
  if (m.target_type == TargetType::average_value) {
    // Against every pod of the Deployment (status.replicas), ready or not.
    const auto status = static_cast<int32_t>(r.pods.size());
    if (status == 0) return ceil_count(usage / target);
    return within_tolerance(usage / (target * status), tol) ? status : ceil_count(usage / target);
  }
  const double ratio = usage / target;
  if (current == 0) return ceil_count(ratio);
  if (r.pods.empty()) return std::nullopt;
  if (within_tolerance(ratio, tol)) return current;
  const auto ready = std::count_if(r.pods.begin(), r.pods.end(), [](const PodReading& p) { return p.phase == PodPhase::ready; });
  return ceil_count(ratio * static_cast<double>(ready));
}

// The next instant of `start` + k x `period` after `now`.
Time after(Time start, Duration period, Time now) {
  if (start > now) return start;
  return start + period * ((now - start).us() / period.us() + 1);
}

HpaSpec hpa_of(const AutoscalerSpec& spec) {
  if (const auto* h = std::get_if<HpaSpec>(&spec.of)) return *h;
  // The HPA KEDA makes (keda controllers/keda/hpa.go:79-81, 161-169): at least one replica, one
  // External metric per trigger.
  const KedaSpec& k = std::get<KedaSpec>(spec.of);
  HpaSpec h;
  h.min_replicas = std::max(k.min_replicas, 1);
  h.max_replicas = k.max_replicas;
  for (const KedaTrigger& t : k.triggers) h.metrics.push_back(t.metric);
  h.behavior = k.behavior;
  h.tolerance = k.tolerance;
  return h;
}

}  // namespace

PodAutoscaler::PodAutoscaler(const AutoscalerSpec& spec, Time created)
    : hpa_(hpa_of(spec)), created_(created), next_sync_(created + kSyncPeriod) {
  if (const auto* k = std::get_if<KedaSpec>(&spec.of)) {
    keda_ = *k;
    next_poll_ = created;
  }
}

Time PodAutoscaler::next_time() const { return std::min(next_sync_, next_poll_); }

int32_t PodAutoscaler::evaluate(Time now, const AutoscalerReadings& readings) {
  int32_t replicas = readings.spec_replicas;
  if (keda_ && now >= next_poll_) {
    replicas = poll(now, readings, replicas);
    next_poll_ = after(created_, keda_->polling_interval, now);
  }
  if (now >= next_sync_) {
    replicas = sync(now, readings, replicas);
    next_sync_ = after(created_, kSyncPeriod, now);
  }
  return replicas;
}

// reconcileAutoscaler (H:740-919).
int32_t PodAutoscaler::sync(Time now, const AutoscalerReadings& r, int32_t current) {
  // The first recommendation is the count found (H:732-738): a new HPA keeps it through its windows.
  if (recommendations_.empty()) recommendations_.push_back({now, current});
  int32_t desired = 0;
  if (current == 0 && hpa_.min_replicas != 0) return current;  // ScalingDisabled: KEDA's to wake
  if (current > hpa_.max_replicas) {
    desired = hpa_.max_replicas;
  } else if (current < hpa_.min_replicas) {
    desired = hpa_.min_replicas;
  } else {
    // The largest proposal; none if every metric failed, or some did and the rest would scale down (H:314-342).
    int32_t proposal = 0;
    std::size_t invalid = 0;
    for (const MetricSpec& m : hpa_.metrics) {
      const std::optional<int32_t> p = m.source == MetricSource::pods ? pods_replicas(m, r, current, hpa_.tolerance)
                                                                      : external_replicas(m, r, current, hpa_.tolerance);
      if (!p) ++invalid;
      else proposal = std::max(proposal, *p);
    }
    if (invalid == hpa_.metrics.size() || (invalid > 0 && proposal < current)) return current;
    desired = hpa_.behavior ? normalize_with_behavior(now, current, proposal) : normalize_legacy(now, current, proposal);
  }
  if (hpa_.behavior && desired != current) {
    // storeScaleEvent (H:1047-1093); events older than a direction's longest period never count again.
    const bool up = desired > current;
    std::vector<Record>& events = up ? up_events_ : down_events_;
    const ScalingRules& rules = up ? hpa_.behavior->scale_up : hpa_.behavior->scale_down;
    Duration longest;
    for (const ScalingPolicy& p : rules.policies) longest = std::max(longest, p.period);
    std::erase_if(events, [&](const Record& e) { return e.at < now - longest; });
    events.push_back({now, up ? desired - current : current - desired});
  }
  return desired;
}

// Without behavior (H:921-970, H:1212-1250): the largest recommendation of the last 300 s (one exactly
// 300 s old still counts), then within [min, min(max, max(2 x current, 4))].
int32_t PodAutoscaler::normalize_legacy(Time now, int32_t current, int32_t desired) {
  const Time cutoff = now - kDownscaleWindow;
  int32_t stabilized = desired;
  for (const Record& rec : recommendations_)
    if (!(rec.at < cutoff)) stabilized = std::max(stabilized, rec.replicas);
  std::erase_if(recommendations_, [&](const Record& rec) { return rec.at < cutoff; });
  recommendations_.push_back({now, desired});
  const int32_t up_limit = std::max(2 * current, 4);
  if (stabilized < hpa_.min_replicas) return hpa_.min_replicas;
  return std::min({stabilized, hpa_.max_replicas, up_limit});
}

// With behavior (H:985-1010, H:1098-1209, H:1275-1330).
int32_t PodAutoscaler::normalize_with_behavior(Time now, int32_t current, int32_t desired) {
  const ScalingRules& up = hpa_.behavior->scale_up;
  const ScalingRules& down = hpa_.behavior->scale_down;
  // Stabilize: at least the smallest recommendation of the up window, at most the largest of the
  // down window; a recommendation exactly a window old no longer counts.
  const Time up_cutoff = now - up.stabilization_window, down_cutoff = now - down.stabilization_window;
  int32_t up_bound = desired, down_bound = desired;
  for (const Record& rec : recommendations_) {
    if (rec.at > up_cutoff) up_bound = std::min(up_bound, rec.replicas);
    if (rec.at > down_cutoff) down_bound = std::max(down_bound, rec.replicas);
  }
  std::erase_if(recommendations_, [&](const Record& rec) { return rec.at < up_cutoff && rec.at < down_cutoff; });
  recommendations_.push_back({now, desired});
  const int32_t stabilized = std::min(std::max(current, up_bound), down_bound);

  // Rate limits: each policy allows a change from the count at its period's start.
  const auto limit = [&](const ScalingRules& rules, bool scale_up) {
    if (rules.select == SelectPolicy::disabled) return current;
    // For a scale-down the larger change is the smaller count, so Max picks the smallest proposal.
    const bool pick_largest = (rules.select == SelectPolicy::max) == scale_up;
    int32_t result = pick_largest ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int32_t>::max();
    for (const ScalingPolicy& p : rules.policies) {
      const int32_t start = current - change_within(up_events_, p.period, now) + change_within(down_events_, p.period, now);
      const double factor = scale_up ? 1 + p.value / 100.0 : 1 - p.value / 100.0;
      int32_t proposed = scale_up ? start + p.value : start - p.value;
      // Percent up rounds up so that a small count can grow at all; down truncates (an int32 conversion).
      if (p.type == PolicyType::percent) proposed = scale_up ? ceil_count(start * factor) : static_cast<int32_t>(start * factor);
      result = pick_largest ? std::max(result, proposed) : std::min(result, proposed);
    }
    return result;
  };
  if (stabilized > current) return std::min({stabilized, hpa_.max_replicas, std::max(limit(up, true), current)});
  if (stabilized < current) return std::max({stabilized, hpa_.min_replicas, std::min(limit(down, false), current)});
  return stabilized;
}

// getReplicasChangePerPeriod (H:1022-1033): events strictly newer than now - period.
int32_t PodAutoscaler::change_within(const std::vector<Record>& events, Duration period, Time now) const {
  int32_t sum = 0;
  for (const Record& e : events)
    if (e.at > now - period) sum += e.replicas;
  return sum;
}

// RequestScale (SO:37-118): 0 <-> 1 (or idle <-> min) by the triggers' activity; the HPA does the rest.
int32_t PodAutoscaler::poll(Time now, const AutoscalerReadings& r, int32_t current) {
  const KedaSpec& k = *keda_;
  // prometheus_scaler.go:310-320: active while the value exceeds activationThreshold.
  const bool active = std::any_of(k.triggers.begin(), k.triggers.end(),
                                  [&](const KedaTrigger& t) { return external_usage(t.metric, r) > t.activation_milli; });
  if (active) {
    last_active_ = now;
    if (current == 0 || (k.idle_replicas && current < k.min_replicas)) return std::max(k.min_replicas, 1);  // SO:240-290
    return current;
  }
  if ((k.idle_replicas && current > *k.idle_replicas) || (current > 0 && k.min_replicas == 0)) {
    // SO:189-238: straight to idle (or min) once the cooldown after the last active poll has passed.
    const bool cooled = last_active_ ? *last_active_ + k.cooldown < now : created_ + k.initial_cooldown < now;
    return cooled ? k.idle_replicas.value_or(k.min_replicas) : current;
  }
  if (!k.idle_replicas && current < k.min_replicas) return k.min_replicas;
  return current;
}

}  // namespace gpusim
