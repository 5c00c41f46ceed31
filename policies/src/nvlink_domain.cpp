// NVLink-domain placements (docs/guide/topology.md#nvlink-domains): a multi-node job goes inside one
// NVLink domain of a rack-scale pool (GB200 NVL72) when one holds it, so its collectives run over
// NVLink rather than the NICs; else, like the default, on the fewest nodes. On one node: best-fit.
// nvlink-domain takes the domain with most free GPUs; nvlink-domain-pack the one with least that
// holds the job, filling domains one by one and keeping whole ones free for larger jobs.
#include "builtin.hpp"

namespace gpusim::builtin {

namespace {

struct NvlinkDomain final : TightestInside {
  explicit NvlinkDomain(bool pack) : pack_(pack) {}
  double score(const ClusterView& v, JobId job, NodeId node) const override { return leftover_after(v, job, node); }
  std::optional<Placement> place(const ClusterView& view, JobId job) override {
    if (auto p = place_on_one_node(view, job)) return p;
    if (auto p = place_in_nvlink_domain(view, job, pack_)) return p;
    return place_across_nodes(view, job);
  }

 private:
  bool pack_;
};

}  // namespace

PlacementRegistration nvlink_domain_placement() {
  return {"nvlink-domain",
          "A multi-node job inside the NVLink domain (GB200 NVL72 rack) with most free GPUs, else the fewest nodes; "
          "best-fit on one node",
          [](const PolicyContext&) { return std::make_unique<NvlinkDomain>(false); },
          {}};
}

PlacementRegistration nvlink_domain_pack_placement() {
  return {"nvlink-domain-pack",
          "A multi-node job inside the NVLink domain with fewest free GPUs that holds it (packs domains), else the "
          "fewest nodes; best-fit on one node",
          [](const PolicyContext&) { return std::make_unique<NvlinkDomain>(true); },
          {}};
}

}  // namespace gpusim::builtin
