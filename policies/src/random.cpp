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
    for (BucketId b : c.live_buckets())
      if (view.fits_in_bucket(job, b)) candidates_.push_back({c.bucket(b).representative(), b});
    keep_preferred(view, job, candidates_, [&](const auto& cand) { return c.node(cand.first).pool; });
    std::size_t total = 0;
    for (const auto& cand : candidates_) total += c.bucket(cand.second).nodes.size();
    if (total == 0) return place_across_nodes(view, job);
    // The pick-th node with buckets in node-id order, so the draw does not depend on the index's
    // internal order: a weighted selection narrows to its bucket without sorting them all.
    auto pick = static_cast<std::size_t>(uniform01(rng_) * static_cast<double>(total));
    auto first = candidates_.begin(), last = candidates_.end();
    while (last - first > 1) {
      const auto mid = first + (last - first) / 2;
      std::nth_element(first, mid, last);
      std::size_t before = 0;
      for (auto it = first; it != mid; ++it) before += c.bucket(it->second).nodes.size();
      if (pick < before) {
        last = mid;
      } else {
        pick -= before;
        first = mid;
      }
    }
    return place_on_node(view, job, c.bucket(first->second).nodes.nth(pick));
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
  std::vector<std::pair<NodeId, BucketId>> candidates_;  // representative, bucket
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_random(const PolicyContext& c) { return std::make_unique<RandomPlacement>(c); }

PlacementRegistration random_placement() {
  return {"random", "a node drawn uniformly among those that fit (seeded stream placement/random)", make_random, {}};
}

}  // namespace gpusim::builtin
