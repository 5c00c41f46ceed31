#include "gpusim/sim/serving.hpp"

#include <fmt/format.h>

#include <boost/container/static_vector.hpp>

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <deque>
#include <functional>
#include <queue>
#include <set>

#include "gpusim/core/error.hpp"
#include "gpusim/core/random.hpp"
#include "gpusim/sim/fit.hpp"
#include "gpusim/sim/kv_block_pool.hpp"
#include "gpusim/sim/request_router.hpp"
#include "gpusim/sim/scenario.hpp"
#include "gpusim/sim/serving_profile.hpp"
#include "gpusim/sim/time_slices.hpp"
#include "gpusim/workloads/service.hpp"

namespace gpusim {

namespace {

// Where a request's KV cache is: on its replica; at its prefill replica, to be sent once its decode replica
// has room; on the way (docs/serving.md#disaggregated-serving).
enum class Kv : uint8_t { local, remote, moving };

// A request in the system, from its arrival to its end.
struct Req {
  Time arrival, first_scheduled = Time::max(), first_token, last_token;
  int64_t max_gap_us = 0;
  uint64_t id = 0;  // in arrival order within its service
  int32_t prompt = 0, output = 0;
  int32_t computed = 0;   // tokens in its KV cache
  int32_t generated = 0;  // output tokens so far
  int32_t blocks = 0;     // KV blocks it holds
  int32_t replica = -1;
  int32_t cached_tokens = -1;  // prefix caching: prompt tokens found cached when it was first scheduled
  int32_t user = -1;           // the client of a closed loop that sent it
  uint32_t service = 0;        // its service (its figures): a disaggregated one's prefill pool
  int32_t prefill_replica =
      -1;                   // disaggregated: the replica that prefilled it, which holds its KV cache while kv is remote or moving
  int32_t held_blocks = 0;  // there, without prefix caching
  uint64_t transfer_seq = 0;  // of its KV transfer under way (older entries are stale)
  int64_t transfer_us = -1;   // its KV transfer's duration (requests.csv)
  Kv kv = Kv::local;
  bool decoding = false;  // disaggregated: handed to its decode pool
  uint16_t preemptions = 0, retries = 0;
  // vLLM's num_tokens: the prompt and every token generated so far
  int32_t tokens() const { return prompt + generated; }
};

// A request's prefix-caching state, beside its Req (by the same index) when a service caches: its full
// blocks' hashes, the blocks it holds and how many of them hold their hash (vLLM's num_cached_block).
struct ReqBlocks {
  std::vector<uint64_t> hashes;
  std::vector<int32_t> ids;
  int32_t hashed = 0;
};

// Steps a replica plans ahead at most (plan_chain), held in place. A longer chain plans steps that an arrival or an
// engine hook more often makes it plan again: the Mooncake hour with caching took 2.95 / 2.86 / 2.81 / 2.80 / 2.82 G
// instructions with 16 / 32 / 64 / 128 / 256 (docs/design/performance.md).
constexpr int32_t kMaxChain = 64;

enum class ReplicaState : uint8_t { absent, loading, ready, draining };
enum class DueKind : uint8_t { iteration_end, ready };

struct Replica {
  uint32_t service = 0;
  uint32_t owner = 0;   // the service its requests' figures go to: its own, or a decode pool's prefill pool's
  PoolRole role{};      // its pool's
  bool chunked = true;  // its engine's enable_chunked_prefill
  JobId job{0};
  ReplicaState state = ReplicaState::absent;
  ReplicaShare share;
  ReplicaDevice device;
  EngineLimits limits;
  int64_t total_blocks = 0, free_blocks = 0;  // free_blocks: without prefix caching (else the pool's)
  std::unique_ptr<KvBlockPool> pool;          // with prefix caching
  int32_t max_len = 0;                        // tokens a request may reach: the model's max_model_len, or what the cache holds
  std::deque<uint32_t> waiting;               // FCFS; a preempted request goes back to the front
  std::vector<uint32_t> running;              // admission order; preemption takes the newest
  std::vector<uint32_t> sending, receiving;   // disaggregated: requests whose KV cache it holds for, or takes from, another
  std::vector<std::pair<uint32_t, int32_t>> batch;  // the iteration under way: request, tokens it computes
  BatchShape shape;
  IterationModel iteration;  // its model on its share (a model of kind llm)
  bool in_flight = false;
  Time iter_end;
  // The iteration's progress: at `seg_start` a share `left` of it was still to do, at the speed that ends it at iter_end.
  Time seg_start;
  double left = 1;
  uint64_t due_seq = 0;  // the sequence number of its live due entry; older ones are stale
  DueKind due_kind{};
  bool busy = false;        // has requests
  bool shown_busy = false;  // what the engine knows (Serving::busy)
  double busy_s = 0;        // while shown busy, up to busy_since
  Time busy_since;
  bool listed = false;  // in busy_changes
  // Its power level: the bit width of its iteration's batch (requests), what its draw follows
  // (Serving::power_level), and the level the engine knows.
  uint8_t level = 0, shown_level = 0;
  Time placed_at;
  // Decode steps planned ahead in one go by run_ahead (docs/design/performance.md): the iteration under way is
  // step 0, and chain[k] is step k's end. Every step is the same batch decoding a token each, none of its requests
  // ends before the last step, the cache has their blocks, nothing arrives before the last step starts, and the
  // last ends before the horizon; only the last step's end is in the due queue. Empty: none.
  boost::container::static_vector<Time, kMaxChain + 1> chain;  // in place: planning pushes a step at a time
  bool chain_listed = false;                                   // in Impl::chained
  int64_t outstanding() const { return static_cast<int64_t>(waiting.size() + running.size() + receiving.size()); }
};

struct Service {
  const ServiceSpec* spec = nullptr;
  std::unique_ptr<RequestStream> stream;
  std::optional<InferenceRequest> next;  // the next to arrive (not with a closed loop of clients)
  std::optional<ClientLoop> loop;
  std::priority_queue<std::pair<Time, int32_t>, std::vector<std::pair<Time, int32_t>>, std::greater<>> sends;  // (when, client)
  uint64_t next_id = 0;
  std::deque<uint32_t> queue;      // arrived while no replica was ready
  std::vector<uint32_t> replicas;  // job ids
  std::unique_ptr<RequestRouter> router;
  ServiceFigures fig;
  int32_t ready = 0;
  Time ready_since;
  double reference_flops_per_s = 0;  // a model of kind fixed: its reference GPU's, whole, times e_flops
  bool caching = false;              // its replicas cache prefixes (its requests carry their content)
  uint64_t prefilled = 0;            // a decode pool: the requests its prefill pool handed it
};

// 16 bytes, so that the heap moves little: the push's sequence number above the replica's job id,
// so that (time, key) orders as (time, seq).
constexpr int kReplicaBits = 20;
struct Due {
  Time time;
  uint64_t key = 0;
  uint64_t seq() const { return key >> kReplicaBits; }
  uint32_t replica() const { return static_cast<uint32_t>(key & ((uint64_t{1} << kReplicaBits) - 1)); }
  bool operator>(const Due& o) const { return time != o.time ? time > o.time : key > o.key; }
};

// A time-sliced GPU that holds replicas: its round robin, and the replica whose next step's end is
// in the due queue (kNone: none).
struct SlicedGpu {
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  explicit SlicedGpu(const TimeSlicingModel& m) : rr(m) {}
  SliceRoundRobin rr;
  uint32_t predicted = kNone;
  bool dirty = false;
};

// In 32 bits: a request's tokens fit them, and a step divides for each request it schedules (64-bit division is slow).
int64_t blocks_for(int32_t tokens, int32_t block_size) {
  return (static_cast<uint32_t>(tokens) + static_cast<uint32_t>(block_size) - 1) / static_cast<uint32_t>(block_size);
}

}  // namespace

struct Serving::Impl {
  const Scenario& scenario;
  bool keep_requests, keep_routes;
  std::vector<Service> services;
  std::vector<Replica> replicas;  // by job id
  std::vector<Req> reqs;
  std::vector<ReqBlocks> req_blocks;  // by request, kept only where a service caches
  std::vector<uint32_t> free_reqs;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due;
  uint64_t seq = 0;
  std::vector<JobId> busy_changes;
  std::vector<int32_t> hits;                       // the cached blocks a request finds (schedule's)
  std::vector<uint32_t> handed;                    // prefilled in the iteration that ends (end_iteration's)
  std::vector<uint32_t> to_start, starting;        // starting: to_start's contents while they start (both keep their buffers)
  std::set<NodeId> imaged;                         // nodes that hold the serving image
  std::vector<std::unique_ptr<SlicedGpu>> sliced;  // by GPU id; null: no replica time-shares it
  std::vector<GpuId> dirty;                        // sliced GPUs whose next step's end is to be worked out again
  Time chain_until;                                // while run_ahead runs, its bound: replicas plan decode steps up to it
  // Outside run_ahead: the chains' step ends before it were run_ahead's (the engine had nothing to do there) or
  // served by advance; those from it on are instants the engine is to see (next_time), as it saw every step.
  Time covered;
  Time clock;                         // the instant advance() last served
  std::vector<uint32_t> chained;      // replicas that may have a chain (Replica::chain_listed)
  std::size_t live_chains = 0;        // replicas that have one
  std::vector<int64_t> chain_blocks;  // by request of the batch, the step of its next block (plan_chain and catch_up)
  uint64_t in_system = 0;
  uint64_t readied = 0;             // replicas made ready (run_ahead's)
  Time held = Time::max();          // an instant run_ahead applied that changed what the engine sees
  Time next_arrival = Time::max();  // the earliest request not arrived yet (Time::max(): none)
  std::vector<RequestRow> rows;
  std::vector<RouteRow> routes;
  // Disaggregated serving: the KV transfers under way, as (end, transfer_seq, request); and the link's
  // bytes per second between two replicas (the serving module's topology).
  using Transfer = std::tuple<Time, uint64_t, uint32_t>;
  std::priority_queue<Transfer, std::vector<Transfer>, std::greater<>> transfers;
  std::function<double(JobId, JobId)> kv_link;

  Impl(const Scenario& s, ServingRecords keep) : scenario(s), keep_requests(keep.requests), keep_routes(keep.routes) {
    if (replica_jobs(s.services) >= (uint32_t{1} << kReplicaBits))
      throw InputError({s.file, std::nullopt, "workload.services"},
                       fmt::format("{} replicas in all; at most {} are modelled", replica_jobs(s.services),
                                   (uint32_t{1} << kReplicaBits) - 1));
    for (const ServiceSpec& spec : s.services) {
      Service& svc = services.emplace_back();
      svc.spec = &spec;
      svc.fig.name = spec.name;
      svc.fig.requests = spec.requests->describe();
      if (spec.role != PoolRole::decode) {  // a decode pool's requests come from its prefill pool
        svc.stream = spec.requests->open();
        svc.loop = spec.requests->clients();
        if (!svc.loop) svc.next = svc.stream->next();
        else
          for (int32_t u = 0; u < svc.loop->users; ++u) svc.sends.emplace(Time(), u);
      }
      // A decode pool takes whole KV caches: it finds no prefix of its own to reuse.
      svc.caching = spec.model->kind == ModelKind::llm && spec.role != PoolRole::decode && spec.requests->has_content() &&
                    spec.engine.enable_prefix_caching.value_or(true);
      svc.fig.prefix_caching = svc.caching;
      svc.router = RouterRegistry::global().make(spec.router);
      if (spec.model->kind == ModelKind::fixed) {
        // The scenario's reader made sure the catalog has it.
        const GpuModel& ref = *s.catalog->find_gpu(spec.model->reference_gpu);
        svc.reference_flops_per_s = ref.bf16_tflops * 1e12 * s.model.serving_efficiency(ref).e_flops;
      }
      for (int32_t i = 0; i < spec.max_replicas; ++i) {
        const uint32_t job = spec.first_job + static_cast<uint32_t>(i);
        svc.replicas.push_back(job);
        if (replicas.size() <= job) replicas.resize(job + 1);
        Replica& r = replicas[job];
        r.service = static_cast<uint32_t>(services.size() - 1);
        r.owner = spec.role == PoolRole::decode ? spec.peer : r.service;
        r.role = spec.role;
        r.chunked = spec.engine.enable_chunked_prefill;
        replicas[job].job = JobId{job};
      }
    }
    for (const Service& svc : services) next_arrival = std::min(next_arrival, next_of(svc));
  }

  // When the service's next request is due (Time::max(): none).
  static Time next_of(const Service& svc) {
    if (svc.next) return svc.next->arrival;
    return svc.sends.empty() ? Time::max() : svc.sends.top().first;
  }

  const ServedModel& model(const Replica& r) const { return *services[r.service].spec->model; }

  void set_share(Replica& r, const ReplicaShare& share) {
    r.share = share;
    if (model(r).kind == ModelKind::llm) r.iteration = IterationModel(model(r), share.hw);
  }

  void push_due(Replica& r, Time t, DueKind kind) {
    r.due_seq = ++seq;
    r.due_kind = kind;
    due.push(Due{t, (r.due_seq << kReplicaBits) | static_cast<uint32_t>(r.job)});
  }

  void set_busy(Replica& r) {
    r.busy = r.outstanding() > 0;
    if (r.busy == r.shown_busy || r.listed) return;
    r.listed = true;
    busy_changes.push_back(r.job);
  }

  void count_ready(Service& svc, Time now, int32_t delta) {
    svc.fig.ready_replica_s += svc.ready * (now - svc.ready_since).seconds();
    svc.ready_since = now;
    svc.ready += delta;
  }

  uint32_t new_request(const Service& svc, uint32_t service, const InferenceRequest& in) {
    uint32_t id;
    if (!free_reqs.empty()) {
      id = free_reqs.back();
      free_reqs.pop_back();
    } else {
      id = static_cast<uint32_t>(reqs.size());
      reqs.emplace_back();
    }
    Req& q = reqs[id];
    q = Req{};
    q.arrival = in.arrival;
    q.id = svc.next_id;
    // A model of kind fixed has no tokens: its source's counts are ignored.
    if (svc.spec->model->kind == ModelKind::llm) {
      q.prompt = in.prompt_tokens;
      q.output = in.output_tokens;
    }
    if (svc.caching) {
      if (req_blocks.size() <= id) req_blocks.resize(reqs.size());
      // An output shared with no later prompt gets a label of its own: its service and number.
      const uint64_t output = in.output_id ? in.output_id : mix64(mix64(~uint64_t{0}, service), svc.next_id);
      kv_block_hashes(in.content, {output, q.output}, scenario.model.serving.block_size, req_blocks[id].hashes);
    }
    q.service = service;
    return id;
  }

  void row(const Req& q, uint8_t status, Time now) {
    if (!keep_requests) return;
    RequestRow w;
    w.service = q.service;
    w.id = q.id;
    w.arrival = q.arrival;
    if (q.first_scheduled != Time::max()) w.queue_us = (q.first_scheduled - q.arrival).us();
    if (q.generated > 0) w.ttft_us = (q.first_token - q.arrival).us();
    if (status == 0) w.e2e_us = (now - q.arrival).us();
    w.prompt = q.prompt;
    w.output = q.output;
    w.generated = q.generated;
    w.replica = q.replica;
    w.preemptions = q.preemptions;
    w.cached_tokens = q.cached_tokens;
    w.prefill_replica = q.prefill_replica;
    w.kv_transfer_us = q.transfer_us;
    w.retries = q.retries;
    w.status = status;
    rows.push_back(w);
  }

  // The request has ended (completed, rejected, given up): a prefill replica still holding its KV cache lets it
  // go; its closed-loop client thinks, then sends its next one (at least 1 us after the last, so that a loop
  // whose requests all end at once moves on).
  void release(uint32_t id, Time now) {
    const Req& q = reqs[id];
    if (q.kv == Kv::remote) let_go(replicas[static_cast<uint32_t>(q.prefill_replica)], id);
    if (q.user >= 0) {
      Service& svc = services[q.service];
      const Time at = std::max(now + svc.loop->think, q.arrival + Duration::from_us(1));
      if (at < svc.loop->end) {  // else that client is done
        svc.sends.emplace(at, q.user);
        next_arrival = std::min(next_arrival, at);
      }
    }
    free_reqs.push_back(id);
    --in_system;
  }

  void reject(uint32_t id, Time now) {
    ++services[reqs[id].service].fig.rejected;
    row(reqs[id], 1, now);
    release(id, now);
  }

  // Has its client given up on it by `now`?
  bool expired(const Req& q, Time now) const {
    const std::optional<Duration>& t = services[q.service].spec->timeout;
    return t && now - q.arrival > *t;
  }

  void time_out(uint32_t id, Time now) {
    ++services[reqs[id].service].fig.timed_out;
    row(reqs[id], 3, now);
    release(id, now);
  }

  // What a router sees of a service's replicas while it routes request `q`.
  class Replicas final : public ReplicaSet {
   public:
    Replicas(Impl& m, const Service& svc, uint32_t q, Time now) : m_(m), svc_(svc), q_(q), now_(now) {}
    std::size_t size() const override { return svc_.replicas.size(); }
    bool ready(std::size_t i) const override { return at(i).state == ReplicaState::ready; }
    int32_t waiting(std::size_t i) const override { return static_cast<int32_t>(at(i).waiting.size()); }
    int32_t running(std::size_t i) const override { return static_cast<int32_t>(at(i).running.size()); }
    double kv_usage(std::size_t i) const override {
      const Replica& r = blocks_of(i);
      const int64_t free = r.pool ? r.pool->free_blocks() : r.free_blocks;
      return r.total_blocks > 0 ? static_cast<double>(r.total_blocks - free) / static_cast<double>(r.total_blocks) : 0.0;
    }
    int64_t cached_blocks(std::size_t i) const override {
      const Replica& r = blocks_of(i);
      return r.pool ? r.pool->cached_blocks() : 0;
    }
    int32_t cached_prefix_tokens(std::size_t i) const override {
      const Replica& r = blocks_of(i);
      if (!r.pool) return 0;
      return m_.cached_prefix(r, q_);
    }

   private:
    const Replica& at(std::size_t i) const { return m_.replicas[svc_.replicas[i]]; }
    // A replica whose blocks are read: its chain's steps so far are applied first (a route comes after the steps
    // that end at its instant, before those that start then). Its requests, waiting and running, are as they were.
    const Replica& blocks_of(std::size_t i) const {
      Replica& r = m_.replicas[svc_.replicas[i]];
      if (!r.chain.empty()) m_.catch_up(r, now_, Upto::between);
      return r;
    }
    Impl& m_;
    const Service& svc_;
    uint32_t q_;
    Time now_;
  };

  // Tokens of request `id`'s prompt the caching replica `r` holds now (its blocks in `hits`).
  int32_t cached_prefix(const Replica& r, uint32_t id) {
    r.pool->lookup(req_blocks[id].hashes, (reqs[id].tokens() - 1) / r.limits.block_size, hits);
    return static_cast<int32_t>(hits.size()) * r.limits.block_size;
  }

  // The pool a request is sent to: its service's, or once prefilled, its decode pool.
  uint32_t pool_of(const Req& q) const { return q.decoding ? services[q.service].spec->peer : q.service; }

  // To the ready replica its pool's router chooses, else (none ready) into the pool's queue.
  void route(uint32_t id, Time now) {
    if (expired(reqs[id], now)) {
      time_out(id, now);
      return;
    }
    Req& q = reqs[id];
    const uint32_t pool = pool_of(q);
    Service& svc = services[pool];
    if (svc.ready == 0) {
      svc.queue.push_back(id);
      return;
    }
    const Replicas view(*this, svc, id, now);
    const std::size_t slot = svc.router->route({q.id, q.arrival, q.prompt, q.output}, view);
    if (slot >= view.size() || !view.ready(slot))
      throw PolicyError(fmt::format("the router '{}' of service '{}' chose replica slot {} of {}, which is not ready",
                                    svc.spec->router.name, svc.spec->name, slot, view.size()));
    const uint32_t chosen = svc.replicas[slot];
    Replica& r = replicas[chosen];
    // Its chain's steps that start from now on would leave the request waiting: the next one it starts takes it.
    if (!r.chain.empty() && r.chain[r.chain.size() - 2] >= now) catch_up(r, now, Upto::between);
    q.replica = static_cast<int32_t>(chosen);
    if (keep_routes) routes.push_back({now, pool, q.id, chosen, r.pool ? view.cached_prefix_tokens(slot) : -1});
    if (q.prompt + q.output > r.max_len) {
      reject(id, now);
      return;
    }
    r.waiting.push_back(id);
    set_busy(r);
    if (!r.in_flight) to_start.push_back(chosen);
  }

  // The request lets its KV blocks on `r` go (with prefix caching, they stay cached until handed out again):
  // `count` of them, its blocks or those its prefill replica holds for it.
  void release_blocks(Replica& r, uint32_t id, int32_t& count) {
    if (r.pool) {
      ReqBlocks& b = req_blocks[id];
      r.pool->free(b.ids);
      b.ids.clear();
      b.hashed = 0;
    } else {
      r.free_blocks += count;
    }
    count = 0;
  }
  void release_blocks(Replica& r, uint32_t id) { release_blocks(r, id, reqs[id].blocks); }

  void preempt(Replica& r, uint32_t id) {
    Req& q = reqs[id];
    release_blocks(r, id);
    q.computed = 0;  // recomputed from scratch: prompt and the tokens generated so far
    ++q.preemptions;
    ++services[r.service].fig.preemptions;
    r.waiting.push_front(id);
  }

  // Allocates the blocks `id` needs to hold `tokens` tokens; false when the cache is short.
  bool allocate(Replica& r, uint32_t id, int32_t tokens) {
    Req& q = reqs[id];
    // Most calls are a running request's next token into the last block it holds, a block it does not
    // fill: nothing to take or cache. Told by multiplying: the general path divides twice a request a step.
    const int64_t room = int64_t{q.blocks} * r.limits.block_size;
    if (tokens <= room && tokens > room - r.limits.block_size &&
        (!r.pool || !fills_uncached_block(req_blocks[id], tokens, r.limits.block_size)))
      return true;
    if (r.pool) return allocate_cached(r, id, tokens, {});
    const int64_t want = blocks_for(tokens, r.limits.block_size) - q.blocks;
    if (want > r.free_blocks) return false;
    r.free_blocks -= want;
    q.blocks += static_cast<int32_t>(want);
    return true;
  }

  // Whether a caching request's first `tokens` tokens fill a block it has not cached yet (then allocate_cached caches it).
  static bool fills_uncached_block(const ReqBlocks& b, int32_t tokens, int32_t block_size) {
    return b.hashed < static_cast<int32_t>(b.hashes.size()) && int64_t{b.hashed + 1} * block_size <= tokens;
  }

  // The same with prefix caching: `found` are cached blocks it takes first (they count against the free
  // blocks while unused), and the blocks that `tokens` fill are cached (vLLM's allocate_slots).
  bool allocate_cached(Replica& r, uint32_t id, int32_t tokens, std::span<const int32_t> found) {
    Req& q = reqs[id];
    ReqBlocks& b = req_blocks[id];
    const int64_t want = blocks_for(tokens, r.limits.block_size) - q.blocks - static_cast<int64_t>(found.size());
    if (found.empty()) {  // most calls: a running request's next step
      if (want > r.pool->free_blocks()) return false;
    } else {
      if (want > r.pool->free_blocks() - r.pool->evictable(found)) return false;
      r.pool->touch(found);
      b.ids.insert(b.ids.end(), found.begin(), found.end());
      b.hashed += static_cast<int32_t>(found.size());
    }
    if (want > 0) r.pool->allocate(static_cast<int32_t>(want), b.ids);
    q.blocks = static_cast<int32_t>(b.ids.size());
    if (fills_uncached_block(b, tokens, r.limits.block_size)) {
      const auto full = std::min<int64_t>(tokens / r.limits.block_size, static_cast<int64_t>(b.hashes.size()));
      r.pool->cache(std::span(b.ids).first(static_cast<std::size_t>(full)), b.hashes, static_cast<std::size_t>(b.hashed));
      b.hashed = static_cast<int32_t>(full);
    }
    return true;
  }

  // One step of vLLM V1's scheduler (Scheduler.schedule): running requests first, in admission order,
  // each taking what it still needs of the token budget (one token when decoding, the rest of its
  // prompt or a chunk of it when prefilling), preempting the newest running request while the cache
  // is short; then, if nothing was preempted, waiting requests in order while budget and seats last.
  // Without chunked prefill, vLLM V0's (Scheduler._schedule_default): waiting prompts first, whole; the
  // running requests' decodes only in a step that starts none.
  bool schedule(Replica& r, Time now) {
    if (model(r).kind == ModelKind::fixed) return take_batch(r, now);
    int64_t budget = r.limits.max_num_batched_tokens;
    r.batch.clear();
    const bool chunked = r.chunked;
    if (!chunked) admit(r, now, budget, false);
    const bool prefilling = !r.batch.empty();  // V0: a step of prompts only
    bool preempted = false;
    for (std::size_t i = 0; !prefilling && i < r.running.size() && budget > 0;) {
      const uint32_t id = r.running[i];
      Req& q = reqs[id];
      const int32_t n = static_cast<int32_t>(std::min<int64_t>(q.tokens() - q.computed, budget));
      bool self = false;
      while (!allocate(r, id, q.computed + n)) {
        const uint32_t victim = r.running.back();
        r.running.pop_back();
        preempt(r, victim);
        preempted = true;
        if (victim == id) {
          self = true;
          break;
        }
      }
      if (self) break;
      r.batch.emplace_back(id, n);
      budget -= n;
      ++i;
    }
    if (chunked && !preempted) admit(r, now, budget, true);
    r.shape = BatchShape{};
    for (const auto& [id, n] : r.batch) {
      const Req& q = reqs[id];
      r.shape.tokens += n;
      r.shape.attention += static_cast<double>(n) * (q.computed + n / 2.0);
      r.shape.kv_tokens += q.computed + n;
    }
    return !r.batch.empty();
  }

  // Waiting requests join the batch in order while budget and seats last: a chunk of a prompt (whole
  // prompts only, without `chunked` prefill), or, for a request whose KV cache another replica holds,
  // the blocks to take it into (its transfer needs no budget and no seat).
  // (Inlined: called out of line, it cost the serving runs 2 % more instructions.)
  [[gnu::always_inline]] void admit(Replica& r, Time now, int64_t& budget, bool chunked) {
    while (!r.waiting.empty() && budget > 0 && static_cast<int64_t>(r.running.size()) < r.limits.max_num_seqs) {
      const uint32_t id = r.waiting.front();
      Req& q = reqs[id];
      if (expired(q, now)) {  // its client is gone (a preempted one holds no blocks here)
        r.waiting.pop_front();
        time_out(id, now);
        continue;
      }
      if (q.kv == Kv::remote) {
        if (!allocate(r, id, q.computed)) break;
        r.waiting.pop_front();
        start_transfer(r, id, now);
        continue;
      }
      // Its longest cached prefix is not computed again (vLLM's get_computed_blocks); a preempted request
      // may find its own blocks.
      const int32_t cached = r.pool ? cached_prefix(r, id) : 0;
      const int32_t need = q.tokens() - cached;
      if (!chunked && need > budget) break;
      const int32_t n = static_cast<int32_t>(std::min<int64_t>(need, budget));
      if (!(r.pool ? allocate_cached(r, id, cached + n, hits) : allocate(r, id, cached + n))) break;
      if (r.pool) {
        q.computed = cached;
        ServiceFigures& fig = services[r.service].fig;
        fig.prefix_queried_tokens += static_cast<uint64_t>(q.tokens());
        fig.prefix_hit_tokens += static_cast<uint64_t>(cached);
        if (q.cached_tokens < 0) q.cached_tokens = cached;
      }
      r.waiting.pop_front();
      r.running.push_back(id);
      if (q.first_scheduled == Time::max()) q.first_scheduled = now;
      r.batch.emplace_back(id, n);
      budget -= n;
    }
  }

  // Triton's dynamic batcher with no queue delay, for a model of kind fixed: when the replica is free,
  // the oldest waiting requests, at most max_batch of them.
  bool take_batch(Replica& r, Time now) {
    r.batch.clear();
    const std::size_t n = std::min<std::size_t>(r.waiting.size(), static_cast<std::size_t>(model(r).max_batch));
    for (std::size_t i = 0; i < n; ++i) {
      const uint32_t id = r.waiting.front();
      r.waiting.pop_front();
      r.running.push_back(id);
      reqs[id].first_scheduled = now;
      r.batch.emplace_back(id, 0);
    }
    return n > 0;
  }

  // The GPU time its iteration needs at the replica's speed, `share` of it still to do.
  Duration iteration_work(const Replica& r, double share) const { return iteration_work(r, r.shape, share); }
  // The same for an iteration of `shape` (a model of kind llm; of kind fixed, its batch).
  Duration iteration_work(const Replica& r, const BatchShape& shape, double share) const {
    const ServedModel& m = model(r);
    const double s = (m.kind == ModelKind::fixed ? fixed_batch_time_s(m, r.share.hw, services[r.service].reference_flops_per_s,
                                                                      static_cast<int32_t>(r.batch.size()))
                                                 : r.iteration.time_s(shape)) *
                     share;
    return std::max(Duration::from_us(1), Duration::from_seconds(s, Round::nearest));
  }

  SlicedGpu& sliced_gpu(const Replica& r) {
    const auto g = static_cast<std::size_t>(r.share.ts_gpu);
    if (sliced.size() <= g) sliced.resize(g + 1);
    if (!sliced[g]) sliced[g] = std::make_unique<SlicedGpu>(scenario.model.time_slicing.of(*r.device.gpu));
    SlicedGpu& s = *sliced[g];
    if (!s.dirty) dirty.push_back(r.share.ts_gpu);
    s.dirty = true;  // whatever the caller changes
    return s;
  }

  // The next step to end on each GPU whose round robin changed: its due entry replaces the one before.
  void predict() {
    if (!dirty.empty()) predict_dirty();  // most steps change no time-sliced GPU: no call
  }
  void predict_dirty() {
    for (GpuId g : dirty) {
      SlicedGpu& s = *sliced[static_cast<std::size_t>(g)];
      s.dirty = false;
      const std::optional<SliceRoundRobin::Done> next = s.rr.next_done();
      if (s.predicted != SlicedGpu::kNone && (!next || next->key != s.predicted)) replicas[s.predicted].due_seq = 0;  // stale
      s.predicted = SlicedGpu::kNone;
      if (!next) continue;
      Replica& r = replicas[next->key];
      s.predicted = next->key;
      if (r.due_seq != 0 && r.iter_end == next->at) continue;  // as it was
      r.iter_end = next->at;
      push_due(r, next->at, DueKind::iteration_end);
    }
    dirty.clear();
  }

  void start_iteration(Replica& r, Time now) {
    if (r.in_flight || (r.state != ReplicaState::ready && r.state != ReplicaState::draining) || !schedule(r, now)) return;
    r.in_flight = true;
    ++services[r.service].fig.iterations;
    if (const auto level = static_cast<uint8_t>(std::bit_width(r.batch.size())); level != r.level) {
      r.level = level;
      if (r.shown_busy && level != r.shown_level && !r.listed) {  // the engine redraws its GPU
        r.listed = true;
        busy_changes.push_back(r.job);
      }
    }
    const Duration work = iteration_work(r, 1.0);
    if (r.share.ts_gpu != kNoGpu) {  // it ends when its turns on the GPU have done the work (predict)
      sliced_gpu(r).rr.submit(static_cast<uint32_t>(r.job), now, work);
      return;
    }
    r.seg_start = now;
    r.left = 1;
    r.iter_end = now + work;
    if (now < chain_until) plan_chain(r);
    push_due(r, r.chain.empty() ? r.iter_end : r.chain.back(), DueKind::iteration_end);
  }

  // Plans the steps after the one just scheduled while they are that batch decoding (the chain's rules at
  // Replica::chain), at most up to run_ahead's bound and the next arrival: those steps depend on nothing else, and
  // whatever reads the replica's blocks or changes it has them applied first (catch_up).
  void plan_chain(Replica& r) {
    const Time bound = std::min(chain_until, next_arrival), horizon = scenario.horizon.value_or(Time::max());
    if (r.iter_end >= bound || r.role != PoolRole::colocated || r.state != ReplicaState::ready || !r.waiting.empty() ||
        r.batch.size() != r.running.size() || model(r).kind != ModelKind::llm || services[r.service].spec->timeout)
      return;
    const int32_t block_size = r.limits.block_size;
    int32_t steps = kMaxChain;  // after step 0: its last is the first whose end completes a request
    chain_blocks.clear();
    for (const auto& [id, n] : r.batch) {
      const Req& q = reqs[id];
      if (n != 1 || q.computed + 1 != q.tokens()) return;  // not decoding
      steps = std::min(steps, q.output - q.generated - 1);
      // Step k schedules computed + k + 1 tokens: it takes a block at the first k past the blocks it holds.
      chain_blocks.push_back(int64_t{q.blocks} * block_size - q.computed);
    }
    if (steps <= 0) return;
    const int64_t free = r.pool ? r.pool->free_blocks() : r.free_blocks;
    const auto b = static_cast<int64_t>(r.batch.size());
    BatchShape shape = r.shape;  // each step's: every request's computed one more than the step before's
    int64_t taken = 0;
    r.chain.push_back(r.iter_end);
    for (int32_t k = 1; k <= steps && r.chain.back() < bound; ++k) {
      for (int64_t& at : chain_blocks)
        if (at == k) {
          ++taken;
          at += block_size;
        }
      if (taken > free) break;  // it would preempt
      shape.attention += static_cast<double>(b);
      shape.kv_tokens += b;
      const Time end = r.chain.back() + iteration_work(r, shape, 1.0);
      if (end >= horizon) break;  // the run ends first: a chain is over by then
      r.chain.push_back(end);
    }
    if (r.chain.size() == 1) {
      r.chain.clear();
      return;
    }
    if (!r.chain_listed) chained.push_back(static_cast<uint32_t>(r.job));
    r.chain_listed = true;
    ++live_chains;
  }

  // Where a chain catches up with an instant: what the replica had then, for the caller.
  enum class Upto : uint8_t {
    before,   // before the steps that end then (an engine hook at an instant advance has not served)
    between,  // after the steps that end then, before those that start then (advance's routes; start_due starts those)
    after,    // after both (an engine hook at an instant advance has served)
  };

  // Applies the steps of r's chain up to `to` (each ended as end_iteration ends a step that completes nothing,
  // and the next scheduled as schedule() would), then drops the chain: the step under way keeps its due entry if
  // it is the chain's last, else gets one. Upto::between leaves a step that starts at `to` to start_due.
  void catch_up(Replica& r, Time to, Upto upto) {
    const std::size_t last = r.chain.size() - 1;
    std::size_t ended = 0;
    while (ended < last && (r.chain[ended] < to || (r.chain[ended] == to && upto != Upto::before))) ++ended;
    const bool follow = !(upto == Upto::between && ended > 0 && r.chain[ended - 1] == to);
    if (ended > 0) {
      // Steps 1 ... scheduled take and cache blocks in the order schedule() does, step by step, request by request;
      // allocate() does nothing between a request's block steps.
      const auto scheduled = static_cast<int32_t>(follow ? ended : ended - 1);
      chain_blocks.clear();
      int64_t j = scheduled + 1;
      for (const auto& [id, n] : r.batch) j = std::min(j, chain_blocks.emplace_back(block_step(r, id, 1)));
      while (j <= scheduled) {
        int64_t next = scheduled + 1;
        for (std::size_t i = 0; i < r.batch.size(); ++i) {
          int64_t& at = chain_blocks[i];
          if (at == j) {
            const uint32_t id = r.batch[i].first;
            [[maybe_unused]] const bool room = allocate(r, id, reqs[id].computed + static_cast<int32_t>(j) + 1);
            assert(room);  // plan_chain counted the blocks
            at = block_step(r, id, static_cast<int32_t>(j) + 1);
          }
          next = std::min(next, at);
        }
        j = next;
      }
      services[r.service].fig.iterations += static_cast<uint64_t>(scheduled);
      // Tokens: each request's at step 0's end (its first, or a gap since its last), then one a step, every
      // request's gap the step's length.
      GapRuns gaps{services[r.owner].fig.itl};
      uint64_t longest_us = 0;
      for (std::size_t k = 1; k < ended; ++k) {
        const int64_t gap = (r.chain[k] - r.chain[k - 1]).us();
        gaps.add(gap, r.batch.size());
        longest_us = std::max(longest_us, static_cast<uint64_t>(gap));
      }
      const auto more = static_cast<int32_t>(ended - 1);
      for (const auto& [id, n] : r.batch) {
        Req& q = reqs[id];
        q.computed += more + 1;
        ++q.generated;
        token(q, r.chain[0], gaps);
        if (more == 0) continue;
        q.generated += more;
        q.max_gap_us = std::max(q.max_gap_us, static_cast<int64_t>(longest_us));
        q.last_token = r.chain[ended - 1];
      }
      gaps.flush();
    }
    if (!follow) {
      r.batch.clear();
      r.in_flight = false;
      r.due_seq = 0;  // the chain's due entry goes stale
      drop_chain(r);
      to_start.push_back(static_cast<uint32_t>(r.job));
      return;
    }
    if (ended > 0) {
      const auto b = static_cast<int64_t>(r.batch.size()) * static_cast<int64_t>(ended);
      r.shape.attention += static_cast<double>(b);
      r.shape.kv_tokens += b;
      r.seg_start = r.chain[ended - 1];
      r.iter_end = r.chain[ended];
    }
    if (ended < last) push_due(r, r.iter_end, DueKind::iteration_end);
    drop_chain(r);
  }

  void drop_chain(Replica& r) {
    r.chain.clear();
    --live_chains;
  }

  // The first step of r's chain from `from` on at which allocate() takes or caches a block for request `id` (its
  // fast path, which does nothing, serves the steps before): step j asks for computed + j + 1 tokens, computed being
  // its count at step 0, while the chain is caught up.
  int32_t block_step(const Replica& r, uint32_t id, int32_t from) const {
    const int32_t block_size = r.limits.block_size, computed = reqs[id].computed;
    const int32_t room = reqs[id].blocks * block_size;
    if (computed + from + 1 <= room - block_size) return from;  // it holds more blocks than its tokens fill
    int32_t at = room - computed;                               // its tokens outgrow its blocks
    if (r.pool) {
      const ReqBlocks& b = req_blocks[id];
      if (b.hashed < static_cast<int32_t>(b.hashes.size()))  // they fill its next block not cached yet
        at = std::min(at, (b.hashed + 1) * block_size - computed - 1);
    }
    return std::max(at, from);
  }

  // An engine hook at `now` is about to change replica r, or with catch_up_all every replica: their chains catch up
  // with it, before or after advance(now), as the engine calls the hook.
  void catch_up(Replica& r, Time now) {
    if (!r.chain.empty()) catch_up(r, now, clock == now ? Upto::after : Upto::before);
  }
  void catch_up_all(Time now) {
    for (uint32_t job : chained) {
      replicas[job].chain_listed = false;
      catch_up(replicas[job], now);
    }
    chained.clear();
  }

  // The earliest step end of a chain that the engine is to see (Time::max(): none).
  Time chain_instant() const {
    Time t = Time::max();
    for (uint32_t job : chained) {
      const auto& c = replicas[job].chain;
      for (std::size_t k = 0; k + 1 < c.size(); ++k)
        if (c[k] >= covered) {
          t = std::min(t, c[k]);
          break;
        }
    }
    return t;
  }

  // Gaps between tokens for a latency histogram, in runs of equal gaps: a run is added when the gap changes, and the
  // last by flush(). (Requests that also made a token last step share one gap; the sum stays exact, as it holds whole
  // microseconds far below 2^53.)
  struct GapRuns {
    LatencyHistogram& itl;
    int64_t gap_us = 0;
    uint64_t count = 0;
    [[gnu::always_inline]] void add(int64_t gap, uint64_t n) {  // (it and token() inline: out of line, +1 % instructions)
      if (gap != gap_us) {
        itl.add(gap_us, count);
        gap_us = gap;
        count = 0;
      }
      count += n;
    }
    void flush() { itl.add(gap_us, count); }
  };

  // A request's token (q.generated counts it) went out at `now`: its gap since the last goes to `gaps`.
  [[gnu::always_inline]] static void token(Req& q, Time now, GapRuns& gaps) {
    if (q.generated == 1) {
      q.first_token = now;
    } else {
      const int64_t gap = (now - q.last_token).us();
      gaps.add(gap, 1);
      q.max_gap_us = std::max(q.max_gap_us, gap);
    }
    q.last_token = now;
  }

  void end_iteration(Replica& r, Time now) {
    if (r.share.ts_gpu != kNoGpu) {
      SlicedGpu& g = sliced_gpu(r);
      g.rr.take_done(static_cast<uint32_t>(r.job), now);
      g.predicted = SlicedGpu::kNone;
    }
    Service& svc = services[r.service];
    ServiceFigures& fig = services[r.owner].fig;
    bool finished_any = false;
    const bool fixed = model(r).kind == ModelKind::fixed;
    const bool prefills = r.role == PoolRole::prefill;
    GapRuns gaps{fig.itl};
    for (const auto& [id, n] : r.batch) {
      if (fixed) {  // a batch serves its requests whole
        finished_any = true;
        complete(r, id, now);
        continue;
      }
      Req& q = reqs[id];
      q.computed += n;
      if (q.computed < q.tokens()) continue;  // a prefill chunk: no token yet
      ++q.generated;
      if (prefills && q.output > 1) {  // its first token is made: its decode pool takes it on
        handed.push_back(id);
        q.held_blocks = q.blocks;  // they stay taken until its decode replica has the cache
        q.blocks = -1;             // marks it for removal from running
        finished_any = true;
        continue;
      }
      token(q, now, gaps);
      if (q.generated == q.output) {
        finished_any = true;
        complete(r, id, now);
      }
    }
    gaps.flush();
    // Requests whose clients gave up are aborted once their iteration is over.
    if (svc.spec->timeout)
      for (uint32_t id : r.running) {
        Req& q = reqs[id];
        if (q.blocks < 0 || !expired(q, now)) continue;
        release_blocks(r, id);
        q.blocks = -1;  // marks it for removal from running
        finished_any = true;
        time_out(id, now);
      }
    if (finished_any)
      r.running.erase(std::remove_if(r.running.begin(), r.running.end(), [&](uint32_t id) { return reqs[id].blocks < 0; }),
                      r.running.end());
    if (prefills) {
      for (uint32_t id : handed) hand_off(r, id, now);
      handed.clear();
    }
    r.batch.clear();
    r.in_flight = false;
    set_busy(r);
    to_start.push_back(static_cast<uint32_t>(r.job));
  }

  // Disaggregated serving (docs/serving.md#disaggregated-serving). Prefilled on `r`, the request goes to its
  // decode pool; `r` holds its KV cache until the decode replica has it.
  void hand_off(Replica& r, uint32_t id, Time now) {
    Req& q = reqs[id];
    q.blocks = 0;
    q.decoding = true;
    q.kv = Kv::remote;
    q.prefill_replica = static_cast<int32_t>(r.job);
    r.sending.push_back(id);
    Service& decode = services[services[r.service].spec->peer];
    ++decode.prefilled;
    route(id, now);
  }

  // Its decode replica `r` has taken the blocks for its KV cache: the transfer starts, over the link between
  // the two replicas, at that link's bandwidth (a transfer has the link to itself).
  void start_transfer(Replica& r, uint32_t id, Time now) {
    Req& q = reqs[id];
    const double bytes = static_cast<double>(q.computed) * model(r).kv_bytes_per_token();
    const double s = bytes / kv_link(JobId{static_cast<uint32_t>(q.prefill_replica)}, r.job);
    const Duration took = Duration::from_seconds(std::min(s, kMaxSpan.seconds()), Round::up);  // a link of a few bytes/s
    q.kv = Kv::moving;
    q.transfer_seq = ++seq;
    q.transfer_us = took.us();
    r.receiving.push_back(id);
    transfers.emplace(now + took, q.transfer_seq, id);
    ServiceFigures& fig = services[q.service].fig;
    fig.kv_transfer.add(took.us());
    fig.kv_transfer_bytes += bytes;
  }

  // Its KV cache has reached its decode replica: the prefill replica lets its blocks go, and the request's
  // first token goes out (TTFT counts the transfer, as the client sees it from the decode replica).
  void land(uint32_t id, Time now) {
    Req& q = reqs[id];
    Replica& from = replicas[static_cast<uint32_t>(q.prefill_replica)];
    Replica& to = replicas[static_cast<uint32_t>(q.replica)];
    let_go(from, id);
    std::erase(to.receiving, id);
    q.kv = Kv::local;
    q.first_token = q.last_token = now;
    to.running.push_back(id);
    set_busy(to);
    if (!to.in_flight) to_start.push_back(static_cast<uint32_t>(to.job));
  }

  // Request `id`, whose KV cache its prefill replica held, leaves its decode pool (that replica stopped):
  // from the queue it waited in, or the decode replica taking the cache in (which frees the blocks for it).
  void leave_decode_pool(uint32_t id) {
    Req& q = reqs[id];
    Service& decode = services[pool_of(q)];
    if (std::erase(decode.queue, id) > 0) return;
    Replica& to = replicas[static_cast<uint32_t>(q.replica)];
    if (q.kv == Kv::moving) {
      std::erase(to.receiving, id);
      to.free_blocks += q.blocks;  // a decode pool caches no prefixes
      q.blocks = 0;
      q.transfer_seq = 0;
    } else {
      to.waiting.erase(std::find(to.waiting.begin(), to.waiting.end(), id));
    }
    set_busy(to);
    if (!to.in_flight) to_start.push_back(static_cast<uint32_t>(to.job));
  }

  // The prefill replica `r` no longer holds request `id`'s KV cache.
  void let_go(Replica& r, uint32_t id) {
    Req& q = reqs[id];
    std::erase(r.sending, id);
    release_blocks(r, id, q.held_blocks);
    if (!r.in_flight) to_start.push_back(static_cast<uint32_t>(r.job));  // room for its waiting requests
  }

  void complete(Replica& r, uint32_t id, Time now) {
    Req& q = reqs[id];
    ServiceFigures& fig = services[q.service].fig;
    release_blocks(r, id);
    q.blocks = -1;  // marks it for removal from running
    const int64_t ttft = (q.first_token - q.arrival).us();
    const int64_t e2e = (now - q.arrival).us();
    const int64_t queue = (q.first_scheduled - q.arrival).us();
    const int64_t tpot = q.output > 1 ? (e2e - ttft) / (q.output - 1) : -1;
    ++fig.completed;
    fig.last_completion = now;
    fig.prompt_tokens += static_cast<uint64_t>(q.prompt);
    fig.output_tokens += static_cast<uint64_t>(q.output);
    if (q.generated > 0) fig.ttft.add(ttft);  // a model of kind fixed makes no token
    fig.e2e.add(e2e);
    fig.queue.add(queue);
    if (tpot >= 0) fig.tpot.add(tpot);
    bool good = true;
    for (const SloTarget& t : services[q.service].spec->slo) {
      if (t.percentile != 0) continue;
      const int64_t limit = t.limit.us();
      switch (t.metric) {
        case LatencyMetric::ttft: good = good && ttft <= limit; break;
        case LatencyMetric::tpot: good = good && tpot <= limit; break;
        case LatencyMetric::itl: good = good && q.max_gap_us <= limit; break;
        case LatencyMetric::e2e: good = good && e2e <= limit; break;
        case LatencyMetric::queue: good = good && queue <= limit; break;
      }
    }
    if (good) ++fig.good;
    row(q, 0, now);
    release(id, now);
  }

  void become_ready(Replica& r, Time now) {
    Service& svc = services[r.service];
    r.state = ReplicaState::ready;
    ++readied;
    svc.fig.cold_start_s += (now - r.placed_at).seconds();
    count_ready(svc, now, +1);
    std::deque<uint32_t> queued;
    queued.swap(svc.queue);
    for (uint32_t id : queued) route(id, now);
  }

  // The requests due by `now`, in service order; most steps have none.
  void arrive(Time now) {
    if (now < next_arrival) return;
    next_arrival = Time::max();
    for (uint32_t s = 0; s < services.size(); ++s) {
      Service& svc = services[s];
      while (svc.next && svc.next->arrival <= now) {
        const uint32_t id = new_request(svc, s, *svc.next);
        ++svc.next_id;
        ++svc.fig.arrived;
        ++in_system;
        route(id, now);
        svc.next = svc.stream->next();
      }
      while (!svc.sends.empty() && svc.sends.top().first <= now) {  // a closed loop's clients
        const auto [at, user] = svc.sends.top();
        svc.sends.pop();
        std::optional<InferenceRequest> in = svc.stream->next();
        if (!in) {  // the loop's requests are over
          svc.sends = {};
          break;
        }
        in->arrival = at;
        const uint32_t id = new_request(svc, s, *in);
        reqs[id].user = user;
        ++svc.next_id;
        ++svc.fig.arrived;
        ++in_system;
        route(id, now);
      }
      next_arrival = std::min(next_arrival, next_of(svc));
    }
  }

  void start_due(Time now) {
    starting.clear();
    starting.swap(to_start);
    if (starting.size() > 1) {  // most steps start the one replica whose step ended
      std::sort(starting.begin(), starting.end());
      starting.erase(std::unique(starting.begin(), starting.end()), starting.end());
    }
    for (uint32_t job : starting) start_iteration(replicas[job], now);
  }

  // The KV transfers that end by `now` (disaggregated serving; out of line: most runs have none).
  [[gnu::noinline]] void land_due(Time now) {
    for (drop_stale_transfers(); !transfers.empty() && std::get<0>(transfers.top()) <= now; drop_stale_transfers()) {
      const uint32_t id = std::get<2>(transfers.top());
      transfers.pop();
      land(id, now);
    }
  }

  void drop_stale_transfers() {
    while (!transfers.empty()) {
      const auto& [at, seq_of, id] = transfers.top();
      if (reqs[id].kv == Kv::moving && reqs[id].transfer_seq == seq_of) return;
      transfers.pop();
    }
  }

  // The earliest instant something is due (Time::max(): none). (A Time, not an optional: the optional's
  // two parts written and read back as one cost run_ahead a stall an instant.)
  Time next_due() {
    if (held != Time::max()) return held;
    predict();
    drop_stale();
    Time t = next_arrival;
    if (!due.empty()) t = std::min(t, due.top().time);
    if (!transfers.empty()) {
      drop_stale_transfers();
      if (!transfers.empty()) t = std::min(t, std::get<0>(transfers.top()));
    }
    return t;
  }

  bool finished() const { return in_system == 0 && next_arrival == Time::max(); }

  void drop_stale() {
    while (!due.empty()) {
      const Due& d = due.top();
      const Replica& r = replicas[d.replica()];
      if (d.seq() == r.due_seq && r.state != ReplicaState::absent) return;
      due.pop();
    }
  }
};

Serving::Serving(const Scenario& s, ServingRecords keep)
    : impl_(std::make_unique<Impl>(s, keep)), replica_jobs_(replica_jobs(s.services)) {}

Serving::~Serving() = default;

bool Serving::busy(JobId id) const { return impl_->replicas[id].shown_busy; }

std::optional<Time> Serving::next_time() {
  Impl& m = *impl_;
  Time t = m.next_due();
  if (m.live_chains > 0) t = std::min(t, m.chain_instant());
  return t == Time::max() ? std::nullopt : std::optional<Time>(t);
}

void Serving::advance(Time now) {
  Impl& m = *impl_;
  m.clock = now;
  m.covered = std::max(m.covered, now + Duration::from_us(1));  // the chains' steps up to now are seen
  m.held = Time::max();
  m.predict();
  for (m.drop_stale(); !m.due.empty() && m.due.top().time <= now; m.drop_stale()) {
    const Due d = m.due.top();
    m.due.pop();
    Replica& r = m.replicas[d.replica()];
    r.due_seq = 0;
    if (r.due_kind == DueKind::ready) {
      m.become_ready(r, now);
    } else {
      if (!r.chain.empty()) m.catch_up(r, now, Impl::Upto::before);  // to its last step, which ends now
      m.end_iteration(r, now);
    }
  }
  if (!m.transfers.empty()) m.land_due(now);
  m.arrive(now);
  m.start_due(now);
}

Module::Ahead Serving::run_ahead(Time until) {
  Impl& m = *impl_;
  Module::Ahead done;
  if (!m.sliced.empty() || m.held != Time::max()) return done;
  m.chain_until = until;
  bool reached = false;  // everything before `until` applied
  while (m.busy_changes.empty() && m.to_start.empty() && !m.finished()) {
    const Time t = m.next_due();
    if (t >= until) {
      reached = true;
      break;
    }
    const uint64_t readied = m.readied;
    advance(t);
    ++done.instants;
    done.last = t;
    if (!m.busy_changes.empty() || m.readied != readied || m.finished()) {
      m.held = t;
      break;
    }
  }
  // The chains' steps are run_ahead's up to where it stopped; the engine sees those after (next_time).
  m.chain_until = Time();
  if (reached) m.covered = std::max(m.covered, until);
  else if (done.instants > 0) m.covered = std::max(m.covered, done.last + Duration::from_us(1));
  return done;
}

void Serving::placed(JobId id, Time now, const ReplicaDevice& device, const ReplicaShare& share) {
  Impl& m = *impl_;
  Replica& r = m.replicas[id];
  Service& svc = m.services[r.service];
  const ServiceSpec& spec = *svc.spec;
  const ServedModel& model = *spec.model;
  r.state = ReplicaState::loading;
  r.device = device;
  m.set_share(r, share);
  if (share.ts_gpu != kNoGpu) m.sliced_gpu(r).rr.set_always(share.ts_fluid, now);
  r.placed_at = now;
  r.limits = engine_limits(m.scenario, spec, *device.gpu, device.visible_memory_mib);
  // A model of kind fixed keeps no KV cache, and its requests have no tokens.
  const int64_t kv_blocks = model.kind == ModelKind::fixed
                                ? 0
                                : kv_capacity(model, device.visible_memory_mib, spec.tensor_parallel, r.limits,
                                              m.scenario.model.time_slicing.of(*device.gpu).context_memory_mib)
                                      .blocks;
  r.total_blocks = r.free_blocks = std::max<int64_t>(0, kv_blocks);
  // A new replica's cache is empty.
  r.pool = svc.caching ? std::make_unique<KvBlockPool>(static_cast<int32_t>(r.total_blocks)) : nullptr;
  // vLLM will not start with a max_model_len its cache cannot hold: the longest request is what both allow.
  r.max_len = static_cast<int32_t>(std::min<int64_t>(model.max_model_len, r.total_blocks * r.limits.block_size));
  ++svc.fig.replica_starts;
  const int32_t blocks = static_cast<int32_t>(r.total_blocks);
  svc.fig.kv_blocks_min = svc.fig.replica_starts == 1 ? blocks : std::min(svc.fig.kv_blocks_min, blocks);
  svc.fig.kv_blocks_max = std::max(svc.fig.kv_blocks_max, blocks);
  const ColdStart& c = spec.cold_start;
  double s = c.engine_init.seconds();
  if (c.load_gb_per_s > 0) s += model.weights_bytes() / 1e9 / c.load_gb_per_s;
  if (c.image_gb > 0 && m.imaged.insert(device.node).second) s += c.image_gb / c.registry_gb_per_s;
  if (s <= 0) {
    m.become_ready(r, now);
    return;
  }
  m.push_due(r, now + Duration::from_seconds(s, Round::up), DueKind::ready);
}

void Serving::share_changed(JobId id, Time now, const ReplicaShare& share) {
  Impl& m = *impl_;
  Replica& r = m.replicas[id];
  if (r.state == ReplicaState::absent || share == r.share) return;
  m.catch_up(r, now);  // its steps so far at the speed they had
  m.set_share(r, share);
  if (share.ts_gpu != kNoGpu) {  // the whole GPU still, in turns with other jobs now
    m.sliced_gpu(r).rr.set_always(share.ts_fluid, now);
    return;
  }
  if (!r.in_flight) return;
  // The part still to do, at the new speed.
  const double span = static_cast<double>((r.iter_end - r.seg_start).us());
  if (span > 0) r.left *= static_cast<double>((r.iter_end - now).us()) / span;
  r.seg_start = now;
  r.iter_end = now + m.iteration_work(r, r.left);
  m.push_due(r, r.iter_end, DueKind::iteration_end);
}

void Serving::draining(JobId id, Time now) {
  Impl& m = *impl_;
  Replica& r = m.replicas[id];
  m.catch_up(r, now);  // it plans no steps ahead once draining
  if (r.state == ReplicaState::ready) m.count_ready(m.services[r.service], now, -1);
  // Loading, it never becomes ready (its due event is dropped); ready, it goes on with what it has.
  if (r.state == ReplicaState::loading) r.due_seq = 0;
  if (r.state != ReplicaState::absent) r.state = ReplicaState::draining;
}

void Serving::stopped(JobId id, Time now) {
  Impl& m = *impl_;
  m.catch_up_all(now);
  Replica& r = m.replicas[id];
  Service& svc = m.services[r.service];
  if (r.state == ReplicaState::ready) m.count_ready(svc, now, -1);
  r.state = ReplicaState::absent;
  if (r.share.ts_gpu != kNoGpu) {
    SlicedGpu& g = m.sliced_gpu(r);
    g.rr.remove(static_cast<uint32_t>(r.job), now);
    if (g.predicted == static_cast<uint32_t>(r.job)) g.predicted = SlicedGpu::kNone;  // its due entry goes below
  }
  r.in_flight = false;
  r.batch.clear();
  r.due_seq = 0;
  std::vector<uint32_t> lost(r.running.begin(), r.running.end());
  lost.insert(lost.end(), r.waiting.begin(), r.waiting.end());
  lost.insert(lost.end(), r.receiving.begin(), r.receiving.end());
  // Disaggregated: the KV caches it held for decode replicas are gone; so are those it was to take in.
  for (uint32_t q : r.sending) {
    m.leave_decode_pool(q);
    lost.push_back(q);
  }
  for (uint32_t q : lost)
    if (m.reqs[q].kv != Kv::local && m.reqs[q].prefill_replica != static_cast<int32_t>(id))
      m.let_go(m.replicas[static_cast<uint32_t>(m.reqs[q].prefill_replica)], q);
  r.running.clear();
  r.waiting.clear();
  r.receiving.clear();
  r.sending.clear();
  if (r.shown_busy) r.busy_s += (now - r.busy_since).seconds();
  r.busy = r.shown_busy = false;  // it holds no GPU now: nothing to tell the engine
  r.level = r.shown_level = 0;
  r.free_blocks = r.total_blocks;
  r.pool.reset();
  // Its requests start over, from their prefill, in arrival order.
  std::sort(lost.begin(), lost.end(), [&](uint32_t a, uint32_t b) { return m.reqs[a].id < m.reqs[b].id; });
  for (uint32_t q : lost) {
    Req& req = m.reqs[q];
    ++m.services[req.service].fig.retried;
    req.computed = req.generated = req.blocks = req.held_blocks = 0;
    req.kv = Kv::local;
    req.decoding = false;
    req.prefill_replica = -1;
    req.transfer_us = -1;
    if (q < m.req_blocks.size()) {  // the replica's pool is gone with it
      m.req_blocks[q].ids.clear();
      m.req_blocks[q].hashed = 0;
    }
    req.first_scheduled = Time::max();
    req.max_gap_us = 0;
    ++req.retries;
    m.route(q, now);
  }
}

std::vector<JobId> Serving::take_busy_changes(Time now, const std::function<void(JobId)>& before,
                                              const std::function<void(JobId)>& before_level, std::vector<JobId>& level_changes) {
  Impl& m = *impl_;
  std::vector<JobId> out;
  std::sort(m.busy_changes.begin(), m.busy_changes.end());
  for (JobId id : m.busy_changes) {
    Replica& r = m.replicas[id];
    r.listed = false;
    if (r.busy == r.shown_busy) {
      if (r.busy && r.level != r.shown_level) {  // busy all along, at another batch
        before_level(id);
        r.shown_level = r.level;
        level_changes.push_back(id);
      }
      continue;
    }
    before(id);
    if (r.shown_busy) r.busy_s += (now - r.busy_since).seconds();
    r.busy_since = now;
    r.shown_busy = r.busy;
    r.shown_level = r.level;
    out.push_back(id);
  }
  m.busy_changes.clear();
  return out;
}

bool Serving::has_busy_changes() const { return !impl_->busy_changes.empty(); }

bool Serving::settled(Time now) const {
  const Impl& m = *impl_;
  // A stale entry at the top of a queue counts as due: advance() would clear it, and only it knows.
  return m.dirty.empty() && m.to_start.empty() && m.busy_changes.empty() && now < m.next_arrival &&
         (m.due.empty() || now < m.due.top().time) && (m.transfers.empty() || now < std::get<0>(m.transfers.top()));
}

uint8_t Serving::power_level(JobId id) const { return impl_->replicas[id].shown_level; }

ReplicaGauges Serving::gauges(JobId id, Time now) const {
  const Replica& r = impl_->replicas[id];
  ReplicaGauges g;
  g.ready = r.state == ReplicaState::ready;
  g.draining = r.state == ReplicaState::draining;
  g.running = static_cast<int32_t>(r.running.size());
  g.waiting = static_cast<int32_t>(r.waiting.size());
  g.busy_s = r.busy_s + (r.shown_busy ? (now - r.busy_since).seconds() : 0.0);
  return g;
}

int64_t Serving::queue_length(uint32_t s) const {
  const Service& svc = impl_->services[s];
  auto n = static_cast<int64_t>(svc.queue.size());
  for (uint32_t job : svc.replicas) n += static_cast<int64_t>(impl_->replicas[job].waiting.size());
  return n;
}

uint64_t Serving::arrived(uint32_t s) const {
  const Service& svc = impl_->services[s];
  return svc.spec->role == PoolRole::decode ? svc.prefilled : svc.fig.arrived;
}

void Serving::kv_links(std::function<double(JobId from, JobId to)> bytes_per_s) { impl_->kv_link = std::move(bytes_per_s); }

int32_t Serving::ready(uint32_t s) const { return impl_->services[s].ready; }

// Not before the engine has finished an instant run_ahead applied (the last request's end, say).
bool Serving::done() const { return impl_->finished() && impl_->held == Time::max(); }

std::vector<ServiceFigures> Serving::finish(Time end) {
  Impl& m = *impl_;
  std::vector<ServiceFigures> out;
  // Requests still in the system: timed out if their clients have given up, else unfinished.
  std::vector<bool> free(m.reqs.size(), false);
  for (uint32_t id : m.free_reqs) free[id] = true;
  for (uint32_t id = 0; id < m.reqs.size(); ++id)
    if (!free[id]) {
      const bool gone = m.expired(m.reqs[id], end);
      if (gone) ++m.services[m.reqs[id].service].fig.timed_out;
      else if (m.reqs[id].first_scheduled == Time::max()) ++m.services[m.reqs[id].service].fig.waiting;
      m.row(m.reqs[id], gone ? 3 : 2, end);
    }
  for (Service& svc : m.services) {
    m.count_ready(svc, end, 0);
    svc.fig.unfinished = svc.fig.arrived - svc.fig.completed - svc.fig.rejected - svc.fig.timed_out;
    out.push_back(std::move(svc.fig));
  }
  if (m.keep_requests) {
    std::sort(m.rows.begin(), m.rows.end(),
              [](const RequestRow& a, const RequestRow& b) { return std::pair(a.service, a.id) < std::pair(b.service, b.id); });
  }
  return out;
}

uint64_t Serving::events() const {
  uint64_t n = 0;
  for (const Service& svc : impl_->services) n += svc.fig.arrived + svc.fig.iterations + svc.fig.replica_starts;
  return n;
}

std::vector<RequestRow> Serving::take_requests() { return std::move(impl_->rows); }

std::vector<RouteRow> Serving::take_routes() { return std::move(impl_->routes); }

}  // namespace gpusim
