// MIG-aware: best-fit placement, plus dynamic repartitioning. After a pass, drained MIG GPUs of
// mixed-strategy pools are given a layout built from the profiles the pending jobs ask for (largest
// first, each at its first free allowed start), as the GPU operator would after a node relabel; an AMD
// GPU gets every partition of the mode asked for most (its partitions share one mode), as the Device
// Config Manager would after a profile label. The engine checks that the GPU is empty and charges the
// reconfiguration delay.
#include <algorithm>
#include <map>
#include <optional>

#include "builtin.hpp"
#include "gpusim/hardware/mig.hpp"

namespace gpusim::builtin {

namespace {

// The profile a pending job would take on `pool`, if any.
std::optional<int> wanted_profile(const Job& j, const Pool& pool) {
  const Request& q = j.request;
  const MigTable& t = *pool.gpu->mig;
  std::optional<int> best;
  for (std::size_t i = 0; i < t.profiles.size(); ++i) {
    const MigProfile& p = t.profiles[i];
    bool serves = false;
    if (q.claim) serves = profile_serves(q, pool, i);
    else if (const std::string_view named = partition_profile(*q.resource); !named.empty()) serves = named == p.name;
    if (!serves) continue;
    const MigProfile* b = best ? &t.profiles[static_cast<std::size_t>(*best)] : nullptr;
    if (!b || std::pair(p.memory_slices, p.sms) < std::pair(b->memory_slices, b->sms)) best = static_cast<int>(i);
  }
  return best;
}

struct MigAware final : PlacementPolicy {
  std::unique_ptr<PlacementPolicy> best_fit = make_best_fit();

  double score(const ClusterView& v, JobId job, NodeId node) const override { return best_fit->score(v, job, node); }
  void choose_gpus(const ClusterView& v, JobId job, const std::vector<GpuId>& fitting, int32_t count,
                   std::vector<GpuId>& out) const override {
    best_fit->choose_gpus(v, job, fitting, count, out);
  }

  void after_pass(const ClusterView& view, Binder& binder, const std::vector<JobId>& unplaced) override {
    const Cluster& c = view.cluster();
    std::vector<bool> shape_failed(view.shape_count(), false);
    for (JobId id : unplaced) shape_failed[view.shape(id)] = true;
    for (PoolId pid{0}; pid < c.pools().size(); ++pid) {
      const Pool& pool = c.pool(pid);
      // A partitionable pool creates instances per claim: there is no layout to change.
      if (pool.sharing.mode != Sharing::mig || pool.sharing.mig_strategy != MigStrategy::mixed || pool.sharing.mig_partitionable)
        continue;
      // Instances the pending jobs that did not fit ask for, per profile (one per GPU they need).
      std::map<int, int> demand;
      view.for_each_pending([&](JobId id) {
        if (!shape_failed[view.shape(id)] || !view.pool_allowed(id, pid)) return true;
        if (const std::optional<int> p = wanted_profile(view.job(id), pool)) demand[*p] += view.job(id).request.gpus;
        return true;
      });
      if (demand.empty()) continue;
      const MigTable& t = *pool.gpu->mig;
      for (NodeId n = pool.first_node; n < pool.first_node + pool.built && !demand.empty(); ++n) {
        const Node& node = c.node(n);
        if (!node.ready()) continue;  // a node that is off, provisioning or draining is not there to repartition
        for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count && !demand.empty(); ++g) {
          const Gpu& gpu = c.gpu(g);
          if (!gpu.mig || gpu.reconfiguring || !gpu.residents.empty()) continue;
          MigLayout layout;
          std::map<int, int> left = demand;
          // Largest profiles first: they are the hardest to place later.
          std::vector<int> order;
          order.reserve(left.size());
          for (const auto& [p, count] : left) order.push_back(p);
          std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return t.profiles[a].memory_slices > t.profiles[b].memory_slices;
          });
          for (int p : order)
            for (int start : t.profiles[p].starts)
              if (left[p] > 0 && !mig_conflict(t, layout, p, start)) {
                mig_add(layout, {p, start});
                --left[p];
              }
          // An AMD GPU is split into every partition of its one mode: the rest of the mode's places too.
          if (t.one_mode && !layout.empty()) {
            const int p = layout.front().profile;
            for (int start : t.profiles[p].starts)
              if (!mig_conflict(t, layout, p, start)) mig_add(layout, {p, start});
          }
          MigLayout current;
          for (const MigSlot& m : gpu.instances) current.push_back(m.instance);
          if (layout.empty() || layout == current) continue;
          binder.reconfigure(g, layout);
          for (auto it = left.begin(); it != left.end();) it = it->second == 0 ? left.erase(it) : std::next(it);
          demand = std::move(left);
        }
      }
    }
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_mig_aware() { return std::make_unique<MigAware>(); }

PlacementRegistration mig_aware_placement() {
  return {"mig-aware",
          "best-fit, and repartitions drained MIG GPUs toward the profiles pending jobs ask for",
          [](const PolicyContext&) { return make_mig_aware(); },
          {}};
}

}  // namespace gpusim::builtin
