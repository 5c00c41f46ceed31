// Dot-product (Tetris, Grandl et al., SIGCOMM'14, as the FGD paper's baseline runs it): the node whose
// free CPU and GPU align least with the request (the larger the dot product, the worse), so requests
// go where little of what they use is left; inside the node, the tightest GPUs. `dot_score: exact`
// takes both vectors over the node's own capacity; `integer` (the default of a packing run) scores as
// the FGD artifact runs it (dot_product_score.go with -dimext merge -norm max -gpusel best): both
// vectors over the largest node's capacity (128 CPUs, 8 GPUs: its MaxSpecCpu, MaxSpecGpu), the
// node's GPUs merged into one dimension, and the Kubernetes integer score floor(100 x (1 - dot / 2)).
#include "builtin.hpp"

namespace gpusim::builtin {

namespace {
class DotProduct final : public TightestInside {
 public:
  explicit DotProduct(const PolicyContext& c) : integer_(integer_score(c, "dot_score")) {}

  double score(const ClusterView& v, JobId job, NodeId node) const override {
    const Cluster& c = v.cluster();
    const Node& n = c.node(node);
    const Request& q = v.job(job).request;
    int64_t free = 0;
    for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g) free += c.gpu(g).free.value;
    const double asked = static_cast<double>(v.gpus_to_place(job)) * static_cast<double>(v.gpu_demand(job, n.pool).milli.value);
    if (integer_) {
      constexpr double kMaxCpuMilli = 128000, kMaxGpuMilli = 8000;  // the artifact's MaxSpecCpu, MaxSpecGpu
      const double dot = (static_cast<double>(q.cpu_milli) / kMaxCpuMilli) *
                             (static_cast<double>(n.free_cpu_milli) / kMaxCpuMilli) +
                         (asked / kMaxGpuMilli) * (static_cast<double>(free) / kMaxGpuMilli);
      return -static_cast<double>(static_cast<int64_t>(100 * (1 - dot / 2)));
    }
    const double cpu_cap = static_cast<double>(n.cpu_milli);
    double dot = cpu_cap > 0 ? (static_cast<double>(q.cpu_milli) / cpu_cap) * (static_cast<double>(n.free_cpu_milli) / cpu_cap) : 0;
    if (n.gpu_count == 0) return dot;
    const double gpu_cap = 1000.0 * n.gpu_count;
    dot += (asked / gpu_cap) * (static_cast<double>(free) / gpu_cap);
    return dot / 2;  // normalised to [0, 1] over the two dimensions
  }

 private:
  bool integer_;
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_dot_product(const PolicyContext& c) { return std::make_unique<DotProduct>(c); }

PlacementRegistration dot_product_placement() {
  return {"dot-product",
          "Tetris: the node whose free CPU and GPU (over capacity) align least with the request; tightest GPU "
          "(dot_score: exact, or integer for the FGD artifact's 0-100 score over the largest node)",
          make_dot_product,
          {"dot_score"}};
}

}  // namespace gpusim::builtin
