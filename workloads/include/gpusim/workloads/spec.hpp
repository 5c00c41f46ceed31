#pragma once
// Jobs described in the scenario itself: inline jobs and the synthetic generator.
#include <cstdint>
#include <optional>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/fields.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

// `communication:` of a generator class: compute_per_iteration, bytes_per_iteration, collective.
// Inline jobs add `iterations`, the model's per-kind defaults `source`.
const Section& communication_section();
// The profile from a map whose section declares communication_section()'s fields.
CommProfile parse_comm_profile(const Fields& c);

// `checkpoint:` {interval: DURATION | auto, cost: DURATION, restore: DURATION}, or `none`.
Type checkpoint_type();
CheckpointPolicy parse_checkpoint_policy(const ConfigNode& c);

// reference_gpu, throughput_class and speedup: what a job's speed on each GPU model follows from, as
// inline jobs, generator classes and traces give it (docs/hardware.md#job-speed).
std::vector<Field> job_speed_fields();
// The speed settings a map of those fields gives; none when it gives none of them.
std::optional<JobSpeed> read_job_speed(const Fields& e);

// An entry of `workload.jobs`, and `workload.generator`.
const Section& job_section();
const Section& generator_section();

// A service's `pod:`, the template of its replicas: an inline job's request and pod fields, without
// its name, arrival, duration and GPU count.
const Section& replica_pod_section();
// A replica of `gpus` GPUs (the service's tensor-parallel degree) of kind inference; fields that mean
// nothing for a replica (workers, multi_node, deadline, u, another kind) are refused.
Job read_replica_pod(const ConfigNode& pod, int32_t gpus, JobSet& set);

// `workload.jobs`: a list of jobs; `count: N` repeats one entry N times (names get -0, -1, ...).
JobSet parse_inline_jobs(const ConfigNode& list);

// `workload.generator`: classes of jobs with counts, Poisson or simultaneous arrivals, GPU-count
// choices and duration distributions (Boost.Math quantiles of seeded uniforms, so the same seed gives
// the same jobs on every platform). Each class draws from its own named streams.
JobSet generate_jobs(const ConfigNode& spec, uint64_t seed);

}  // namespace gpusim
