#pragma once
// Trace readers. Each reads its file line by line (never the whole file at once) and names the file
// and line of anything it cannot read. Formats and units: data/README.md and the README's "Traces".
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

struct TraceOptions {
  std::optional<JobKind> kind;   // overrides the format's default kind
  std::optional<double> u;       // overrides the default compute demand
  std::optional<bool> multi_node;
  std::optional<int64_t> limit;  // keep the first N jobs (in arrival order)
  // philly: keep only the rows of these virtual clusters (all when empty); arrival is then relative
  // to the earliest row kept, as a trace of those clusters alone would have it.
  std::vector<std::string> virtual_clusters;
  // The jobs' times are not used (capacity packing): a file without them (the openb multigpu pod
  // lists have five columns) is read with arrival and work 0.
  bool untimed = false;
};

// Alibaba GPU v2023 "openb" pod list. arrival = creation_time, work = deletion_time - creation_time,
// request = num_gpu x gpu_milli plus CPU and memory. Default kind batch, u = the requested share of
// each GPU (a pod is taken to keep busy what it asked for), pods stay on one node.
JobSet read_openb_pods(const std::string& path, const TraceOptions& options);

struct OpenbNode {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int gpus = 0;
  std::string model;  // empty for CPU-only nodes
  int line = 0;
};
// Alibaba GPU v2023 "openb" node list (sn,cpu_milli,memory_mib,gpu,model).
std::vector<OpenbNode> read_openb_nodes(const std::string& path);

// Philly per-job table (Pollux extract): timestamp,duration,num_gpus,gpu_time,cluster. Rows are
// unsorted; arrival is relative to the earliest timestamp kept; tenant = virtual cluster; kind
// training; multi-GPU jobs may span nodes.
JobSet read_philly_jobs(const std::string& path, const TraceOptions& options);

// gpusim's generic CSV (header required; documented in docs/guide/traces.md):
//   arrival_s,duration_s,gpus  required; name,gpu_milli,gpu_memory_mib,cpu_milli,memory_mib,
//   models (|-separated),kind,u,tenant,priority,multi_node optional. No quoted fields.
JobSet read_generic_csv(const std::string& path, const TraceOptions& options);

// The file a trace field (`path:`, `file:`) names: a relative path is looked up beside the scenario file
// first (a trace shipped with its scenario), then in the data directory; an absolute one is taken as is.
// Not found: an InputError naming the field and every place looked in.
std::string data_path(const ConfigNode& field, const std::string& data_dir);

// Seconds since 1970-01-01 of "YYYY-MM-DD HH:MM:SS" (no time zone); nullopt if malformed.
std::optional<int64_t> parse_timestamp(std::string_view text);

}  // namespace gpusim
