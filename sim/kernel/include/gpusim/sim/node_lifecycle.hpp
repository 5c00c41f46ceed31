#pragma once
// Node lifecycle and markets (docs/guide/markets.md): nodes being requested,
// provisioned, reclaimed with a notice, drained and removed; spot reclaim processes (Poisson or a
// recorded availability trace) and their prices; an autoscaled pool's idle nodes going away. The
// component owns each pool's and node's runtime state and its own events (node_ready, reclaim,
// node_gone, idle_check, market_tick); what a node's life does to the jobs on it goes through Host.
#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <limits>
#include <vector>

#include "gpusim/core/paged_vector.hpp"
#include "gpusim/core/random.hpp"
#include "gpusim/core/time.hpp"
#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/event_queue.hpp"
#include "gpusim/sim/metrics.hpp"
#include "gpusim/sim/power_budgets.hpp"

namespace gpusim {

// What happened to a pool's nodes (autoscaling and spot).
struct PoolActivity {
  uint64_t nodes_requested = 0;  // scale-ups and replacements (the initial nodes not counted)
  uint64_t nodes_removed = 0;    // scaled down after idling
  uint64_t reclaims = 0;         // spot reclaim notices
  uint64_t cancelled = 0;        // requests dropped while provisioning because the spot trace fell
};

class NodeLifecycle {
 public:
  // What the engine does for the nodes' jobs and its observers.
  class Host {
   public:
    virtual ~Host() = default;
    virtual void notice(JobId id, Time gone) = 0;  // the job's node goes at `gone`
    virtual void node_lost(JobId id) = 0;          // the job's node is gone (if it still runs there)
    virtual void capacity_added() = 0;
    virtual bool jobs_pending() const = 0;
    virtual void node_changed(NodeId n, NodeState from) = 0;
  };

  struct PoolState {
    uint32_t alive = 0;  // provisioning + ready nodes
    uint32_t provisioning = 0;
    int64_t cap = std::numeric_limits<int64_t>::max();  // spot trace: nodes the market has for us now
    double hazard_per_node_hour = 0;                    // expected reclaims of one node (Young/Daly)
    Rng rng;                                            // spot/<pool>: reclaim times and which node goes
  };

  NodeLifecycle(uint64_t seed, Cluster& cluster, Metrics& metrics, PowerBudgets& budgets, EventQueue& events, const Time& now,
                Host& host);

  // At time 0: prices, the initial nodes the market has, the first market ticks.
  void start();
  // Applies one of its events (a stale one changes nothing).
  void apply(const Event& e);
  // A new node of the pool, ready after its provisioning delay; false when every slot is in use.
  bool request_node(PoolId p);
  // A job (or worker pod) was placed on the node, or left it.
  void job_placed(NodeId n, JobId id);
  void job_left(NodeId n, JobId id);

  const PoolState& pool(PoolId p) const { return pools_[p]; }
  bool any_autoscaled() const { return autoscaled_; }
  // Node events that changed something: provisioned, reclaimed (at a notice, or drawn by a market
  // tick), gone, removed idle; market ticks.
  uint64_t events_applied() const { return applied_; }
  std::vector<PoolActivity> take_activity() { return std::move(activity_); }

 private:
  void powered(NodeId n, bool on);
  void set_state(NodeId n, NodeState to);
  void set_price(PoolId p, double per_node_hour_usd);
  void node_ready(NodeId n);
  void busy_changed(NodeId n);  // the node went from idle to running jobs or back
  void reclaim(NodeId n);       // a spot reclaim notice
  void node_gone(NodeId n);
  void idle_check(NodeId n);
  void market_tick(PoolId p);
  // Brings the pool back to its desired size (fixed pools) or minimum (autoscaled), within the spot cap.
  void replenish(PoolId p);

  Cluster& cluster_;
  Metrics& metrics_;
  PowerBudgets& budgets_;
  EventQueue& events_;
  const Time& now_;
  Host& host_;
  struct NodeRuntime {
    uint32_t stamp = 0;  // bumps on every state change and busy/idle change: stale node events are dropped
    boost::container::small_vector<JobId, 4> jobs;  // jobs (or worker pods) placed on it
  };
  PagedVector<NodeRuntime> nodes_;  // written only for built slots
  std::vector<PoolState> pools_;
  std::vector<PoolActivity> activity_;
  bool autoscaled_ = false;
  uint64_t applied_ = 0;
};

}  // namespace gpusim
