// Topology, communication and gang scheduling (issue 4): link classes from PCIe paths, best rings,
// the collective formulas, max-min NIC sharing, Topology Manager admission, and the shipped
// scenarios that follow from them.
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <set>

#include "gpusim/hardware/catalog.hpp"
#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/topology_manager.hpp"
#include "run_util.hpp"

namespace gpusim {
namespace {

const NodeTopology& topo(const char* name) { return Catalog::builtin().find_node(name)->topology; }

TEST(Topology, PcieClassesFollowTheSharedPath) {
  const NodeTopology& t = topo("a100-80gb-pcie-8x");
  EXPECT_EQ(link_code(t.link(0, 1)), "PXB");   // two leaf switches under one switch
  EXPECT_EQ(link_code(t.link(2, 3)), "PIX");   // one switch
  EXPECT_EQ(link_code(t.link(0, 2)), "NODE");  // two host bridges of one socket
  EXPECT_EQ(link_code(t.link(3, 4)), "SYS");   // across sockets
  EXPECT_EQ(link_code(t.link(5, 5)), "X");
  EXPECT_DOUBLE_EQ(t.link(2, 3).gb_per_s, 31.5);  // PCIe Gen4 x16 per direction
  EXPECT_DOUBLE_EQ(t.link(3, 4).gb_per_s, 16.0);  // the inter-socket figure
  EXPECT_EQ(t.numa_nodes(), 2);
  EXPECT_FALSE(t.uniform());
}

TEST(Topology, NvSwitchAndBridgedPairs) {
  const NodeTopology& dgx = topo("dgx-a100-80gb");
  EXPECT_EQ(link_code(dgx.link(0, 7)), "NV12");
  EXPECT_DOUBLE_EQ(dgx.link(0, 7).gb_per_s, 300.0);  // 600 GB/s bidirectional
  EXPECT_TRUE(dgx.uniform());
  EXPECT_EQ(link_code(topo("hgx-h100").link(1, 2)), "NV18");
  const NodeTopology& pairs = topo("a100-80gb-pcie-nvlink-4x");
  EXPECT_EQ(link_code(pairs.link(0, 1)), "NV12");
  EXPECT_EQ(link_code(pairs.link(1, 2)), "SYS");
  EXPECT_EQ(link_code(pairs.ring_bottleneck(0b0011)), "NV12");
  EXPECT_EQ(link_code(pairs.ring_bottleneck(0b1111)), "SYS");
  EXPECT_EQ(link_code(topo("t4-8x").link(0, 1)), "PHB");  // not described: one host bridge
}

// A ring can avoid a slow pair: four GPUs in an NVLink ring, the diagonals over PCIe. The best ring
// runs over NVLink only, though its slowest pair is PIX.
TEST(Topology, BestRingAvoidsSlowPairs) {
  const auto doc = ConfigNode::parse(R"(
pcie: [cpu0/rc0/sw0, cpu0/rc0/sw0, cpu0/rc0/sw0, cpu0/rc0/sw0]
nvlink: [[0, 1, 6], [1, 2, 6], [2, 3, 6], [3, 0, 6]]
source: test)",
                                     "t.yaml");
  const NodeTopology t = NodeTopology::parse(doc, *Catalog::builtin().find_gpu("A100-80GB-SXM"), 4);
  EXPECT_EQ(link_code(t.link(0, 2)), "PIX");
  EXPECT_EQ(link_code(t.ring_bottleneck(0b1111)), "NV6");
  EXPECT_DOUBLE_EQ(t.ring_bottleneck(0b1111).gb_per_s, 150.0);
  EXPECT_EQ(link_code(t.ring_bottleneck(0b0101)), "PIX");
  // The best pair is an NVLink neighbour pair; the best triple has a PIX edge.
  EXPECT_EQ(link_code(t.ring_bottleneck(t.best_subsets(2).front())), "NV6");
  EXPECT_EQ(link_code(t.ring_bottleneck(t.best_subsets(3).front())), "PIX");
}

TEST(Topology, BestSubsetsPreferOneSocket) {
  const NodeTopology& t = topo("a100-80gb-pcie-8x");
  const auto& four = t.best_subsets(4);
  ASSERT_EQ(four.size(), 70u);
  EXPECT_EQ(t.numa_span(four.front()), 1);
  EXPECT_DOUBLE_EQ(t.ring_bottleneck(four.front()).gb_per_s, 31.5);
  EXPECT_DOUBLE_EQ(t.ring_bottleneck(four.back()).gb_per_s, 16.0);
}

TEST(Communication, NcclTestsFormulas) {
  EXPECT_DOUBLE_EQ(collective_bus_factor(Collective::all_reduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(collective_bus_factor(Collective::all_gather, 4), 0.75);
  EXPECT_DOUBLE_EQ(collective_bus_factor(Collective::all_to_all, 8), 0.875);
  EXPECT_DOUBLE_EQ(collective_bus_factor(Collective::all_reduce, 1), 0.0);
  CommProfile p{0.1, 1e9, Collective::all_reduce};
  EXPECT_DOUBLE_EQ(collective_time_s(p, 2, 10.0), 0.1);  // 1 GB / 10 GB/s x 2(2-1)/2
  // Iteration 0.1 s compute + 0.1 s collective against work measured compute-only: half speed.
  EXPECT_DOUBLE_EQ(communication_rate(1.0, p, 0.1, 0.0), 0.5);
  // Against work measured with the same collective: full speed; a slower GPU stretches compute only.
  EXPECT_DOUBLE_EQ(communication_rate(1.0, p, 0.1, 0.1), 1.0);
  EXPECT_DOUBLE_EQ(communication_rate(0.5, p, 0.1, 0.1), 0.2 / 0.3);
  EXPECT_DOUBLE_EQ(communication_rate(0.7, CommProfile{}, 5.0, 0.0), 0.7);  // no profile
}

TEST(Communication, MaxMinFairFlows) {
  // Two flows share link 0 (capacity 100); flow 1 also crosses link 1 (capacity 30).
  std::vector<double> rates(2);
  max_min_fair_flows(std::vector<double>{100, 30}, {{0}, {0, 1}}, std::vector<double>{1e9, 1e9}, rates);
  EXPECT_DOUBLE_EQ(rates[1], 30);
  EXPECT_DOUBLE_EQ(rates[0], 70);
  // Equal flows split equally; a capped flow leaves the rest to the other.
  max_min_fair_flows(std::vector<double>{100}, {{0}, {0}}, std::vector<double>{1e9, 1e9}, rates);
  EXPECT_DOUBLE_EQ(rates[0], 50);
  max_min_fair_flows(std::vector<double>{100}, {{0}, {0}}, std::vector<double>{20, 1e9}, rates);
  EXPECT_DOUBLE_EQ(rates[0], 20);
  EXPECT_DOUBLE_EQ(rates[1], 80);
}

// Progressive filling as first written (every growing flow's rate and every link it crosses updated
// each round): the reference max_min_fair_flows must match double for double, since every shared
// network's shares, and so every shipped multi-node figure, follow from its rounding.
std::vector<double> filling_reference(const std::vector<double>& capacities, const std::vector<std::vector<uint32_t>>& paths,
                                      const std::vector<double>& caps) {
  std::vector<double> left = capacities, rates(paths.size(), 0.0);
  std::vector<uint32_t> users(left.size(), 0), active(paths.size());
  std::iota(active.begin(), active.end(), 0u);
  for (const auto& p : paths)
    for (uint32_t l : p) ++users[l];
  while (!active.empty()) {
    double step = std::numeric_limits<double>::infinity();
    for (uint32_t l = 0; l < left.size(); ++l)
      if (users[l] > 0) step = std::min(step, left[l] / users[l]);
    for (uint32_t f : active) step = std::min(step, caps[f] - rates[f]);
    if (!std::isfinite(step)) step = 0;
    for (uint32_t f : active) {
      rates[f] += step;
      for (uint32_t l : paths[f]) left[l] -= step;
    }
    std::vector<char> saturated(left.size());
    for (uint32_t l = 0; l < left.size(); ++l) saturated[l] = users[l] > 0 && left[l] <= capacities[l] * 1e-12;
    std::vector<uint32_t> kept;
    for (uint32_t f : active) {
      bool frozen = rates[f] >= caps[f] * (1 - 1e-12) || paths[f].empty();
      for (uint32_t l : paths[f]) frozen = frozen || saturated[l];
      if (frozen) {
        for (uint32_t l : paths[f]) --users[l];
      } else {
        kept.push_back(f);
      }
    }
    active = kept;
  }
  return rates;
}

TEST(Communication, MaxMinFairFlowsRoundAsProgressiveFilling) {
  // Random networks: NICs of a few capacities (equal ones tie), flows over 0-5 of them (a link twice
  // in a path too), caps of a few values, none, or below every share.
  std::mt19937_64 rng(43);
  const auto pick = [&](auto n) { return static_cast<decltype(n)>(rng() % static_cast<uint64_t>(n)); };
  const double kCapacities[] = {12.5, 25, 25, 50, 100.0 / 3};
  const double kCaps[] = {std::numeric_limits<double>::infinity(), 15.75, 24, 1e9, 0.1, 7.0 / 3};
  MaxMinScratch scratch;
  for (int trial = 0; trial < 3000; ++trial) {
    const uint32_t links = 1 + pick(12u), flows = pick(40u);
    std::vector<double> capacities(links), caps(flows);
    for (double& c : capacities) c = kCapacities[pick(std::size(kCapacities))];
    std::vector<std::vector<uint32_t>> paths(flows);
    FlowPaths flat;
    for (uint32_t f = 0; f < flows; ++f) {
      for (uint32_t i = pick(6u); i > 0; --i) paths[f].push_back(pick(links));
      caps[f] = kCaps[pick(std::size(kCaps))];
      flat.add(paths[f]);
    }
    std::vector<double> rates(flows, -1);
    max_min_fair_flows(capacities, flat, caps, rates, scratch);
    const std::vector<double> want = filling_reference(capacities, paths, caps);
    for (uint32_t f = 0; f < flows; ++f)
      ASSERT_EQ(std::bit_cast<uint64_t>(rates[f]), std::bit_cast<uint64_t>(want[f]))
          << "trial " << trial << " flow " << f << ": " << rates[f] << " != " << want[f];
  }
}

TEST(TopologyManager, AdmissionFollowsThePolicy) {
  const NodeTopology& t = topo("a100-80gb-pcie-8x");  // NUMA 0: GPUs 0-3, NUMA 1: 4-7
  const uint32_t spread = 0b00111100;                 // GPUs 2, 3 | 4, 5
  EXPECT_EQ(topology_manager_allows(TopologyPolicy::none, t, spread, 4), spread);
  EXPECT_EQ(topology_manager_allows(TopologyPolicy::best_effort, t, spread, 4), spread);
  EXPECT_FALSE(topology_manager_allows(TopologyPolicy::restricted, t, spread, 4));
  EXPECT_FALSE(topology_manager_allows(TopologyPolicy::single_numa_node, t, spread, 4));
  EXPECT_EQ(topology_manager_allows(TopologyPolicy::restricted, t, 0b11110110, 3), 0b11110000u);
  // Eight GPUs can only span both sockets: restricted admits, single-numa-node never does.
  EXPECT_EQ(topology_manager_allows(TopologyPolicy::restricted, t, 0xFF, 8), 0xFFu);
  EXPECT_FALSE(topology_manager_allows(TopologyPolicy::single_numa_node, t, 0xFF, 8));
  EXPECT_TRUE(topology_manager_admits(TopologyPolicy::restricted, t, 0xFF));
  EXPECT_FALSE(topology_manager_admits(TopologyPolicy::restricted, t, spread));
  EXPECT_TRUE(topology_manager_admits(TopologyPolicy::best_effort, t, spread));
}

// The topology war story: 8 h on NVSwitch, about 26 h spread over two NUMA nodes (SYS), from the
// bandwidths alone; restricted or topology-aware placement lands it on NVLink again.
TEST(TopologyScenarios, WarStory) {
  const auto path = test::source_path("scenarios/topology-war-story.yaml");
  const Scenario base = test::load(path);
  ASSERT_EQ(base.variants.size(), 3u);
  std::map<std::string, Json> by;
  for (const auto& v : base.variants) by[v.name] = test::run(test::load(path, v.overrides));
  const auto hours = [](const Json& j) { return j["multi_gpu"]["jct_s"]["mean"].get<double>() / 3600; };
  EXPECT_NEAR(hours(by["as-deployed"]), 26, 1.0);
  EXPECT_EQ(by["as-deployed"]["multi_gpu"]["slowest_link"]["SYS"], 1);
  for (const char* fixed : {"restricted", "topology"}) {
    EXPECT_NEAR(hours(by[fixed]), 8, 0.25) << fixed;
    EXPECT_EQ(by[fixed]["multi_gpu"]["slowest_link"]["NV12"], 1) << fixed;
    EXPECT_EQ(by[fixed]["jobs_completed"], 9) << fixed;
  }
}

TEST(TopologyScenarios, GangFinishesGreedyDeadlocks) {
  const auto path = test::source_path("scenarios/gang-vs-greedy.yaml");
  const Json gang = test::run(test::load(path));
  const Json greedy = test::run(test::load(path, {"scheduling={gang: false}"}));
  EXPECT_EQ(gang["jobs_completed"], 5);
  EXPECT_EQ(greedy["jobs_completed"], 0);
  EXPECT_EQ(greedy["jobs_pending_at_end"], 5);
  // Every GPU is held by a worker of a job that never starts.
  EXPECT_DOUBLE_EQ(greedy["allocation_ratio"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(greedy["effective_utilization"].get<double>(), 0.0);
}

// Job A runs alone at the NICs' 400 GB/s, at 200 GB/s while B shares node 1's NICs, then alone
// again: its run time is the iterations done at each speed.
TEST(TopologyScenarios, SharedNicSlowsBothJobs) {
  const Scenario s = test::load(test::source_path("scenarios/shared-nic.yaml"));
  auto sched = Registry::global().make(s.policy, policy_context(s), {});
  const RunResult r = simulate(s, *sched);
  const JobRecord& a = r.jobs[0];
  const JobRecord& b = r.jobs[1];
  ASSERT_EQ(a.status, JobStatus::completed);
  ASSERT_EQ(r.placement(JobId(1)).nodes.size(), 2u);
  EXPECT_EQ(link_code(b.link), "NET");
  EXPECT_DOUBLE_EQ(b.link.gb_per_s, 200.0);
  const double compute = 0.15, alone = compute + 2.6e9 / 400e9 * 22.0 / 12, shared = compute + 2.6e9 / 200e9 * 22.0 / 12;
  EXPECT_NEAR((b.end - b.start).seconds(), 50000 * shared, 1e-3);
  const double a_iterations_while_b = (b.end - b.start).seconds() / shared;
  const double a_expected = 3600 + (b.end - b.start).seconds() + (100000 - 3600 / alone - a_iterations_while_b) * alone;
  EXPECT_NEAR(a.end.seconds(), a_expected, 1e-3);
}

// scenarios/nvl72-training.yaml (issue 46): 20,000 steps of 0.5 s compute and an all-reduce of 32 GB
// over 64 GPUs (bus factor 2 x 63 / 64). Inside one NVL72 domain the ring runs at a GPU's NVLink, 900 GB/s;
// across two NVLink partitions over the trays' NICs, 4 x 400 Gb/s = 200 GB/s; on eight HGX B200 nodes
// over their 8 x 400 Gb/s = 400 GB/s.
TEST(TopologyScenarios, NvlinkDomainKeepsTheRingOnNvlink) {
  const double factor = 2.0 * 63 / 64;
  struct Case {
    const char* variant;
    std::vector<std::string> set;  // the variant's
    const char* link;
    double gb_per_s;
    std::size_t domains;
  };
  for (const Case& c : {Case{"one-nvl72-domain", {}, "NV18", 900, 1},
                        Case{"two-nvlink-domains", {"cluster.pools[0].nvlink_domain_nodes=8"}, "NET", 200, 2},
                        Case{"hgx-b200-ib", {"cluster.pools=[{name: blackwell, node: hgx-b200, count: 8}]"}, "NET", 400, 0}}) {
    const Scenario s = test::load(test::source_path("scenarios/nvl72-training.yaml"), c.set);
    const RunResult r = test::simulate_scenario(s);
    const JobRecord& j = r.jobs[0];
    ASSERT_EQ(j.status, JobStatus::completed) << c.variant;
    EXPECT_EQ(link_code(j.link), c.link) << c.variant;
    EXPECT_DOUBLE_EQ(j.link.gb_per_s, c.gb_per_s) << c.variant;
    EXPECT_NEAR((j.end - j.start).seconds(), 20000 * (0.5 + 32e9 * factor / (c.gb_per_s * 1e9)), 1.0) << c.variant;
    if (c.domains == 0) continue;
    // The GB200 trays: nodes 0-15 of the first rack, in one domain (or across the first two partitions).
    std::set<uint32_t> domains;
    for (NodeId n : r.placement(JobId(0)).nodes) domains.insert(n.value() < 18 ? n.value() / (c.domains == 1 ? 18 : 8) : 99);
    EXPECT_EQ(domains.size(), c.domains) << c.variant;
  }
}

// A ComputeDomain (NVIDIA's DRA driver) keeps a job inside one NVLink domain whatever the placement:
// with ten trays of the first rack busy, first-fit spans both racks (its ring over the NICs), the
// job claiming the domain's IMEX channel takes 16 trays of the second rack (over NVLink).
TEST(TopologyScenarios, ComputeDomainHoldsAJobInOneNvlinkDomain) {
  const auto path = test::write_file("s.yaml", R"(
name: compute-domain
cluster:
  pools: [{name: nvl72, node: gb200-nvl72-tray, count: 36}]
tenancy:
  compute_domains:
    - {name: train, channel: {resourceClaimTemplate: {name: imex-channel}}}
workload:
  jobs:
    - {name: filler, workers: 10, gpus: 4, duration: 10h}
    - {name: train, arrival: 1m, gpus: 64, multi_node: true, duration: 1h, kind: training,
       communication: {compute_per_iteration: 0.5, bytes_per_iteration: 3.2e10}}
policy: fifo+first-fit
)");
  for (const bool domain : {false, true}) {
    const Scenario s = test::load(
        path, domain ? std::vector<std::string>{"workload.jobs[1].resource_claims=[imex-channel]"} : std::vector<std::string>{});
    EXPECT_EQ(s.jobs.jobs[1].request.one_nvlink_domain, domain);
    const RunResult r = test::simulate_scenario(s);
    const auto& nodes = r.placement(JobId(1)).nodes;
    ASSERT_EQ(nodes.size(), 16u);
    EXPECT_EQ(nodes.front().value(), domain ? 18u : 10u);
    EXPECT_EQ(link_code(r.jobs[1].link), domain ? "NV18" : "NET") << domain;
  }
}

// EASY backfilling: a notebook that would outlast the waiting job's reservation may not take the
// GPU that reservation needs; under the default (kubernetes) it does and delays the big job.
TEST(Scheduling, BackfillKeepsTheHeadsReservation) {
  const auto path = test::write_file("s.yaml", R"(
name: backfill
cluster:
  pools: [{name: dgx, node: dgx-a100-80gb, count: 2}]
workload:
  jobs:
    - {name: big-a, gpus: 8, kind: training, duration: 6h}
    - {name: half, gpus: 4, kind: training, duration: 3h}
    - {name: big-b, gpus: 8, kind: training, duration: 6h}
    - {name: notebook, arrival: 1h, gpus: 1, kind: notebook, duration: 8h}
    - {name: quick, arrival: 1h, gpus: 1, kind: batch, duration: 1h}
policy: fifo+first-fit
)");
  const auto start_of = [](const Scenario& s, std::size_t job) {
    auto sched = Registry::global().make(s.policy, policy_context(s), {});
    return simulate(s, *sched).jobs[job].start.seconds() / 3600;
  };
  // kubernetes: the notebook starts at once on node 1 and big-b waits for node 0 at 6 h.
  EXPECT_DOUBLE_EQ(start_of(test::load(path), 3), 1.0);
  EXPECT_DOUBLE_EQ(start_of(test::load(path), 2), 6.0);
  // backfill and strict: big-b keeps node 1, free at 3 h; the notebook gets node 0 at 6 h.
  for (const char* mode : {"scheduling.queue=backfill", "scheduling.queue=strict"}) {
    EXPECT_DOUBLE_EQ(start_of(test::load(path, {mode}), 2), 3.0) << mode;
    EXPECT_DOUBLE_EQ(start_of(test::load(path, {mode}), 3), 6.0) << mode;
  }
  // A job that ends before the reservation backfills; strict order holds it back.
  EXPECT_DOUBLE_EQ(start_of(test::load(path, {"scheduling.queue=backfill"}), 4), 1.0);
  EXPECT_DOUBLE_EQ(start_of(test::load(path, {"scheduling.queue=strict"}), 4), 6.0);
}

}  // namespace
}  // namespace gpusim
