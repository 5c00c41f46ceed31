#pragma once
// The tenancy's admissions (sim/admission.hpp): namespace ResourceQuotas, then Kueue. The run asks
// them in that order; the tenant ledger and the trace read Kueue's state through kueue_state().
#include <memory>

#include "gpusim/sim/admission.hpp"
#include "gpusim/sim/kueue.hpp"
#include "gpusim/sim/observer.hpp"
#include "gpusim/sim/resource_quota.hpp"

namespace gpusim {

struct Scenario;
struct World;

// tenancy.resource_quotas: pods are charged when they are created, refused past a hard limit.
class QuotaGate final : public Admission {
 public:
  explicit QuotaGate(const Scenario& s);
  bool checks_pods() const override { return true; }
  std::optional<std::string_view> admit(JobId id) override;
  void released(JobId id, Time now, bool for_good) override;

 private:
  const std::vector<Job>& jobs_;
  QuotaAdmission quota_;
};

// tenancy.kueue: jobs that name a LocalQueue wait in their ClusterQueue until Kueue admits them.
class KueueGate final : public Admission {
 public:
  KueueGate(const Scenario& s, const Cluster& c, const Shapes& shapes);
  const KueueState& state() const { return kueue_; }
  const Shapes* shapes() const override { return &kueue_.shapes(); }
  bool holds(JobId id) const override { return kueue_.manages(id); }
  void wait(JobId id, Time now) override { kueue_.arrive(id, now); }
  void released(JobId id, Time now, bool for_good) override;
  bool takes_back(JobId id, Time now) override { return kueue_.left(id, now); }
  void cycle(Time now, const ClusterView& view, std::vector<JobId>& admitted, std::vector<AdmissionEviction>& evictions) override;
  bool pending_work() const override { return kueue_.pending_work(); }
  bool requeue_evicted(Time now) override { return kueue_.requeue_evicted(now); }

 private:
  Kueue kueue_;
  std::vector<KueueEviction> evictions_;  // cycle()'s scratch
};

// The scenario's admissions (none without a tenancy), in the order the kernel asks them.
std::vector<std::unique_ptr<Admission>> make_admissions(const World& w);
// Kueue's state among a run's admissions (RunState::admissions()), if it has Kueue.
const KueueState* kueue_state(const std::vector<Admission*>& admissions);
inline const KueueState* kueue_state(const RunState& run) { return kueue_state(run.admissions()); }

}  // namespace gpusim
