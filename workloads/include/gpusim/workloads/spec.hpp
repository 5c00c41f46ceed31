#pragma once
// Jobs described in the scenario itself: inline jobs and the synthetic generator.
#include <cstdint>

#include "gpusim/core/config.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

// The fields of a communication profile, compute_per_iteration, bytes_per_iteration and optional
// collective (the caller checks which other fields the map may have).
CommProfile parse_comm_profile(const ConfigNode& c);

// `checkpoint:` {interval: DURATION | auto, cost: DURATION, restore: DURATION}, or `none`.
CheckpointPolicy parse_checkpoint_policy(const ConfigNode& c);

// `workload.jobs`: a list of jobs; `count: N` repeats one entry N times (names get -0, -1, ...).
JobSet parse_inline_jobs(const ConfigNode& list);

// `workload.generator`: classes of jobs with counts, Poisson or simultaneous arrivals, GPU-count
// choices and duration distributions (Boost.Math quantiles of seeded uniforms, so the same seed gives
// the same jobs on every platform). Each class draws from its own named streams.
JobSet generate_jobs(const ConfigNode& spec, uint64_t seed);

}  // namespace gpusim
