#pragma once
// Scenario files (docs/reference/scenario.md): one schema for YAML and JSON, validated strictly, every error naming
// the file, the line and the field. `--set path=value` overrides apply to the tree before validation.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/core/json.hpp"
#include "gpusim/core/time.hpp"
#include "gpusim/hardware/catalog.hpp"
#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/footprint.hpp"
#include "gpusim/sim/scheduling_options.hpp"
#include "gpusim/sim/tenancy.hpp"
#include "gpusim/workloads/job.hpp"
#include "gpusim/workloads/served_model.hpp"
#include "gpusim/workloads/service.hpp"

namespace gpusim {

// The FGD paper's capacity-packing experiment (`workload.packing`): the workload's pods arrive one
// per microsecond and never leave, until the GPUs they ask for reach `until` x the cluster's GPU
// capacity. A pod that does not fit when it arrives has failed (capacity only shrinks). The order
// (seeded stream "workload/packing"), by `tuning`:
//   artifact  as the FGD artifact's -tune (simulator.go, TunePodsByNodeTotalResource): the pods
//             shuffled once, then pods drawn with replacement from them appended until the next
//             one's per-GPU share would pass the target (or, past it, random pods removed);
//   passes    shuffled passes over the pods, the last cut where the demand reaches the target.
struct PackingSpec {
  enum class Tuning : uint8_t { artifact, passes };
  double until = 0;     // workload.packing.until: demand to reach, in multiples of the GPU capacity
  double coverage = 0;  // workload.packing.coverage: task types fragmentation is measured against
  Tuning tuning = Tuning::artifact;
  uint64_t capacity_milli = 0;  // the cluster's GPU capacity the demand is measured against
  // The first `originals` arrivals are the workload's own pods (artifact tuning; all of them for
  // passes): the task mix is theirs, as the artifact's typical pods come from the original list.
  std::size_t originals = 0;
  // workload.packing.node_ranks: each node's tie rank by node id (ties: order goes to the lowest);
  // empty: a seeded random order.
  std::vector<uint32_t> node_ranks;
};

struct Scenario {
  std::string file;
  std::string name;
  std::string variant;  // the variant it was loaded as (load_variants, load_variant); "": none
  uint64_t seed = 0;
  bool seed_given = false;      // false: the scenario has no seed: (nor --set seed=), and `seed` is the default
  std::optional<Time> horizon;  // when the run stops; none: run until every job that can finish has finished
  std::shared_ptr<const Catalog> catalog;
  std::vector<PoolSpec> pools;
  std::vector<PowerBudget> power_budgets;
  ExecutionModel model;  // built-in defaults with the scenario's `model:` applied
  JobSet jobs;
  // workload.reference_gpu: the GPU model the durations of jobs that name none are stated on (a model
  // or "any"); "": model.speed's default.
  std::string reference_gpu;
  std::shared_ptr<const ModelCatalog> models;  // the built-in served models and the scenario's own
  // Inference services; their replicas are the first jobs of `jobs` (read_services).
  std::vector<ServiceSpec> services;
  std::optional<PackingSpec> packing;
  std::string policy;
  SourceLocation policy_where;
  std::optional<ConfigNode> policy_params;  // policy: {name, params}; each policy reads what it declares
  SchedulingOptions scheduling;
  TenancySpec tenancy;
  Duration timeseries_step;
  std::vector<std::string> outputs;  // outputs written on request (`outputs: {trace: true}`)
  int64_t metrics_start_unix_s = 0;  // outputs.metrics_start: the date time 0 is in metrics.om
  std::string data_dir;
  // Named sets of overrides `gpusim compare` runs side by side (e.g. sharing strategies).
  struct Variant {
    std::string name;
    std::vector<std::string> overrides;
    SourceLocation where;  // its `set` field: what an error in one of the overrides names
  };
  std::vector<Variant> variants;
  ConfigNode resolved;  // the tree after overrides, written next to the results
};

struct LoadOptions {
  std::vector<std::string> overrides;       // "path=value"
  std::optional<std::string> data_dir;      // --data
  std::optional<std::string> text;          // the scenario itself (YAML or JSON); the path then only names it
  std::optional<MemoryLimit> memory_limit;  // --max-memory; none: MemoryLimit::machine_default()
};

// The data directory: --data, else $GPUSIM_DATA, else data/ in the source tree.
std::string resolve_data_dir(const std::optional<std::string>& flag);

Scenario load_scenario(const std::string& path, const LoadOptions& options);

// The JSON Schema (draft 2020-12) of scenario files, from the declarations their reader reads them
// by; `policy_params` are the names policy.params may have (the policy registry's).
Json scenario_schema(const std::vector<std::string>& policy_params);

// The scenario once per variant (its overrides applied before options.overrides), named by the
// variant; once, named "", when it has none. What `compare`, `check` and `sweep` run.
std::vector<std::pair<std::string, Scenario>> load_variants(const std::string& path, const LoadOptions& options);

// The scenario as its variant `name` makes it (its overrides applied before options.overrides). An
// unknown name is an InputError at `where` naming the variants there are.
Scenario load_variant(const std::string& path, const LoadOptions& options, const std::string& name, const SourceLocation& where);

// mig-parted's generated configs for a model: all-disabled, all-enabled (no instances),
// all-<profile> (as many as fit), all-balanced (seven-slice: 2 x 1g + 1 x 2g + 1 x 3g, the
// smallest of each class). nullopt for any other name.
std::optional<MigCounts> builtin_mig_config(const GpuModel& model, std::string_view name);

}  // namespace gpusim
