// Random: a node drawn uniformly among those the job fits on, and random GPUs inside it, from the
// seeded stream "placement/random".
#include <algorithm>

#include "builtin.hpp"

namespace gpusim::builtin {

namespace {
class RandomPlacement final : public PlacementPolicy {
 public:
  explicit RandomPlacement(const PolicyContext& c) : rng_(make_stream(c.seed, "placement/random")) {}

  std::optional<Placement> place(const ClusterView& view, JobId job) override {
    const Cluster& c = view.cluster();
    candidates_.clear();
    std::size_t total = 0;
    for (BucketId b : c.live_buckets()) {
      if (!view.fits_on_node(job, c.bucket(b).representative())) continue;
      candidates_.push_back(b);
      total += c.bucket(b).nodes.size();
    }
    if (total == 0) return place_across_nodes(view, job);
    // Buckets in node-id order so the draw does not depend on the index's internal order.
    std::sort(candidates_.begin(), candidates_.end(),
              [&](BucketId a, BucketId b) { return c.bucket(a).representative() < c.bucket(b).representative(); });
    auto pick = static_cast<std::size_t>(uniform01(rng_) * static_cast<double>(total));
    for (BucketId b : candidates_) {
      const auto& nodes = c.bucket(b).nodes;
      if (pick < nodes.size()) return place_on_node(view, job, nodes.nth(pick));
      pick -= nodes.size();
    }
    return std::nullopt;  // unreachable: pick < total
  }

  void choose_gpus(const ClusterView&, JobId, const std::vector<GpuId>& fitting, int32_t count,
                   std::vector<GpuId>& out) const override {
    out = fitting;
    for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {  // partial Fisher-Yates
      const auto j = i + static_cast<std::size_t>(uniform01(rng_) * static_cast<double>(out.size() - i));
      std::swap(out[i], out[j]);
    }
    out.resize(static_cast<std::size_t>(count));
  }

 private:
  mutable Rng rng_;
  std::vector<BucketId> candidates_;
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_random(const PolicyContext& c) { return std::make_unique<RandomPlacement>(c); }

PlacementRegistration random_placement() {
  return {"random", "a node drawn uniformly among those that fit (seeded stream placement/random)", make_random, {}};
}

}  // namespace gpusim::builtin
