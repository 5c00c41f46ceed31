#include "gpusim/sim/network.hpp"

#include <algorithm>
#include <bit>

namespace gpusim {

Link ring_link(const Cluster& c, const Placement& p, bool best) {
  Link worst{LinkClass::self, 0, std::numeric_limits<double>::infinity()};
  // Across the nodes of one NVLink domain the ring runs over the NVLink switches at a GPU's full NVLink
  // bandwidth, not over the NICs (docs/guide/topology.md#nvlink-domains).
  const bool domain = p.nodes.size() > 1 && c.one_nvlink_domain(p.nodes);
  if (domain) {
    const GpuModel& g = *c.pool_of(p.nodes.front()).gpu;
    worst = {LinkClass::nvlink, g.links, g.link_gb_per_s / 2.0};
  }
  for (NodeId n : p.nodes) {
    const Node& node = c.node(n);
    uint32_t mask = c.gpu_mask(n, p.gpus);
    if (best && !node.topology->best_subsets(std::popcount(mask)).empty())
      mask = node.topology->best_subsets(std::popcount(mask)).front();
    Link l = node.topology->ring_bottleneck(mask);
    if (best && p.nodes.size() > 1 && !domain && c.pool_of(n).network.gb_per_s() < l.gb_per_s)
      l = {LinkClass::network, 0, c.pool_of(n).network.gb_per_s()};
    if (l.gb_per_s < worst.gb_per_s) worst = l;
  }
  return worst;
}

void NetworkSharing::share(const Cluster& c, std::vector<JobRecord>& records, const JobFlights& flights,
                           std::vector<JobId>& changed) {
  // The NICs of every node a multi-node job touches are the links, numbered as first met; each job is
  // a flow over its nodes.
  if (link_of_node_.size() < c.node_count()) link_of_node_.resize(c.node_count());
  links_.clear();
  paths_.clear();
  caps_.clear();
  for (JobId id : jobs_) {
    const JobFlight& f = flights[records[id]];
    for (NodeId n : f.placement.nodes) {
      if (link_of_node_[n] == kNoLink) {
        link_of_node_[n] = static_cast<uint32_t>(links_.size());
        links_.push_back(n);
      }
      paths_.links.push_back(link_of_node_[n]);
    }
    paths_.start.push_back(static_cast<uint32_t>(paths_.links.size()));
    caps_.push_back(f.intra.gb_per_s);  // more NIC bandwidth than its slowest in-node link is of no use
  }
  capacity_.resize(links_.size());
  shares_.resize(jobs_.size());
  for (std::size_t l = 0; l < links_.size(); ++l) {
    capacity_[l] = c.pool_of(links_[l]).network.gb_per_s();
    link_of_node_[links_[l]] = kNoLink;
  }
  // The same flows over the same links as at the last solve (a job left and another joined on the same
  // nodes with the same cap): the shares are those of the last solve, as solving again would give.
  if (capacity_ != solved_capacity_ || caps_ != solved_caps_ || paths_.start != solved_paths_.start ||
      paths_.links != solved_paths_.links) {
    max_min_fair_flows(capacity_, paths_, caps_, shares_, scratch_);
    solved_capacity_ = capacity_;
    solved_caps_ = caps_;
    solved_paths_ = paths_;
  }
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    JobRecord& r = records[jobs_[i]];
    const Link link = shares_[i] < flights[r].intra.gb_per_s ? Link{LinkClass::network, 0, shares_[i]} : flights[r].intra;
    if (link.cls != r.link.cls || link.gb_per_s != r.link.gb_per_s) {
      r.link = link;
      changed.push_back(jobs_[i]);
    }
  }
}

void NetworkSharing::join(JobId id) { jobs_.insert(std::lower_bound(jobs_.begin(), jobs_.end(), id), id); }

bool NetworkSharing::leave(JobId id) {
  const auto it = std::lower_bound(jobs_.begin(), jobs_.end(), id);
  if (it == jobs_.end() || *it != id) return false;
  jobs_.erase(it);
  return true;
}

}  // namespace gpusim
