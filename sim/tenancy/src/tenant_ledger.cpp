#include "gpusim/sim/tenant_ledger.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <utility>

#include "forest.hpp"
#include "gpusim/sim/kueue.hpp"
#include "gpusim/sim/scenario.hpp"

namespace gpusim {

namespace {

// What preempt() without a reason is: a preemptive queue order (srtf, las, tiresias) at work.
constexpr std::string_view kQueueOrderReason = "QueueOrder";

bool terminal(JobStatus s) {
  return s == JobStatus::completed || s == JobStatus::failed || s == JobStatus::unschedulable || s == JobStatus::rejected;
}

}  // namespace

std::vector<double> weighted_fair_shares(double capacity, const std::vector<double>& demand, const std::vector<double>& weight) {
  std::vector<double> share(demand.size(), 0.0);
  // Claimants in the order they are satisfied: smallest demand per unit of weight first.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < demand.size(); ++i)
    if (demand[i] > 0) order.push_back(i);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return demand[a] * weight[b] < demand[b] * weight[a]; });
  double left = capacity;
  double weight_left = 0;
  for (std::size_t i : order) weight_left += weight[i];
  for (std::size_t i : order) {
    if (left <= 0) break;
    const double even = left * weight[i] / weight_left;  // its share if every one left were unsatisfied
    share[i] = std::min(demand[i], even);
    left -= share[i];
    weight_left -= weight[i];
  }
  return share;
}

double jain_index(const std::vector<double>& x) {
  if (x.size() <= 1) return 1.0;
  const double sum = std::accumulate(x.begin(), x.end(), 0.0);
  double squares = 0;
  for (double v : x) squares += v * v;
  return squares > 0 ? sum * sum / (static_cast<double>(x.size()) * squares) : 1.0;
}

namespace {

// nvidia.com/gpu quota over every flavor of `groups`: nominal, and the borrowing limit when every
// flavor has one (else none: unlimited, as for a cohort without quota of its own).
std::pair<int64_t, std::optional<int64_t>> gpu_quota(const std::vector<KueueResourceGroup>& groups) {
  int64_t nominal = 0, borrow = 0;
  bool limited = false, unlimited = false;
  for (const KueueResourceGroup& g : groups)
    for (const KueueFlavorQuotas& f : g.flavors)
      for (const KueueResourceQuota& r : f.resources) {
        if (r.resource != "nvidia.com/gpu") continue;
        nominal += r.nominal;
        if (r.borrowing_limit) {
          limited = true;
          borrow += *r.borrowing_limit;
        } else {
          unlimited = true;
        }
      }
  return {nominal, limited && !unlimited ? std::optional(borrow) : std::nullopt};
}

}  // namespace

KueueFairShares::KueueFairShares(const KueueSpec& k, double quota_scale)
    : scale_(quota_scale), member_queues_(k.cohorts.size()), member_cohorts_(k.cohorts.size()) {
  std::map<std::string_view, uint32_t> cohort_of_name;
  for (uint32_t c = 0; c < k.cohorts.size(); ++c) cohort_of_name.emplace(k.cohorts[c].name, c);
  const auto cohort_index = [&](const std::string& name) -> std::optional<uint32_t> {
    const auto it = cohort_of_name.find(name);  // "": none (read_kueue checked every name)
    return it == cohort_of_name.end() ? std::nullopt : std::optional(it->second);
  };
  const auto node = [&](const std::vector<KueueResourceGroup>& groups, double weight, const std::string& parent) {
    const auto [nominal, borrow] = gpu_quota(groups);
    return QuotaNode{nominal, borrow, weight, cohort_index(parent)};
  };
  for (uint32_t c = 0; c < k.cohorts.size(); ++c) {
    cohorts_.push_back(node(k.cohorts[c].resource_groups, k.cohorts[c].weight, k.cohorts[c].parent));
    if (cohorts_.back().parent) member_cohorts_[*cohorts_.back().parent].push_back(c);
  }
  for (uint32_t q = 0; q < k.cluster_queues.size(); ++q) {
    queues_.push_back(node(k.cluster_queues[q].resource_groups, k.cluster_queues[q].weight, k.cluster_queues[q].cohort));
    if (queues_.back().parent) member_queues_[*queues_.back().parent].push_back(q);
  }
  // A cohort's nominal quota counts its members': its own, its queues' and its cohorts' (whole
  // numbers, so the order they are added in does not matter), from the leaves up.
  const std::vector<uint32_t> order = tenancy::parents_first(static_cast<uint32_t>(cohorts_.size()),
                                                             [&](uint32_t c) { return cohorts_[c].parent; });
  for (uint32_t q = 0; q < queues_.size(); ++q)
    if (queues_[q].parent) cohorts_[*queues_[q].parent].nominal += queues_[q].nominal;
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    if (cohorts_[*it].parent) cohorts_[*cohorts_[*it].parent].nominal += cohorts_[*it].nominal;
  // The trees: a cohort's is its root's; a ClusterQueue's its cohort's, or its own. A tree's cohorts
  // are kept parents first.
  tree_queues_.resize(tree_count());
  tree_cohorts_.resize(tree_count());
  std::vector<uint32_t> root(cohorts_.size());
  for (uint32_t c : order) {
    root[c] = cohorts_[c].parent ? root[*cohorts_[c].parent] : c;
    tree_cohorts_[root[c]].push_back(c);
  }
  for (uint32_t q = 0; q < queues_.size(); ++q) {
    queue_tree_.push_back(queues_[q].parent ? root[*queues_[q].parent] : static_cast<uint32_t>(cohorts_.size() + q));
    tree_queues_[queue_tree_.back()].push_back(q);
  }
  cohort_demand_.assign(cohorts_.size(), 0.0);
}

void KueueFairShares::compute(const std::vector<double>& queue_demand, std::vector<double>& queue_share,
                              std::vector<double>& cohort_share) const {
  queue_share.assign(queue_demand.size(), 0.0);
  cohort_share.assign(cohorts_.size(), 0.0);
  const auto cohorts = static_cast<uint32_t>(cohorts_.size());
  for (uint32_t t = 0; t < tree_count(); ++t)  // the roots, and the ClusterQueues without a cohort
    if (t < cohorts ? !cohorts_[t].parent : !queues_[t - cohorts].parent)
      compute_tree(t, queue_demand, queue_share, cohort_share);
}

void KueueFairShares::compute_tree(uint32_t tree, std::span<const double> queue_demand, std::span<double> queue_share,
                                   std::span<double> cohort_share) const {
  if (tree >= cohorts_.size()) {  // a ClusterQueue without a cohort
    const uint32_t q = tree - static_cast<uint32_t>(cohorts_.size());
    queue_share[q] = std::min(queue_demand[q], static_cast<double>(queues_[q].nominal) * scale_);
    return;
  }
  // Demands from the leaves up (milli-GPUs, whole numbers: exact in any order), then each cohort's share
  // divided among its members from the root down.
  const std::vector<uint32_t>& cohorts = tree_cohorts_[tree];
  for (uint32_t c : cohorts) cohort_demand_[c] = 0;
  for (uint32_t q : tree_queues_[tree]) cohort_demand_[*queues_[q].parent] += queue_demand[q];
  for (auto it = cohorts.rbegin(); it != cohorts.rend(); ++it)
    if (cohorts_[*it].parent) cohort_demand_[*cohorts_[*it].parent] += cohort_demand_[*it];
  cohort_share[tree] = std::min(cohort_demand_[tree], static_cast<double>(cohorts_[tree].nominal) * scale_);
  for (uint32_t c : cohorts) divide(c, cohort_share[c], queue_demand, queue_share, cohort_share);
}

void KueueFairShares::divide(uint32_t c, double amount, std::span<const double> queue_demand, std::span<double> queue_share,
                             std::span<double> cohort_share) const {
  std::vector<Member> members;
  const auto member = [&](double demand, int64_t nominal, std::optional<int64_t> borrow, double weight) {
    const double n = static_cast<double>(nominal) * scale_;
    const double cap = borrow ? n + static_cast<double>(*borrow) * scale_ : std::numeric_limits<double>::infinity();
    members.push_back({demand, n, cap, weight});
  };
  for (uint32_t q : member_queues_[c]) member(queue_demand[q], queues_[q].nominal, queues_[q].borrow, queues_[q].weight);
  for (uint32_t k : member_cohorts_[c]) member(cohort_demand_[k], cohorts_[k].nominal, cohorts_[k].borrow, cohorts_[k].weight);
  // Each first gets what it asks up to its nominal quota; the rest is borrowed by those wanting more.
  std::vector<double> share(members.size()), more(members.size()), weight(members.size());
  double left = amount;
  for (std::size_t i = 0; i < members.size(); ++i) {
    share[i] = std::min(members[i].demand, members[i].nominal);
    left -= share[i];
  }
  // Weight 0 yields to everyone (Kueue: its share is infinite while it borrows): the positive
  // weights first, then what is left among the zero weights alike.
  for (const bool zero : {false, true}) {
    for (std::size_t i = 0; i < members.size(); ++i) {
      const bool mine = (members[i].weight == 0) == zero;
      more[i] = mine ? std::max(0.0, std::min(members[i].demand, members[i].cap) - share[i]) : 0.0;
      weight[i] = zero ? 1.0 : members[i].weight;
    }
    const std::vector<double> extra = weighted_fair_shares(std::max(0.0, left), more, weight);
    for (std::size_t i = 0; i < members.size(); ++i) {
      share[i] += extra[i];
      left -= extra[i];
    }
  }
  std::size_t i = 0;
  for (uint32_t q : member_queues_[c]) queue_share[q] = share[i++];
  for (uint32_t k : member_cohorts_[c]) cohort_share[k] = share[i++];
}

template <class F>
void TenantLedger::for_each_group(JobId id, F&& f) {
  f(static_cast<uint32_t>(scenario_.jobs.jobs[id].tenant));
  if (!job_queue_.empty() && job_queue_[id] != kNoQueue)
    for (uint32_t g : queue_groups_[job_queue_[id]]) f(g);
}

TenantLedger::TenantLedger(const Scenario& s, const KueueState* kueue)
    : scenario_(s), kueue_(kueue), counted_(s.jobs.jobs.size(), kNotArrived), first_admitted_(s.jobs.jobs.size(), Time::max()) {
  const KueueSpec& k = s.tenancy.kueue;
  queue_base_ = static_cast<uint32_t>(s.jobs.tenants.size());
  cohort_base_ = queue_base_ + static_cast<uint32_t>(k.enabled() ? k.cluster_queues.size() : 0);
  const std::size_t cohorts = k.enabled() ? k.cohorts.size() : 0;
  groups_.resize(cohort_base_ + cohorts);
  held_milli_.assign(groups_.size(), 0.0);
  demand_milli_.assign(groups_.size(), 0.0);
  fair_.assign(groups_.size(), 0.0);
  held_gpu_s_.assign(groups_.size(), 0.0);
  fair_gpu_s_.assign(groups_.size(), 0.0);
  demand_gpu_s_.assign(groups_.size(), 0.0);
  since_.assign(groups_.size(), Time());
  namespace_groups_.resize(queue_base_);
  std::iota(namespace_groups_.begin(), namespace_groups_.end(), 0u);
  by_demand_ = rank_ = namespace_groups_;  // all want 0: in index order
  jain_now_.assign(1 + cohorts, 1.0);
  jain_weighted_s_.assign(1 + cohorts, 0.0);
  contended_s_.assign(1 + cohorts, 0.0);
  contended_now_.assign(1 + cohorts, 0);
  if (k.enabled()) {
    kueue_shares_.emplace(k, static_cast<double>(kWholeGpu.value));
    for (uint32_t q = 0; q < k.cluster_queues.size(); ++q) {
      std::vector<uint32_t>& chain = queue_groups_.emplace_back(1, queue_base_ + q);
      for (std::optional<uint32_t> up = kueue_shares_->queue_parent(q); up; up = kueue_shares_->cohort_parent(*up))
        chain.push_back(cohort_base_ + *up);
      groups_[queue_base_ + q].nominal_gpus = kueue_shares_->queue_nominal(q);
    }
    for (uint32_t c = 0; c < cohorts; ++c) {
      groups_[cohort_base_ + c].nominal_gpus = kueue_shares_->cohort_nominal(c);
      std::vector<uint32_t>& members = cohort_members_.emplace_back();
      for (uint32_t q : kueue_shares_->member_queues(c)) members.push_back(queue_base_ + q);
      for (uint32_t m : kueue_shares_->member_cohorts(c)) members.push_back(cohort_base_ + m);
    }
    tree_dirty_.assign(kueue_shares_->tree_count(), 0);
    // A job's ClusterQueue: that of the LocalQueue it names in its namespace (check_kueue_queues).
    using Key = std::pair<std::string_view, std::string_view>;  // (namespace, LocalQueue): views of the spec's names
    std::map<Key, uint32_t> local;
    for (const KueueLocalQueue& lq : k.local_queues) local.emplace(Key(lq.namespace_name, lq.name), lq.cluster_queue);
    job_queue_.assign(s.jobs.jobs.size(), kNoQueue);
    for (const Job& j : s.jobs.jobs) {
      const PodSpec* pod = s.jobs.pod(j);
      if (!pod || pod->queue.empty()) continue;
      const auto lq = local.find(Key(s.jobs.tenants[j.tenant], pod->queue));
      if (lq != local.end()) job_queue_[j.id] = lq->second;
    }
  }
  for (const Job& j : s.jobs.jobs) for_each_group(j.id, [&](uint32_t g) { ++groups_[g].jobs; });
}

double TenantLedger::asked_milli(JobId id) const {
  const Request& q = scenario_.jobs.jobs[id].request;
  return static_cast<double>(q.gpus) * q.milli_per_gpu.value;
}

void TenantLedger::changed(JobId id) {
  namespaces_dirty_ = true;
  if (job_queue_.empty() || job_queue_[id] == kNoQueue) return;
  const uint32_t tree = kueue_shares_->tree_of_queue(job_queue_[id]);
  if (!tree_dirty_[tree]) dirty_trees_.push_back(tree);
  tree_dirty_[tree] = 1;
}

void TenantLedger::demand_changed(uint16_t t) {
  // Keeps by_demand_ sorted (by demand, then index) by moving t to its place.
  const auto before = [&](uint32_t a, uint32_t b) {
    return demand_milli_[a] < demand_milli_[b] || (demand_milli_[a] == demand_milli_[b] && a < b);
  };
  std::size_t i = rank_[t];
  for (; i > 0 && before(t, by_demand_[i - 1]); --i) {
    by_demand_[i] = by_demand_[i - 1];
    rank_[by_demand_[i]] = static_cast<uint32_t>(i);
  }
  for (; i + 1 < by_demand_.size() && before(by_demand_[i + 1], t); ++i) {
    by_demand_[i] = by_demand_[i + 1];
    rank_[by_demand_[i]] = static_cast<uint32_t>(i);
  }
  by_demand_[i] = t;
  rank_[t] = static_cast<uint32_t>(i);
  shares_dirty_ = true;
}

void TenantLedger::settle(uint32_t g, Time now) {
  const double dt_s = (now - since_[g]).seconds();
  if (dt_s <= 0) return;
  held_gpu_s_[g] += held_milli_[g] / 1000.0 * dt_s;
  demand_gpu_s_[g] += demand_milli_[g] / 1000.0 * dt_s;
  if (g >= queue_base_) fair_gpu_s_[g] += fair_[g] / 1000.0 * dt_s;
  since_[g] = now;
}

double TenantLedger::jain_of(const std::vector<uint32_t>& groups, bool& contended) {
  ratio_.clear();
  for (uint32_t g : groups)
    if (demand_milli_[g] > 0 && fair_[g] > 0) ratio_.push_back(held_milli_[g] / fair_[g]);
  contended = ratio_.size() >= 2;
  return jain_index(ratio_);
}

void TenantLedger::advance(Time now) {
  if (now <= last_) return;
  // Only what changed is worked out again: the namespaces' shares when a demand or the capacity
  // changed, and the quota trees whose jobs changed.
  if (shares_dirty_) {
    // weighted_fair_shares with equal weights, over the namespaces kept in demand order.
    double left = capacity_milli_;
    std::size_t wanting = 0;
    for (uint32_t t = 0; t < queue_base_; ++t) wanting += demand_milli_[t] > 0;
    for (uint32_t t : by_demand_) {
      if (demand_milli_[t] <= 0 || left <= 0) {
        fair_[t] = 0;
        continue;
      }
      fair_[t] = std::min(demand_milli_[t], left / static_cast<double>(wanting));
      left -= fair_[t];
      --wanting;
    }
    shares_dirty_ = false;
  }
  if (namespaces_dirty_) {
    bool contended = false;
    jain_now_[0] = jain_of(namespace_groups_, contended);
    contended_now_[0] = contended;
    namespaces_dirty_ = false;
  }
  const std::span<double> fair(fair_);
  for (uint32_t tree : dirty_trees_) {
    // Its shares held until the changes made at last_.
    for (uint32_t q : kueue_shares_->tree_queues(tree)) settle(queue_base_ + q, last_);
    for (uint32_t c : kueue_shares_->tree_cohorts(tree)) settle(cohort_base_ + c, last_);
    kueue_shares_->compute_tree(tree, std::span<const double>(demand_milli_).subspan(queue_base_, cohort_base_ - queue_base_),
                                fair.subspan(queue_base_, cohort_base_ - queue_base_), fair.subspan(cohort_base_));
    for (uint32_t c : kueue_shares_->tree_cohorts(tree)) {
      bool contended = false;
      jain_now_[1 + c] = jain_of(cohort_members_[c], contended);
      contended_now_[1 + c] = contended;
    }
    tree_dirty_[tree] = 0;
  }
  dirty_trees_.clear();
  // The namespaces' shares move at every change of demand: integrated at each instant; the rest
  // when it changes (settle).
  const double dt_s = (now - last_).seconds();
  for (std::size_t t = 0; t < queue_base_; ++t) fair_gpu_s_[t] += fair_[t] / 1000.0 * dt_s;
  for (std::size_t slot = 0; slot < jain_now_.size(); ++slot)
    if (contended_now_[slot]) {
      contended_s_[slot] += dt_s;
      jain_weighted_s_[slot] += jain_now_[slot] * dt_s;
    }
  last_ = now;
}

void TenantLedger::started(const RunState& run) {
  capacity_milli_ = 0;
  run.cluster().for_each_node([&](NodeId n) {
    const Node& node = run.cluster().node(n);
    if (has_capacity(node.state)) capacity_milli_ += node.gpu_count * static_cast<double>(kWholeGpu.value);
  });
  last_ = run.now();
  std::fill(since_.begin(), since_.end(), last_);
  shares_dirty_ = namespaces_dirty_ = true;
}

void TenantLedger::job_transition(const RunState& run, JobId id, JobStatus from, JobStatus to, std::string_view cause) {
  // It arrives when it first leaves not_arrived, unless no node could ever hold it.
  if (from == JobStatus::not_arrived && counted_[id] == kNotArrived && to != JobStatus::unschedulable) arrived(run.now(), id);
  if (cause == kAdmitted) admitted(run.now(), id);
  if (terminal(to)) ended(run.now(), id, to);
  if (to == JobStatus::rejected) rejected(id, cause);
}

void TenantLedger::arrived(Time now, JobId id) {
  advance(now);
  counted_[id] = kCounted;
  const double asked = asked_milli(id);
  for_each_group(id, [&](uint32_t g) {
    settle(g, now);
    demand_milli_[g] += asked;
  });
  demand_changed(scenario_.jobs.jobs[id].tenant);
  changed(id);
}

void TenantLedger::ended(Time now, JobId id, JobStatus to) {
  advance(now);
  const double asked = counted_[id] == kCounted ? asked_milli(id) : 0.0;
  if (counted_[id] == kCounted) counted_[id] = kEnded;
  for_each_group(id, [&](uint32_t g) {
    settle(g, now);
    demand_milli_[g] -= asked;
    if (to == JobStatus::completed) ++groups_[g].completed;
  });
  if (asked != 0) demand_changed(scenario_.jobs.jobs[id].tenant);
  changed(id);
}

void TenantLedger::add_held(const RunState& run, JobId id, double sign) {
  advance(run.now());
  double held = 0;
  for (const GpuClaim& c : run.claims(id)) held += c.milli.value;
  for_each_group(id, [&](uint32_t g) {
    settle(g, run.now());
    held_milli_[g] += sign * held;
  });
  changed(id);
}

void TenantLedger::job_started(const RunState& run, JobId id) { add_held(run, id, 1.0); }

void TenantLedger::job_stopping(const RunState& run, JobId id, StopCause) { add_held(run, id, -1.0); }

void TenantLedger::job_preempted(const RunState&, JobId id) {
  for_each_group(id, [&](uint32_t g) { ++groups_[g].preemptions_received; });
}

void TenantLedger::job_evicted(const RunState&, JobId victim, JobId by, std::string_view reason) {
  for_each_group(victim, [&](uint32_t g) { groups_[g].received_by_reason[std::string(reason)]++; });
  if (by == kNoJob) return;
  for_each_group(by, [&](uint32_t g) {
    ++groups_[g].preemptions_caused;
    groups_[g].caused_by_reason[std::string(reason)]++;
  });
}

void TenantLedger::admitted(Time now, JobId id) {
  const bool first = first_admitted_[id] == Time::max();
  if (first) first_admitted_[id] = now;
  const double wait_s = (now - scenario_.jobs.jobs[id].arrival).seconds();
  for_each_group(id, [&](uint32_t g) {
    ++groups_[g].admitted;
    if (first) groups_[g].admission_wait_s.push_back(wait_s);
  });
}

void TenantLedger::rejected(JobId id, std::string_view reason) {
  for_each_group(id, [&](uint32_t g) {
    ++groups_[g].rejected;
    groups_[g].rejections[std::string(reason)]++;
  });
}

void TenantLedger::node_state(const RunState& run, NodeId n, NodeState from) {
  const Node& node = run.cluster().node(n);
  if (has_capacity(from) == has_capacity(node.state)) return;
  advance(run.now());
  capacity_milli_ += (has_capacity(node.state) ? 1.0 : -1.0) * node.gpu_count * static_cast<double>(kWholeGpu.value);
  shares_dirty_ = namespaces_dirty_ = true;
}

void TenantLedger::finished(const RunState& run) {
  advance(run.now());
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    settle(static_cast<uint32_t>(g), run.now());
    groups_[g].held_gpu_s = held_gpu_s_[g];
    groups_[g].fair_share_gpu_s = fair_gpu_s_[g];
    groups_[g].demand_gpu_s = demand_gpu_s_[g];
  }
  for (std::size_t slot = 1; slot < jain_now_.size(); ++slot) {
    GroupFigures& f = groups_[cohort_base_ + slot - 1];
    f.contended_s = contended_s_[slot];
    f.jain = contended_s_[slot] > 0 ? jain_weighted_s_[slot] / contended_s_[slot] : 1.0;
  }
  for (const Job& j : scenario_.jobs.jobs) {
    const JobRecord& r = run.record(j.id);
    // Arrived by the end (a job Kueue still holds too) and not refused.
    const bool waited = counted_[j.id] != kNotArrived && r.status != JobStatus::rejected;
    const Time started = r.attempt > 0 ? r.first_start : run.now();
    // A job Kueue never admitted waits for admission until the end (starvation shows in the max).
    const bool never_admitted = waited && !job_queue_.empty() && job_queue_[j.id] != kNoQueue &&
                                first_admitted_[j.id] == Time::max();
    for_each_group(j.id, [&](uint32_t g) {
      GroupFigures& f = groups_[g];
      f.lost_gpu_s += r.lost_gpu.seconds();
      f.cost_usd += r.cost_usd;
      f.busy_cost_usd += r.busy_cost_usd;
      f.energy_ws += r.energy_ws;
      if (waited) f.wait_s.push_back((started - j.arrival).seconds());
      if (never_admitted) f.admission_wait_s.push_back((run.now() - j.arrival).seconds());
    });
  }
  // Quota used, borrowed and lent: Kueue's integrals per ClusterQueue, summed into the cohorts above it.
  if (const KueueState* k = kueue_)
    for (uint32_t q = 0; q < queue_groups_.size(); ++q) {
      const KueueTotals t = k->totals(q, run.now());
      for (uint32_t g : queue_groups_[q]) {
        groups_[g].quota_used_gpu_hours += t.usage_gpu_hours;
        groups_[g].borrowed_gpu_hours += t.borrowed_gpu_hours;
        groups_[g].lent_gpu_hours += t.lent_gpu_hours;
      }
    }
  for (GroupFigures& f : groups_) {
    uint64_t named = 0;
    for (const auto& [reason, n] : f.received_by_reason) named += n;
    if (f.preemptions_received > named) f.received_by_reason[std::string(kQueueOrderReason)] += f.preemptions_received - named;
  }
}

std::map<std::string, uint64_t, std::less<>> TenancyFigures::rejections() const {
  std::map<std::string, uint64_t, std::less<>> out;
  for (const GroupFigures& f : namespaces)
    for (const auto& [reason, n] : f.rejections) out[reason] += n;
  return out;
}

TenancyFigures TenantLedger::take() {
  TenancyFigures out;
  const auto slice = [&](std::size_t from, std::size_t to) {
    return std::vector<GroupFigures>(std::make_move_iterator(groups_.begin() + static_cast<std::ptrdiff_t>(from)),
                                     std::make_move_iterator(groups_.begin() + static_cast<std::ptrdiff_t>(to)));
  };
  out.namespaces = slice(0, queue_base_);
  out.cluster_queues = slice(queue_base_, cohort_base_);
  out.cohorts = slice(cohort_base_, groups_.size());
  out.contended_s = contended_s_[0];
  out.jain = contended_s_[0] > 0 ? jain_weighted_s_[0] / contended_s_[0] : 1.0;
  return out;
}

}  // namespace gpusim
