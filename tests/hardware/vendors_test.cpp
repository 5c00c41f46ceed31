// Other vendors and rack-scale NVLink (issue 46): AMD's partition modes as AMD's tables give them, the
// vendors' Kubernetes resource names, and the collective bandwidth of a mesh of direct links, each
// worked by hand from docs/hardware.md.
#include <gtest/gtest.h>

#include "gpusim/hardware/catalog.hpp"
#include "gpusim/hardware/mig.hpp"

using namespace gpusim;

namespace {
const GpuModel& gpu(const char* name) { return *Catalog::builtin().find_gpu(name); }
const NodeTopology& topo(const char* name) { return Catalog::builtin().find_node(name)->topology; }
}  // namespace

// AMD Instinct docs, MI300X partitioning overview: SPX is one device of 304 CUs and 192 GB, CPX eight of
// 38 CUs and 24 GB; DPX and QPX halve and quarter the XCDs; NPS4 allows CPX only.
TEST(AmdPartitions, Mi300xModesFollowAmdsTable) {
  const GpuModel& g = gpu("MI300X");
  EXPECT_EQ(g.vendor, Vendor::amd);
  ASSERT_TRUE(g.partitions && g.mig);
  EXPECT_FALSE(g.has_mig());
  const MigTable& t = *g.mig;
  EXPECT_TRUE(t.one_mode);
  struct Row {
    const char* name;
    int partitions, cus;
    int64_t mib;
  };
  for (const Row& r : {Row{"spx_nps1", 1, 304, 196608}, Row{"dpx_nps1", 2, 152, 98304}, Row{"qpx_nps1", 4, 76, 49152},
                       Row{"cpx_nps1", 8, 38, 24576}, Row{"cpx_nps4", 8, 38, 24576}}) {
    const MigProfile* p = t.find(r.name);
    ASSERT_NE(p, nullptr) << r.name;
    EXPECT_EQ(p->max_count, r.partitions) << r.name;
    EXPECT_EQ(p->sms, r.cus) << r.name;
    EXPECT_EQ(p->memory_mib, r.mib) << r.name;
    EXPECT_EQ(p->memory_slices * r.partitions, 8) << r.name;  // a partition holds its share of the 8 XCDs
  }
  // SPX+NPS4 is invalid (the memory partitions cannot outnumber the compute partitions); so are DPX and
  // QPX with NPS4 by AMD's table.
  for (const char* invalid : {"spx_nps4", "dpx_nps4", "qpx_nps4"}) EXPECT_EQ(t.find(invalid), nullptr) << invalid;
  EXPECT_EQ(t.find("cpx_nps4")->starts, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(t.find("qpx_nps1")->starts, (std::vector<int>{0, 2, 4, 6}));
}

TEST(AmdPartitions, AGpuIsInOneModeAndHasAllItsPartitions) {
  const MigTable& t = *gpu("MI300X").mig;
  const auto index = [&](const char* name) { return static_cast<int>(t.find(name) - t.profiles.data()); };
  MigCounts eight(t.profiles.size(), 0);
  eight[static_cast<std::size_t>(index("cpx_nps4"))] = 8;
  const auto layout = mig_place(t, eight);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->size(), 8u);
  // A ninth CPX partition does not fit; nor does a partition of another mode beside CPX ones.
  EXPECT_TRUE(mig_conflict(t, *layout, index("cpx_nps4"), 0));
  const MigLayout one{{index("cpx_nps4"), 0}};
  const auto mixed = mig_conflict(t, one, index("cpx_nps1"), 1);
  ASSERT_TRUE(mixed);
  EXPECT_NE(mixed->find("one compute and memory mode"), std::string::npos) << *mixed;
  EXPECT_FALSE(mig_conflict(t, one, index("cpx_nps4"), 1));
}

TEST(Vendors, ResourcesNameTheirVendorAndPartition) {
  EXPECT_EQ(vendor_info(Vendor::amd).device_resource, "amd.com/gpu");
  EXPECT_EQ(vendor_info(Vendor::intel).device_resource, "habana.ai/gaudi");
  EXPECT_EQ(resource_vendor("amd.com/cpx_nps4"), Vendor::amd);
  EXPECT_EQ(resource_vendor("habana.ai/gaudi"), Vendor::intel);
  EXPECT_EQ(resource_vendor("nvidia.com/mig-1g.10gb"), Vendor::nvidia);
  EXPECT_EQ(resource_vendor(""), std::nullopt);
  EXPECT_EQ(partition_profile("amd.com/cpx_nps4"), "cpx_nps4");
  EXPECT_EQ(partition_profile("nvidia.com/mig-1g.10gb"), "1g.10gb");
  EXPECT_EQ(partition_profile("amd.com/gpu"), "");
  EXPECT_EQ(partition_profile("nvidia.com/gpu"), "");
  EXPECT_EQ(PartitionModes::profile_name("CPX", "NPS4"), "cpx_nps4");
  // A Gaudi has neither MIG nor partitions; neither has a CUDA compute capability off NVIDIA.
  EXPECT_FALSE(gpu("Gaudi3").mig);
  EXPECT_FALSE(gpu("Gaudi3").partitions);
  EXPECT_EQ(gpu("Gaudi3").compute_capability, 0);
  EXPECT_EQ(gpu("Gaudi3").fabric(), Fabric::roce);
}

// A full mesh of direct links: each MI300X reaches each peer over one xGMI link of 64 GB/s per direction
// (896 GB/s bidirectional over 7 links); a collective over k GPUs sends to its k - 1 peers at once.
TEST(MeshTopology, MeshCollectivesSumTheLinksToThePeers) {
  const NodeTopology& amd = topo("mi300x-8x");
  EXPECT_EQ(link_code(amd.link(0, 5)), "XGMI");
  EXPECT_DOUBLE_EQ(amd.link(0, 5).gb_per_s, 64.0);
  EXPECT_DOUBLE_EQ(amd.ring_bottleneck(0b11).gb_per_s, 64.0);
  EXPECT_DOUBLE_EQ(amd.ring_bottleneck(0b111).gb_per_s, 128.0);
  EXPECT_DOUBLE_EQ(amd.ring_bottleneck(0xFF).gb_per_s, 448.0);
  EXPECT_TRUE(amd.uniform());
  // Gaudi 3: 21 scale-up ports of 200 GbE (25 GB/s per direction), 3 per peer: 75 GB/s a pair, and
  // over all eight 21 x 25 = 525 GB/s, Intel's "525 GB/s unidirectional" per Gaudi 3.
  const NodeTopology& gaudi = topo("gaudi3-8x");
  EXPECT_EQ(link_code(gaudi.link(1, 2)), "RoCE");
  EXPECT_EQ(gaudi.link(1, 2).links, 3);
  EXPECT_DOUBLE_EQ(gaudi.link(1, 2).gb_per_s, 75.0);
  EXPECT_DOUBLE_EQ(gaudi.ring_bottleneck(0xFF).gb_per_s, 525.0);
  EXPECT_EQ(gaudi.ring_bottleneck(0xFF).links, 21);
  // An NVSwitch node is not a mesh: every pair, and so every ring, at the GPU's full NVLink bandwidth.
  EXPECT_DOUBLE_EQ(topo("hgx-h100").ring_bottleneck(0xFF).gb_per_s, 450.0);
}

TEST(RackScale, Gb200TraysShareTheRacksNvlinkDomain) {
  const NodeTemplate& t = *Catalog::builtin().find_node("gb200-nvl72-tray");
  EXPECT_EQ(t.gpus, 4);
  EXPECT_EQ(t.nvlink_domain_nodes, 18);  // 18 compute trays x 4 = the 72 GPUs of an NVL72 domain
  EXPECT_EQ(link_code(t.topology.link(0, 3)), "NV18");
  EXPECT_DOUBLE_EQ(t.topology.link(0, 3).gb_per_s, 900.0);  // 1.8 TB/s bidirectional per GPU
}
