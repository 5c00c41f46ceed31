// The fit rules (sim/fit.hpp): the one module the engine, the view, the placements and the
// autoscaler ask whether a request fits a pool, a node, a GPU or a MIG slice.
#include <gtest/gtest.h>

#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/fit.hpp"

using namespace gpusim;

namespace {

Pool pool_of(const char* model, Sharing mode, int replicas = 1) {
  Pool p;
  p.name.assign(1, 'p');  // not = "p": GCC 12 warns (-Wrestrict) on that inlined copy
  p.gpu = Catalog::builtin().find_gpu(model);
  p.sharing.mode = mode;
  p.sharing.replicas = replicas;
  return p;
}

Gpu gpu_of(const Pool& p) {
  Gpu g;
  g.free_memory_mib = p.gpu->memory_mib;
  g.slots = p.sharing.replicas;
  return g;
}

Request share(int32_t milli, int64_t memory_mib) {
  Request q;
  q.gpus = 1;
  q.milli_per_gpu = Milli{milli};
  q.gpu_memory_mib = memory_mib;
  return q;
}

const TimeSlicingModels& ts() { return ExecutionModel::builtin().time_slicing; }

}  // namespace

TEST(Fit, PodsFitCountsEveryPodOfTheRequest) {
  EXPECT_TRUE(pods_fit({1000, 4096}, 2, {2000, 8192}));
  EXPECT_FALSE(pods_fit({1000, 4096}, 3, {2000, 8192}));  // CPU for two pods only
  EXPECT_FALSE(pods_fit({500, 4096}, 3, {2000, 8192}));   // memory for two pods only
  EXPECT_TRUE(pods_fit({0, 0}, 8, {0, 0}));
}

TEST(Fit, ClaimOnEachSharingMode) {
  const Request q = share(250, 4096);
  // Exclusive: a share takes a whole GPU, and only an empty one.
  Pool whole = pool_of("A100-80GB-SXM", Sharing::exclusive);
  Gpu g = gpu_of(whole);
  ASSERT_TRUE(claim_on(q, whole, g, std::nullopt, ts()));
  EXPECT_EQ(claim_on(q, whole, g, std::nullopt, ts())->milli, kWholeGpu);
  g.residents.push_back(JobId{7});
  EXPECT_FALSE(claim_on(q, whole, g, std::nullopt, ts()));
  // Fractional: what it asks, while the GPU has that much share and memory left.
  Pool frac = pool_of("T4", Sharing::fractional);
  Gpu f = gpu_of(frac);
  EXPECT_EQ(claim_on(q, frac, f, std::nullopt, ts())->reserve_mib, 4096);
  f.free = Milli{200};
  EXPECT_FALSE(claim_on(q, frac, f, std::nullopt, ts()));
  // Time-slicing reserves nothing: the footprint (request + CUDA context) counts toward the GPU.
  Pool sliced = pool_of("T4", Sharing::time_slicing, 4);
  const auto c = claim_on(q, sliced, gpu_of(sliced), std::nullopt, ts());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->milli, Milli{250});
  EXPECT_EQ(c->reserve_mib, 0);
  EXPECT_EQ(c->footprint_mib, 4096 + ts().of(*sliced.gpu).context_memory_mib);
  // MPS pins memory/replicas per client by default.
  Pool mps = pool_of("A100-80GB-SXM", Sharing::mps, 4);
  EXPECT_EQ(claim_on(q, mps, gpu_of(mps), std::nullopt, ts())->reserve_mib, mps.gpu->memory_mib / 4);
  EXPECT_EQ(mps_memory_limit_mib(q, mps), mps.gpu->memory_mib / 4);
  EXPECT_DOUBLE_EQ(mps_thread_fraction(q, mps.sharing), 0.25);
}

TEST(Fit, PoolRefusesNamesTheReason) {
  Request q = share(1000, 0);
  q.models = std::vector<std::string>{"H100-80GB-SXM"};
  EXPECT_EQ(pool_refuses(q, pool_of("A100-80GB-SXM", Sharing::exclusive), Catalog::builtin()),
            "asks for GPU model H100-80GB-SXM; pool p has A100-80GB-SXM");
  Request big = share(1000, 100000);
  EXPECT_EQ(pool_refuses(big, pool_of("A100-80GB-SXM", Sharing::exclusive), Catalog::builtin()),
            "asks 100000 MiB of GPU memory per GPU; pool p has 81920 MiB GPUs");
  EXPECT_FALSE(pool_refuses(share(500, 0), pool_of("T4", Sharing::fractional), Catalog::builtin()));
}

TEST(Fit, DemandOnAPoolIsWhatOneGpuOfTheJobBlocksThere) {
  const Request q = share(250, 4096);
  EXPECT_EQ(demand_on(q, pool_of("A100-80GB-SXM", Sharing::exclusive)).milli, kWholeGpu);
  EXPECT_EQ(demand_on(q, pool_of("T4", Sharing::fractional)).milli, Milli{250});
  EXPECT_EQ(demand_on(q, pool_of("T4", Sharing::time_slicing, 8)).milli, Milli{125});
}
