#include "gpusim/sim/fragmentation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace gpusim {

std::vector<TaskType> typical_task_types(const JobSet& jobs, double coverage, std::size_t first) {
  using Key = std::tuple<int64_t, int32_t, int32_t, std::vector<std::string>>;
  std::map<Key, std::pair<std::size_t, JobId>> count;  // ordered: deterministic ties
  const std::span<const Job> counted(jobs.jobs.data(), std::min(first, jobs.jobs.size()));
  for (const Job& j : counted) {
    const auto& q = j.request;
    auto [it, fresh] = count.try_emplace(Key{q.cpu_milli, q.gpus, q.gpus == 0 ? 0 : q.milli_per_gpu.value, *q.models},
                                         std::pair<std::size_t, JobId>{0, j.id});
    ++it->second.first;
  }
  std::vector<std::pair<const Key*, std::pair<std::size_t, JobId>>> order;
  order.reserve(count.size());
  for (const auto& [key, value] : count) order.emplace_back(&key, value);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  std::vector<TaskType> out;
  std::size_t covered = 0;
  const double want = coverage * static_cast<double>(counted.size());
  for (const auto& [key, value] : order) {
    if (!out.empty() && static_cast<double>(covered) >= want) break;
    const auto& [cpu, gpus, milli, models] = *key;
    out.push_back({cpu, gpus, milli, models, value.second, static_cast<double>(value.first)});
    covered += value.first;
  }
  for (TaskType& t : out) t.weight /= static_cast<double>(covered);
  return out;
}

double node_fragmentation_milli(std::span<const TaskType> types, std::span<const uint8_t> accessible, int64_t free_cpu_milli,
                                std::span<const int32_t> free_milli) {
  int64_t idle = 0;
  for (int32_t f : free_milli) idle += f;
  if (idle == 0) return 0;
  double frag = 0;
  for (std::size_t i = 0; i < types.size(); ++i) {
    const TaskType& t = types[i];
    int64_t unusable = idle;  // a task that cannot run here leaves all idle GPU unused
    if (t.gpus > 0 && accessible[i] && free_cpu_milli >= t.cpu_milli) {
      int32_t room = 0;
      int64_t small = 0;  // idle GPU on GPUs with less room than one of its GPUs needs
      for (int32_t f : free_milli) {
        if (f >= t.milli_per_gpu) ++room;
        else small += f;
      }
      if (room >= t.gpus) unusable = small;
    }
    frag += t.weight * static_cast<double>(unusable);
  }
  return frag;
}

int64_t fgd_integer_score(double growth_milli) { return static_cast<int64_t>(100.0 / (1.0 + std::exp(growth_milli / 1000.0))); }

const std::vector<uint8_t>& TaskMix::accessible(const ClusterView& view, PoolId pool) const {
  if (by_pool_.size() <= pool) by_pool_.resize(pool + 1u);
  auto& a = by_pool_[pool];
  if (a.size() != types_.size()) {
    a.clear();
    for (const TaskType& t : types_) a.push_back(view.pool_allowed(t.example, pool));
  }
  return a;
}

void TaskMix::free_milli(const ClusterView& view, NodeId node, std::vector<int32_t>& out) {
  const Cluster& c = view.cluster();
  const Node& n = c.node(node);
  out.clear();
  for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g) out.push_back(static_cast<int32_t>(c.gpu(g).free.value));
}

double TaskMix::node_fragmentation_milli(const ClusterView& view, NodeId node) const {
  free_milli(view, node, free_);
  const Node& n = view.cluster().node(node);
  return gpusim::node_fragmentation_milli(types_, accessible(view, n.pool), n.free_cpu_milli, free_);
}

}  // namespace gpusim
