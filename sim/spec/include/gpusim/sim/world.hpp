#pragma once
// What a scenario builds into, once: the cluster at time 0 (each pool carrying its spec), every job's
// request shape and the defaults each job resolves to. Validation and the engine both read it and
// nothing changes it; a run starts from a copy of its cluster.
#include <cstdint>
#include <vector>

#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/fit.hpp"
#include "gpusim/sim/scenario.hpp"

namespace gpusim {

// A job's settings after the scenario's defaults are applied.
struct ResolvedJob {
  const CheckpointPolicy* checkpoint = nullptr;  // its own policy, else its kind's default
  const CommProfile* comm = nullptr;             // jobs of 2+ GPUs: its profile, else its kind's default; none: null
  NodeId node = kNoNode;                         // the node it is bound to (Job::node); kNoNode: the scheduler places it
};

// The GPU model job `j`'s work is stated on after the defaults (its own, the workload's, model.speed's),
// or JobSpeed::kAny; `defaulted` says whether it came from model.speed (docs/hardware.md#job-speed).
struct JobReference {
  std::string_view gpu;
  bool defaulted = false;
};
JobReference job_reference(const Scenario& s, const Job& j);

// Every job's settings, worked out from its Job when asked: what a job names (its speed settings, its
// node) is looked up once per distinct name, so that no table per job is kept (issue 22).
class ResolvedJobs {
 public:
  // Throws InputError for a job bound to a node that cannot hold it.
  ResolvedJobs(const Scenario& s, const Cluster& c);
  ResolvedJob operator[](std::size_t job) const;
  // How fast the job runs on pool `pool`'s GPUs against its work (speed_factor).
  double speed(std::size_t job, PoolId pool) const {
    const Job& j = scenario_.jobs.jobs[job];
    const std::size_t profile = (j.speed == Job::kNone ? 0 : std::size_t{j.speed} + 1) * enum_count<JobKind> +
                                static_cast<std::size_t>(j.kind);
    return speed_by_pool_[profile * pools_ + static_cast<std::size_t>(pool)];
  }
  // Its `node` alone: the fit rules ask it for every placement tried.
  NodeId node(std::size_t job) const {
    const uint32_t text = scenario_.jobs.jobs[job].node;
    return text == Job::kNone ? kNoNode : node_of_text_[text];
  }
  bool any_bound() const { return any_bound_; }

 private:
  const Scenario& scenario_;
  // By JobSet::texts index: the node a job's `node:` names.
  std::vector<NodeId> node_of_text_;
  // By (speed settings x kind, pool): each of JobSet::speeds (and none) for each kind, on each pool.
  std::vector<double> speed_by_pool_;
  std::size_t pools_ = 0;
  bool any_bound_ = false;
};

struct World {
  const Scenario& scenario;
  Cluster cluster;
  Shapes shapes;
  ResolvedJobs jobs;        // indexed by JobId
  bool bound_jobs = false;  // does any job name its node?
};

// Builds the world and checks what can be checked before running: jobs written in the scenario
// itself that no node of the cluster could ever hold are errors (trace jobs are reported as
// unschedulable instead). Throws InputError naming the file and line. `scenario` must outlive it.
World build_world(const Scenario& scenario);

// What `gpusim validate` warns of: settings that are allowed but most likely not what was meant (a
// latency target of seconds where milliseconds are usual), each "FILE:line N: FIELD: what".
std::vector<std::string> scenario_warnings(const World& world);

}  // namespace gpusim
