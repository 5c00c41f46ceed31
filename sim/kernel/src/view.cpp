#include "gpusim/sim/scheduler.hpp"

namespace gpusim {

int32_t ClusterView::count_fitting_gpus(JobId id, NodeId node, int32_t limit) const {
  const Node& n = cluster().node(node);
  int32_t found = 0;
  for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count && found < limit; ++g) found += gpu_fits(id, g) ? 1 : 0;
  return found;
}

void ClusterView::fitting_gpus(JobId id, NodeId node, std::vector<GpuId>& out) const {
  out.clear();
  const Node& n = cluster().node(node);
  for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g)
    if (gpu_fits(id, g)) out.push_back(g);
}

void ClusterView::aligned_gpus(JobId id, NodeId node, int32_t count, std::vector<GpuId>& out) const {
  fitting_gpus(id, node, out);
  const Node& n = cluster().node(node);
  const TopologyPolicy policy = cluster().pool(n.pool).topology_manager;
  if (static_cast<int32_t>(out.size()) < count) {
    out.clear();
    return;
  }
  if (policy == TopologyPolicy::none || !n.topology) return;
  const uint32_t available = cluster().gpu_mask(node, out);
  const auto allowed = topology_manager_allows(policy, *n.topology, available, count);
  if (!allowed) {
    out.clear();
    return;
  }
  std::erase_if(out, [&](GpuId g) { return !(*allowed >> (g - n.first_gpu) & 1); });
}

bool ClusterView::fits_on_node(JobId id, NodeId node) const {
  if (!node_admits(id, node)) return false;
  const Request& q = job(id).request;
  const int32_t count = gpus_to_place(id);
  if (count == 0) return true;
  const Node& n = cluster().node(node);
  if (n.gpu_count < count) return false;
  const int32_t pods = q.pods_on_node(count);
  if (pods > 1 && !pods_fit(per_pod(q), pods, free_resources(n))) return false;
  if (cluster().pool(n.pool).topology_manager == TopologyPolicy::none) {
    return count_fitting_gpus(id, node, count) >= count;
  }
  std::vector<GpuId> gpus;
  aligned_gpus(id, node, count, gpus);
  return static_cast<int32_t>(gpus.size()) >= count;
}

}  // namespace gpusim
