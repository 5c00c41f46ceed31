// DRA claims (sim/dra.hpp) on small fleets, worked by hand: which devices a request's selectors
// accept on each pool (PoolSpec::device_match: bit 0 a whole GPU, bit 1 + i MIG profile i), which
// pools a job may use (its shape's pool mask), where it runs, and bad input.
#include <gtest/gtest.h>

#include "gpusim/sim/world.hpp"
#include "run_util.hpp"

using namespace gpusim;
using test::write_file;

namespace {

// Pools 0..4: T4 (16 GiB), L4 (24 GiB), A100-40GB (40960 MiB = 40 GiB), A100-80GB (80 GiB), and an
// A100-80GB pool whose GPUs are all MIG (all-1g.10gb), one 8-GPU (or 4-GPU for L4) node each.
const std::string kFleet = "name: dra\n"
                           "cluster:\n  pools:\n"
                           "    - {name: t4, node: t4-8x, count: 1}\n"
                           "    - {name: l4, node: l4-4x, count: 1}\n"
                           "    - {name: a40, node: dgx-a100-40gb, count: 1}\n"
                           "    - {name: a80, node: dgx-a100-80gb, count: 1}\n"
                           "    - {name: mig, node: dgx-a100-80gb, count: 1, mig: {strategy: mixed, config: all-1g.10gb}}\n";

// NVIDIA's own DeviceClasses (deployments/helm/.../deviceclass-gpu.yaml, deviceclass-mig.yaml).
const std::string kClasses = "tenancy:\n  device_classes:\n"
                             "    - {name: gpu.nvidia.com, selectors: \"device.driver == 'gpu.nvidia.com' && "
                             "device.attributes['gpu.nvidia.com'].type == 'gpu'\"}\n"
                             "    - {name: mig.nvidia.com, selectors: \"device.driver == 'gpu.nvidia.com' && "
                             "device.attributes['gpu.nvidia.com'].type == 'mig'\"}\n"
                             "    - {name: any.nvidia.com, selectors: \"device.driver == 'gpu.nvidia.com'\"}\n";

Scenario load(const std::string& templates, const std::string& jobs, const std::string& policy = "fifo+first-fit") {
  return test::load(write_file("dra.yaml", kFleet + kClasses + "  resource_claim_templates:\n" + templates +
                                               "workload:\n  jobs:\n" + jobs + "policy: " + policy + "\n"));
}

std::string load_error(const std::string& templates, const std::string& jobs) {
  return test::input_error([&] { load(templates, jobs); });
}

uint64_t pool_mask(const Scenario& s, uint32_t job) { return build_world(s).shapes.of_job(JobId{job}).pool_mask; }

std::string pool_ran_on(const Scenario& s, const RunResult& r, uint32_t job) {
  const PlacementView p = r.placement(JobId{job});
  return p.nodes.empty() ? "" : s.pools[r.cluster.node(p.nodes[0]).pool].name;
}

// One A100-80GB node whose GPUs are partitionable (mig: {partitionable: true}), for the tests below.
const std::string kPartitionable =
    "name: dra\ncluster:\n  pools:\n    - {name: part, node: dgx-a100-80gb, count: 1, mig: {partitionable: true}}\n";

// The device a job held on its (first) GPU: "<gpu id>:<profile>@<start>", or "<gpu id>:whole".
std::string device_of(const Scenario& s, const RunResult& r, uint32_t job) {
  const PlacementView p = r.placement(JobId{job});
  if (p.mig.empty()) return fmt::format("{}:whole", p.gpus[0].value());
  const MigTable& t = *s.pools[r.cluster.node(p.nodes[0]).pool].gpu->mig;
  return fmt::format("{}:{}@{}", p.gpus[0].value(), t.profiles[p.mig[0].profile].name, p.mig[0].start);
}

const std::string k40 = "    - name: big\n      requests:\n        - {name: gpu, device_class: gpu.nvidia.com, selectors: "
                        "\"device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0\"}\n";

}  // namespace

// "Any GPU with at least 40 GB", which the device plugin cannot express: nvidia.com/gpu is any GPU,
// and a node selector must list products. By hand: T4 16 GiB and L4 24 GiB fail; A100-40GB
// (40960 MiB = 40 GiB, compareTo 0) and A100-80GB pass; the all-MIG pool publishes no whole GPU
// (and the gpu class takes none of its MIG devices). Pool mask 0b01100. The same job on
// nvidia.com/gpu may use the four whole-GPU pools (0b01111), and first-fit puts it on the T4.
TEST(Dra, AnyGpuWithAtLeast40GbOnAMixedFleet) {
  const Scenario s = load(k40, "    - {name: dra, gpus: 1, duration: 1h, resource_claims: big}\n"
                               "    - {name: plugin, gpus: 1, duration: 1h}\n");
  EXPECT_EQ(s.pools[0].device_match, std::vector<uint64_t>{0});  // T4: no MIG, whole GPU rejected
  EXPECT_EQ(s.pools[2].device_match, std::vector<uint64_t>{1});  // A100-40GB whole GPU only
  EXPECT_EQ(s.pools[3].device_match, std::vector<uint64_t>{1});
  EXPECT_EQ(pool_mask(s, 0), 0b01100u);
  EXPECT_EQ(pool_mask(s, 1), 0b01111u);
  const RunResult r = test::simulate_scenario(s);
  EXPECT_EQ(pool_ran_on(s, r, 0), "a40");
  EXPECT_EQ(pool_ran_on(s, r, 1), "t4");
  EXPECT_EQ(r.jobs[0].status, JobStatus::completed);
}

// The same request on the any.nvidia.com class also takes MIG devices with 40 GiB: on the A100-80GB
// profiles (0 1g.10gb 9728 MiB, 1 1g.10gb+me, 2 1g.20gb 19968, 3 2g.20gb, 4 3g.40gb 40192,
// 5 4g.40gb 40192, 6 7g.80gb 80896) only 7g.80gb reaches 40960 MiB: bits 0 (whole) and 1 + 6.
TEST(Dra, MigDevicesBySizeAndProfile) {
  const Scenario s = load("    - name: big-any\n      requests:\n        - {name: d, device_class: any.nvidia.com, selectors: "
                          "\"device.capacity['gpu.nvidia.com'].memory >= quantity('40Gi')\"}\n"
                          "    - name: three-g\n      requests:\n        - {name: d, device_class: mig.nvidia.com, selectors: "
                          "\"device.attributes['gpu.nvidia.com'].profile == '3g.40gb'\"}\n"
                          "    - name: twenty\n      requests:\n        - {name: d, device_class: mig.nvidia.com, selectors: "
                          "\"device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('20Gi'))\"}\n"
                          "    - name: small-sms\n      requests:\n        - {name: d, device_class: mig.nvidia.com, selectors: "
                          "[\"device.capacity['gpu.nvidia.com'].multiprocessors.isLessThan(quantity('20'))\", "
                          "\"!device.attributes['gpu.nvidia.com'].profile.endsWith('+me')\"]}\n",
                          "    - {name: j, gpus: 1, duration: 1h, resource_claims: twenty}\n");
  const std::vector<uint64_t>& m = s.pools[4].device_match;
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0], 0b10000001u);  // whole GPU and 7g.80gb
  EXPECT_EQ(m[1], 0b00100000u);  // 3g.40gb only
  EXPECT_EQ(m[2], 0b11100000u);  // above 20 GiB = 20480 MiB: 3g.40gb, 4g.40gb, 7g.80gb (1g.20gb has 19968)
  EXPECT_EQ(m[3], 0b00001010u);  // 14 SMs without +me: 1g.10gb and 1g.20gb
  // The A100-40GB's 7g.40gb has 40448 MiB < 40 GiB: its whole GPU alone.
  EXPECT_EQ(s.pools[2].device_match[0], 1u);
  // The all-1g.10gb layout has no instance above 20 GiB: the claim waits under a static layout; the
  // MIG-aware placement repartitions a GPU for the smallest profile that serves it (3g.40gb) and
  // it runs there (its whole-GPU pools are refused: the mig class takes no whole GPU).
  EXPECT_EQ(pool_mask(s, 0), 0b10000u);
  auto sched = Registry::global().make("fifo+mig-aware", policy_context(s), s.policy_where);
  const RunResult r = simulate(s, *sched);
  EXPECT_EQ(r.jobs[0].status, JobStatus::completed);
  ASSERT_EQ(r.placement(JobId{0}).mig.size(), 1u);
  EXPECT_EQ(s.pools[4].gpu->mig->profiles[r.placement(JobId{0}).mig[0].profile].name, "3g.40gb");
}

// allocationMode All: every matching device of a node. A100-80GB whole GPUs: 8 per node (the MIG
// pool has none); 1g.10gb MIG devices: the all-1g.10gb node has 8 x 7, but a job holds one device
// per GPU in gpusim (the fit rules), so 8.
TEST(Dra, AllocationModeAllTakesEveryMatchingDeviceOfANode) {
  const Scenario s = load(
      "    - name: all-80\n      requests:\n        - {name: d, device_class: gpu.nvidia.com, allocation_mode: All, selectors: "
      "\"device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A100-SXM4-80GB'\"}\n"
      "    - name: all-1g\n      requests:\n        - {name: d, device_class: mig.nvidia.com, allocation_mode: All, selectors: "
      "\"device.attributes['gpu.nvidia.com'].profile in ['1g.10gb']\"}\n",
      "    - {name: whole, gpus: 1, duration: 1h, resource_claims: all-80}\n"
      "    - {name: slices, gpus: 1, duration: 1h, resource_claims: all-1g}\n");
  EXPECT_EQ(s.jobs.jobs[0].request.gpus, 8);
  EXPECT_EQ(s.jobs.jobs[1].request.gpus, 8);
  EXPECT_EQ(pool_mask(s, 0), 0b01000u);
  const RunResult r = test::simulate_scenario(s);
  EXPECT_EQ(r.jobs[0].status, JobStatus::completed);
  EXPECT_EQ(r.jobs[1].status, JobStatus::completed);
  EXPECT_EQ(r.placement(JobId{1}).gpus.size(), 8u);
}

// Templates by namespace: one in the job's namespace wins over one for every namespace.
TEST(Dra, TemplatesAreLookedUpInTheJobsNamespace) {
  const Scenario s = load(
      "    - name: t\n      requests: [{name: d, device_class: gpu.nvidia.com, selectors: "
      "\"device.attributes['gpu.nvidia.com'].productName == 'Tesla T4'\"}]\n"
      "    - name: t\n      namespace: research\n      requests: [{name: d, device_class: gpu.nvidia.com, count: 2, selectors: "
      "\"device.attributes['gpu.nvidia.com'].productName == 'NVIDIA L4'\"}]\n",
      "    - {name: a, gpus: 1, duration: 1h, resource_claims: t}\n"
      "    - {name: b, gpus: 2, duration: 1h, namespace: research, resource_claims: [t]}\n");
  EXPECT_EQ(pool_mask(s, 0), 0b00001u);
  EXPECT_EQ(pool_mask(s, 1), 0b00010u);
}

TEST(Dra, BadInputNamesTheFieldAndWhatWasExpected) {
  const std::string job = "    - {name: j, gpus: 1, duration: 1h, resource_claims: big}\n";
  EXPECT_NE(load_error("    - name: big\n      requests: [{name: d, device_class: nope}]\n", job)
                .find("tenancy.resource_claim_templates[0].requests[0].device_class: unknown DeviceClass 'nope'; expected one of "
                      "tenancy.device_classes: gpu.nvidia.com, mig.nvidia.com, any.nvidia.com"),
            std::string::npos);
  EXPECT_NE(load_error(k40, "    - {name: j, gpus: 1, duration: 1h, resource_claims: small}\n")
                .find("workload.jobs[0].resource_claims: job j: unknown ResourceClaimTemplate 'small' in namespace default; "
                      "expected one of tenancy.resource_claim_templates: big"),
            std::string::npos);
  EXPECT_NE(load_error("    - name: big\n      requests: [{name: d, device_class: gpu.nvidia.com, selectors: "
                       "\"device.capacity['gpu.nvidia.com'].memory >= quantity('40 Gi')\"}]\n",
                       job)
                .find("tenancy.resource_claim_templates[0].requests[0].selectors: column 54: expected a Kubernetes quantity"),
            std::string::npos);
  EXPECT_NE(load_error("    - name: big\n      requests: [{name: d, device_class: gpu.nvidia.com, count: 0}]\n", job)
                .find("tenancy.resource_claim_templates[0].requests[0].count"),
            std::string::npos);
  EXPECT_NE(load_error(k40, "    - {name: j, gpus: 2, duration: 1h, resource_claims: big}\n")
                .find("workload.jobs[0].gpus: job j: its ResourceClaimTemplate 'big' asks 1 device(s) per pod (request 'gpu'); "
                      "expected gpus: 1, got 2"),
            std::string::npos);
  EXPECT_NE(load_error(k40, "    - {name: j, gpus: 1, duration: 1h, resource_claims: big, resource: nvidia.com/gpu}\n")
                .find("workload.jobs[0].resource_claims: give either resource_claims (DRA) or a resource"),
            std::string::npos);
  // A selector that fails on a device (a whole GPU has no profile) aborts the allocation in Kubernetes.
  EXPECT_NE(load_error("    - name: big\n      requests: [{name: d, device_class: any.nvidia.com, selectors: "
                       "\"device.attributes['gpu.nvidia.com'].profile == '1g.10gb'\"}]\n",
                       job)
                .find("on the whole-GPU device of T4: the device publishes no attribute 'profile'"),
            std::string::npos);
}

// ResourceClaims: a claim object a pod names (resourceClaimName), in its namespace. Named by one pod
// it is allocated as a template's claim would be. Device requests are numbered templates first, then
// claims: big 1, then mine 2. By hand: `mine` asks 2 L4s (pool l4 only, 0b00010); the entry form
// {resource_claim_template_name: big} is the bare string `big` (pools a40 and a80, 0b01100).
TEST(Dra, AResourceClaimNamedByOnePodIsAllocatedToIt) {
  const Scenario s = load(
      k40 + "  resource_claims:\n"
            "    - name: mine\n      namespace: research\n      requests: [{name: d, device_class: "
            "gpu.nvidia.com, count: 2, selectors: \"device.attributes['gpu.nvidia.com'].productName == "
            "'NVIDIA L4'\"}]\n",
      "    - {name: a, gpus: 2, duration: 1h, namespace: research, resource_claims: "
      "[{name: gpus, resource_claim_name: mine}]}\n"
      "    - {name: b, gpus: 1, u: 0.1, duration: 1h, resource_claims: [{resource_claim_template_name: big}]}\n"
      "    - {name: c, gpus: 1, u: 0.1, duration: 1h, resource_claims: big}\n");
  EXPECT_EQ(s.jobs.jobs[0].request.device_selector, 2);
  EXPECT_EQ(s.jobs.jobs[1].request.device_selector, 1);
  EXPECT_EQ(pool_mask(s, 0), 0b00010u);
  EXPECT_EQ(pool_mask(s, 1), 0b01100u);
  EXPECT_EQ(build_world(s).shapes.of(JobId{1}), build_world(s).shapes.of(JobId{2}));
  const RunResult r = test::simulate_scenario(s);
  EXPECT_EQ(pool_ran_on(s, r, 0), "l4");
  EXPECT_EQ(r.placement(JobId{0}).gpus.size(), 2u);
  EXPECT_EQ(pool_ran_on(s, r, 1), "a40");
  EXPECT_EQ(r.jobs[0].status, JobStatus::completed);
}

// Selectors as a manifest writes them ({cel: {expression: ...}}) mean what the plain strings mean,
// in a class and in a request, mixed in one list: the k40 request with its class's selector
// repeated in both forms accepts the A100 whole GPUs only (bit 0 on the A100 pools, none elsewhere).
TEST(Dra, KubernetesCelSelectorMapsAreAccepted) {
  const Scenario s = load("    - name: big\n      requests:\n        - name: d\n          device_class: gpu.nvidia.com\n"
                          "          selectors:\n"
                          "            - cel: {expression: \"device.attributes['gpu.nvidia.com'].type == 'gpu'\"}\n"
                          "            - \"device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0\"\n",
                          "    - {name: j, gpus: 1, duration: 1h, resource_claims: big}\n");
  EXPECT_EQ(s.pools[0].device_match, std::vector<uint64_t>{0});
  EXPECT_EQ(s.pools[1].device_match, std::vector<uint64_t>{0});
  EXPECT_EQ(s.pools[2].device_match, std::vector<uint64_t>{1});
  EXPECT_EQ(s.pools[3].device_match, std::vector<uint64_t>{1});
  // Device kinds are matched per GPU model: the all-MIG pool's A100-80GB whole GPU matches too,
  // but that pool publishes no whole GPU, so its pool is refused.
  EXPECT_EQ(s.pools[4].device_match, std::vector<uint64_t>{1});
  EXPECT_EQ(pool_mask(s, 0), 0b01100u);
  // A syntax error in the map form names the expression's field.
  EXPECT_NE(load_error("    - name: big\n      requests: [{name: d, device_class: gpu.nvidia.com, selectors: "
                       "[{cel: {expression: \"device.driver ==\"}}]}]\n",
                       "    - {name: j, gpus: 1, duration: 1h, resource_claims: big}\n")
                .find("tenancy.resource_claim_templates[0].requests[0].selectors[0].cel.expression: column 17: expected"),
            std::string::npos);
}

TEST(Dra, ResourceClaimBadInput) {
  const std::string claim = k40 +
                            "  resource_claims:\n    - name: mine\n      requests: [{name: d, device_class: gpu.nvidia.com}]\n";
  const std::string shared = "a ResourceClaim's devices shared by several pods are not modelled; use a ResourceClaimTemplate";
  // Two jobs of one entry (count: 2) are two pods naming the claim.
  EXPECT_NE(
      load_error(claim, "    - {name: j, count: 2, gpus: 1, duration: 1h, resource_claims: [{resource_claim_name: mine}]}\n")
          .find("workload.jobs[0].resource_claims: job j-1: ResourceClaim 'mine' is named by job j-0 too; " + shared),
      std::string::npos);
  // Two workers of one job are two pods.
  EXPECT_NE(
      load_error(claim, "    - {name: j, workers: 2, gpus: 1, duration: 1h, resource_claims: [{resource_claim_name: mine}]}\n")
          .find("ResourceClaim 'mine' is named by several pods of this job; " + shared),
      std::string::npos);
  EXPECT_NE(load_error(claim, "    - {name: j, gpus: 1, duration: 1h, namespace: prod, resource_claims: [{resource_claim_name: "
                              "mine}]}\n")
                .find("workload.jobs[0].resource_claims: job j: ResourceClaim 'mine' is in namespace default; a pod "
                      "(namespace prod) may only name a claim of its own namespace"),
            std::string::npos);
  EXPECT_NE(load_error(claim, "    - {name: j, gpus: 1, duration: 1h, resource_claims: [{resource_claim_name: big}]}\n")
                .find("job j: unknown ResourceClaim 'big' in namespace default; expected one of tenancy.resource_claims: mine"),
            std::string::npos);
  EXPECT_NE(load_error(claim, "    - {name: j, gpus: 1, duration: 1h, resource_claims: [{resource_claim_name: mine, "
                              "resource_claim_template_name: big}]}\n")
                .find("workload.jobs[0].resource_claims[0]: expected exactly one of resource_claim_name"),
            std::string::npos);
  EXPECT_NE(load_error(claim + "    - name: mine\n      requests: [{name: d, device_class: gpu.nvidia.com}]\n",
                       "    - {name: j, gpus: 1, duration: 1h, resource_claims: big}\n")
                .find("tenancy.resource_claims[1].name: a second ResourceClaim named 'mine' in namespace default"),
            std::string::npos);
  EXPECT_NE(load_error("    - name: big\n      requests: [{name: d, device_class: gpu.nvidia.com, selectors: [{cel: "
                       "{expr: \"device.driver == 'gpu.nvidia.com'\"}}]}]\n",
                       "    - {name: j, gpus: 1, duration: 1h, resource_claims: big}\n")
                .find("tenancy.resource_claim_templates[0].requests[0].selectors[0].cel"),
            std::string::npos);
}

// Partitionable GPUs (KEP 4815; NVIDIA's DRA driver with DynamicMIG): the A100-80GB node's GPUs have
// no layout; a MIG device is created where it clashes with none that exist (mig_conflict: memory
// slices, and 7 compute slices per GPU). First-fit takes the first GPU with room, and on it the
// smallest fitting device at the lowest start. By hand, all at t=0 for 2 h in this order:
//   3 x 1g.10gb -> GPU 0 at 0, 1, 2;
//   4g.40gb     -> starts only at 0, held on GPU 0: GPU 1 at 0;
//   3g.40gb     -> GPU 0 at 4 (slices 4-7 free; 3 + 3 = 6 compute slices);
//   1g.10gb     -> GPU 0 at 3 (7 compute slices now);
//   1g.10gb     -> GPU 0 has no compute slice left: GPU 1 at 4 (4g.40gb holds slices 0-3);
//   7g.80gb at 3 h -> every device of GPU 0 is gone by then: GPU 0 at 0.
// With u = 0.1 every job runs at full speed on its device (mig_rate: a 1g has 14 of 108 SMs, above 0.1).
TEST(Dra, PartitionableGpusCreateMigDevicesPerClaim) {
  std::string templates;
  for (const std::string p : {"1g.10gb", "3g.40gb", "4g.40gb", "7g.80gb"})
    templates += "    - name: p" + p.substr(0, 1) +
                 "\n      requests: [{name: d, device_class: mig.nvidia.com, selectors: "
                 "\"device.attributes['gpu.nvidia.com'].profile == '" +
                 p + "'\"}]\n";
  const std::string yaml = kPartitionable + kClasses + "  resource_claim_templates:\n" + templates +
                           "workload:\n  jobs:\n"
                           "    - {name: a, count: 3, gpus: 1, u: 0.1, duration: 2h, resource_claims: p1}\n"
                           "    - {name: b, gpus: 1, u: 0.1, duration: 2h, resource_claims: p4}\n"
                           "    - {name: c, gpus: 1, u: 0.1, duration: 2h, resource_claims: p3}\n"
                           "    - {name: d, count: 2, gpus: 1, u: 0.1, duration: 2h, resource_claims: p1}\n"
                           "    - {name: e, arrival: 3h, gpus: 1, u: 0.1, duration: 1h, resource_claims: p7}\n"
                           "policy: fifo+first-fit\n";
  const Scenario s = test::load(write_file("dra.yaml", yaml));
  const RunResult r = test::simulate_scenario(s);
  const std::vector<std::string> expected = {"0:1g.10gb@0", "0:1g.10gb@1", "0:1g.10gb@2", "1:4g.40gb@0",
                                             "0:3g.40gb@4", "0:1g.10gb@3", "1:1g.10gb@4", "0:7g.80gb@0"};
  for (uint32_t j = 0; j < expected.size(); ++j) {
    EXPECT_EQ(pool_ran_on(s, r, j), "part") << j;
    EXPECT_EQ(device_of(s, r, j), expected[j]) << j;
    EXPECT_EQ(r.jobs[j].status, JobStatus::completed) << j;
  }
  EXPECT_EQ(r.jobs[7].start, Time::from_seconds(3 * 3600));
}

// A partitionable pool publishes through DRA only: device-plugin names do not reach it, and a layout
// cannot be given with it. A claim no device there matches (100 GiB: the whole A100-80GB has 80) is
// refused with the reason.
TEST(Dra, PartitionablePoolBadInput) {
  const std::string pool =
      "name: p\ncluster:\n  pools:\n    - {name: part, node: dgx-a100-80gb, count: 1, mig: {partitionable: true";
  const std::string jobs = "workload:\n  jobs:\n    - {name: j, gpus: 1, duration: 1h, resource: nvidia.com/mig-1g.10gb}\n";
  EXPECT_NE(test::input_error([&] { build_world(test::load(write_file("p.yaml", pool + "}}\n" + jobs))); })
                .find("asks nvidia.com/mig-1g.10gb; pool part publishes its GPUs' MIG partitions through DRA only "
                      "(partitionable): ask with resource_claims"),
            std::string::npos);
  EXPECT_NE(test::input_error([&] { test::load(write_file("p.yaml", pool + ", config: all-1g.10gb}}\n" + jobs)); })
                .find("cluster.pools[0].mig.config: a partitionable GPU has no fixed layout and no device plugin: leave out "
                      "strategy, config, file and mig-configs"),
            std::string::npos);
  EXPECT_NE(test::input_error([&] {
              build_world(test::load(write_file(
                  "p.yaml", pool + "}}\n" + kClasses + "  resource_claim_templates:\n" +
                                "    - name: big\n      requests: [{name: d, device_class: any.nvidia.com, selectors: "
                                "\"device.capacity['gpu.nvidia.com'].memory >= quantity('100Gi')\"}]\n" +
                                "workload:\n  jobs:\n    - {name: j, gpus: 1, duration: 1h, resource_claims: big}\n")));
            })
                .find("job 'j' can never run: it finds no GPU or MIG device of pool part (A100-80GB-SXM) that its DRA claim's "
                      "selectors accept with 0 MiB"),
            std::string::npos);
}

// A partitionable GPU also publishes itself whole, consuming every counter: it is allocatable only
// with no MIG device on it, and while held no device can be created there. One A100-80GB node, all
// at t=0 in this order (first-fit: the first GPU with room; on it the smallest device that fits):
//   whole (memory >= 40Gi, gpu class)   -> GPU 0 whole;
//   slice (1g.10gb)                     -> GPU 0 is held: GPU 1 at 0;
//   whole                               -> GPU 1 has a device: GPU 2 whole;
//   any (memory >= 9Gi, any class)      -> GPU 0 and 2 are held, GPU 1 has room: its smallest device
//                                          that fits, 1g.10gb (9728 MiB) at 1, before the whole GPU.
TEST(Dra, APartitionableGpuHeldWholeTakesNoDevice) {
  const std::string yaml = kPartitionable + kClasses + "  resource_claim_templates:\n" + k40 +
                           "    - name: p1\n      requests: [{name: d, device_class: mig.nvidia.com, selectors: "
                           "\"device.attributes['gpu.nvidia.com'].profile == '1g.10gb'\"}]\n"
                           "    - name: nine\n      requests: [{name: d, device_class: any.nvidia.com, selectors: "
                           "\"device.capacity['gpu.nvidia.com'].memory >= quantity('9Gi')\"}]\n"
                           "workload:\n  jobs:\n"
                           "    - {name: whole, gpus: 1, u: 0.1, duration: 2h, resource_claims: big}\n"
                           "    - {name: slice, gpus: 1, u: 0.1, duration: 2h, resource_claims: p1}\n"
                           "    - {name: whole2, gpus: 1, u: 0.1, duration: 2h, resource_claims: big}\n"
                           "    - {name: any, gpus: 1, u: 0.1, duration: 2h, resource_claims: nine}\n"
                           "policy: fifo+first-fit\n";
  const Scenario s = test::load(write_file("dra.yaml", yaml));
  const RunResult r = test::simulate_scenario(s);
  const std::vector<std::string> expected = {"0:whole", "1:1g.10gb@0", "2:whole", "1:1g.10gb@1"};
  for (uint32_t j = 0; j < expected.size(); ++j) {
    EXPECT_EQ(device_of(s, r, j), expected[j]) << j;
    EXPECT_EQ(r.jobs[j].start, Time()) << j;
    EXPECT_EQ(r.jobs[j].end, Time::from_seconds(2 * 3600)) << j;  // at full speed, held whole or on a 1g (u = 0.1)
    EXPECT_EQ(r.jobs[j].status, JobStatus::completed) << j;
  }
}
