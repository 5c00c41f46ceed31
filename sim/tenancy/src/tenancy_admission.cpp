#include "gpusim/sim/tenancy_admission.hpp"

#include "gpusim/sim/world.hpp"

namespace gpusim {

QuotaGate::QuotaGate(const Scenario& s) : jobs_(s.jobs.jobs), quota_(s.tenancy.resource_quotas, s.tenancy.priority, s.jobs) {}

std::optional<std::string_view> QuotaGate::admit(JobId id) { return quota_.admit(jobs_[id]); }

// Whether for good or until it is admitted again, its pods are gone: they count again when created.
void QuotaGate::released(JobId id, Time, bool) { quota_.release(jobs_[id]); }

KueueGate::KueueGate(const Scenario& s, const Cluster& c, const Shapes& shapes) : kueue_(s, c, shapes) {}

// Kueue gives back the quota of a workload it evicted itself (takes_back); here, that of one that ended.
void KueueGate::released(JobId id, Time now, bool for_good) {
  if (for_good) kueue_.finished(id, now);
}

void KueueGate::cycle(Time now, const ClusterView& view, std::vector<JobId>& admitted,
                      std::vector<AdmissionEviction>& evictions) {
  evictions_.clear();
  kueue_.schedule(now, view, admitted, evictions_);
  for (const KueueEviction& e : evictions_) evictions.push_back({e.victim, e.by, e.reason});
}

std::vector<std::unique_ptr<Admission>> make_admissions(const World& w) {
  std::vector<std::unique_ptr<Admission>> out;
  if (!w.scenario.tenancy.resource_quotas.empty()) out.push_back(std::make_unique<QuotaGate>(w.scenario));
  if (w.scenario.tenancy.kueue.enabled()) out.push_back(std::make_unique<KueueGate>(w.scenario, w.cluster, w.shapes));
  return out;
}

const KueueState* kueue_state(const std::vector<Admission*>& admissions) {
  for (const Admission* a : admissions)
    if (const auto* k = dynamic_cast<const KueueGate*>(a)) return &k->state();
  return nullptr;
}

}  // namespace gpusim
