#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <queue>
#include <tuple>
#include "gpusim/core/random.hpp"
#include "gpusim/sim/event_queue.hpp"
#include "gpusim/sim/footprint.hpp"
#include "gpusim/sim/metrics.hpp"
#include "gpusim/sim/network.hpp"
#include "gpusim/sim/world.hpp"

#include "run_util.hpp"

using namespace gpusim;
using test::write_file;

// A million-job run holds a Job and a JobRecord per job (docs/design/performance.md; FootprintCosts::job):
// a field that makes either bigger should be a decision, not an accident. Sizes of a 64-bit libstdc++.
// A JobFlight (one per job in flight, a few thousand) holds the placement's lists; a finished job's
// placement is a 20-byte PlacementRef into one shared archive.
TEST(JobStorage, SizesArePinned) {
  if constexpr (sizeof(void*) == 8) {
    EXPECT_LE(sizeof(Job), 168u);
    EXPECT_LE(sizeof(JobRecord), 216u);  // 208 before energy_ws (issue 45)
    EXPECT_LE(sizeof(PlacementRef), 20u);
    // Only jobs in flight hold one: what settle reads, and its claims' cost marks, are kept there.
    // 304 before the energy marks (with their GPU part, for serving replicas' batch-following draw) and
    // their carbon, price and owned-electricity weighings (issue 45).
    EXPECT_LE(sizeof(JobFlight), 400u);
  }
}

TEST(EventQueue, ComparatorOrdersByTimeThenSequence) {
  const Event a{Time::from_us(5), 2, EventKind::completion, 0, 0};
  const Event b{Time::from_us(5), 3, EventKind::completion, 0, 0};
  const Event c{Time::from_us(4), 9, EventKind::completion, 0, 0};
  EXPECT_TRUE(event_before(a, b));
  EXPECT_FALSE(event_before(b, a));
  EXPECT_TRUE(event_before(c, a));
  EXPECT_FALSE(event_before(a, a));
}

TEST(EventQueue, PopsInTimeOrderAndTiesInInsertionOrder) {
  EventQueue q;
  q.push(Time::from_us(30), EventKind::completion, 1, 0);
  q.push(Time::from_us(10), EventKind::completion, 2, 0);
  q.push(Time::from_us(30), EventKind::completion, 3, 7);
  q.push(Time::from_us(10), EventKind::completion, 4, 0);
  std::vector<uint32_t> order;
  while (!q.empty()) {
    order.push_back(q.top().target);
    if (q.top().target == 3) {
      EXPECT_EQ(q.top().generation, 7u);
    }
    q.pop();
  }
  EXPECT_EQ(order, (std::vector<uint32_t>{2, 4, 1, 3}));
}

// The radix heap pops exactly what a heap on (time, sequence) pops, for every schedule the engine
// can make: pushes at any time not before the last popped one (equal times, the current time, times
// between the last popped one and the queue's earliest, "never"), peeks between them, runs of pops.
TEST(EventQueue, PopsWhatAHeapOnTimeAndSequencePops) {
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return event_before(b, a); }
  };
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Rng rng = make_stream(seed, "test/event-queue");
    const auto below = [&](uint64_t n) { return static_cast<int64_t>(rng() % n); };
    EventQueue q;
    std::priority_queue<Event, std::vector<Event>, Later> reference;
    uint64_t sequence = 0;
    Time now = Time::from_us(below(3) - 1);  // a start before, at or after time 0
    const int64_t spread = int64_t{1} << below(40);
    const auto push = [&](Time t) {
      const auto target = static_cast<uint32_t>(rng());
      const auto kind = static_cast<EventKind>(below(12));
      q.push(t, kind, target, static_cast<uint32_t>(sequence));
      reference.push(Event{t, static_cast<uint32_t>(sequence), kind, target, static_cast<uint32_t>(sequence)});
      ++sequence;
    };
    for (int step = 0; step < 4000; ++step) {
      const int64_t r = below(100);
      if (r < 45) {
        const int64_t d = below(4) == 0 ? 0 : below(below(2) == 0 ? 8 : spread);
        push(r == 0 || now > Time::max() - Duration::from_us(d) ? Time::max() : now + Duration::from_us(d));
      } else if (r < 55 && !reference.empty()) {
        // The clock moves to a time at or before the earliest event (an arrival) and pushes there.
        ASSERT_EQ(q.top().time, reference.top().time);
        now = Time::from_us(now.us() + below(reference.top().time.us() - now.us() + 1));
        push(now);
      } else if (!reference.empty()) {
        ASSERT_EQ(q.size(), reference.size());
        now = reference.top().time;
        for (int64_t pops = below(4) + 1; pops > 0 && !reference.empty(); --pops) {
          const Event a = q.top();
          const Event b = reference.top();
          ASSERT_EQ(std::tuple(a.time, uint64_t{a.sequence}, a.kind, a.target, a.generation),
                    std::tuple(b.time, uint64_t{b.sequence}, b.kind, b.target, b.generation))
              << "seed " << seed << ", step " << step;
          q.pop();
          reference.pop();
          if (!reference.empty() && reference.top().time != now) break;
        }
      }
    }
    while (!reference.empty()) {
      ASSERT_EQ(q.top().sequence, reference.top().sequence) << "seed " << seed;
      q.pop();
      reference.pop();
    }
    EXPECT_TRUE(q.empty());
  }
}

TEST(EventQueue, RefusesAnEventBeforeTheLastPoppedOne) {
  EventQueue q;
  q.push(Time::from_us(10), EventKind::completion, 1, 0);
  q.pop();
  q.push(Time::from_us(10), EventKind::completion, 2, 0);
  EXPECT_THROW(q.push(Time::from_us(9), EventKind::completion, 3, 0), std::logic_error);
}

TEST(ClusterIndex, IdenticalNodesShareABucketUntilTheyDiffer) {
  Cluster c;
  Pool p;
  p.name = "p";
  p.gpu = Catalog::builtin().find_gpu("T4");
  p.sharing.mode = Sharing::fractional;
  p.node_count = 100;
  p.nodes.push_back({"p-0", 8000, 8192, 4, std::make_shared<const NodeTopology>(NodeTopology::single_host_bridge(*p.gpu, 4))});
  const PoolId id = c.add_pool(p);
  for (int i = 0; i < 100; ++i) c.build_node(id, NodeState::ready);
  ASSERT_EQ(c.live_buckets().size(), 1u);  // 100 idle nodes, one state
  EXPECT_EQ(c.bucket(c.live_buckets()[0]).nodes.size(), 100u);
  const GpuClaim share{Milli{300}, 0, 0, std::nullopt};
  c.attach(GpuId{c.node(NodeId{7}).first_gpu + 2}, JobId{1}, share);
  c.reindex(NodeId{7});
  EXPECT_EQ(c.live_buckets().size(), 2u);
  c.attach(GpuId{c.node(NodeId{9}).first_gpu + 0}, JobId{2}, share);  // same multiset on another GPU index
  c.reindex(NodeId{9});
  EXPECT_EQ(c.live_buckets().size(), 2u);
  c.detach(GpuId{c.node(NodeId{7}).first_gpu + 2}, JobId{1}, share);
  c.reindex(NodeId{7});
  c.detach(GpuId{c.node(NodeId{9}).first_gpu + 0}, JobId{2}, share);
  c.reindex(NodeId{9});
  ASSERT_EQ(c.live_buckets().size(), 1u);
  EXPECT_EQ(c.bucket(c.live_buckets()[0]).representative(), 0u);
  EXPECT_TRUE(c.gpu(GpuId{c.node(NodeId{7}).first_gpu + 2}).residents.empty());
}

// NIC sharing reuses the last solve's shares only for the same flows over the same links: flows whose
// links' capacities and caps are the same but whose paths differ are solved again.
TEST(NetworkSharing, ReusesTheLastSolveOnlyForTheSameFlows) {
  Cluster c;
  Pool p;
  p.name = "p";
  p.gpu = Catalog::builtin().find_gpu("T4");
  p.network = {1, 100};  // 12.5 GB/s per node
  p.node_count = 4;
  p.nodes.push_back({"p-0", 8000, 8192, 1, std::make_shared<const NodeTopology>(NodeTopology::single_host_bridge(*p.gpu, 1))});
  const PoolId pool = c.add_pool(p);
  for (int i = 0; i < 4; ++i) c.build_node(pool, NodeState::ready);
  std::vector<JobRecord> records(5);
  JobFlights flights;
  NetworkSharing net;
  const auto joins = [&](uint32_t job, std::vector<NodeId> nodes) {
    JobFlight& f = flights.acquire(records[job]);
    f.placement.nodes = std::move(nodes);
    f.intra = {LinkClass::nvlink, 1, 100};
    net.join(JobId{job});
  };
  std::vector<JobId> changed;
  const auto shares = [&](std::vector<JobId> jobs) {
    changed.clear();
    net.share(c, records, flights, changed);
    std::vector<double> out;
    for (JobId id : jobs) out.push_back(records[id].link.gb_per_s);
    return out;
  };
  joins(0, {NodeId{0}, NodeId{1}});
  joins(1, {NodeId{2}, NodeId{3}});
  joins(2, {NodeId{1}, NodeId{2}});  // shares node 1's NIC with job 0 and node 2's with job 1
  EXPECT_EQ(shares({JobId{0}, JobId{1}, JobId{2}}), (std::vector<double>{6.25, 6.25, 6.25}));
  ASSERT_TRUE(net.leave(JobId{2}));
  joins(3, {NodeId{0}, NodeId{1}});  // four links of the same capacity, three flows of the same cap: other paths
  EXPECT_EQ(shares({JobId{0}, JobId{1}, JobId{3}}), (std::vector<double>{6.25, 12.5, 6.25}));
  ASSERT_TRUE(net.leave(JobId{3}));
  joins(4, {NodeId{1}, NodeId{2}});
  EXPECT_EQ(shares({JobId{0}, JobId{1}, JobId{4}}), (std::vector<double>{6.25, 6.25, 6.25}));
  EXPECT_EQ(shares({JobId{0}, JobId{1}, JobId{4}}), (std::vector<double>{6.25, 6.25, 6.25}));  // the last solve's
  EXPECT_TRUE(changed.empty());
}

TEST(Metrics, IntegratesPiecewiseConstantValuesExactly) {
  Metrics m(2, 2, 1, Duration::from_seconds(10));
  m.add_allocation(PoolId{0}, 1, 1000);  // one GPU from t=0
  m.add_busy(PoolId{0}, GpuId{0}, 0.5, Time());
  m.advance(Time::from_seconds(30), 1, 0);
  m.add_allocation(PoolId{1}, 0, 250);  // a quarter GPU from t=30
  m.advance(Time::from_seconds(40), 2, 0);
  m.finish(Time::from_seconds(40));  // the integrals are whole at the end of the run
  EXPECT_DOUBLE_EQ(m.allocated_gpu_time(PoolId{0}).seconds(), 40.0);
  EXPECT_DOUBLE_EQ(m.busy_gpu_time(PoolId{0}).seconds(), 20.0);
  EXPECT_DOUBLE_EQ(m.gpu_busy(GpuId{0}, Time::from_seconds(40)).seconds(), 20.0);
  EXPECT_DOUBLE_EQ(m.allocated_gpu_time(PoolId{1}).seconds(), 2.5);
  EXPECT_DOUBLE_EQ(m.allocated_gpu_time(PoolId{0}, 1).seconds(), 40.0);
  EXPECT_DOUBLE_EQ(m.allocated_gpu_time(PoolId{1}, 0).seconds(), 2.5);
  ASSERT_EQ(m.samples().size(), 4u);  // t = 0, 10, 20, 30
  EXPECT_EQ(m.samples()[3].time, Time::from_seconds(30));
  EXPECT_DOUBLE_EQ(m.samples()[3].gpus_allocated, 1.25);  // the state after the events at t=30
  EXPECT_EQ(m.samples()[3].running, 2u);
}

// An integral sums one term per span of constant values: instants at which nothing changes (a serving
// replica's steps, a job that waits) leave every figure bit for bit as it was.
TEST(Metrics, IntegralsDoNotDependOnInstantsWhereNothingChanges) {
  const auto run = [](int instants) {
    Metrics m(1, 1, 1, Duration::from_seconds(3600));
    m.set_price(PoolId{0}, 32.77, 4.0963);
    m.add_capacity(PoolId{0}, 8, 1);
    m.add_allocation(PoolId{0}, 0, 2500);
    m.add_busy(PoolId{0}, GpuId{0}, 0.7, Time());
    for (int64_t i = 1; i <= instants; ++i) m.advance(Time::from_us(i * 1'000'003), 1, 0);
    m.advance(Time::from_seconds(7200), 1, 0);
    m.add_allocation(PoolId{0}, 0, -2500);
    m.advance(Time::from_seconds(9000), 0, 0);
    m.finish(Time::from_seconds(9000));
    return std::array{m.allocated_gpu_time(PoolId{0}).seconds(),
                      m.busy_gpu_time(PoolId{0}).seconds(),
                      m.capacity_gpu_time(PoolId{0}).seconds(),
                      m.cost_usd(PoolId{0}),
                      m.allocated_cost_usd(PoolId{0}),
                      m.busy_cost_usd(PoolId{0}),
                      m.price_integral_usd(PoolId{0}, Time::from_seconds(9000))};
  };
  const auto once = run(0);
  EXPECT_EQ(run(7000), once);  // ==, not near: the same sums
  EXPECT_DOUBLE_EQ(once[0], 2.5 * 7200);
  EXPECT_DOUBLE_EQ(once[3], 32.77 * 2.5);
}

TEST(Report, NearestRankPercentiles) {
  EXPECT_EQ(percentile({5, 1, 4, 2, 3}, 50), 3);
  EXPECT_EQ(percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 95), 10);
  EXPECT_EQ(percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 90), 9);
  EXPECT_EQ(percentile({7}, 99), 7);
}

namespace {
const char* kTwoNodes = R"(
name: tiny
cluster:
  pools:
    - {name: p, node: l4-4x, count: 2, sharing: fractional}
workload:
  reference_gpu: any
  jobs:
    - {name: a, gpus: 1, gpu_milli: 500, duration: 10, arrival: 0}
    - {name: b, gpus: 1, gpu_milli: 500, duration: 10, arrival: 0}
    - {name: c, gpus: 4, duration: 5, arrival: 0}
    - {name: d, gpus: 4, duration: 5, arrival: 0}
policy: fifo+first-fit
)";

// A scheduler that binds whatever it is told, to check the engine's validation.
struct Scripted final : Scheduler {
  std::function<void(const ClusterView&, Binder&)> script;
  std::string name() const override { return "scripted"; }
  QueueKey queue_key(const Job& j) const override { return {j.arrival.us(), 0}; }
  void decide(const ClusterView& v, Binder& b) override { script(v, b); }
};
}  // namespace

TEST(Engine, DecidesOncePerTimestampAndPacksSharesOnOneGpu) {
  const Scenario s = test::load(write_file("s.yaml", kTwoNodes));
  auto sched = Registry::global().make("fifo+first-fit", PolicyContext{}, {});
  const RunResult r = simulate(s, *sched);
  // t=0 (four arrivals) and t=5 (c completes while d waits); at t=10 nothing is pending.
  EXPECT_EQ(r.decision_points, 2u);
  // a and b share GPU 0 of node 0; c needs 4 wholly free GPUs, which only node 1 has.
  EXPECT_EQ(r.placement(JobId(0)).copy().gpus, std::vector<GpuId>{GpuId{0}});
  EXPECT_EQ(r.placement(JobId(1)).copy().gpus, std::vector<GpuId>{GpuId{0}});
  EXPECT_EQ(r.placement(JobId(2)).copy().nodes, std::vector<NodeId>{NodeId{1}});
  EXPECT_EQ(r.jobs[3].start, Time::from_seconds(5));  // waits for c
  EXPECT_EQ(r.jobs[3].status, JobStatus::completed);
}

TEST(Engine, RejectsInvalidDecisionsLoudly) {
  const Scenario s = test::load(write_file("s.yaml", kTwoNodes));
  struct Case {
    JobId job;
    Placement placement;
    std::string message;
  };
  const std::vector<Case> bad = {
      {JobId{0}, {{NodeId{0}}, {GpuId{0}, GpuId{1}}, {}}, "placement has 2 GPUs, the job asks 1"},
      {JobId{2},
       {{NodeId{0}}, {GpuId{0}, GpuId{1}, GpuId{2}, GpuId{5}}, {}},
       "GPU 5 is on node p-1, which the placement does not list"},
      {JobId{0}, {{NodeId{0}, NodeId{1}}, {GpuId{0}}, {}}, "spans nodes"},
      {JobId{0}, {{NodeId{9}}, {GpuId{0}}, {}}, "unknown node id 9"},
      {JobId{0}, {{NodeId{1}}, {GpuId{0}}, {}}, "node p-1 holds none of the job's GPUs"},
  };
  for (const auto& [job, placement, message] : bad) {
    Scripted sched;
    // Named captures: clang (and so clang-tidy) before 16 cannot capture a structured binding.
    sched.script = [id = job, &p = placement](const ClusterView&, Binder& b) { b.bind(id, p); };
    try {
      simulate(s, sched);
      ADD_FAILURE() << message;
    } catch (const PolicyError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  Scripted twice;  // a GPU over-committed: the first bind holds 500 milli, c asks a whole GPU there
  twice.script = [](const ClusterView&, Binder& b) {
    b.bind(JobId{0}, {{NodeId{0}}, {GpuId{0}}, {}});
    b.bind(JobId{2}, {{NodeId{0}}, {GpuId{0}, GpuId{1}, GpuId{2}, GpuId{3}}, {}});
  };
  EXPECT_THROW(simulate(s, twice), PolicyError);
}

TEST(Engine, ReportsJobsThatCanNeverFitAsUnschedulable) {
  const auto path = write_file("jobs.csv", "arrival_s,duration_s,gpus,models\n0,10,1,H100\n0,10,16,\n0,10,1,\n");
  const Scenario s = test::load(write_file("s.yaml", fmt::format(R"(
name: u
cluster: {{pools: [{{name: p, node: l4-4x, count: 1}}]}}
workload: {{traces: [{{format: csv, path: {}}}]}}
)",
                                                                 path)));
  const Json j = test::run(s);
  EXPECT_EQ(j["jobs_unschedulable"], 2);
  EXPECT_EQ(j["jobs_completed"], 1);
  const auto reasons = j["unschedulable_reasons"].dump();
  EXPECT_NE(reasons.find("asks for GPU model H100; pool p has L4"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("asks 16 GPUs on one node; the largest allowed node has 4"), std::string::npos) << reasons;
}

TEST(Engine, MultiNodeJobsSpanTheFewestNodesAllOrNothing) {
  const Scenario s = test::load(write_file("s.yaml", R"(
name: m
cluster: {pools: [{name: p, node: l4-4x, count: 3}]}
workload:
  reference_gpu: any
  jobs:
    - {name: small, gpus: 1, duration: 100}
    - {name: wide, gpus: 8, duration: 10, multi_node: true}
    - {name: wider, gpus: 12, duration: 10, multi_node: true}
)"));
  auto sched = Registry::global().make("fifo+first-fit", PolicyContext{}, {});
  const RunResult r = simulate(s, *sched);
  EXPECT_EQ(r.placement(JobId(1)).copy().nodes, (std::vector<NodeId>{NodeId{1}, NodeId{2}}));  // the two empty nodes
  EXPECT_EQ(r.jobs[2].start, Time::from_seconds(100));                                         // waits for all 12 GPUs
  EXPECT_EQ(r.placement(JobId(2)).nodes.size(), 3u);
}

// The estimate adds, per count the scenario gives, count x the measured cost of one object: node slots
// (the autoscaler's maximum when larger) with their GPUs, inline and generated jobs, and time-series rows
// (horizon / step, each with a sample per pool).
TEST(Footprint, CountsWhatTheScenarioAsksForBeforeItIsBuilt) {
  const auto doc = ConfigNode::parse(R"(
horizon: 10h
outputs: {timeseries_step: 10m}
cluster:
  pools:
    - {name: a, node: dgx-a100-80gb, count: 2}
    - {name: b, node: dgx-a100-80gb, count: 1, autoscale: {max: 10}}
workload:
  reference_gpu: any
  jobs: [{name: j, count: 5}, {name: k}]
  generator: {classes: [{name: c, count: 7}, {name: d, count: nope}]}
)",
                                     "f.yaml");
  const Footprint f = estimate_footprint(doc, Catalog::builtin(), Duration::from_seconds(3600));
  const auto cost = [](uint64_t bytes) { return static_cast<double>(bytes); };
  const double node = cost(FootprintCosts::node) + 8 * cost(FootprintCosts::gpu);
  ASSERT_EQ(f.items.size(), 5u);  // k has no count (one job, nothing to estimate); d's count is its reader's to refuse
  EXPECT_EQ(f.items[0].where.field, "cluster.pools[0].count");
  EXPECT_DOUBLE_EQ(f.items[0].bytes, 2 * node);
  EXPECT_EQ(f.items[1].where.field, "cluster.pools[1].autoscale.max");
  EXPECT_DOUBLE_EQ(f.items[1].bytes, 10 * node);
  EXPECT_EQ(f.items[2].where.field, "workload.jobs[0].count");
  EXPECT_DOUBLE_EQ(f.items[2].bytes, 5 * cost(FootprintCosts::job));
  EXPECT_EQ(f.items[3].where.field, "workload.generator.classes[0].count");
  EXPECT_DOUBLE_EQ(f.items[3].bytes, 7 * cost(FootprintCosts::job));
  EXPECT_EQ(f.items[4].where.field, "outputs.timeseries_step");
  EXPECT_DOUBLE_EQ(f.items[4].bytes,
                   60 * (cost(FootprintCosts::timeseries_row) + 2 * cost(FootprintCosts::timeseries_row_per_pool)));
  EXPECT_DOUBLE_EQ(f.bytes(), f.items[0].bytes + f.items[1].bytes + f.items[2].bytes + f.items[3].bytes + f.items[4].bytes);

  EXPECT_NO_THROW(check_footprint(f, {static_cast<uint64_t>(f.bytes()), "test"}));
  try {
    check_footprint(f, {static_cast<uint64_t>(f.bytes()) - 1, "the test's"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().field, "cluster.pools[1].autoscale.max");  // the largest part
    EXPECT_EQ(e.where().line, 7);
    const std::string what = e.what();
    EXPECT_NE(what.find("10 nodes of 8 GPUs from cluster.pools[1].autoscale.max"), std::string::npos) << what;
    EXPECT_NE(what.find("and 2 more"), std::string::npos) << what;
    EXPECT_NE(what.find("(the test's); ask for less at cluster.pools[1].autoscale.max, or raise the limit with --max-memory"),
              std::string::npos)
        << what;
  }
}

// A service's generator at a constant rate holds up to rate x duration x rate_multiplier requests (at
// most `limit`); a rate curve or a trace is not counted (issue 42: 10^6 requests/s for 20 minutes
// passed, then died of bad_alloc).
TEST(Footprint, GeneratedRequestsCount) {
  const auto doc = ConfigNode::parse(R"(
workload:
  services:
    - {name: a, requests: {generator: {rate: 1000000, duration: 20m}}}
    - {name: b, requests: {rate_multiplier: 2, limit: 500, generator: {rate: 10, duration: 1h}}}
    - {name: c, requests: {generator: {rate_curve: [[0, 5]], duration: 1h}}}
    - {name: d, requests: {trace: {format: azure-llm-2023, file: t.csv}}}
)",
                                     "f.yaml");
  const Footprint f = estimate_footprint(doc, Catalog::builtin(), Duration::from_seconds(3600));
  ASSERT_EQ(f.items.size(), 2u);
  EXPECT_EQ(f.items[0].where.field, "workload.services[0].requests.generator.rate");
  EXPECT_EQ(f.items[0].what, "1200000000 requests (rate x duration)");
  EXPECT_DOUBLE_EQ(f.items[0].bytes, 1.2e9 * static_cast<double>(FootprintCosts::request));
  EXPECT_EQ(f.items[1].what, "500 requests (rate x duration)");
  EXPECT_THROW(check_footprint(f, MemoryLimit::parse("2.5GiB", {"", std::nullopt, "--max-memory"})), InputError);
}

TEST(Footprint, MemorySizesHaveUnitsAndTheDefaultIsHalfOfPhysicalMemory) {
  const SourceLocation flag{"", std::nullopt, "--max-memory"};
  EXPECT_EQ(MemoryLimit::parse("4GiB", flag).bytes, uint64_t{4} << 30);
  EXPECT_EQ(MemoryLimit::parse("1.5 MiB", flag).bytes, uint64_t{3} << 19);
  EXPECT_EQ(MemoryLimit::parse("8GB", flag).bytes, uint64_t{8'000'000'000});
  EXPECT_EQ(MemoryLimit::parse("1000", flag).bytes, 1000u);
  EXPECT_EQ(MemoryLimit::parse("4GiB", flag).source, "--max-memory 4GiB");
  for (const char* bad : {"", "lots", "0", "-1GiB", "4XB", "GiB", "0.1B", "1e300GiB", "nan"})
    EXPECT_THROW(MemoryLimit::parse(bad, flag), InputError) << bad;
  const MemoryLimit d = MemoryLimit::machine_default();
  EXPECT_GT(d.bytes, 0u);
  EXPECT_EQ(d.bytes, MemoryLimit::machine_default().bytes);  // the same for every run on one machine
  EXPECT_NE(d.source.find("half of this machine's"), std::string::npos);
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(12), "12 B");
}

// A job with `node:` (a pod's spec.nodeName) runs on that node only, started before the scheduler's
// pass; a job of the same request without one is not held back by it.
TEST(BoundJobs, RunOnTheirNodeOnly) {
  const std::string path = write_file("bound.yaml", R"(name: bound
cluster:
  pools: [{name: h100, node: hgx-h100, node_names: [n1, n2]}]
workload:
  reference_gpu: any
  jobs:
    - {name: a, gpus: 8, duration: 1h, node: n2}
    - {name: b, gpus: 8, duration: 1h, node: n2}
    - {name: free, gpus: 8, duration: 1h}
)");
  const Scenario s = test::load(path);
  const RunResult r = test::simulate_scenario(s);
  const auto node_of = [&](uint32_t j) { return r.cluster.node(r.placement(JobId(j)).copy().nodes.at(0)).name; };
  // first-fit alone would put a on n1: a on n2 at 0, b on n2 after a (1h), free on n1 at 0.
  EXPECT_EQ(node_of(0), "n2");
  EXPECT_EQ(node_of(1), "n2");
  EXPECT_EQ(node_of(2), "n1");
  EXPECT_EQ(r.jobs[0].start.seconds(), 0);
  EXPECT_EQ(r.jobs[1].start.seconds(), 3600);
  EXPECT_EQ(r.jobs[2].start.seconds(), 0);
}

TEST(BoundJobs, UnknownNodeIsAnInputErrorNamingTheField) {
  const std::string path = write_file("unknown.yaml", R"(name: bound
cluster:
  pools: [{name: h100, node: hgx-h100, count: 2}]
workload:
  reference_gpu: any
  jobs: [{name: a, gpus: 8, duration: 1h, node: n9}]
)");
  const std::string e = test::input_error([&] { (void)build_world(test::load(path)); });
  EXPECT_NE(e.find("workload.jobs[0].node"), std::string::npos) << e;
  EXPECT_NE(e.find("no node named 'n9'"), std::string::npos) << e;
  // Template pools name their nodes <pool>-<i>.
  const std::string ok = write_file("template.yaml", R"(name: bound
cluster:
  pools: [{name: h100, node: hgx-h100, count: 2}]
workload:
  reference_gpu: any
  jobs: [{name: a, gpus: 8, duration: 1h, node: h100-1}]
)");
  EXPECT_NO_THROW((void)build_world(test::load(ok)));
}
