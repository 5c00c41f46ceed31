#include "gpusim/sim/scheduler.hpp"

namespace gpusim {

void ClusterView::fitting_gpus(JobId id, NodeId node, std::vector<GpuId>& out) const {
  out.clear();
  const Node& n = cluster().node(node);
  for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g)
    if (gpu_fits(id, g)) out.push_back(g);
}

bool ClusterView::fits_on_node(JobId id, NodeId node) const {
  if (!node_admits(id, node)) return false;
  const int32_t need = job(id).request.gpus;
  if (need == 0) return true;
  const Node& n = cluster().node(node);
  if (n.gpu_count < need) return false;
  int32_t found = 0;
  for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count && found < need; ++g) found += gpu_fits(id, g) ? 1 : 0;
  return found >= need;
}

}  // namespace gpusim
