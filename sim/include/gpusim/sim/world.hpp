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
  const GpuModel* reference = nullptr;           // the model its work was measured on; null: any
  NodeId node = kNoNode;                         // the node it is bound to (Job::node); kNoNode: the scheduler places it
};

// Every job's settings, worked out from its Job when asked: what a job names (its reference GPU
// model, its node) is looked up once per distinct name, so that no table per job is kept (issue 22).
class ResolvedJobs {
 public:
  // Throws InputError for a job bound to a node that cannot hold it.
  ResolvedJobs(const Scenario& s, const Cluster& c);
  ResolvedJob operator[](std::size_t job) const;
  // Its `node` alone: the fit rules ask it for every placement tried.
  NodeId node(std::size_t job) const {
    const uint32_t text = scenario_.jobs.jobs[job].node;
    return text == Job::kNone ? kNoNode : node_of_text_[text];
  }
  bool any_bound() const { return any_bound_; }

 private:
  const Scenario& scenario_;
  // By JobSet::texts index: the GPU model a reference_gpu names, the node a job's `node:` names.
  std::vector<const GpuModel*> model_of_text_;
  std::vector<NodeId> node_of_text_;
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

}  // namespace gpusim
