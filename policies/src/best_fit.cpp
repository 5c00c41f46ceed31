// Best-fit: the node left with the least free capacity (normalised GPU plus CPU leftover, as the FGD
// paper's best-fit baseline weighs resource dimensions), and inside it the GPUs with least room.
// `best_fit_score: exact` takes each dimension over the node's own capacity; `integer` (the default
// of a packing run) scores as the FGD artifact does (best_fit_score.go): each leftover over the largest
// node's capacity (128 CPUs, 8 GPUs: its MaxSpecCpu, MaxSpecGpu), weighed 0.5 each, as the Kubernetes
// integer score floor(100 x (1 - leftover)). (Its NormalizeScore rescales the candidates' scores to
// 0-100 but keeps the best ones alone at the top, so it changes no choice.)
#include <algorithm>

#include "builtin.hpp"

namespace gpusim::builtin {

namespace {
class BestFit final : public TightestInside {
 public:
  explicit BestFit(bool integer) : integer_(integer) {}

  double score(const ClusterView& v, JobId job, NodeId node) const override {
    if (!integer_) return leftover_after(v, job, node);
    const Cluster& c = v.cluster();
    const Node& n = c.node(node);
    int64_t free_milli = 0;
    for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g) free_milli += c.gpu(g).free.value;
    const int64_t asked_milli = int64_t{v.gpus_to_place(job)} * v.gpu_demand(job, n.pool).milli.value;
    constexpr double kMaxCpuMilli = 128000, kMaxGpuMilli = 8000;  // the artifact's MaxSpecCpu, MaxSpecGpu
    double leftover = static_cast<double>(n.free_cpu_milli - v.job(job).request.cpu_milli) / kMaxCpuMilli * 0.5;
    leftover += static_cast<double>(free_milli - asked_milli) / kMaxGpuMilli * 0.5;
    return -static_cast<double>(static_cast<int64_t>((1.0 - leftover) * 100));
  }

 private:
  bool integer_;
};

std::unique_ptr<PlacementPolicy> best_fit_from(const PolicyContext& c) {
  return std::make_unique<BestFit>(integer_score(c, "best_fit_score"));
}
}  // namespace

std::unique_ptr<PlacementPolicy> make_best_fit() { return std::make_unique<BestFit>(false); }

PlacementRegistration best_fit_placement() {
  return {"best-fit",
          "node left with the least free GPU+CPU share; tightest GPUs inside it (best_fit_score: exact, or "
          "integer for the FGD artifact's 0-100 score over the largest node)",
          best_fit_from,
          {"best_fit_score"}};
}

}  // namespace gpusim::builtin
