#pragma once
// The admission seam (docs/design/architecture.md, "Add an admission"): what a job's pods pass
// before the scheduler sees them. The kernel asks its admissions in the order the run gives them
// (sim/run.hpp: namespace quotas, then the queue manager): one may hold a job back until its own cycle admits it; each may refuse
// it for good when its pods are created. What a job was charged is given back in one place, when its pods are gone
// (Engine::give_back).
#include <optional>
#include <string_view>
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/sim/job_state.hpp"

namespace gpusim {

class ClusterView;
class Shapes;

// One preemption an admission decided: evict `victim` for `by`, for its reason.
struct AdmissionEviction {
  JobId victim;
  JobId by;
  std::string_view reason;
};

class Admission {
 public:
  virtual ~Admission() = default;
  // Request shapes to use instead of the world's (a queue manager's, restricted to each job's flavors); null: the world's.
  virtual const Shapes* shapes() const { return nullptr; }
  // Does it hold the arriving job until its cycle admits it?
  virtual bool holds(JobId) const { return false; }
  // A job it holds arrived: it waits for the cycle.
  virtual void wait(JobId, Time) {}
  // Does it check every job's pods when they are created (admit)?
  virtual bool checks_pods() const { return false; }
  // The job's pods are created: nullopt lets them through (and charges them); a reason refuses them for good.
  virtual std::optional<std::string_view> admit(JobId) { return std::nullopt; }
  // The job's pods are gone: `for_good` (it ended, or its pods were deleted) or until it is admitted
  // again (its holder evicted it). What it was charged is given back.
  virtual void released(JobId id, Time now, bool for_good) = 0;
  // The running job left its GPUs: does this admission take it back to wait for its cycle again
  // (it evicted the job)? Otherwise it goes back to the scheduler's queue.
  virtual bool takes_back(JobId, Time) { return false; }
  // Its cycle at a decision point: `admitted` gets the jobs it lets through, `evictions` the preemptions to apply.
  virtual void cycle(Time, const ClusterView&, std::vector<JobId>& /*admitted*/, std::vector<AdmissionEviction>& /*evictions*/) {}
  // Has a cycle more to do at this instant (quota released by its evictions)?
  virtual bool pending_work() const { return false; }
  // Once this instant's preemptions are over: the jobs it evicted that left wait again (true if any).
  virtual bool requeue_evicted(Time) { return false; }
};

}  // namespace gpusim
