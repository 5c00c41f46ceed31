#include "gpusim/sim/service_controller.hpp"

#include <algorithm>
#include <variant>

namespace gpusim {

namespace {

// gpusim_service_request_rate averages the arrivals over this window (a Prometheus rate(...[1m])).
constexpr Duration kRateWindow = Duration::from_seconds(60);

// The ReplicaSet controller deletes the least useful pods first (controller.ActivePods ordering:
// unscheduled, then not ready, then ready); one already going (its spot node's notice) goes first.
int rank(SlotState s) {
  switch (s) {
    case SlotState::terminating: return 0;
    case SlotState::pending: return 1;
    case SlotState::starting: return 2;
    default: return 3;
  }
}

// The longest a decision of the autoscaler's weighs on its later ones, plus one interval.
Duration memory(const AutoscalerSpec& a) {
  const auto of_behavior = [](const std::optional<Behavior>& b) {
    Duration d = Duration::from_seconds(300);  // the legacy path's window
    if (!b) return d;
    d = std::max(b->scale_up.stabilization_window, b->scale_down.stabilization_window);
    for (const ScalingRules* r : {&b->scale_up, &b->scale_down})
      for (const ScalingPolicy& p : r->policies) d = std::max(d, p.period);
    return d;
  };
  const Duration sync = Duration::from_seconds(15);
  if (const auto* hpa = std::get_if<HpaSpec>(&a.of)) return of_behavior(hpa->behavior) + sync;
  const KedaSpec& keda = std::get<KedaSpec>(a.of);
  return std::max({of_behavior(keda.behavior), keda.cooldown, keda.initial_cooldown}) + std::max(sync, keda.polling_interval);
}

bool same(const AutoscalerReadings& a, const AutoscalerReadings& b) {
  return a.spec_replicas == b.spec_replicas && a.service == b.service &&
         std::equal(a.pods.begin(), a.pods.end(), b.pods.begin(), b.pods.end(),
                    [](const PodReading& x, const PodReading& y) { return x.phase == y.phase && x.value == y.value; });
}

}  // namespace

ServiceController::ServiceController(const std::vector<ServiceSpec>& services)
    : services_(services),
      slot_service_(replica_jobs(services)),
      has_pod_(replica_jobs(services)),
      first_created_(replica_jobs(services), Time::max()),
      autoscalers_(services.size()),
      read_(services.size()),
      desired_(services.size()),
      pods_(services.size()),
      changed_at_(services.size()),
      last_read_(services.size()),
      memory_(services.size()),
      busy_mark_(replica_jobs(services)),
      arrivals_(services.size()),
      last_(services.size()),
      figures_(services.size()),
      pods_since_(services.size()) {
  for (uint32_t s = 0; s < services.size(); ++s) {
    const ServiceSpec& spec = services[s];
    if (spec.autoscaler) {
      any_autoscaled_ = true;
      autoscalers_[s].emplace(*spec.autoscaler, Time());
      memory_[s] = memory(*spec.autoscaler);
    }
    desired_[s] = spec.replicas;
    for (int32_t k = 0; k < spec.max_replicas; ++k) slot_service_[spec.first_job + static_cast<uint32_t>(k)] = s;
    arrivals_[s].emplace_back(Time(), 0);
    last_[s] = ReplicaCount{Time(), s, -1, -1, -1};
  }
}

Time ServiceController::read_time(uint32_t s) const {
  const Time at = autoscalers_[s]->next_time();
  if (read_[s]) return at;
  // An evaluation at the start reads what there is then.
  const Duration delay = services_[s].autoscaler->metrics_delay;
  return at - Time() > delay ? at - delay : Time();
}

std::optional<Time> ServiceController::next_time() const {
  std::optional<Time> t;
  for (uint32_t s = 0; s < services_.size(); ++s)
    if (autoscalers_[s] && (!t || read_time(s) < *t)) t = read_time(s);
  return t;
}

bool ServiceController::settled(Time t) const {
  for (uint32_t s = 0; s < services_.size(); ++s)
    if (autoscalers_[s] && t - changed_at_[s] <= memory_[s]) return false;
  return true;
}

std::vector<uint32_t> ServiceController::evaluate(Time now, const Serving& serving, const std::function<SlotState(JobId)>& slot) {
  std::vector<uint32_t> changed;
  for (uint32_t s = 0; s < services_.size(); ++s) {
    if (!autoscalers_[s]) continue;
    if (!read_[s] && read_time(s) == now) read_[s] = read(s, now, serving, slot);
    if (autoscalers_[s]->next_time() != now) continue;
    AutoscalerReadings in = std::move(*read_[s]);
    read_[s].reset();
    in.spec_replicas = desired_[s];  // the Deployment's count as it is now
    if (!same(in, last_read_[s])) {
      changed_at_[s] = now;
      last_read_[s] = in;
    }
    const int32_t want = autoscalers_[s]->evaluate(now, in);
    if (want == desired_[s]) continue;
    ++(want > desired_[s] ? figures_[s].scale_ups : figures_[s].scale_downs);
    desired_[s] = want;
    changed_at_[s] = now;
    changed.push_back(s);
  }
  return changed;
}

AutoscalerReadings ServiceController::read(uint32_t s, Time now, const Serving& serving,
                                           const std::function<SlotState(JobId)>& slot) {
  const ServiceSpec& spec = services_[s];
  AutoscalerReadings in;
  for (int32_t k = 0; k < spec.max_replicas; ++k) {
    const JobId id{spec.first_job + static_cast<uint32_t>(k)};
    const SlotState state = slot(id);
    const ReplicaGauges g = serving.gauges(id, now);
    auto& [mark_time, mark_busy_s] = busy_mark_[id];
    const double window_s = (now - mark_time).seconds();
    const double util_pct = window_s > 0 ? 100.0 * std::clamp((g.busy_s - mark_busy_s) / window_s, 0.0, 1.0) : 0.0;
    mark_time = now;
    mark_busy_s = g.busy_s;
    // A deleted pod, or one whose node is going, is terminating: the HPA ignores it.
    if (!has_pod_[id] || state == SlotState::free || state == SlotState::terminating) continue;
    PodReading p{};
    p.phase = state == SlotState::pending ? PodPhase::pending : state == SlotState::ready ? PodPhase::ready : PodPhase::starting;
    // DCGM reports the GPU of a placed pod; vLLM's gauges exist once its server is up.
    if (state != SlotState::pending) p.value[static_cast<std::size_t>(ServiceMetric::gpu_util)] = util_pct;
    if (state == SlotState::ready) {
      p.value[static_cast<std::size_t>(ServiceMetric::requests_running)] = g.running;
      p.value[static_cast<std::size_t>(ServiceMetric::requests_waiting)] = g.waiting;
    }
    in.pods.push_back(p);
  }
  auto& seen = arrivals_[s];
  const uint64_t arrived = serving.arrived(s);
  while (seen.size() > 1 && seen[1].first <= now - kRateWindow) seen.pop_front();
  const double span_s = (now - seen.front().first).seconds();
  in.service[static_cast<std::size_t>(ServiceMetric::queue_length)] = static_cast<double>(serving.queue_length(s));
  in.service[static_cast<std::size_t>(ServiceMetric::request_rate)] =
      span_s > 0 ? static_cast<double>(arrived - seen.front().second) / span_s : 0.0;
  seen.emplace_back(now, arrived);
  return in;
}

ServiceController::Actions ServiceController::reconcile(uint32_t s, Time now, const std::function<SlotState(JobId)>& slot) {
  const ServiceSpec& spec = services_[s];
  Actions out;
  const auto slot_id = [&](int32_t k) { return JobId{spec.first_job + static_cast<uint32_t>(k)}; };
  const int32_t before = pods_[s];
  for (int32_t k = 0; k < spec.max_replicas && pods_[s] < desired_[s]; ++k) {
    const JobId id = slot_id(k);
    if (has_pod_[id] || slot(id) != SlotState::free) continue;
    has_pod_[id] = true;
    first_created_[id] = std::min(first_created_[id], now);
    ++pods_[s];
    out.create.push_back(id);
  }
  if (pods_[s] > desired_[s]) {
    std::vector<JobId> holders;
    for (int32_t k = 0; k < spec.max_replicas; ++k)
      if (has_pod_[slot_id(k)]) holders.push_back(slot_id(k));
    std::stable_sort(holders.begin(), holders.end(), [&](JobId a, JobId b) {
      const int ra = rank(slot(a)), rb = rank(slot(b));
      return ra != rb ? ra < rb : a > b;
    });
    for (std::size_t i = 0; pods_[s] > desired_[s]; ++i) {
      has_pod_[holders[i]] = false;
      --pods_[s];
      out.remove.push_back(holders[i]);
    }
  }
  if (pods_[s] != before) {
    figures_[s].pod_s += before * (now - pods_since_[s]).seconds();
    pods_since_[s] = now;
    figures_[s].max_pods = std::max(figures_[s].max_pods, pods_[s]);
  }
  return out;
}

void ServiceController::note_counts(uint32_t s, Time now, int32_t ready) {
  const ReplicaCount c{now, s, desired_[s], pods_[s], ready};
  ReplicaCount& last = last_[s];
  if (c.desired == last.desired && c.pods == last.pods && c.ready == last.ready) return;
  last = c;
  // Several changes at one instant: the last one stands.
  if (!counts_.empty() && counts_.back().time == now && counts_.back().service == s) counts_.back() = c;
  else counts_.push_back(c);
}

std::vector<ScalingFigures> ServiceController::finish(Time end) {
  for (uint32_t s = 0; s < services_.size(); ++s) {
    figures_[s].pod_s += pods_[s] * (end - pods_since_[s]).seconds();
    pods_since_[s] = end;
  }
  return std::move(figures_);
}

}  // namespace gpusim
