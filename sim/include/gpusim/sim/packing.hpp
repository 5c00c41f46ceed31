#pragma once
// The FGD paper's capacity-packing experiment (Weng et al., ATC'23, §6): a scenario with
// `workload.packing` replayed under a scheduler, recording after every arrival the GPU allocation
// ratio and the cluster's fragmentation (fragmentation.hpp, against the workload's typical task
// types), and reporting them at every 1% of arrived GPU demand. Fragmentation is kept per node and
// recomputed only for the nodes a placement changed.
#include <cstdint>
#include <vector>

#include "gpusim/sim/engine.hpp"
#include "gpusim/sim/scenario.hpp"

namespace gpusim {

struct PackingCheckpoint {
  int percent = 0;              // arrived GPU demand reached percent% of GPU capacity
  double allocation_ratio = 0;  // allocated GPU / GPU capacity
  double frag_gpus = 0;         // fragmented idle GPU (GPUs)
  double frag_ratio = 0;        // fragmented / idle GPU (0 when nothing is idle)
  uint32_t arrived_pods = 0;
  uint32_t failed_pods = 0;     // arrived and not placed
};

struct PackingResult {
  std::vector<PackingCheckpoint> checkpoints;  // percent 0, 1, ..., floor(100 x until)
  RunResult run;
};

// Throws InputError when the scenario has no `workload.packing`.
PackingResult run_packing(const Scenario& scenario, Scheduler& scheduler);

}  // namespace gpusim
