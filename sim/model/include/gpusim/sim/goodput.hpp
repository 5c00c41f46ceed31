#pragma once
// Goodput (issue 20): the GPU time jobs held that went into work they kept. Utilization counts a GPU
// as busy while its job waits in a collective, re-runs work an eviction threw away or sits between
// gang workers; goodput does not, so a slow placement or a market that keeps evicting does not look
// better for keeping its GPUs "busy". Every term is share-weighted as allocation is (a time-slicing
// replica holds 1/replicas of a GPU), so goodput_ratio is a fraction of the allocated GPU-hours.
#include "gpusim/core/time.hpp"

namespace gpusim {

struct GoodputParts {
  GpuTime computing;   // held while computing (rate > 0), collectives included
  GpuTime comm_stall;  // the part of `computing` spent waiting in collectives
  GpuTime rerun;       // the rest of `computing` whose progress a kill or eviction threw away
};

// computing - comm_stall - rerun, never negative. Checkpoint writes, restores and workers waiting for
// the rest of their gang are held but not computing, so they are not in `computing` to begin with.
GpuTime goodput(const GoodputParts& p);

// Goodput over the GPU time jobs held; 0 when they held none.
double goodput_ratio(GpuTime goodput, GpuTime allocated);

}  // namespace gpusim
