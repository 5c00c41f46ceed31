// Dot-product (Tetris, Grandl et al., SIGCOMM'14, as the FGD paper's baseline runs it): the node whose
// free CPU and GPU, each over the node's capacity, align least with the request over the same
// capacity (the larger the dot product, the worse), so requests go where little of what they use is
// left; inside the node, the tightest GPUs.
#include "builtin.hpp"

namespace gpusim::builtin {

namespace {
struct DotProduct final : TightestInside {
  double score(const ClusterView& v, JobId job, NodeId node) const override {
    const Cluster& c = v.cluster();
    const Node& n = c.node(node);
    const Request& q = v.job(job).request;
    const double cpu_cap = static_cast<double>(n.cpu_milli);
    double dot = cpu_cap > 0 ? (static_cast<double>(q.cpu_milli) / cpu_cap) * (static_cast<double>(n.free_cpu_milli) / cpu_cap) : 0;
    if (n.gpu_count == 0) return dot;
    int64_t free = 0;
    for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g) free += c.gpu(g).free.value;
    const double gpu_cap = 1000.0 * n.gpu_count;
    const double asked = static_cast<double>(v.gpus_to_place(job)) * static_cast<double>(v.gpu_demand(job, n.pool).milli.value);
    dot += (asked / gpu_cap) * (static_cast<double>(free) / gpu_cap);
    return dot / 2;  // normalised to [0, 1] over the two dimensions
  }
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_dot_product() { return std::make_unique<DotProduct>(); }

PlacementRegistration dot_product_placement() {
  return {"dot-product",
          "Tetris: the node whose free CPU and GPU (over capacity) align least with the request; tightest GPU",
          [](const PolicyContext&) { return make_dot_product(); },
          {}};
}

}  // namespace gpusim::builtin
