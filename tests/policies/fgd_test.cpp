// The FGD paper's fragmentation measure, its placements and its capacity-packing experiment, on
// cases small enough to compute by hand.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "gpusim/sim/fragmentation.hpp"
#include "gpusim/sim/packing.hpp"
#include "run_util.hpp"

using namespace gpusim;
using test::write_file;

namespace {

TaskType type(int64_t cpu, int32_t gpus, int32_t milli, double weight) { return {cpu, gpus, milli, {}, JobId{0}, weight}; }

// A node with 6 CPUs free and GPUs free [1000, 1000, 300, 0] (2,300 milli idle), against
//   A: 4 CPUs, one GPU share of 500, weight 0.5 -> fits; GPUs with < 500 free are fragments: 300
//   B: 8 CPUs, 2 whole GPUs, weight 0.3          -> not enough CPU: all 2,300 idle milli
//   C: CPU only, weight 0.2                       -> uses no GPU: all 2,300
// fragmentation = 0.5 x 300 + 0.3 x 2300 + 0.2 x 2300 = 1,300 milli-GPU.
TEST(Fragmentation, NodeFragmentationByHand) {
  const std::vector<TaskType> types{type(4000, 1, 500, 0.5), type(8000, 2, 1000, 0.3), type(2000, 0, 0, 0.2)};
  const std::vector<int32_t> free{1000, 1000, 300, 0};
  const std::vector<uint8_t> all{1, 1, 1};
  EXPECT_DOUBLE_EQ(node_fragmentation_milli(types, all, 6000, free), 1300);
  // With 8 CPUs free, B fits too (two GPUs with 1,000 free); its fragments are the GPUs with less:
  // 0.5 x 300 + 0.3 x 300 + 0.2 x 2300 = 700.
  EXPECT_DOUBLE_EQ(node_fragmentation_milli(types, all, 8000, free), 700);
  // A task type that may not use this GPU model sees all idle GPU as fragments: A now counts 2,300.
  const std::vector<uint8_t> no_a{0, 1, 1};
  EXPECT_DOUBLE_EQ(node_fragmentation_milli(types, no_a, 8000, free), 0.5 * 2300 + 0.3 * 300 + 0.2 * 2300);
  // Only one GPU with room for B's two whole GPUs: B cannot run, all idle counts.
  const std::vector<int32_t> one_free{1000, 600, 300, 0};
  EXPECT_DOUBLE_EQ(node_fragmentation_milli(types, all, 8000, one_free), 0.5 * 300 + 0.3 * 1900 + 0.2 * 1900);
  EXPECT_DOUBLE_EQ(node_fragmentation_milli(types, all, 8000, std::vector<int32_t>{0, 0}), 0);
}

// Types are counted by request, most frequent first, until they cover the share asked; weights are
// renormalised over the kept ones, and equal counts go to the smaller request.
TEST(Fragmentation, TypicalTaskTypesCoverTheMix) {
  JobSet jobs;
  auto add = [&](int64_t cpu, int32_t gpus, int32_t milli, int n) {
    for (int i = 0; i < n; ++i) {
      Job j;
      j.request.cpu_milli = cpu;
      j.request.gpus = gpus;
      j.request.milli_per_gpu = Milli{milli};
      jobs.jobs.push_back(j);
    }
  };
  add(1000, 1, 500, 6);
  add(2000, 1, 1000, 3);
  add(4000, 0, 0, 1);
  jobs.finalize();
  const auto all = typical_task_types(jobs, 1.0);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_DOUBLE_EQ(all[0].weight, 0.6);
  EXPECT_EQ(all[1].milli_per_gpu, 1000);
  const auto most = typical_task_types(jobs, 0.9);  // 6 + 3 = 9 of 10 jobs cover 90%
  ASSERT_EQ(most.size(), 2u);
  EXPECT_DOUBLE_EQ(most[0].weight, 6.0 / 9.0);
  EXPECT_DOUBLE_EQ(most[1].weight, 3.0 / 9.0);
}

// Node 0 of two 4-GPU L4 nodes runs a 600-milli pod on GPU 0 (400 free); node 1 is empty.
std::string half_full(const std::string& probe) {
  return "name: h\ncluster: {pools: [{name: p, node: l4-4x, count: 2, sharing: fractional}]}\n"
         "workload:\n  jobs:\n    - {name: resident, gpus: 1, gpu_milli: 600, duration: 100}\n"
         "    - {name: probe, " +
         probe + ", duration: 10, arrival: 1}\n";
}

Placement probe(const std::string& policy, const std::string& request) {
  const Scenario s = test::load(write_file("fgd.yaml", half_full(request)));
  auto sched = Registry::global().make(policy, policy_context(s), {});
  return simulate(s, *sched).placement(JobId(1)).copy();
}

const char* kShare = "gpus: 1, gpu_milli: 300";
const char* kWhole = "gpus: 1";

// FGD against the two task types of this workload (600 and 300 milli, weight 0.5 each):
// node 0 now [400,1000,1000,1000]: the 600 type cannot use GPU 0 -> 0.5 x 400 = 200.
//   300 on GPU 0 -> [100,...]: both types lose GPU 0's 100 -> 100: growth -100 (the best)
//   300 on GPU 1 -> [400,700,...]: still 200: growth 0
// node 1 [1000 x 4]: 0 -> 300 anywhere leaves 700, usable by both: growth 0.
TEST(FgdPlacement, ShareGoesWhereFragmentationFallsMost) {
  const Placement p = probe("fifo+fgd", kShare);
  EXPECT_EQ(p.nodes, std::vector<NodeId>{NodeId{0}});
  EXPECT_EQ(p.gpus, std::vector<GpuId>{GpuId{0}});
}

// A whole GPU (types 600 and 1000 milli): node 0 keeps 400 of fragments either way (growth 0), and
// so does node 1 (0 before and after): a tie, which goes to the lower node id; any free GPU there.
TEST(FgdPlacement, WholeGpuTieGoesToTheLowerNode) {
  const Placement p = probe("fifo+fgd", kWhole);
  EXPECT_EQ(p.nodes, std::vector<NodeId>{NodeId{0}});
  EXPECT_EQ(p.gpus, std::vector<GpuId>{GpuId{1}});
}

// The artifact's integer score: floor(100 x sigmoid(-growth / 1000 milli-GPU)).
TEST(FgdPlacement, IntegerScoreIsTheArtifactsSigmoid) {
  EXPECT_EQ(fgd_integer_score(0), 50);
  EXPECT_EQ(fgd_integer_score(-1000), 73);  // 100 / (1 + e^-1) = 73.1
  EXPECT_EQ(fgd_integer_score(1000), 26);   // 26.9
  EXPECT_EQ(fgd_integer_score(-30), 50);    // 50.7: a fall of 30 milli-GPU scores as no change
  EXPECT_EQ(fgd_integer_score(39), 49);     // 49.03
}

// A CPU-only job fills node 0's CPUs until t=5, so the resident share (600) lands on node 1, GPU 4.
// At t=10 a 45-milli probe arrives; the mix is the three jobs, a third each. The CPU-only type counts
// all idle GPU as fragments, the 600 type a GPU with less than 600 free, the 45 type none here:
//   node 0 [1000 x 4]: 4000/3 -> 3955/3 anywhere: growth -15
//   node 1 [400, 1000 x 3]: (3400 + 400)/3; on GPU 4 -> (3355 + 355)/3: growth -30; on GPU 5 -15
// Exact FGD takes GPU 4; the integer score rates -30 and -15 both 50, and the tie goes to node 0.
TEST(FgdPlacement, IntegerScoreTiesSmallDifferences) {
  const std::string text = "name: q\ncluster: {pools: [{name: p, node: l4-4x, count: 2, sharing: fractional}]}\n"
                           "workload:\n  jobs:\n"
                           "    - {name: cpu-hog, gpus: 0, cpu_milli: 48000, duration: 5}\n"
                           "    - {name: resident, gpus: 1, gpu_milli: 600, cpu_milli: 1000, duration: 100, arrival: 1}\n"
                           "    - {name: probe, gpus: 1, gpu_milli: 45, cpu_milli: 1000, duration: 10, arrival: 10}\n";
  const auto placed = [&](const std::string& score) {
    const Scenario s = test::load(
        write_file("fgd-integer.yaml", text + "policy: {name: fifo+fgd, params: {fgd_score: " + score + "}}\n"));
    auto sched = Registry::global().make(s.policy, policy_context(s), {});
    const RunResult r = simulate(s, *sched);
    EXPECT_EQ(r.placement(JobId(1)).copy().gpus, std::vector<GpuId>{GpuId{4}});
    return r.placement(JobId(2)).copy().gpus;
  };
  EXPECT_EQ(placed("exact"), std::vector<GpuId>{GpuId{4}});
  EXPECT_EQ(placed("integer"), std::vector<GpuId>{GpuId{0}});
}

// GPU packing: node 0 can take the share on a GPU in use (score 100 - 40% free / 10 = 96) and node 1
// is idle (max(33 - 4, 4) = 29): node 0, its used GPU. A whole GPU on node 0 takes a free GPU of a
// used node (50 - 1 = 49), still above the idle node.
TEST(Placements, GpuPackingPrefersUsedGpusThenUsedNodes) {
  EXPECT_EQ(probe("fifo+gpu-packing", kShare).gpus, std::vector<GpuId>{GpuId{0}});
  const Placement whole = probe("fifo+gpu-packing", kWhole);
  EXPECT_EQ(whole.nodes, std::vector<NodeId>{NodeId{0}});
  EXPECT_EQ(whole.gpus, std::vector<GpuId>{GpuId{1}});
}

// GPU clustering: a share joins node 0, which runs only shares (75 + 25 x 4600 / 8000 = 89 against
// the idle node's 25 + 12 = 37); a whole GPU avoids it (another class only: 0 + 14) for the idle node.
TEST(Placements, GpuClusteringKeepsGpuClassesTogether) {
  EXPECT_EQ(probe("fifo+gpu-clustering", kShare).nodes, std::vector<NodeId>{NodeId{0}});
  EXPECT_EQ(probe("fifo+gpu-clustering", kWhole).nodes, std::vector<NodeId>{NodeId{1}});
}

// Dot product of free (over capacity) and asked (over capacity), GPU dimension only here (no CPU
// asked): node 0 0.075 x 0.85, node 1 0.075 x 1.0; the smaller wins, then the tightest GPU.
TEST(Placements, DotProductPrefersTheNodeWithLessOfWhatTheJobUses) {
  const Placement p = probe("fifo+dot-product", kShare);
  EXPECT_EQ(p.nodes, std::vector<NodeId>{NodeId{0}});
  EXPECT_EQ(p.gpus, std::vector<GpuId>{GpuId{0}});
}

// Packing: 500-milli pods onto one 4-GPU node. Until 1.5 x capacity, 12 pods arrive; 8 fit, 4 fail.
// Against the only task type (500), an idle GPU with 500 or more free is no fragment.
TEST(Packing, ArrivalOnlyUntilTheDemandMultiple) {
  const std::string text = "name: pack\nseed: 3\ncluster: {pools: [{name: p, node: l4-4x, count: 1, sharing: fractional}]}\n"
                           "workload:\n  packing: {until: 1.5}\n  jobs:\n    - {name: a, gpus: 1, gpu_milli: 500, duration: 1}\n"
                           "    - {name: b, gpus: 1, gpu_milli: 500, duration: 1}\n";
  const Scenario s = test::load(write_file("pack.yaml", text));
  ASSERT_TRUE(s.packing);
  EXPECT_EQ(s.packing->capacity_milli, 4000u);
  EXPECT_EQ(s.jobs.jobs.size(), 12u);
  auto sched = Registry::global().make("fifo+first-fit", policy_context(s), {});
  const PackingResult r = run_packing(s, *sched);
  ASSERT_EQ(r.checkpoints.size(), 151u);  // 0% .. 150%
  const PackingCheckpoint& half = r.checkpoints[50];
  EXPECT_EQ(half.arrived_pods, 4u);
  EXPECT_DOUBLE_EQ(half.allocation_ratio, 0.5);
  EXPECT_DOUBLE_EQ(half.frag_ratio, 0.0);  // first-fit filled GPUs 0 and 1; 2 and 3 are whole
  const PackingCheckpoint& full = r.checkpoints[100];
  EXPECT_EQ(full.failed_pods, 0u);
  EXPECT_DOUBLE_EQ(full.allocation_ratio, 1.0);
  const PackingCheckpoint& last = r.checkpoints[150];
  EXPECT_EQ(last.arrived_pods, 12u);
  EXPECT_EQ(last.failed_pods, 4u);
  // Spread puts the first four pods on four GPUs: each keeps 500, still usable: no fragments.
  auto spread = Registry::global().make("fifo+spread", policy_context(s), {});
  EXPECT_DOUBLE_EQ(run_packing(s, *spread).checkpoints[50].frag_ratio, 0.0);
}

// The trace's 24 pod lists (default, cpu0 and the eight cpuNNN, gpushareNN, gpuspecNN, multigpuNN; the
// multigpu ones have five columns and no times) load as packing workloads and run under FGD. data/ carries only
// the default list: the test runs where the data directory GPUSIM_DATA has them all (CI sets it).
TEST(Packing, EveryOpenbPodListRuns) {
  const char* env = std::getenv("GPUSIM_DATA");
  if (env == nullptr || *env == '\0') GTEST_SKIP() << "GPUSIM_DATA is not set";
  const std::filesystem::path dir = env;
  if (!std::filesystem::exists(dir / "alibaba-gpu-v2023-openb" / "openb_pod_list_multigpu50.csv"))
    GTEST_SKIP() << "the openb pod lists are not at " << dir;
  std::vector<std::string> lists;
  for (const auto& e : std::filesystem::directory_iterator(dir / "alibaba-gpu-v2023-openb"))
    if (e.path().filename().string().starts_with("openb_pod_list_")) lists.push_back(e.path().filename().string());
  std::sort(lists.begin(), lists.end());
  EXPECT_EQ(lists.size(), 24u);
  for (const auto& list : lists) {
    const Scenario s = load_scenario(test::source_path("scenarios/fgd-openb.yaml"),
                                     {{"workload.traces[0].path=alibaba-gpu-v2023-openb/" + list}, dir.string(), {}, {}});
    auto sched = Registry::global().make("fifo+fgd", policy_context(s), {});
    const PackingResult r = run_packing(s, *sched);
    ASSERT_EQ(r.checkpoints.size(), 131u) << list;
    EXPECT_GT(r.checkpoints[130].allocation_ratio, 0.8) << list;
    EXPECT_LE(r.checkpoints[130].allocation_ratio, 1.0) << list;
  }
}

}  // namespace

namespace {
// ties: random draws among the nodes with the top score (spread scores the idle nodes alike), from
// the seeded stream placement/ties: every node gets used, the same ones each run.
TEST(Placements, RandomTiesAreSeededAndSpreadOverTiedNodes) {
  const char* text = R"(
name: ties
seed: 9
cluster: {pools: [{name: p, node: l4-4x, count: 4}]}
workload:
  jobs:
    - {name: a, gpus: 1, duration: 10}
    - {name: b, gpus: 1, duration: 10, arrival: 1}
    - {name: c, gpus: 1, duration: 10, arrival: 2}
    - {name: d, gpus: 1, duration: 10, arrival: 3}
    - {name: e, gpus: 1, duration: 10, arrival: 4}
    - {name: f, gpus: 1, duration: 10, arrival: 5}
policy: {name: fifo+spread, params: {ties: random}}
)";
  const Scenario s = test::load(write_file("ties.yaml", text));
  auto first = Registry::global().make(s.policy, policy_context(s), {});
  auto again = Registry::global().make(s.policy, policy_context(s), {});
  const RunResult a = simulate(s, *first), b = simulate(s, *again);
  std::set<NodeId> used;
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_EQ(a.placement(JobId(i)).copy().nodes, b.placement(JobId(i)).copy().nodes);
    used.insert(a.placement(JobId(i)).nodes.front());
  }
  EXPECT_EQ(used.size(), 4u);  // spread alone fills node 0, 1, 2, 3 in order; ties still reach all four
  const Scenario odd = test::load(write_file("ties-bad.yaml", "name: t\ncluster: {pools: [{name: p, node: l4-4x, count: 1}]}\n"
                                                              "workload: {jobs: [{name: a, gpus: 1, duration: 1}]}\n"
                                                              "policy: {name: fifo+best-fit, params: {ties: sometimes}}\n"));
  const std::string msg = test::input_error([&] { Registry::global().make(odd.policy, policy_context(odd), odd.policy_where); });
  EXPECT_NE(msg.find("line 4: policy.params.ties: expected lowest-id, random or order, got 'sometimes'"), std::string::npos)
      << msg;
}
}  // namespace

namespace {
// ties: order ranks the nodes once by a seeded permutation and gives every tie to the tied node of
// lowest rank. Spread scores the idle nodes alike and a used node worse, so the k-th job lands on the
// node of rank k: the four jobs visit the four nodes in rank order.
TEST(Placements, OrderTiesGoToTheLowestRank) {
  const std::string text =
      "name: order\nseed: 5\ncluster: {pools: [{name: p, node: l4-4x, count: 4}]}\nworkload:\n  jobs:\n"
      "    - {name: a, gpus: 1, duration: 10}\n    - {name: b, gpus: 1, duration: 10, arrival: 1}\n"
      "    - {name: c, gpus: 1, duration: 10, arrival: 2}\n    - {name: d, gpus: 1, duration: 10, arrival: 3}\n"
      "policy: {name: fifo+spread, params: {ties: order}}\n";
  const Scenario s = test::load(write_file("order.yaml", text));
  auto placement = Registry::global().make_placement("spread", policy_context(s), {});
  auto sched = Registry::global().make(s.policy, policy_context(s), {});
  const RunResult r = simulate(s, *sched);
  std::set<uint32_t> ranks;
  for (uint32_t k = 0; k < 4; ++k) {
    const NodeId n = r.placement(JobId(k)).nodes.front();
    // A second placement from the same context draws the same order.
    EXPECT_EQ(placement->rank(r.cluster, n), k) << "job " << k;
    ranks.insert(placement->rank(r.cluster, n));
  }
  EXPECT_EQ(ranks.size(), 4u);
}

// A replayed run: pods arrive in the order file's order (names repeat for pods drawn again) and ties
// go to the rank file's order (p-2, p-0, p-1), not to the seeded one nor the lowest id. Spread takes
// the node left with the most free GPU (then CPU) and the emptiest GPUs inside it (lowest index on ties):
//   half  -> all idle, a tie: p-2 (rank 0), GPU 0                    p-2: 500 of 4,000 milli used
//   whole -> p-0 and p-1 idle, a tie: p-0 (rank 1), GPUs 0+1        p-0: 2,000 used
//   big   -> only p-1 holds 4 GPUs: p-1, GPUs 0-3                    p-1: full
//   whole -> p-2 keeps 1.5 GPUs (0.375 of 4) against p-0's 0: p-2, whole GPUs 1+2
//   half  -> p-0 keeps 1.5 GPUs against p-2's 1.0: p-0, GPU 2 (free 1,000, like GPU 3: lowest index)
//   half  -> p-2 and p-0 both hold 1.5 GPUs and two pods, a tie: p-2 (rank 0; lowest id: p-0), GPU 3
//   big   -> no node has 4 free GPUs: failed
TEST(Packing, ReplaysAnOrderAndNodeRanksFromFiles) {
  write_file("order.csv", "pod\nhalf\nwhole\nbig\nwhole\nhalf\nhalf\nbig\n");
  write_file("ranks.csv", "node,rank\np-0,1\np-1,2\np-2,0\n");
  const Scenario s = test::load(write_file(
      "replay.yaml", "name: replay\nseed: 3\ncluster: {pools: [{name: p, node: l4-4x, count: 3, sharing: fractional}]}\n"
                     "workload:\n  packing: {until: 1.0, order: order.csv, node_ranks: ranks.csv}\n  jobs:\n"
                     "    - {name: half, gpus: 1, gpu_milli: 500, cpu_milli: 1000, duration: 1}\n"
                     "    - {name: whole, gpus: 2, cpu_milli: 1000, duration: 1}\n"
                     "    - {name: big, gpus: 4, cpu_milli: 1000, duration: 1}\n"
                     "policy: fifo+spread\n"));
  ASSERT_TRUE(s.packing);
  EXPECT_EQ(s.packing->originals, 3u);  // the pods before the first repeated name
  auto sched = Registry::global().make(s.policy, policy_context(s), {});
  const PackingResult r = run_packing(s, *sched, true);
  std::ostringstream csv;
  write_pod_placements(csv, r.placements);
  EXPECT_EQ(csv.str(),
            "pod,node,gpus\nhalf,p-2,0\nwhole,p-0,0+1\nbig,p-1,0+1+2+3\nwhole,p-2,1+2\nhalf,p-0,2\nhalf,p-2,3\nbig,,\n");
}

// The artifact's tuning: the original pods (here a share and a CPU-only pod) come first, then pods
// drawn from them are appended while the demand plus the drawn pod's per-GPU share stays within the
// target (1.0 x 4,000 milli): the share pod is appended until eight of them ask 4,000, CPU-only pods
// pass the test at any demand, and no share pod past the target.
TEST(Packing, ArtifactTuningAppendsDrawnPods) {
  const std::string head = "name: tune\nseed: 11\ncluster: {pools: [{name: p, node: l4-4x, count: 1, sharing: fractional}]}\n";
  const Scenario s = test::load(write_file(
      "tune.yaml", head +
                       "workload:\n  packing: {until: 1.0}\n  jobs:\n    - {name: share, gpus: 1, gpu_milli: 500, duration: 1}\n"
                       "    - {name: cpu, gpus: 0, cpu_milli: 1000, duration: 1}\n"));
  ASSERT_TRUE(s.packing);
  EXPECT_EQ(s.packing->originals, 2u);
  std::set<std::string> first{s.jobs.jobs[0].name, s.jobs.jobs[1].name};
  EXPECT_EQ(first, (std::set<std::string>{"share", "cpu"}));
  int64_t asked = 0, shares = 0;
  for (const Job& j : s.jobs.jobs) {
    asked += j.request.gpus * j.request.milli_per_gpu.value;
    shares += j.request.gpus;
  }
  EXPECT_EQ(asked, 4000);
  EXPECT_EQ(shares, 8);
  // The stop test reads the per-GPU share: a 2-GPU pod (2,000 milli) against 1.3 x 4,000 = 5,200 is
  // drawn at 2,000 (+1,000 <= 5,200) and 4,000 (+1,000 <= 5,200) and stops at 6,000: three pods.
  const Scenario multi = test::load(write_file(
      "tune-multi.yaml", head + "workload:\n  packing: {until: 1.3}\n  jobs:\n    - {name: two, gpus: 2, duration: 1}\n"));
  EXPECT_EQ(multi.jobs.jobs.size(), 3u);
  // tuning: passes keeps the earlier workload: whole shuffled passes, cut where the demand reaches 1.3 x.
  const Scenario passes = test::load(write_file(
      "tune-passes.yaml",
      head + "workload:\n  packing: {until: 1.3, tuning: passes}\n  jobs:\n    - {name: two, gpus: 2, duration: 1}\n"));
  EXPECT_EQ(passes.jobs.jobs.size(), 3u);
  EXPECT_EQ(passes.packing->originals, 3u);
}

// A packing run defaults to the artifact's rules: the same placements as with them asked for
// (`fgd_score: integer, ties: order`), and other ones than gpusim's own (`exact`, `lowest-id`).
TEST(Packing, DefaultsToTheArtifactsRules) {
  const std::string head = "name: q\nseed: 2\ncluster: {pools: [{name: p, node: l4-4x, count: 3, sharing: fractional}]}\n"
                           "workload:\n  packing: {until: 1.2}\n  jobs:\n"
                           "    - {name: resident, gpus: 1, gpu_milli: 600, cpu_milli: 1000, duration: 1}\n"
                           "    - {name: probe, gpus: 1, gpu_milli: 45, cpu_milli: 1000, duration: 1}\n"
                           "    - {name: whole, gpus: 2, cpu_milli: 1000, duration: 1}\n";
  const auto nodes = [&](const std::string& policy) {
    const Scenario s = test::load(write_file("pack-rules.yaml", head + "policy: " + policy + "\n"));
    auto sched = Registry::global().make(s.policy, policy_context(s), {});
    const RunResult r = run_packing(s, *sched).run;
    std::vector<std::vector<GpuId>> out;
    for (std::size_t i = 0; i < r.jobs.size(); ++i) out.push_back(r.placement(JobId(i)).copy().gpus);
    return out;
  };
  const auto defaults = nodes("fifo+fgd");
  EXPECT_EQ(defaults, nodes("{name: fifo+fgd, params: {fgd_score: integer, ties: order}}"));
  EXPECT_NE(defaults, nodes("{name: fifo+fgd, params: {fgd_score: exact, ties: lowest-id}}"));
}
}  // namespace

namespace {
// The artifact's integer scores of best-fit and dot-product (the defaults of a packing run), on two
// 4-GPU L4 nodes (48 CPUs): a CPU-only job holds 14 CPUs of p-0, a whole GPU is held on p-1; a
// 100-milli share with 1 CPU arrives.
//   best-fit, exact (own capacity): leftover p-0 33/48 + 3.9/4 = 1.663, p-1 47/48 + 2.9/4 = 1.704: p-0.
//   best-fit, integer (128 CPUs, 8 GPUs, half each): p-0 floor(100 x (1 - 33/256 - 3.9/16)) = 62,
//     p-1 floor(100 x (1 - 47/256 - 2.9/16)) = 63, higher better: p-1.
//   dot-product, exact: p-0 (1/48 x 34/48 + 0.1/4 x 4/4) / 2 = 0.01988, p-1 (1/48 + 0.1/4 x 3/4) / 2
//     = 0.01979, lower better: p-1.
//   dot-product, integer: p-0 floor(100 x (1 - (1/128 x 34/128 + 0.1/8 x 4/8) / 2)) = 99, p-1
//     floor(100 x (1 - (1/128 x 48/128 + 0.1/8 x 3/8) / 2)) = 99: a tie, to the lowest id: p-0.
TEST(Placements, ArtifactIntegerScoresOfBestFitAndDotProduct) {
  const std::string head =
      "name: s\ncluster: {pools: [{name: p, node: l4-4x, count: 2, sharing: fractional}]}\nworkload:\n  jobs:\n"
      "    - {name: a, gpus: 0, cpu_milli: 14000, duration: 100, node: p-0}\n"
      "    - {name: b, gpus: 1, cpu_milli: 0, duration: 100, node: p-1}\n"
      "    - {name: probe, gpus: 1, gpu_milli: 100, cpu_milli: 1000, duration: 10, arrival: 1}\n";
  const auto node_of_probe = [&](const std::string& policy) {
    const Scenario s = test::load(write_file("scores.yaml", head + "policy: " + policy + "\n"));
    auto sched = Registry::global().make(s.policy, policy_context(s), {});
    return simulate(s, *sched).placement(JobId(2)).nodes.front();
  };
  EXPECT_EQ(node_of_probe("{name: fifo+best-fit, params: {best_fit_score: exact}}"), NodeId{0});
  EXPECT_EQ(node_of_probe("{name: fifo+best-fit, params: {best_fit_score: integer}}"), NodeId{1});
  EXPECT_EQ(node_of_probe("{name: fifo+dot-product, params: {dot_score: exact}}"), NodeId{1});
  EXPECT_EQ(node_of_probe("{name: fifo+dot-product, params: {dot_score: integer}}"), NodeId{0});
}
}  // namespace
