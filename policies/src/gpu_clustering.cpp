// GPU clustering (the FGD paper's baseline, after its artifact's GpuClusteringScore): pods of the same
// GPU class (a share of one GPU, or 1, 2, 4, 8 whole GPUs) are kept together. Tiers, higher better
// there (negated here), each plus 25 x (8000 - the node's free milli-GPU) / 8000 so that fuller
// nodes win within a tier (8000: the artifact's MaxSpecGpu, an 8-GPU node):
//   75  the node runs only pods of this class       50  pods of this class among others
//   25  the node runs no GPU pod                     0  only pods of other classes
// The tier depends on which pods a node runs, not only on its free capacity, so every node of a
// group in identical states is scored. CPU-only pods score alike everywhere.
#include <algorithm>

#include "builtin.hpp"

namespace gpusim::builtin {

namespace {
// A pod's GPU class: 0 for a share of one GPU, else its GPU count.
int32_t gpu_class(const Request& q) { return q.fractional() ? 0 : q.gpus; }

struct GpuClustering final : PlacementPolicy {
  double score(const ClusterView& v, JobId job, NodeId node) const override {
    const Request& q = v.job(job).request;
    if (q.gpus == 0) return 0;
    const Cluster& c = v.cluster();
    const Node& n = c.node(node);
    const int32_t mine = gpu_class(q);
    bool same = false, other = false;
    int64_t free = 0;
    for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g) {
      free += c.gpu(g).free.value;
      for (JobId r : c.gpu(g).residents) (gpu_class(v.job(r).request) == mine ? same : other) = true;
    }
    const int64_t fullness = 25 * (8000 - free) / 8000;
    const int64_t tier = same ? (other ? 50 : 75) : (other ? 0 : 25);
    return -static_cast<double>(tier + fullness);
  }

  std::optional<Placement> place(const ClusterView& view, JobId job) override {
    const Cluster& c = view.cluster();
    scored_.clear();
    for (BucketId b : c.live_buckets()) {
      if (!view.fits_in_bucket(job, b)) continue;
      for (NodeId n : c.bucket(b).nodes) scored_.push_back({n, 1, score(view, job, n)});
    }
    if (auto best = best_of(view, job, scored_)) return place_on_node(view, job, *best);
    return place_across_nodes(view, job);
  }

 private:
  std::vector<Candidate> scored_;
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_gpu_clustering() { return std::make_unique<GpuClustering>(); }

PlacementRegistration gpu_clustering_placement() {
  return {"gpu-clustering",
          "nodes already running only pods of the same GPU request first, then mixed, then idle, then others",
          [](const PolicyContext&) { return make_gpu_clustering(); },
          {}};
}

}  // namespace gpusim::builtin
