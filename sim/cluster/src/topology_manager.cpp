#include "gpusim/sim/topology_manager.hpp"

#include <bit>
#include <vector>

namespace gpusim {

namespace {

// GPUs of the NUMA nodes in `numa_set`.
uint32_t gpus_of(const NodeTopology& t, uint32_t numa_set) {
  uint32_t m = 0;
  for (int n = 0; n < t.numa_nodes(); ++n)
    if (numa_set >> n & 1) m |= t.numa_mask(n);
  return m;
}

// The narrowest NUMA-set size that could hold `count` GPUs of the node at all.
int narrowest_possible(const NodeTopology& t, int count) {
  const uint32_t sets = 1u << t.numa_nodes();
  int best = t.numa_nodes();
  for (uint32_t s = 1; s < sets; ++s)
    if (std::popcount(gpus_of(t, s)) >= count) best = std::min(best, std::popcount(s));
  return best;
}

}  // namespace

std::optional<uint32_t> topology_manager_allows(TopologyPolicy policy, const NodeTopology& t, uint32_t available, int count) {
  if (std::popcount(available) < count) return std::nullopt;
  if (policy == TopologyPolicy::none || count <= 0 || t.numa_nodes() <= 1) return available;
  const int preferred = policy == TopologyPolicy::single_numa_node ? 1 : narrowest_possible(t, count);
  // Sets in order of width, then of their NUMA ids (the lowest bits first).
  const uint32_t sets = 1u << t.numa_nodes();
  for (int width = 1; width <= t.numa_nodes(); ++width) {
    if (width > preferred && policy != TopologyPolicy::best_effort) return std::nullopt;
    for (uint32_t s = 1; s < sets; ++s)
      if (std::popcount(s) == width && std::popcount(available & gpus_of(t, s)) >= count) return available & gpus_of(t, s);
  }
  return std::nullopt;
}

bool topology_manager_admits(TopologyPolicy policy, const NodeTopology& t, uint32_t chosen) {
  if (policy == TopologyPolicy::none || policy == TopologyPolicy::best_effort || t.numa_nodes() <= 1) return true;
  const int count = std::popcount(chosen);
  const int limit = policy == TopologyPolicy::single_numa_node ? 1 : narrowest_possible(t, count);
  return count == 0 || t.numa_span(chosen) <= limit;
}

}  // namespace gpusim
