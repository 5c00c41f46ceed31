#pragma once
// What the scenario readers (sim/spec/src/scenario*.cpp) share. load_scenario (scenario.cpp) reads the
// document's top level and hands each block to its reader, in the order their errors are reported:
// cluster (scenario_pools.cpp, a pool's GPU sharing in scenario_sharing.cpp), workload
// (scenario_workload.cpp, its packing experiment in scenario_packing.cpp), outputs
// (scenario_outputs.cpp).
#include <string>

#include "gpusim/core/config.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/core/fields.hpp"
#include "gpusim/hardware/catalog.hpp"
#include "gpusim/sim/scenario.hpp"
#include "gpusim/sim/sharing.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

// scenario_pools.cpp: the fleet. Appends the pools of `cluster:` to s.pools and checks the whole:
// pool names and listed node names unique, at least one node, at most 64 pools.
const Section& cluster_section();
void read_cluster(const ConfigNode& node, Scenario& s);

// scenario_sharing.cpp: how a pool's pods share its GPUs.
// A pool's `sharing:`: a name, or the device plugin's block.
Type sharing_type();
const Section& pool_mig_section();
// `partition:` of an AMD pool (its compute and memory modes, the device plugin's naming strategy).
const Section& pool_partition_section();
// `sharing: exclusive` or `sharing: fractional` (a node list's, or a pool's given by name).
SharingConfig read_sharing_name(const ConfigNode& n);
// A pool's sharing: its `partition:` (AMD) or `mig:` block, else its `sharing:`, with `runtime:` for
// fractional shares; refused where the GPU's vendor offers none of it.
SharingConfig read_pool_sharing(const Fields& pool, const GpuModel* gpu, int gpus_per_node, const std::string& scenario_file);

// scenario_workload.cpp: the jobs and services of `workload:`, and the served models they name.
const Section& workload_section();
void read_workload(const Fields& root, Scenario& s);
// A job's (or the workload's) speed settings name GPU models and a throughput class of the catalog;
// `where` is the entry that gives them.
void check_speed(const Catalog& catalog, const JobSpeed& speed, SourceLocation where);

// scenario_packing.cpp: the capacity-packing experiment (`workload.packing`, PackingSpec).
const Section& packing_section();
// Its settings; the node ranks name the nodes of s.pools.
PackingSpec read_packing(const ConfigNode& node, const Scenario& s);
// Replaces the jobs by the packing experiment's arrivals (see PackingSpec).
void pack_workload(Scenario& s, const Fields& workload);

// scenario_outputs.cpp: `outputs:`.
const Section& outputs_section();
// The step, the start date, and the outputs written on request: those asked for, and those the
// scenario's tenancy and services imply (so after those are read).
void read_outputs(const ConfigNode& node, Scenario& s);

}  // namespace gpusim
