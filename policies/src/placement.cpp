#include "gpusim/policies/placement.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace gpusim {

double PlacementPolicy::score(const ClusterView&, JobId, NodeId) const { return 0.0; }

void PlacementPolicy::choose_gpus(const ClusterView&, JobId, const std::vector<GpuId>& fitting, int32_t count,
                                  std::vector<GpuId>& out) const {
  out.assign(fitting.begin(), fitting.begin() + count);
}

MigSlotIndex PlacementPolicy::choose_instance(const ClusterView&, JobId, GpuId, const std::vector<MigSlotIndex>& fitting) const {
  return fitting.front();
}

void PlacementPolicy::after_pass(const ClusterView&, Binder&, const std::vector<JobId>&) {}

bool PlacementPolicy::admits_pool(const ClusterView&, JobId, PoolId) const { return true; }

void PlacementPolicy::choose_instances(const ClusterView& view, JobId job, Placement& p) const {
  std::vector<MigSlotIndex> fitting;
  for (std::size_t i = 0; i < p.gpus.size(); ++i) {
    if (!view.cluster().gpu(p.gpus[i]).mig) continue;
    p.instances.resize(p.gpus.size());
    view.fitting_instances(job, p.gpus[i], fitting);
    // No instance fits: the job takes a partitionable GPU whole (the smallest device that fits comes first).
    if (!fitting.empty()) p.instances[i] = choose_instance(view, job, p.gpus[i], fitting);
  }
}

std::optional<Placement> PlacementPolicy::place_on_node(const ClusterView& view, JobId job, NodeId node) const {
  Placement p;
  p.nodes.push_back(node);
  const int32_t need = view.gpus_to_place(job);
  if (need > 0) {
    std::vector<GpuId> fitting;
    view.aligned_gpus(job, node, need, fitting);
    choose_gpus(view, job, fitting, need, p.gpus);
    std::sort(p.gpus.begin(), p.gpus.end());
    choose_instances(view, job, p);
  }
  return p;
}

std::optional<NodeId> PlacementPolicy::best_of(const ClusterView& view, JobId job, std::vector<Candidate>& candidates) const {
  if (candidates.empty()) return std::nullopt;
  keep_preferred(view, job, candidates, [&](const Candidate& c) { return view.cluster().node(c.node).pool; });
  double best = candidates.front().score;
  for (const Candidate& c : candidates) best = std::min(best, c.score);
  const Cluster& cluster = view.cluster();
  if (rank_rng_ || !rank_.empty()) {  // the lowest-ranked node among the best (a bucket's nodes all score alike)
    NodeId first = kNoNode;
    uint32_t first_rank = 0;
    const auto consider = [&](NodeId n) {
      const uint32_t r = rank(cluster, n);
      if (first == kNoNode || r < first_rank) first = n, first_rank = r;
    };
    for (const Candidate& c : candidates) {
      if (c.score != best) continue;
      if (c.weight == 1) consider(c.node);
      else
        for (NodeId n : cluster.bucket(*cluster.node(c.node).bucket).nodes) consider(n);
    }
    return first;
  }
  if (!tie_rng_) {  // the lowest node id among the best, in one pass rather than a sort
    NodeId first = kNoNode;
    for (const Candidate& c : candidates)
      if (c.score == best) first = std::min(first, c.node);
    return first;
  }
  std::erase_if(candidates, [&](const Candidate& c) { return c.score != best; });
  // In node-id order, so neither rule depends on the index's internal order.
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.node < b.node; });
  if (candidates.size() == 1) return candidates.front().node;
  uint64_t total = 0;
  for (const Candidate& c : candidates) total += c.weight;
  auto pick = static_cast<uint64_t>(uniform01(*tie_rng_) * static_cast<double>(total));
  for (const Candidate& c : candidates) {
    if (pick < c.weight) {
      if (c.weight == 1) return c.node;
      return cluster.bucket(*cluster.node(c.node).bucket).nodes.nth(pick);
    }
    pick -= c.weight;
  }
  return candidates.back().node;  // unreachable: pick < total
}

uint32_t PlacementPolicy::rank(const Cluster& cluster, NodeId node) const {
  if (rank_.empty()) {  // drawn (given ranks are never empty: a cluster has a node)
    rank_.resize(cluster.node_count());
    std::iota(rank_.begin(), rank_.end(), 0u);
    for (std::size_t i = rank_.size(); i > 1; --i)  // Fisher-Yates
      std::swap(rank_[i - 1], rank_[static_cast<std::size_t>(uniform01(*rank_rng_) * static_cast<double>(i))]);
  }
  return node < rank_.size() ? rank_[node] : node;
}

std::optional<Placement> PlacementPolicy::place(const ClusterView& view, JobId job) {
  if (auto p = place_on_one_node(view, job)) return p;
  return place_across_nodes(view, job);
}

std::optional<Placement> PlacementPolicy::place_on_one_node(const ClusterView& view, JobId job) {
  const Cluster& c = view.cluster();
  candidates_.clear();
  for (BucketId b : c.live_buckets()) {
    const NodeId rep = c.bucket(b).representative();
    if (!view.fits_in_bucket(job, b) || !admits_pool(view, job, c.node(rep).pool)) continue;
    candidates_.push_back({rep, static_cast<uint32_t>(c.bucket(b).nodes.size()), score(view, job, rep)});
  }
  if (auto best = best_of(view, job, candidates_)) return place_on_node(view, job, *best);
  return std::nullopt;
}

// A node takes whole workers (or any number of GPUs when the job has no fixed worker size), at most the
// GPUs left to place, as many as its CPU and memory hold pods for.
int32_t PlacementPolicy::usable_gpus(const ClusterView& view, JobId job, NodeId n, std::size_t fitting) const {
  const Request& q = view.job(job).request;
  const int32_t unit = std::max(1, q.worker_gpus);
  int32_t take = std::min<int32_t>(static_cast<int32_t>(fitting) / unit * unit, view.gpus_to_place(job));
  const Node& node = view.cluster().node(n);
  while (take > 0 && !pods_fit(per_pod(q), q.pods_on_node(take), free_resources(node))) take -= unit;
  return std::max(0, take);
}

// Takes up to `most` (at most `left`) of the job's GPUs from node n, as the kubelet aligns them there;
// false when none fit.
bool PlacementPolicy::take_from(const ClusterView& view, JobId job, NodeId n, int32_t most, Placement& p, int32_t& left) const {
  const int32_t unit = std::max(1, view.job(job).request.worker_gpus);
  int32_t take = std::min(left, most);
  for (; take > 0; take -= unit) {
    view.aligned_gpus(job, n, take, fitting_);
    if (static_cast<int32_t>(fitting_.size()) >= take) break;
  }
  if (take <= 0) return false;
  choose_gpus(view, job, fitting_, take, chosen_);
  p.nodes.push_back(n);
  p.gpus.insert(p.gpus.end(), chosen_.begin(), chosen_.end());
  left -= take;
  return true;
}

std::optional<Placement> PlacementPolicy::place_in_nvlink_domain(const ClusterView& view, JobId job, bool pack) const {
  const Job& j = view.job(job);
  const int32_t count = view.gpus_to_place(job);
  if (!j.multi_node || count <= 1) return std::nullopt;
  const Cluster& c = view.cluster();
  // The GPUs each NVLink domain could give the job now, node by node (every node: a domain is a few racks' worth).
  struct Domain {
    int32_t free = 0;
    std::vector<std::pair<int32_t, NodeId>> nodes;  // (usable GPUs, node)
  };
  std::map<std::pair<PoolId, uint32_t>, Domain> domains;
  std::vector<GpuId> fitting;
  for (BucketId b : c.live_buckets()) {
    const NodeId rep = c.bucket(b).representative();
    const PoolId pool = c.node(rep).pool;
    if (c.pool(pool).nvlink_domain_nodes == 0 || !admits_pool(view, job, pool) || !view.node_admits(job, rep)) continue;
    view.fitting_gpus(job, rep, fitting);
    const int32_t free = usable_gpus(view, job, rep, fitting.size());
    if (free == 0) continue;
    for (NodeId n : c.bucket(b).nodes) {
      Domain& d = domains[{pool, *c.nvlink_domain(n)}];
      d.free += free;
      d.nodes.emplace_back(free, n);
    }
  }
  // The domain with most free GPUs that holds the job (keeps it whole, leaves the others' room), or with
  // least (packs domains, leaving whole ones for larger jobs); ties to the first by pool and domain.
  const Domain* best = nullptr;
  for (const auto& [key, d] : domains)
    if (d.free >= count && (!best || (pack ? d.free < best->free : d.free > best->free))) best = &d;
  if (!best) return std::nullopt;
  std::vector<std::pair<int32_t, NodeId>> nodes = best->nodes;  // fewest nodes: most free first, then by id
  std::sort(nodes.begin(), nodes.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  Placement p;
  int32_t left = count;
  for (const auto& [free, n] : nodes)
    if (take_from(view, job, n, free, p, left) && left == 0) break;
  if (left > 0) return std::nullopt;
  std::sort(p.nodes.begin(), p.nodes.end());
  std::sort(p.gpus.begin(), p.gpus.end());
  choose_instances(view, job, p);
  return p;
}

std::optional<Placement> PlacementPolicy::place_across_nodes(const ClusterView& view, JobId job) const {
  const Job& j = view.job(job);
  const int32_t count = view.gpus_to_place(job);
  if (!j.multi_node || count <= 1) return std::nullopt;
  if (j.request.one_nvlink_domain) return place_in_nvlink_domain(view, job, false);
  const Cluster& c = view.cluster();
  const auto usable = [&](NodeId n, std::size_t fitting) { return usable_gpus(view, job, n, fitting); };
  struct Spread {
    BucketId bucket;
    int32_t free_gpus;
    double score;
    NodeId first;
    int64_t preference = 0;  // higher first (keep_preferred's score)
  };
  std::vector<Spread> candidates;
  std::vector<GpuId> fitting;
  int64_t total = 0;
  for (BucketId b : c.live_buckets()) {
    const NodeId rep = c.bucket(b).representative();
    if (!admits_pool(view, job, c.node(rep).pool) || !view.node_admits(job, rep)) continue;
    view.fitting_gpus(job, rep, fitting);
    const int32_t free = usable(rep, fitting.size());
    if (free == 0) continue;
    candidates.push_back({b, free, score(view, job, rep), rep});
    total += static_cast<int64_t>(free) * static_cast<int64_t>(c.bucket(b).nodes.size());
  }
  if (total < count) return std::nullopt;
  if (const auto& per_pool = view.preferences(job); !per_pool.empty()) {
    pools_.clear();
    for (const Spread& cand : candidates) pools_.push_back(c.node(cand.first).pool);
    preference_scores(per_pool, pools_, scores_);
    for (std::size_t i = 0; i < candidates.size(); ++i) candidates[i].preference = scores_[i];
  }
  // The pools the job's node preferences score best first (each worker pod is scored alone in
  // Kubernetes), then fewest nodes: the nodes with most free GPUs, then the placement's preference.
  std::sort(candidates.begin(), candidates.end(), [](const Spread& a, const Spread& b) {
    if (a.preference != b.preference) return a.preference > b.preference;
    if (a.free_gpus != b.free_gpus) return a.free_gpus > b.free_gpus;
    if (a.score != b.score) return a.score < b.score;
    return a.first < b.first;
  });
  Placement p;
  int32_t left = count;
  for (const Spread& cand : candidates) {
    for (NodeId n : c.bucket(cand.bucket).nodes)
      // The kubelet aligns the job's GPUs on each node (the Topology Manager, per node).
      if (take_from(view, job, n, cand.free_gpus, p, left) && left == 0) break;
    if (left == 0) break;
  }
  if (left > 0) return std::nullopt;
  std::sort(p.nodes.begin(), p.nodes.end());
  std::sort(p.gpus.begin(), p.gpus.end());
  choose_instances(view, job, p);
  return p;
}

void tightest_gpus(const ClusterView& view, const std::vector<GpuId>& fitting, int32_t count, std::vector<GpuId>& out) {
  out = fitting;
  std::stable_sort(out.begin(), out.end(), [&](GpuId a, GpuId b) { return view.cluster().gpu(a).free < view.cluster().gpu(b).free; });
  out.resize(static_cast<std::size_t>(count));
}

double leftover_after(const ClusterView& view, JobId job, NodeId node) {
  const Cluster& c = view.cluster();
  const Node& n = c.node(node);
  const Request& q = view.job(job).request;
  double gpu_term = 0;
  if (n.gpu_count > 0) {
    int64_t free_milli = 0;
    for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g) free_milli += c.gpu(g).free.value;
    free_milli -= static_cast<int64_t>(view.gpus_to_place(job)) * view.gpu_demand(job, n.pool).milli.value;
    gpu_term = static_cast<double>(free_milli) / (1000.0 * n.gpu_count);
  }
  const double cpu_term = static_cast<double>(n.free_cpu_milli - q.cpu_milli) / static_cast<double>(n.cpu_milli);
  return gpu_term + cpu_term;
}

}  // namespace gpusim
