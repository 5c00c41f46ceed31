#pragma once
// Kueue's quota trees are given by each node's parent (read_kueue rejected cycles). A chain of cohorts
// may be tens of thousands deep, so what is worked out over a tree is done in one pass over this order,
// never by walking to the root from every node nor by recursion.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace gpusim::tenancy {

// Nodes 0..n-1 with each after its parent: the roots in index order, then breadth first, each node's
// children in index order. Linear in n.
template <class ParentOf>  // std::optional<uint32_t>(uint32_t)
std::vector<uint32_t> parents_first(uint32_t n, ParentOf&& parent_of) {
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> first_child(n, kNone), next_sibling(n, kNone), order;
  order.reserve(n);
  for (uint32_t i = n; i-- > 0;)
    if (const std::optional<uint32_t> p = parent_of(i)) {
      next_sibling[i] = first_child[*p];
      first_child[*p] = i;
    } else {
      order.push_back(i);
    }
  std::reverse(order.begin(), order.end());
  for (std::size_t k = 0; k < order.size(); ++k)
    for (uint32_t c = first_child[order[k]]; c != kNone; c = next_sibling[c]) order.push_back(c);
  return order;
}

}  // namespace gpusim::tenancy
