// Kueue's hierarchical quota tree (pkg/cache/resource_node.go): cluster queues and cohorts, their
// quotas and usage per flavor-resource, what each may still use (available / potentialAvailable),
// and the fair-sharing shares.
#include <algorithm>
#include <limits>

#include "forest.hpp"
#include "gpusim/sim/scenario.hpp"
#include "kueue_parts.hpp"

namespace gpusim::kueue_parts {

QuotaTree::QuotaTree(const Scenario& s) {
  const KueueSpec& spec = s.tenancy.kueue;
  // Every resource the quotas name, then the ones jobs ask for (a job asking for one its queue does
  // not cover is never admitted, as in Kueue).
  const auto each_group = [&](auto&& visit) {
    for (const KueueClusterQueue& q : spec.cluster_queues)
      for (const KueueResourceGroup& g : q.resource_groups) visit(g);
    for (const KueueCohort& c : spec.cohorts)
      for (const KueueResourceGroup& g : c.resource_groups) visit(g);
  };
  each_group([&](const KueueResourceGroup& g) {
    for (const std::string& r : g.covered_resources) intern(r);
  });
  for (std::string_view name : {std::string_view("cpu"), std::string_view("memory"), kGpu}) intern(name);
  for (const Job& j : s.jobs.jobs) intern(resource_name(j.request));
  resource_count_ = static_cast<uint32_t>(resources_.size());
  flavor_count_ = static_cast<uint32_t>(spec.flavors.size());
  const std::size_t frs = spec.flavors.size() * resource_count_;
  queue_count_ = static_cast<uint32_t>(spec.cluster_queues.size());
  nodes_.resize(queue_count_ + spec.cohorts.size());
  for (QuotaNode& n : nodes_) {
    n.nominal.assign(frs, 0);
    n.guaranteed.assign(frs, 0);
    n.usage.assign(frs, 0);
    n.borrowing_limit.assign(frs, std::nullopt);
    n.lending_limit.assign(frs, std::nullopt);
  }
  std::map<std::string_view, uint32_t> cohort_node;
  for (std::size_t i = 0; i < spec.cohorts.size(); ++i) cohort_node.emplace(spec.cohorts[i].name, queue_count_ + i);
  const auto quotas = [&](QuotaNode& n, const std::vector<KueueResourceGroup>& groups) {
    for (const KueueResourceGroup& g : groups)
      for (const KueueFlavorQuotas& fq : g.flavors)
        for (const KueueResourceQuota& q : fq.resources) {
          const uint32_t at = fr(fq.flavor, resource(q.resource));
          n.nominal[at] = q.nominal;
          n.borrowing_limit[at] = q.borrowing_limit;
          n.lending_limit[at] = q.lending_limit;
        }
  };
  for (uint32_t i = 0; i < queue_count_; ++i) {
    const KueueClusterQueue& q = spec.cluster_queues[i];
    quotas(nodes_[i], q.resource_groups);
    nodes_[i].weight = q.weight;
    if (!q.cohort.empty()) nodes_[i].parent = cohort_node.at(q.cohort);
  }
  for (std::size_t i = 0; i < spec.cohorts.size(); ++i) {
    QuotaNode& n = nodes_[queue_count_ + i];
    quotas(n, spec.cohorts[i].resource_groups);
    n.weight = spec.cohorts[i].weight;
    if (!spec.cohorts[i].parent.empty()) n.parent = cohort_node.at(spec.cohorts[i].parent);
  }
  for (uint32_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].parent) nodes_[*nodes_[i].parent].children.push_back(i);
  // Depths and roots from the roots down, then subtree quotas from the leaves up.
  const std::vector<uint32_t> order = tenancy::parents_first(static_cast<uint32_t>(nodes_.size()),
                                                             [&](uint32_t i) { return nodes_[i].parent; });
  for (uint32_t i : order) {
    QuotaNode& n = nodes_[i];
    n.depth = n.parent ? nodes_[*n.parent].depth + 1 : 0;
    n.root = n.parent ? nodes_[*n.parent].root : i;
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    QuotaNode& n = nodes_[*it];
    n.subtree = n.nominal;
    for (uint32_t c : n.children)
      for (std::size_t f = 0; f < frs; ++f) n.subtree[f] += nodes_[c].subtree[f] - nodes_[c].guaranteed[f];
    for (std::size_t f = 0; f < frs; ++f)
      n.guaranteed[f] = n.lending_limit[f] ? std::max<int64_t>(0, n.subtree[f] - *n.lending_limit[f]) : 0;
  }
  tree_queues_.resize(nodes_.size());
  for (uint32_t i = 0; i < queue_count_; ++i) tree_queues_[nodes_[i].root].push_back(i);
}

uint32_t QuotaTree::intern(std::string_view name) {
  for (uint32_t i = 0; i < resources_.size(); ++i)
    if (resources_[i] == name) return i;
  resources_.emplace_back(name);
  return static_cast<uint32_t>(resources_.size() - 1);
}

uint32_t QuotaTree::resource(std::string_view name) const {
  return static_cast<uint32_t>(std::find(resources_.begin(), resources_.end(), name) - resources_.begin());
}

// Adds `delta` to a node's usage and what it uses in its ancestors.
void QuotaTree::add_usage(uint32_t node, uint32_t f, int64_t delta) {
  for (;;) {
    QuotaNode& n = nodes_[node];
    const int64_t before = n.usage[f];
    n.usage[f] += delta;
    if (!n.parent) return;
    const int64_t g = n.guaranteed[f];
    delta = std::max<int64_t>(0, n.usage[f] - g) - std::max<int64_t>(0, before - g);
    if (delta == 0) return;
    node = *n.parent;
  }
}

void QuotaTree::add(uint32_t cq, const Amounts& a, int sign) {
  for (const Amount& x : a) add_usage(cq, x.fr, sign * x.quantity);
}

// The node and its ancestors, the root last: Kueue's available() and potentialAvailable() recurse up
// the tree; here they are worked out from the root down (a chain of cohorts may be very deep).
boost::container::small_vector<uint32_t, 8> QuotaTree::to_root(uint32_t node) const {
  boost::container::small_vector<uint32_t, 8> path{node};
  while (nodes_[path.back()].parent) path.push_back(*nodes_[path.back()].parent);
  return path;
}

// What the node may still use of `f`: its unused guaranteed quota plus what its parent has left,
// within its borrowing limit (Kueue's available()).
int64_t QuotaTree::available(uint32_t node, uint32_t f) const {
  const auto path = to_root(node);
  int64_t a = nodes_[path.back()].subtree[f] - nodes_[path.back()].usage[f];
  for (auto it = std::next(path.rbegin()); it != path.rend(); ++it) {
    const QuotaNode& n = nodes_[*it];
    const int64_t local = std::max<int64_t>(0, n.guaranteed[f] - n.usage[f]);
    if (n.borrowing_limit[f]) {
      const int64_t stored = n.subtree[f] - n.guaranteed[f];
      const int64_t used = std::max<int64_t>(0, n.usage[f] - n.guaranteed[f]);
      a = std::min(stored - used + *n.borrowing_limit[f], a);
    }
    a += local;
  }
  return a;
}

// The same on an empty tree (Kueue's potentialAvailable()).
int64_t QuotaTree::potential(uint32_t node, uint32_t f) const {
  const auto path = to_root(node);
  int64_t a = nodes_[path.back()].subtree[f];
  for (auto it = std::next(path.rbegin()); it != path.rend(); ++it) {
    const QuotaNode& n = nodes_[*it];
    a += n.guaranteed[f];
    if (n.borrowing_limit[f]) a = std::min(a, n.subtree[f] + *n.borrowing_limit[f]);
  }
  return a;
}

bool QuotaTree::borrowing(uint32_t node, const FlavorResources& frs) const {
  return std::any_of(frs.begin(), frs.end(), [&](uint32_t f) { return nodes_[node].usage[f] > nodes_[node].subtree[f]; });
}

bool QuotaTree::borrows_any(uint32_t node) const {
  const QuotaNode& n = nodes_[node];
  for (std::size_t f = 0; f < n.usage.size(); ++f)
    if (n.usage[f] > n.subtree[f]) return true;
  return false;
}

// workloadFits (pkg/scheduler/preemption): within what is available, and without borrowing
// unless allowed.
bool QuotaTree::fits(uint32_t cq, const Amounts& a, bool allow_borrowing) const {
  for (const Amount& x : a) {
    if (!allow_borrowing && nodes_[cq].usage[x.fr] + x.quantity > nodes_[cq].nominal[x.fr]) return false;
    if (x.quantity > available(cq, x.fr)) return false;
  }
  return true;
}

// Kueue's dominant resource share of a node in its parent (pkg/cache/scheduler/fair_sharing.go,
// dominantResourceShare and PreciseWeightedShare): the largest over resources of what it uses above
// its subtree quota (summed over flavors), per 1000 of what its parent can lend (potentialAvailable
// summed over flavors), divided by its weight; 0 when it borrows nothing or nothing is lendable,
// infinite for a weight of 0 that borrows. In floating point, as Kueue since v0.14 ("Fix Rounding
// Bug", #6925: integer division made a borrower of 1 in 1500 look like a non-borrower).
double QuotaTree::share(uint32_t node) const {
  const QuotaNode& n = nodes_[node];
  if (!n.parent) return 0;
  double best = 0;
  for (uint32_t r = 0; r < resource_count_; ++r) {
    int64_t borrowed = 0, lendable = 0;
    for (uint32_t fl = 0; fl < flavor_count_; ++fl) {
      const uint32_t f = fr(fl, r);
      borrowed += std::max<int64_t>(0, n.usage[f] - n.subtree[f]);
      lendable += potential(*n.parent, f);
    }
    if (borrowed > 0 && lendable > 0)
      best = std::max(best, static_cast<double>(borrowed) * 1000.0 / static_cast<double>(lendable));
  }
  if (best == 0) return 0;
  return n.weight > 0 ? best / n.weight : std::numeric_limits<double>::infinity();
}

double QuotaTree::share_with(uint32_t node, uint32_t cq, const Amounts& a) {
  add(cq, a, +1);
  const double s = share(node);
  add(cq, a, -1);
  return s;
}

// The ancestors of a and b (themselves included) just below their lowest common ancestor: fair
// sharing compares the two subtrees there (hierarchical cohorts).
std::pair<uint32_t, uint32_t> QuotaTree::below_common(uint32_t a, uint32_t b) const {
  if (a == b) return {a, b};
  while (nodes_[a].depth > nodes_[b].depth) a = *nodes_[a].parent;
  while (nodes_[b].depth > nodes_[a].depth) b = *nodes_[b].parent;
  uint32_t x = a, y = b;
  std::vector<std::pair<uint32_t, uint32_t>> path;
  while (x != y && nodes_[x].parent && nodes_[y].parent) {
    path.emplace_back(x, y);
    x = *nodes_[x].parent;
    y = *nodes_[y].parent;
  }
  return path.empty() ? std::pair{a, b} : path.back();
}

}  // namespace gpusim::kueue_parts
