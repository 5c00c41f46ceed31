#include "default_preemption.hpp"

#include <algorithm>
#include <set>
#include <tuple>

namespace gpusim::builtin {

namespace {

// The DisruptionTarget condition's reason kube-scheduler gives its victims (v1.PodReasonPreemptionByScheduler).
constexpr std::string_view kReason = "PreemptionByScheduler";

const PrioritySpec& no_priority_classes() {
  static const PrioritySpec none;
  return none;
}

// `gpu` as it would be once `victim` (asking `q`) has left it.
void release(Gpu& gpu, JobId victim, const Request& q, const Pool& pool, const TimeSlicingModels& ts) {
  const auto at = std::find(gpu.residents.begin(), gpu.residents.end(), victim);
  if (at == gpu.residents.end()) return;
  gpu.residents.erase(at);
  if (gpu.mig) {
    for (MigSlot& slot : gpu.instances)
      if (slot.job == victim) slot.job = kNoJob;
    return;
  }
  // What it held: its claim on the GPU empty (a claim depends on the request and the pool only).
  Gpu blank = gpu;
  blank.residents.clear();
  blank.free = kWholeGpu;
  blank.free_memory_mib = pool.gpu ? pool.gpu->memory_mib : 0;
  blank.used_memory_mib = 0;
  if (const auto claim = claim_on(q, pool, blank, std::nullopt, ts)) {
    gpu.free = Milli{gpu.free.value + claim->milli.value};
    gpu.free_memory_mib += claim->reserve_mib;
    gpu.used_memory_mib -= claim->footprint_mib;
  }
}

// The jobs holding GPUs of `node`, by id.
std::vector<JobId> jobs_on(const Cluster& c, NodeId node) {
  std::vector<JobId> out;
  const Node& n = c.node(node);
  for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g) {
    for (JobId r : c.gpu(g).residents) out.push_back(r);
    for (const MigSlot& s : c.gpu(g).instances)
      if (s.job != kNoJob) out.push_back(s.job);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

DefaultPreemption::DefaultPreemption(const PolicyContext& context)
    : jobs_(context.workload),
      priority_(context.tenancy && context.workload ? &context.tenancy->priority : &no_priority_classes()) {}

void DefaultPreemption::start_pass(const ClusterView& view) {
  std::erase_if(nominated_, [&](const auto& n) { return !view.is_pending(n.first); });
}

int32_t DefaultPreemption::room(const ClusterView& view, JobId nominee, NodeId node, const Placement* taken) const {
  const Cluster& c = view.cluster();
  const Node& n = c.node(node);
  int32_t free = 0;
  for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g) {
    if (taken && std::find(taken->gpus.begin(), taken->gpus.end(), g) != taken->gpus.end()) continue;
    const Gpu& gpu = c.gpu(g);
    bool leaving = !gpu.residents.empty();
    for (JobId r : gpu.residents) leaving = leaving && !view.preemptible(r);
    free += view.gpu_fits(nominee, g) || leaving;
  }
  return free;
}

bool DefaultPreemption::allows(const ClusterView& view, JobId job, const Placement& p) const {
  for (const auto& [nominee, node] : nominated_) {
    if (nominee == job || !view.is_pending(nominee) || priority(view, nominee) < priority(view, job)) continue;
    if (std::find(p.nodes.begin(), p.nodes.end(), node) == p.nodes.end()) continue;
    const int32_t with = room(view, nominee, node, &p);
    if (with < view.gpus_to_place(nominee) && with < room(view, nominee, node, nullptr)) return false;
  }
  return true;
}

bool DefaultPreemption::eligible(const ClusterView& view, JobId id) const {
  const Job& j = view.job(id);
  if (j.node != Job::kNone) return false;
  if (!priority_->classes.empty() && priority_->preemption_policy(*jobs_, j) == PreemptionPolicy::Never) return false;
  // PodEligibleToPreemptOthers: not while lower-priority jobs it evicted on its nominated node are leaving.
  const auto n = nominated_.find(id);
  if (n == nominated_.end()) return true;
  for (JobId r : jobs_on(view.cluster(), n->second))
    if (!view.preemptible(r) && priority(view, r) < j.priority) return false;
  return true;
}

bool DefaultPreemption::fits_without(const ClusterView& view, JobId job, NodeId node, const std::vector<JobId>& gone) const {
  const Cluster& c = view.cluster();
  const Node& n = c.node(node);
  if (!n.ready() || !view.pool_allowed(job, n.pool)) return false;
  const Pool& pool = c.pool(n.pool);
  const Request& q = view.job(job).request;
  const int32_t need = view.gpus_to_place(job);
  if (need > static_cast<int32_t>(n.gpu_count)) return false;
  PodResources free = free_resources(n);
  for (JobId v : gone) {
    const Request& vq = view.job(v).request;
    int32_t there = 0;
    for (GpuId g : view.placement(v).gpus) there += c.gpu(g).node == node;
    free.cpu_milli += vq.pods_on_node(there) * vq.cpu_milli;
    free.memory_mib += vq.pods_on_node(there) * vq.memory_mib;
  }
  if (!pods_fit(per_pod(q), q.pods_on_node(need), free)) return false;
  const TimeSlicingModels& ts = view.model().time_slicing;
  int32_t fitting = 0;
  for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count && fitting < need; ++g) {
    if (c.gpu(g).reconfiguring) continue;
    Gpu gpu = c.gpu(g);
    for (JobId v : gone) release(gpu, v, view.job(v).request, pool, ts);
    if (fits_on(q, pool, gpu, std::nullopt, ts)) {  // not MIG, or a partitionable GPU whole
      ++fitting;
      continue;
    }
    if (!gpu.mig) continue;
    for (MigSlotIndex i = 0; i < gpu.instances.size(); ++i)
      if (fits_on(q, pool, gpu, i, ts)) {
        ++fitting;
        break;
      }
  }
  return fitting >= need;
}

std::vector<bool> DefaultPreemption::violations(const ClusterView& view, const std::vector<JobId>& victims) const {
  std::vector<int64_t> allowed = allowed_;
  std::vector<bool> out(victims.size(), false);
  const auto& budgets = priority_->budgets;
  for (std::size_t i = 0; i < victims.size(); ++i)
    for (std::size_t b = 0; b < budgets.size(); ++b)
      if (budgets[b].matches(*jobs_, view.job(victims[i])) && --allowed[b] < 0) out[i] = true;
  return out;
}

void DefaultPreemption::count_budgets(const ClusterView& view) {
  const auto& budgets = priority_->budgets;
  std::vector<int64_t> healthy(budgets.size(), 0), matching(budgets.size(), 0);
  const auto count = [&](JobId id, bool up) {
    for (std::size_t b = 0; b < budgets.size(); ++b)
      if (budgets[b].matches(*jobs_, view.job(id))) {
        ++matching[b];
        healthy[b] += up;
      }
  };
  for (JobId id : view.running_jobs()) count(id, view.preemptible(id));
  view.for_each_pending([&](JobId id) {
    count(id, false);
    return true;
  });
  allowed_.resize(budgets.size());
  for (std::size_t b = 0; b < budgets.size(); ++b) allowed_[b] = budgets[b].disruptions_allowed(healthy[b], matching[b]);
}

std::optional<DefaultPreemption::Candidate> DefaultPreemption::select_victims(const ClusterView& view, JobId job,
                                                                              NodeId node) const {
  const int32_t p = priority(view, job);
  std::vector<JobId> potential;
  for (JobId r : jobs_on(view.cluster(), node))
    if (view.preemptible(r) && priority(view, r) < p) potential.push_back(r);
  if (potential.empty() || !fits_without(view, job, node, potential)) return std::nullopt;
  // MoreImportantPod: higher priority, then the earlier start.
  const auto more_important = [&](JobId a, JobId b) {
    // Higher priority first, without negating (INT32_MIN has no negation).
    const int32_t pa = priority(view, a), pb = priority(view, b);
    return pa != pb ? pa > pb : std::pair(view.start_time(a), a) < std::pair(view.start_time(b), b);
  };
  std::sort(potential.begin(), potential.end(), more_important);
  const std::vector<bool> violating = violations(view, potential);
  Candidate out{node, {}, 0};
  std::vector<JobId> gone = potential;
  // Reprieve the ones whose eviction would violate a budget first, then the others.
  for (const bool pass_violating : {true, false})
    for (std::size_t i = 0; i < potential.size(); ++i) {
      if (violating[i] != pass_violating) continue;
      const JobId v = potential[i];
      std::erase(gone, v);
      if (fits_without(view, job, node, gone)) continue;
      gone.push_back(v);
      out.victims.push_back(v);
      out.violations += pass_violating;
    }
  std::sort(out.victims.begin(), out.victims.end(), more_important);
  return out;
}

const std::vector<JobId>& DefaultPreemption::after_pass(const ClusterView& view, Binder& binder) {
  preempted_for_.clear();
  // Only jobs of higher priority than some preemptible running job could find victims.
  std::optional<int32_t> lowest;
  for (JobId id : view.running_jobs())
    if (view.preemptible(id) && view.job(id).request.gpus > 0)
      lowest = std::min(lowest.value_or(priority(view, id)), priority(view, id));
  if (!lowest) return preempted_for_;
  pending_.clear();
  view.for_each_pending([&](JobId id) {
    if (priority(view, id) > *lowest) pending_.push_back(id);
    return true;
  });
  if (pending_.empty()) return preempted_for_;
  if (!priority_->budgets.empty()) count_budgets(view);
  std::set<std::pair<uint32_t, int32_t>> failed;  // (shape, priority) that found no node this pass
  const Cluster& c = view.cluster();
  for (JobId job : pending_) {
    const int32_t p = priority(view, job);
    if (!view.is_pending(job) || !eligible(view, job) || failed.contains({view.shape(job), p})) continue;
    // pickOneNodeForPreemption's criteria in order; the lowest node id last.
    const auto rank = [&](const Candidate& cand) {
      int64_t sum = 0;
      Time earliest = Time::max();
      const int32_t top = priority(view, cand.victims.front());
      for (JobId v : cand.victims) {
        sum += static_cast<int64_t>(priority(view, v)) + (int64_t{1} << 31);
        if (priority(view, v) == top) earliest = std::min(earliest, view.start_time(v));
      }
      return std::tuple(cand.violations, top, sum, cand.victims.size(), -earliest.us(), cand.node);
    };
    std::optional<Candidate> best;
    bool fits_somewhere = false;
    for (const Pool& pool : c.pools()) {
      for (NodeId n = pool.first_node; n < pool.first_node + pool.built && !fits_somewhere; ++n) {
        const bool held = std::any_of(nominated_.begin(), nominated_.end(), [&](const auto& nom) {
          return nom.second == n && nom.first != job && view.is_pending(nom.first) && priority(view, nom.first) >= p;
        });
        if (held) continue;
        if (fits_without(view, job, n, {})) fits_somewhere = true;  // it waits for the placement, not for victims
        else if (auto cand = select_victims(view, job, n); cand && (!best || rank(*cand) < rank(*best))) best = std::move(cand);
      }
    }
    if (fits_somewhere) continue;
    if (!best) {
      failed.insert({view.shape(job), p});
      continue;
    }
    for (JobId v : best->victims) {
      binder.evict(v, jobs_ ? PrioritySpec::termination_grace(*jobs_, view.job(v)) : PodSpec{}.termination_grace, job, kReason);
      for (std::size_t b = 0; b < priority_->budgets.size(); ++b)
        if (priority_->budgets[b].matches(*jobs_, view.job(v))) allowed_[b] = std::max<int64_t>(0, allowed_[b] - 1);
    }
    // Lower-priority jobs nominated to that node may no longer fit there: their nominations go.
    std::erase_if(nominated_, [&](const auto& nom) { return nom.second == best->node && priority(view, nom.first) < p; });
    nominated_[job] = best->node;
    preempted_for_.push_back(job);
  }
  return preempted_for_;
}

}  // namespace gpusim::builtin
