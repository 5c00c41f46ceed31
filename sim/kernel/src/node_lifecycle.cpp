#include "gpusim/sim/node_lifecycle.hpp"

#include <boost/math/distributions/exponential.hpp>

#include <algorithm>
#include <cmath>

namespace gpusim {

NodeLifecycle::NodeLifecycle(uint64_t seed, Cluster& cluster, Metrics& metrics, PowerBudgets& budgets, EventQueue& events,
                             const Time& now, Host& host)
    : cluster_(cluster),
      metrics_(metrics),
      budgets_(budgets),
      events_(events),
      now_(now),
      host_(host),
      nodes_(cluster.node_count()),
      pools_(cluster.pools().size()),
      activity_(cluster.pools().size()) {
  for (PoolId p{0}; p < pools_.size(); ++p) {
    pools_[p].rng = make_stream(seed, "spot/" + cluster.pool(p).name);
    const SpotConfig& spot = cluster.pool(p).spot;
    if (spot.process == SpotConfig::Process::poisson) pools_[p].hazard_per_node_hour = spot.hazard_per_node_hour;
    if (spot.process == SpotConfig::Process::trace) pools_[p].hazard_per_node_hour = spot.availability->reclaims_per_node_hour();
    autoscaled_ = autoscaled_ || cluster.pool(p).autoscale.enabled;
  }
}

void NodeLifecycle::apply(const Event& e) {
  const NodeId n{e.target};
  switch (e.kind) {
    case EventKind::node_ready:
      if (nodes_[n].stamp == e.generation && cluster_.node(n).state == NodeState::provisioning) node_ready(n);
      break;
    case EventKind::reclaim:
      if (nodes_[n].stamp == e.generation && cluster_.node(n).ready()) reclaim(n);
      break;
    case EventKind::node_gone:  // a draining node leaves only this way: no stale ones
      if (cluster_.node(n).state == NodeState::draining) node_gone(n);
      break;
    case EventKind::idle_check:
      if (nodes_[n].stamp == e.generation && cluster_.node(n).ready()) idle_check(n);
      break;
    case EventKind::market_tick:
      ++applied_;
      market_tick(static_cast<PoolId>(e.target));
      break;
    default: break;
  }
}

void NodeLifecycle::job_placed(NodeId n, JobId id) {
  auto& on = nodes_[n].jobs;
  if (std::find(on.begin(), on.end(), id) != on.end()) return;
  on.push_back(id);
  if (on.size() == 1) busy_changed(n);
}

void NodeLifecycle::job_left(NodeId n, JobId id) {
  auto& on = nodes_[n].jobs;
  on.erase(std::find(on.begin(), on.end(), id));
  if (on.empty()) busy_changed(n);
}

// The pool's price from now on; a GPU-hour is a GPU's share of a node (a GPU-less node is one unit).
void NodeLifecycle::set_price(PoolId p, double per_node_hour_usd) {
  metrics_.set_price(p, per_node_hour_usd, per_node_hour_usd / std::max<uint16_t>(1, cluster_.pool(p).gpus_per_node));
}

// A node's GPUs draw power while it is billed, and it holds its power budget's room (issue 45).
void NodeLifecycle::powered(NodeId n, bool on) {
  const Node& node = cluster_.node(n);
  budgets_.hold(node.pool, (on ? 1 : -1) * budgets_.node_mw(node.pool, node.gpu_count));
  for (uint16_t i = 0; i < node.gpu_count; ++i)
    metrics_.set_powered(node.pool, GpuId{static_cast<uint32_t>(node.first_gpu + i)}, node.gpu_count, on, now_);
}

void NodeLifecycle::set_state(NodeId n, NodeState to) {
  const Node& node = cluster_.node(n);
  const NodeState from = node.state;
  const auto billed = [](NodeState s) { return s != NodeState::off ? 1 : 0; };
  const auto capacity = [](NodeState s) { return has_capacity(s) ? 1 : 0; };
  const auto alive = [](NodeState s) { return s == NodeState::provisioning || s == NodeState::ready ? 1 : 0; };
  const auto provisioning = [](NodeState s) { return s == NodeState::provisioning ? 1 : 0; };
  metrics_.add_capacity(node.pool, (capacity(to) - capacity(from)) * node.gpu_count, billed(to) - billed(from));
  if (billed(to) != billed(from)) powered(n, billed(to) == 1);
  PoolState& p = pools_[node.pool];
  p.alive = static_cast<uint32_t>(static_cast<int>(p.alive) + alive(to) - alive(from));
  p.provisioning = static_cast<uint32_t>(static_cast<int>(p.provisioning) + provisioning(to) - provisioning(from));
  ++nodes_[n].stamp;
  cluster_.set_state(n, to);
  host_.node_changed(n, from);
}

bool NodeLifecycle::request_node(PoolId p) {
  const Pool& pool = cluster_.pool(p);
  // The lowest free slot: a built node that is off, else the next slot, built now.
  NodeId n = pool.first_node;
  while (n < pool.first_node + pool.built && cluster_.node(n).state != NodeState::off) ++n;
  if (n == pool.first_node + pool.built && pool.built == pool.node_count) return false;
  // A node whose idle draw its power budget has no room for is not powered up.
  if (budgets_.node_mw(p, static_cast<uint16_t>(pool.shape(static_cast<uint32_t>(n - pool.first_node)).gpus)) >
      budgets_.room_mw(p)) {
    budgets_.node_refused(p);
    return false;
  }
  if (n == pool.first_node + pool.built) cluster_.build_node(p, NodeState::off);
  set_state(n, NodeState::provisioning);
  ++activity_[p].nodes_requested;
  events_.push(now_ + pool.provisioning_delay, EventKind::node_ready, n, nodes_[n].stamp);
  return true;
}

void NodeLifecycle::node_ready(NodeId n) {
  ++applied_;
  set_state(n, NodeState::ready);
  host_.capacity_added();
  busy_changed(n);  // it starts empty: an autoscaled pool's idle clock runs
}

void NodeLifecycle::busy_changed(NodeId n) {
  ++nodes_[n].stamp;
  const PoolId p = cluster_.node(n).pool;
  const bool busy = !nodes_[n].jobs.empty();
  if (!busy && cluster_.pool(p).autoscale.enabled && cluster_.node(n).ready())
    events_.push(now_ + cluster_.pool(p).autoscale.scale_down_after, EventKind::idle_check, n, nodes_[n].stamp);
  // A Poisson reclaim is drawn when a spot node takes work: the hazard is memoryless, and a reclaim
  // of an idle node changes nothing a job sees (this also lets a run without a horizon end).
  if (busy && cluster_.pool(p).spot.process == SpotConfig::Process::poisson && pools_[p].hazard_per_node_hour > 0) {
    const double hours = boost::math::quantile(boost::math::exponential_distribution<>(pools_[p].hazard_per_node_hour),
                                               uniform01(pools_[p].rng));
    events_.push(now_ + sampled_wait(hours), EventKind::reclaim, n, nodes_[n].stamp);
  }
}

void NodeLifecycle::reclaim(NodeId n) {
  ++applied_;
  const PoolId p = cluster_.node(n).pool;
  ++activity_[p].reclaims;
  set_state(n, NodeState::draining);
  const Time gone = now_ + cluster_.pool(p).spot.notice;
  for (JobId id : std::vector<JobId>(nodes_[n].jobs.begin(), nodes_[n].jobs.end())) host_.notice(id, gone);
  // After the notices: a checkpoint that ends exactly when the node goes is written in time.
  events_.push(gone, EventKind::node_gone, n, 0);
  replenish(p);  // the replacement is requested at the notice, as Karpenter does
}

void NodeLifecycle::node_gone(NodeId n) {
  ++applied_;
  for (JobId id : std::vector<JobId>(nodes_[n].jobs.begin(), nodes_[n].jobs.end())) host_.node_lost(id);
  set_state(n, NodeState::off);
}

void NodeLifecycle::idle_check(NodeId n) {
  const PoolId p = cluster_.node(n).pool;
  if (!nodes_[n].jobs.empty() || pools_[p].alive <= cluster_.pool(p).autoscale.min_nodes) return;
  ++applied_;
  ++activity_[p].nodes_removed;
  set_state(n, NodeState::off);
}

void NodeLifecycle::replenish(PoolId p) {
  const Pool& ps = cluster_.pool(p);
  PoolState& rt = pools_[p];
  const int64_t target = std::min<int64_t>(ps.autoscale.enabled ? ps.autoscale.min_nodes : ps.initial_nodes, rt.cap);
  while (rt.alive < target && request_node(p)) {
  }
}

void NodeLifecycle::market_tick(PoolId p) {
  const Pool& ps = cluster_.pool(p);
  const AvailabilitySeries& series = *ps.spot.availability;
  PoolState& rt = pools_[p];
  const std::size_t tick = series.tick_at(now_);
  rt.cap = static_cast<int64_t>(series.available[tick]) * ps.spot.scale;
  const Pool& pool = cluster_.pool(p);
  if (ps.spot.trace_prices) set_price(p, series.price_per_node_hour_usd[tick]);
  // The market has fewer instances for us: requests still provisioning fail first, then running
  // nodes are reclaimed, drawn at random.
  for (NodeId n{pool.first_node + pool.built}; rt.alive > rt.cap && rt.provisioning > 0 && n-- > pool.first_node;)
    if (cluster_.node(n).state == NodeState::provisioning) {
      ++activity_[p].cancelled;
      set_state(n, NodeState::off);
    }
  while (rt.alive > rt.cap) {
    std::vector<NodeId> ready;
    for (NodeId n = pool.first_node; n < pool.first_node + pool.built; ++n)
      if (cluster_.node(n).ready()) ready.push_back(n);
    const auto pick = static_cast<std::size_t>(uniform01(rt.rng) * static_cast<double>(ready.size()));
    reclaim(ready[std::min(pick, ready.size() - 1)]);
  }
  replenish(p);
  if (ps.autoscale.enabled && host_.jobs_pending()) host_.capacity_added();  // the autoscaler may grow into it
  // The next tick at which the count or the price changes.
  std::size_t next = tick + 1;
  const auto same = [&](std::size_t i) {
    return series.available[i] == series.available[tick] &&
           (!ps.spot.trace_prices || series.price_per_node_hour_usd[i] == series.price_per_node_hour_usd[tick]);
  };
  while (next < series.available.size() && same(next)) ++next;
  if (next < series.available.size())
    events_.push(Time() + series.gap * static_cast<int64_t>(next), EventKind::market_tick, p, 0);
}

void NodeLifecycle::start() {
  for (PoolId p{0}; p < cluster_.pools().size(); ++p) {
    const Pool& pool = cluster_.pool(p);
    set_price(p, pool.price_per_node_hour_usd);
    const Pool& ps = cluster_.pool(p);
    const int64_t available = ps.spot.process == SpotConfig::Process::trace
                                  ? static_cast<int64_t>(ps.spot.availability->available.front()) * ps.spot.scale
                                  : std::numeric_limits<int64_t>::max();
    for (NodeId n = pool.first_node; n < pool.first_node + pool.built; ++n) {
      if (!cluster_.node(n).ready()) continue;
      // Initial nodes the spot market does not have at time 0 were never obtained.
      if (pools_[p].alive >= available) {
        cluster_.set_state(n, NodeState::off);
        host_.node_changed(n, NodeState::ready);
        continue;
      }
      metrics_.add_capacity(p, cluster_.node(n).gpu_count, 1);
      powered(n, true);
      ++pools_[p].alive;
      busy_changed(n);
    }
    if (ps.spot.process == SpotConfig::Process::trace) market_tick(p);
  }
}

}  // namespace gpusim
