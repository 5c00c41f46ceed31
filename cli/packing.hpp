#pragma once
// `gpusim packing SCENARIO`: the FGD paper's capacity-packing experiment (sim/packing.hpp) for a set of
// policies x seeds, summarised in one table like the paper's: the mean GPU allocation ratio at 100%
// and 130% arrived demand and the fragmentation ratio at 50/70/80/90%, over the seeds.
#include <iosfwd>
#include <string>
#include <vector>

#include "gpusim/sim/packing.hpp"
#include "progress.hpp"
#include "seeds.hpp"  // parse_seeds

namespace gpusim::cli {

struct PackingRun {
  std::string policy;
  uint64_t seed;
  std::vector<PackingCheckpoint> checkpoints;
  double seconds;  // wall time of the run
  std::vector<PodPlacement> placements;  // each pod's, when asked for (--placements)
};

// Every policy x seed of the scenario (its seed replaced), in that order, on `workers` threads;
// `progress`, when given, counts the runs; `placements`: keep each run's pod placements.
std::vector<PackingRun> run_packing_grid(const std::string& scenario, const LoadOptions& options,
                                         const std::vector<std::string>& policies, const std::vector<uint64_t>& seeds,
                                         int workers, Progress* progress = nullptr, bool placements = false);

// The value at `percent` of arrived demand, or nullopt past the end of the run.
std::optional<PackingCheckpoint> at_percent(const std::vector<PackingCheckpoint>& c, int percent);

std::string packing_table(const std::vector<PackingRun>& runs);
// One row per run and checkpoint: policy, seed, percent, allocation_ratio, frag_ratio, frag_gpus, arrived_pods, failed_pods.
void write_packing_csv(std::ostream& out, const std::vector<PackingRun>& runs);

}  // namespace gpusim::cli
