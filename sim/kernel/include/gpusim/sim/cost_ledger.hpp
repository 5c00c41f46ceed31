#pragma once
// Cost attribution (issue 5): a job pays for the share of each GPU it holds (JobRecord::cost_usd)
// and, of that, for the part its SMs keep busy (busy_cost_usd), at its pool's price integrated over
// time (Metrics::price_integral_usd), so a spot trace's price changes are charged as they happen.
// The ledger keeps where each job's charges start; the engine calls it where claims are taken and
// given back and where a job's busy share changes.
#include <boost/container/small_vector.hpp>

#include <cstddef>
#include <unordered_map>
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/job_state.hpp"
#include "gpusim/sim/metrics.hpp"

namespace gpusim {

class CostLedger {
 public:
  CostLedger(const Cluster& cluster, const Metrics& metrics) : cluster_(cluster), metrics_(metrics) {}

  // Job `id` claimed a share of GPU `g` now (its claims in order, as JobFlight::claims).
  void claimed(JobId id, GpuId g, Time now) { claim_marks_[id].push_back({price(g, now), now}); }
  // The job gives back every claim now (or the run ends while it holds them): each charges its
  // share of the price since it was taken, and adds its share x time to the job's allocated GPU
  // time (so that cost.csv can roll allocated GPU-hours up by job kind and GPU model as it does cost).
  void released(JobId id, JobRecord& r, const JobFlight& f, Time now) {
    const auto it = claim_marks_.find(id);
    if (it == claim_marks_.end()) return;  // it holds nothing
    const auto& marks = it->second;
    for (std::size_t i = 0; i < f.claims.size(); ++i) {
      const double share = f.claims[i].milli.gpus();
      r.cost_usd += share * (price(f.placement.gpus[i], now) - marks[i].price_usd);
      r.allocated_gpu += GpuTime::of(now - marks[i].since, share);
    }
    claim_marks_.erase(it);
  }
  // The job starts computing on its placement: its busy charges start now (its mark: JobFlight::busy_mark_usd).
  void start_busy(JobFlight& f, Time now) const { f.busy_mark_usd = price_sum(f, now); }
  // Charges the busy share `busy` (SM demand x sharing rate) the job has had since its last mark.
  void settle_busy(JobRecord& r, JobFlight& f, double busy, Time now) const {
    const double mark = price_sum(f, now);
    r.busy_cost_usd += busy * (mark - f.busy_mark_usd);
    f.busy_mark_usd = mark;
  }

 private:
  double price(GpuId g, Time now) const { return metrics_.price_integral_usd(cluster_.node(cluster_.gpu(g).node).pool, now); }
  // Sum over the job's GPUs of what one whole GPU of its pool has cost up to now.
  double price_sum(const JobFlight& f, Time now) const {
    double sum = 0;
    for (GpuId g : f.placement.gpus) sum += price(g, now);
    return sum;
  }

  const Cluster& cluster_;
  const Metrics& metrics_;
  struct ClaimMark {
    double price_usd;  // one whole GPU's cost up to when the claim was taken
    Time since;        // when it was taken
  };
  // Per job holding claims, parallel to them: only the jobs holding GPUs pay for an entry, not every job.
  std::unordered_map<JobId, boost::container::small_vector<ClaimMark, 4>> claim_marks_;
};

}  // namespace gpusim
