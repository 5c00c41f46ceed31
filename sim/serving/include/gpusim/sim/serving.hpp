#pragma once
// The serving component (docs/guide/services.md): the requests of a scenario's services, routed
// to their replicas and served as vLLM serves them, iteration by iteration (sim/serving_model.hpp has
// the formulas). Replicas are pods the engine places like jobs; the engine tells this component where
// a replica runs and what share of its GPU it has, and asks it whether a replica is busy (which is
// the compute demand the engine's sharing and utilization see). Nothing else changes a request.
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/latency_histogram.hpp"
#include "gpusim/sim/module.hpp"
#include "gpusim/sim/replica_memory.hpp"
#include "gpusim/sim/serving_model.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

struct Scenario;
struct ServiceSpec;

// What a replica has on its GPUs now: the roofline's inputs after its share, and, on a time-sliced GPU
// (whole, in its turns of the GPU's round robin), the GPU and its other jobs with work.
struct ReplicaShare {
  ReplicaHardware hw;
  GpuId ts_gpu = kNoGpu;           // kNoGpu: not time-sliced
  std::vector<uint32_t> ts_fluid;  // the job ids, ascending, of its other jobs with work (not replicas)
  bool operator==(const ReplicaShare& o) const {
    return hw.flops_per_s == o.hw.flops_per_s && hw.bytes_per_s == o.hw.bytes_per_s && hw.tp == o.hw.tp &&
           hw.link_bytes_per_s == o.hw.link_bytes_per_s && hw.eff == o.hw.eff && ts_gpu == o.ts_gpu && ts_fluid == o.ts_fluid;
  }
};

// Where a replica was placed.
struct ReplicaDevice {
  const GpuModel* gpu = nullptr;
  int64_t visible_memory_mib = 0;  // what the engine sees: the GPU, its MIG instance, or the pod's limit
  NodeId node = kNoNode;
};

// Per service, at the end of a run.
struct ServiceFigures {
  std::string name;
  uint64_t arrived = 0, completed = 0, rejected = 0, unfinished = 0;
  uint64_t waiting = 0;                           // of the unfinished: never scheduled on a replica by the end
  uint64_t timed_out = 0;                         // given up by their clients (ServiceSpec::timeout), aborted
  uint64_t good = 0;                              // completed and within every per-request SLO target
  uint64_t preemptions = 0;                       // recomputations because the KV cache was full
  uint64_t retried = 0;                           // requests sent again after their replica went away
  uint64_t prompt_tokens = 0, output_tokens = 0;  // of completed requests
  LatencyHistogram ttft, tpot, itl, e2e, queue;
  double ready_replica_s = 0;  // replica-seconds ready to serve
  double cold_start_s = 0;     // replica-seconds between placement and ready
  uint64_t replica_starts = 0;
  uint64_t iterations = 0;                       // engine steps of its replicas
  Time last_completion;                          // of its last request completed: its rates are per second up to then
  int32_t kv_blocks_min = 0, kv_blocks_max = 0;  // over the replicas placed
  bool prefix_caching = false;                   // its replicas cache prefixes
  // Prefix caching, counted each time a request is scheduled from its replica's waiting queue (its first
  // time, and again after a preemption): its tokens so far, and those of its longest cached prefix.
  uint64_t prefix_queried_tokens = 0, prefix_hit_tokens = 0;
  // Disaggregated: each request's KV transfer from its prefill to its decode replica.
  LatencyHistogram kv_transfer;
  double kv_transfer_bytes = 0;
  std::string requests;  // the request source, described
};

// One finished (or rejected) request, for requests.csv.
struct RequestRow {
  uint32_t service = 0;
  uint64_t id = 0;  // in arrival order within its service
  Time arrival;
  int64_t queue_us = -1, ttft_us = -1, e2e_us = -1;  // -1: never reached
  int32_t prompt = 0, output = 0, generated = 0;
  int32_t replica = -1;
  int32_t cached_tokens = -1;    // prefix caching: prompt tokens found cached when first scheduled; -1: not scheduled
  int32_t prefill_replica = -1;  // disaggregated: the replica that prefilled it (the last time); -1: none
  int64_t kv_transfer_us = -1;   // disaggregated: its KV cache's transfer to `replica`; -1: none
  uint16_t preemptions = 0, retries = 0;
  uint8_t status = 0;  // 0 completed, 1 rejected, 2 unfinished, 3 timed out
};

// One routing decision (the Perfetto trace's router tracks): a request sent to a replica.
struct RouteRow {
  Time time;
  uint32_t service = 0;
  uint64_t request = 0;        // in arrival order within its service
  uint32_t replica = 0;        // its job id
  int32_t cached_tokens = -1;  // of its prompt, in that replica's prefix cache then; -1: no prefix caching
};

// What a run keeps beyond the figures: a row per request (requests.csv), per routing decision (the trace).
struct ServingRecords {
  bool requests = false, routes = false;
};

// What a pod autoscaler reads of a replica (vLLM's gauges and its GPU's duty).
struct ReplicaGauges {
  bool ready = false;     // serving (its readiness probe passes)
  bool draining = false;  // its pod is terminating: it takes no new request
  int32_t running = 0;    // vllm:num_requests_running
  int32_t waiting = 0;    // vllm:num_requests_waiting
  double busy_s = 0;      // seconds its slot's replicas had requests: their GPU's duty integral
};

class Serving {
 public:
  Serving(const Scenario& s, ServingRecords keep);
  ~Serving();
  Serving(const Serving&) = delete;
  Serving& operator=(const Serving&) = delete;

  // Replicas are the scenario's first jobs (read_services).
  bool is_replica(JobId id) const { return id < replica_jobs_; }
  // Has it requests to serve, as the engine last took note (take_busy_changes)? Its demand on its
  // GPU: 1 while busy, 0 idle.
  bool busy(JobId id) const;
  // The earliest time something is due (a request arrives, an iteration ends, a replica is ready).
  std::optional<Time> next_time();
  // Everything due at `now`.
  void advance(Time now);
  // Its instants before `until`, each as advance(t), while they change nothing the engine sees (a busy
  // change, a replica made ready, the last request ended): it stops after the first that does, which
  // next_time() names until advance() is called at it. Not with time-sliced replicas, whose every step the
  // GPU's other jobs see.
  Module::Ahead run_ahead(Time until);
  // Whether advance(now) would find nothing to do (nothing due by `now`, nothing to start, no busy change
  // to hand over): most calls after the engine's decisions, which changed nothing here.
  bool settled(Time now) const;
  // The replica runs now on `device` with `share`; it is ready after its cold start.
  void placed(JobId id, Time now, const ReplicaDevice& device, const ReplicaShare& share);
  // Its share of its GPU changed (a neighbour came, left, went busy or idle): the iteration under way
  // goes on at the new speed.
  void share_changed(JobId id, Time now, const ReplicaShare& share);
  // The replica's node will be taken back: it takes no new request (its pod is terminating) and
  // serves what it has until it stops.
  void draining(JobId id, Time now);
  // The replica stopped (evicted, killed): its requests go to the other replicas, from scratch.
  void stopped(JobId id, Time now);
  // The replicas that went busy or idle since the last call, in job order, and `before(id)` called
  // for each while busy(id) still shows the old state (the engine settles what it charged at it);
  // busy() shows the new state once it returns. `level_changes` gets those busy all along whose batch
  // moved to another power level (power_level), `before_level(id)` called for each while it shows the old one.
  bool has_busy_changes() const;  // is a replica listed for take_busy_changes?
  std::vector<JobId> take_busy_changes(Time now, const std::function<void(JobId)>& before,
                                       const std::function<void(JobId)>& before_level, std::vector<JobId>& level_changes);
  // A busy replica's power level, what its draw follows: the bit width of its iteration's requests (1 for
  // one, 2 for 2-3, 3 for 4-7, ...), as the engine last took note.
  uint8_t power_level(JobId id) const;
  // The batch a level draws as (sim/power.hpp serving_mix): its octave's geometric middle (1, 2.83, 5.66, ...).
  static double level_batch(uint8_t level) { return level <= 1 ? 1.0 : std::exp2(level - 0.5); }
  ReplicaGauges gauges(JobId id, Time now) const;
  // Requests of service `s` arrived and not started on any replica: held while none is ready, or
  // waiting in a replica's queue (gpusim_service_queue_length).
  int64_t queue_length(uint32_t s) const;
  // Requests sent to service `s`: arrived, or, for a decode pool, handed over by its prefill pool.
  uint64_t arrived(uint32_t s) const;
  // Disaggregated serving: bytes per second of the link between two replicas (a KV cache's transfer).
  void kv_links(std::function<double(JobId from, JobId to)> bytes_per_s);
  int32_t ready(uint32_t s) const;
  // Every request stream is over, no request waits or runs, and the engine has finished the instant
  // run_ahead stopped at.
  bool done() const;
  // The figures at the end of the run (`end`); unfinished requests are counted.
  std::vector<ServiceFigures> finish(Time end);
  std::vector<RequestRow> take_requests();
  std::vector<RouteRow> take_routes();
  // Requests arrived, iterations run and replicas made ready: the events it applied.
  uint64_t events() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint32_t replica_jobs_ = 0;
};

}  // namespace gpusim
