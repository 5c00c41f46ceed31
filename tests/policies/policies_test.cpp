#include <gtest/gtest.h>

#include "run_util.hpp"

using namespace gpusim;
using test::write_file;

namespace {
// Node 0 has GPU 0 at 600 milli used; node 1 is empty. A 300-milli job then shows each rule.
const char* kHalfFull = R"(
name: h
cluster: {pools: [{name: p, node: l4-4x, count: 2, sharing: fractional}]}
workload:
  reference_gpu: any
  jobs:
    - {name: resident, gpus: 1, gpu_milli: 600, duration: 100}
    - {name: probe, gpus: 1, gpu_milli: 300, duration: 10, arrival: 1}
)";

Placement probe_placement(const std::string& policy) {
  const Scenario s = test::load(write_file("s.yaml", kHalfFull));
  auto sched = Registry::global().make(policy, policy_context(s), {});
  return simulate(s, *sched).placement(JobId(1)).copy();
}
}  // namespace

// Best-fit: node 0 is left with (4000-600-300)/4000 of its GPU share, node 1 with 3700/4000:
// node 0 wins, and inside it the tightest GPU with room (GPU 0, 400 free).
TEST(Placements, BestFitPacksOntoTheFullestNodeAndGpu) {
  const Placement p = probe_placement("fifo+best-fit");
  EXPECT_EQ(p.nodes, std::vector<NodeId>{NodeId{0}});
  EXPECT_EQ(p.gpus, std::vector<GpuId>{GpuId{0}});
}

TEST(Placements, FirstFitTakesTheLowestNodeAndGpuWithRoom) {
  const Placement p = probe_placement("fifo+first-fit");
  EXPECT_EQ(p.nodes, std::vector<NodeId>{NodeId{0}});
  EXPECT_EQ(p.gpus, std::vector<GpuId>{GpuId{0}});  // GPU 0 still has 400 milli
}

TEST(Placements, SpreadTakesTheEmptiestNode) {
  const Placement p = probe_placement("fifo+spread");
  EXPECT_EQ(p.nodes, std::vector<NodeId>{NodeId{1}});
  EXPECT_EQ(p.gpus, std::vector<GpuId>{GpuId{4}});
}

TEST(Placements, RandomIsSeededAndUsesEveryNode) {
  const char* many = R"(
name: r
seed: 5
cluster: {pools: [{name: p, node: l4-4x, count: 8}]}
workload:
  reference_gpu: any
  generator:
    classes: [{name: j, count: 200, arrival: {rate_per_hour: 3600}, gpus: 1, duration: 1}]
policy: fifo+random
)";
  const Scenario s = test::load(write_file("s.yaml", many));
  auto a = Registry::global().make("fifo+random", policy_context(s), {});
  auto b = Registry::global().make("fifo+random", policy_context(s), {});
  const RunResult ra = simulate(s, *a), rb = simulate(s, *b);
  std::set<NodeId> used;
  for (std::size_t i = 0; i < ra.jobs.size(); ++i) {
    EXPECT_EQ(ra.placement(JobId(i)).copy().gpus, rb.placement(JobId(i)).copy().gpus);
    used.insert(ra.placement(JobId(i)).nodes.front());
  }
  EXPECT_EQ(used.size(), 8u);
  auto other = Registry::global().make("fifo+random", {s.seed + 1, {}}, {});
  const RunResult rc = simulate(s, *other);
  bool differs = false;
  for (std::size_t i = 0; i < ra.jobs.size(); ++i)
    differs |= ra.placement(JobId(i)).copy().gpus != rc.placement(JobId(i)).copy().gpus;
  EXPECT_TRUE(differs);
}

TEST(QueueOrders, PriorityAndSjfReorderTheQueue) {
  const char* queue = R"(
name: q
cluster: {pools: [{name: p, node: a10-1x, count: 1}]}
workload:
  reference_gpu: any
  jobs:
    - {name: blocker, gpus: 1, duration: 10}
    - {name: long-low, gpus: 1, duration: 100, arrival: 1, priority: 0}
    - {name: short-high, gpus: 1, duration: 5, arrival: 2, priority: 9}
)";
  const Scenario s = test::load(write_file("s.yaml", queue));
  auto start_of = [&](const std::string& policy, uint32_t j) {
    auto sched = Registry::global().make(policy, PolicyContext{}, {});
    return simulate(s, *sched).jobs[j].start.seconds();
  };
  EXPECT_EQ(start_of("fifo+first-fit", 1), 10);      // arrival order
  EXPECT_EQ(start_of("priority+first-fit", 2), 10);  // priority 9 jumps the queue
  EXPECT_EQ(start_of("sjf+first-fit", 2), 10);       // 5 s beats 100 s
  EXPECT_EQ(start_of("sjf+first-fit", 1), 15);
}

TEST(Registry, ComposesByNameAndExplainsUnknownNames) {
  auto s = Registry::global().make("sjf+best-fit", PolicyContext{}, {});
  EXPECT_EQ(s->name(), "sjf+best-fit");
  const std::string msg = test::input_error([] {
    Registry::global().make("fifo+nearest", PolicyContext{}, {"s.yaml", 4, "policy"});
  });
  EXPECT_NE(msg.find("s.yaml:line 4: policy: unknown placement 'nearest'"), std::string::npos) << msg;
  EXPECT_NE(
      msg.find(
          "first-fit, best-fit, spread, mig-aware, topology, random, spot-aware, fgd, dot-product, gpu-packing, gpu-clustering"),
      std::string::npos)
      << msg;
  Registry r;
  register_builtin_policies(r);
  EXPECT_THROW(r.add_queue_order("fifo", "again", [](const PolicyContext&) { return std::unique_ptr<QueueOrder>(); }),
               std::invalid_argument);
  EXPECT_EQ(r.queue_orders().size(), 8u);
  EXPECT_EQ(r.placements().size(), 19u);  // carbon-aware (issue 45) the 17th, nvlink-domain(-pack) (issue 46)
}

// LAS and SRTF keep their running jobs in the order of their lines (attained GPU time grows by the
// GPUs held, work left falls at the job's rate: QueueOrder::Line), asking priority() only where two
// are too close to tell, instead of asking every one at every pass. Their decisions are those of
// asking every one: the same run, job for job, under the order with its lines hidden. Jobs of 1 to 16
// GPUs (lines of several slopes, which cross; 16-GPU jobs span nodes and share their NICs) arrive
// faster than 32 GPUs serve them, write checkpoints (their rate drops to 0 and back), and are preempted.
TEST(PreemptiveOrders, OrdersByLinesDecideAsAskingEveryJob) {
  struct AskEveryJob final : QueueOrder {
    explicit AskEveryJob(std::unique_ptr<QueueOrder> o) : order(std::move(o)) {}
    QueueKey key(const Job& j) const override { return order->key(j); }
    bool preemptive() const override { return true; }
    QueueKey priority(const ClusterView& v, JobId id) override { return order->priority(v, id); }
    std::unique_ptr<QueueOrder> order;
  };
  Registry r;
  register_builtin_policies(r);
  for (const std::string order : {"las", "srtf"})
    r.add_queue_order(order + "-asked", order + ", every running job asked at every pass", [&r, order](const PolicyContext& c) {
      return std::make_unique<AskEveryJob>(r.make_queue_order(order, c, {}));
    });
  const Scenario s = test::load(write_file("lines.yaml", R"(
name: lines
seed: 11
cluster: {pools: [{name: p, node: dgx-a100-80gb, count: 4}]}
workload:
  reference_gpu: any
  generator:
    classes:
      - {name: j, kind: training, count: 300, arrival: {rate_per_hour: 4}, gpus: [1, 2, 4, 8, 16], gpu_weights: [8, 4, 2, 1, 1],
         duration: {distribution: lognormal, median: 2h, sigma: 1.2}, checkpoint: {interval: 30m, cost: 1m, restore: 1m}}
policy: las+first-fit
)"));
  for (const std::string order : {"las", "srtf"}) {
    auto by_lines = r.make(order + "+first-fit", policy_context(s), {});
    auto asked = r.make(order + "-asked+first-fit", policy_context(s), {});
    const RunResult a = simulate(s, *by_lines), b = simulate(s, *asked);
    uint32_t preemptions = 0;
    for (const Job& j : s.jobs.jobs) {
      const JobRecord &x = a.jobs[j.id], &y = b.jobs[j.id];
      EXPECT_EQ(x.status, y.status) << order << " " << j.name;
      EXPECT_EQ(x.first_start, y.first_start) << order << " " << j.name;
      EXPECT_EQ(x.end, y.end) << order << " " << j.name;
      EXPECT_EQ(x.preemptions, y.preemptions) << order << " " << j.name;
      preemptions += x.preemptions;
    }
    EXPECT_GT(preemptions, 100u) << order;
  }
}
