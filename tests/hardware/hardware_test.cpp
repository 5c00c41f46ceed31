#include <gtest/gtest.h>

#include "gpusim/hardware/catalog.hpp"

using namespace gpusim;

TEST(Catalog, HasEveryModelAndTemplateTheFoundationNeeds) {
  const Catalog& c = Catalog::builtin();
  for (const char* m : {"T4", "V100-32GB", "A10", "L4", "A30-24GB", "A100-40GB-SXM", "A100-80GB-SXM", "A100-80GB-PCIe",
                        "H100-80GB-SXM", "H100-80GB-PCIe", "H100-94GB", "H200-141GB", "B200"}) {
    const GpuModel* g = c.find_gpu(m);
    ASSERT_NE(g, nullptr) << m;
    EXPECT_GT(g->memory_mib, 0) << m;
    EXPECT_GT(g->sms, 0) << m;
    EXPECT_FALSE(g->source.empty()) << m;
  }
  for (const char* n : {"dgx-a100-40gb", "dgx-a100-80gb", "hgx-h100", "hgx-h200", "a100-80gb-pcie-4x", "t4-8x", "l4-4x"}) {
    const NodeTemplate* t = c.find_node(n);
    ASSERT_NE(t, nullptr) << n;
    EXPECT_NE(c.find_gpu(t->gpu), nullptr) << n;
    EXPECT_FALSE(t->source.empty()) << n;
  }
  EXPECT_EQ(c.find_gpu("V100M32"), c.find_gpu("V100-32GB"));  // openb's name is an alias
}

// docs/hardware.md#mig-geometry: A100-80GB profiles and placements as nvidia-smi mig -lgipp prints them.
TEST(Catalog, A100MigTableMatchesTheReference) {
  const auto& mig = *Catalog::builtin().find_gpu("A100-80GB-SXM")->mig;
  EXPECT_EQ(mig.memory_slices, 8);
  EXPECT_EQ(mig.compute_slices, 7);
  ASSERT_EQ(mig.profiles.size(), 7u);
  const MigProfile* p = mig.find("1g.10gb");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->profile_id, 19);
  EXPECT_EQ(p->starts, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(p->max_count, 7);
  EXPECT_EQ(p->memory_mib, 9728);  // 9.50 GiB
  EXPECT_EQ(mig.find("1g.20gb")->starts, (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(mig.find("1g.20gb")->memory_slices, 2);
  EXPECT_EQ(mig.find("2g.20gb")->starts, (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(mig.find("3g.40gb")->starts, (std::vector<int>{0, 4}));
  EXPECT_EQ(mig.find("3g.40gb")->memory_slices, 4);
  EXPECT_EQ(mig.find("4g.40gb")->starts, (std::vector<int>{0}));
  EXPECT_EQ(mig.find("7g.80gb")->memory_slices, 8);
  EXPECT_EQ(mig.find("7g.80gb")->sms, 98);
  EXPECT_TRUE(mig.find("1g.10gb+me")->media_extensions);
  EXPECT_EQ(mig.find("1g.10gb+me")->max_count, 1);
  // Every placement stays inside the 8 memory slices.
  for (const auto& prof : mig.profiles)
    for (int s : prof.starts) EXPECT_LE(s + prof.memory_slices, 8) << prof.name;
}

TEST(Catalog, A30HasFourSlicesAndH100ItsOwnSmCounts) {
  const auto& a30 = *Catalog::builtin().find_gpu("A30-24GB")->mig;
  EXPECT_EQ(a30.memory_slices, 4);
  EXPECT_EQ(a30.find("2g.12gb")->starts, (std::vector<int>{0, 2}));
  EXPECT_EQ(a30.find("4g.24gb")->memory_slices, 4);
  const auto& h100 = *Catalog::builtin().find_gpu("H100-80GB-SXM")->mig;
  EXPECT_EQ(h100.find("3g.40gb")->sms, 60);
  EXPECT_EQ(h100.find("7g.80gb")->copy_engines, 8);
  EXPECT_EQ(Catalog::builtin().find_gpu("T4")->mig, std::nullopt);
  for (const auto& p : Catalog::builtin().find_gpu("B200")->mig->profiles)
    if (p.name == "7g.180gb") {
      EXPECT_TRUE(p.assumed);
    }
}

TEST(Catalog, ScenarioEntriesUseTheSameParserAndRejectDuplicates) {
  Catalog c = Catalog::builtin();
  c.add_document(ConfigNode::parse(R"(
gpus:
  - {name: X1, memory_mib: 1024, sms: 4, bf16_tflops: 1, fp32_tflops: 1, memory_bandwidth_gb_per_s: 1, tdp_w: 1, nvlink_gb_per_s: 0, pcie_gen: 4, compute_capability: 8.0, source: test}
nodes:
  - {name: x1-node, gpu: X1, gpus: 2, cpu_milli: 1000, memory_mib: 1024, source: test}
)",
                                   "s.yaml"));
  EXPECT_EQ(c.find_node("x1-node")->gpus, 2);
  EXPECT_THROW(c.add_document(ConfigNode::parse("gpus: [{name: T4}]", "s.yaml")), InputError);
  EXPECT_THROW(c.add_document(
                   ConfigNode::parse("nodes: [{name: n, gpu: NOPE, gpus: 1, cpu_milli: 1, memory_mib: 1, source: s}]", "s.yaml")),
               InputError);
}
