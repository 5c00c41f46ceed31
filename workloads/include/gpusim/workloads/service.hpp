#pragma once
// Inference services (Kubernetes Deployments): a model served by replicas, which are pods placed like
// jobs, and the requests sent to it. The serving model itself (batching, KV cache, iteration time)
// is sim/serving.hpp's.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/fields.hpp"
#include "gpusim/core/time.hpp"
#include "gpusim/workloads/job.hpp"
#include "gpusim/workloads/pod_autoscaler.hpp"
#include "gpusim/workloads/request_stream.hpp"
#include "gpusim/workloads/served_model.hpp"

namespace gpusim {

// How a service spreads its requests over its ready replicas: a router's name (sim/request_router.hpp
// has the registry) and, when the scenario gives a map, its parameters.
struct RouterSpec {
  std::string name = "round-robin";
  std::optional<ConfigNode> params;  // `router: {name: ..., key: value, ...}`
  SourceLocation where;              // the router field
};

// The per-request latencies a service reports (vLLM's benchmark names): time to first token, time per
// output token after the first, every inter-token gap, end to end, and waiting before the first
// iteration that computes any of the request.
enum class LatencyMetric : uint8_t { ttft, tpot, itl, e2e, queue };
constexpr auto enum_table(LatencyMetric) {
  using M = LatencyMetric;
  return std::to_array<EnumName<M>>(
      {{M::ttft, "ttft"}, {M::tpot, "tpot"}, {M::itl, "itl"}, {M::e2e, "e2e"}, {M::queue, "queue"}});
}

// One SLO target: `ttft: 500ms` holds each request to it (a request is good when it meets every
// such target: DistServe's and vLLM's goodput); `ttft_p90: 500ms` holds the service's percentile.
struct SloTarget {
  LatencyMetric metric = LatencyMetric::ttft;
  int32_t percentile = 0;  // 0: per request; else 50, 90, 99
  Duration limit;
  std::string key;  // as written, e.g. "ttft_p90"
  SourceLocation where;
};

// What a new replica does between its placement and serving its first request (assumed defaults, with
// their sources in service_section()): pull the image unless its node has it, load the weights, start
// the engine.
struct ColdStart {
  double image_gb = 0;
  double registry_gb_per_s = 0;  // 0 with image_gb 0: no pull
  double load_gb_per_s = 0;      // 0: weights load at once
  Duration engine_init;
};

// vLLM engine settings a service may give; absent ones take vLLM's defaults for the replica's device.
struct EngineSettings {
  std::optional<int32_t> max_num_batched_tokens, max_num_seqs;
  std::optional<double> gpu_memory_utilization;
  std::optional<bool> enable_prefix_caching;  // absent: on (vLLM V1's default) where requests carry their content
  bool enable_chunked_prefill = true;         // false: vLLM V0's default scheduler (whole prefills first, never beside decodes)
};

// A disaggregated service (DistServe, Splitwise, llm-d) serves with two pools of replicas, each a
// ServiceSpec of its own (its Deployment, autoscaler, GPUs, TP): its entry prefills (and makes the first
// token), its `decode:` pool takes the KV cache over the link between the two replicas and decodes.
enum class PoolRole : uint8_t { colocated, prefill, decode };

struct ServiceSpec {
  std::string name;
  std::string deployment;  // its pods' prefix: the name, or NAME-prefill and NAME-decode for the pools of one
  PoolRole role = PoolRole::colocated;
  uint32_t peer = 0;                   // prefill: its decode pool's index among the services; decode: its prefill pool's
  const ServedModel* model = nullptr;  // in the scenario's model catalog
  int32_t replicas = 1;                // at the start (0 only under KEDA)
  int32_t max_replicas = 1;            // the most it can have: the autoscaler's maximum, else replicas
  std::optional<AutoscalerSpec> autoscaler;
  int32_t tensor_parallel = 1;  // GPUs of one replica
  RouterSpec router;
  std::vector<SloTarget> slo;
  EngineSettings engine;
  std::optional<Duration> timeout;  // clients give up on a request not completed within it
  ColdStart cold_start;
  std::shared_ptr<const RequestSource> requests;  // a decode pool's are its prefill pool's (it opens none)
  // Its replica slots are jobs first_job ... first_job + max_replicas - 1; those past the current count
  // wait parked until an autoscaler asks for them.
  uint32_t first_job = 0;
  SourceLocation where;  // the entry of workload.services
};

const Section& service_section();

// Jobs that are replica slots: the first ones (read_services).
inline uint32_t replica_jobs(const std::vector<ServiceSpec>& services) {
  return services.empty() ? 0 : services.back().first_job + static_cast<uint32_t>(services.back().max_replicas);
}

// `workload.services`: the services (a disaggregated one as its prefill pool, then its decode pool), and their replica slots as
// jobs of kind inference appended to `jobs` (arriving at 0, so that after JobSet::finalize they are the first jobs, in this
// order). `models` holds the built-in models and the scenario's own.
std::vector<ServiceSpec> read_services(const ConfigNode& list, const ModelCatalog& models, const std::string& data_dir,
                                       uint64_t seed, JobSet& jobs);

}  // namespace gpusim
