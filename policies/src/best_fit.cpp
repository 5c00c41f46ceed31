// Best-fit: the node left with the least free capacity (normalised GPU plus CPU leftover, as the FGD
// paper's best-fit baseline weighs resource dimensions), and inside it the GPUs with least room.
#include <algorithm>

#include "builtin.hpp"

namespace gpusim::builtin {

namespace {
struct BestFit final : TightestInside {
  double score(const ClusterView& v, JobId job, NodeId node) const override { return leftover_after(v, job, node); }
};
}  // namespace

std::unique_ptr<PlacementPolicy> make_best_fit() { return std::make_unique<BestFit>(); }

PlacementRegistration best_fit_placement() {
  return {"best-fit",
          "node left with the least free GPU+CPU share; tightest GPUs inside it",
          [](const PolicyContext&) { return make_best_fit(); },
          {}};
}

}  // namespace gpusim::builtin
