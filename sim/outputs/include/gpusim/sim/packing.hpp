#pragma once
// The FGD paper's capacity-packing experiment (Weng et al., ATC'23, §6): a scenario with
// `workload.packing` replayed under a scheduler, recording after every arrival the GPU allocation
// ratio and the cluster's fragmentation (fragmentation.hpp, against the workload's typical task
// types), and reporting them at every 1% of arrived GPU demand. Fragmentation is kept per node and
// recomputed only for the nodes a placement changed.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "gpusim/sim/run.hpp"
#include "gpusim/sim/scenario.hpp"

namespace gpusim {

struct PackingCheckpoint {
  int percent = 0;              // arrived GPU demand reached percent% of GPU capacity
  double allocation_ratio = 0;  // allocated GPU / GPU capacity
  double frag_gpus = 0;         // fragmented idle GPU (GPUs)
  double frag_ratio = 0;        // fragmented / idle GPU (0 when nothing is idle)
  uint32_t arrived_pods = 0;
  uint32_t failed_pods = 0;  // arrived and not placed
};

// Where a pod went as it arrived (packing pods take one node).
struct PodPlacement {
  std::string pod;
  std::string node;            // empty: it failed
  std::vector<uint16_t> gpus;  // indices within the node
};

struct PackingResult {
  std::vector<PackingCheckpoint> checkpoints;  // percent 0, 1, ..., floor(100 x until)
  std::vector<PodPlacement> placements;        // per arrival, when asked for
  RunResult run;
};

// Throws InputError when the scenario has no `workload.packing`.
PackingResult run_packing(const Scenario& scenario, Scheduler& scheduler, bool placements = false);

// The placements as `gpusim packing --placements` writes them: CSV pod,node,gpus (GPU indices
// joined by '+'; node and gpus empty for a pod that failed).
void write_pod_placements(std::ostream& out, const std::vector<PodPlacement>& placements);

}  // namespace gpusim
