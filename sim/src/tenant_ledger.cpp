#include "gpusim/sim/tenant_ledger.hpp"

#include <algorithm>
#include <numeric>

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

TenantLedger::TenantLedger(const Scenario& s)
    : scenario_(s),
      held_milli_(s.jobs.tenants.size(), 0.0),
      demand_milli_(s.jobs.tenants.size(), 0.0),
      weight_(s.jobs.tenants.size(), 1.0),
      counted_(s.jobs.jobs.size(), 0),
      first_admitted_(s.jobs.jobs.size(), Time::max()),
      fair_(s.jobs.tenants.size(), 0.0) {
  figures_.namespaces.resize(s.jobs.tenants.size());
  for (const Job& j : s.jobs.jobs) ++figures_.namespaces[j.tenant].jobs;
}

double TenantLedger::asked_milli(JobId id) const {
  const Request& q = scenario_.jobs.jobs[id].request;
  return static_cast<double>(q.gpus) * q.milli_per_gpu.value;
}

void TenantLedger::advance(Time now) {
  if (now <= last_) return;
  if (dirty_) {
    fair_ = weighted_fair_shares(capacity_milli_, demand_milli_, weight_);
    std::vector<double> ratio;
    for (std::size_t t = 0; t < fair_.size(); ++t)
      if (demand_milli_[t] > 0 && fair_[t] > 0) ratio.push_back(held_milli_[t] / fair_[t]);
    contended_now_ = ratio.size() >= 2;
    jain_now_ = jain_index(ratio);
    dirty_ = false;
  }
  const double dt_s = (now - last_).seconds();
  for (std::size_t t = 0; t < fair_.size(); ++t) {
    NamespaceFigures& f = figures_.namespaces[t];
    f.held_gpu_s += held_milli_[t] / 1000.0 * dt_s;
    f.fair_share_gpu_s += fair_[t] / 1000.0 * dt_s;
    f.demand_gpu_s += demand_milli_[t] / 1000.0 * dt_s;
  }
  if (contended_now_) {
    figures_.contended_s += dt_s;
    jain_weighted_s_ += jain_now_ * dt_s;
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
  dirty_ = true;
}

void TenantLedger::status_changed(const RunState& run, JobId id, JobStatus from, JobStatus to) {
  advance(run.now());
  const uint16_t t = scenario_.jobs.jobs[id].tenant;
  if (from == JobStatus::not_arrived && !counted_[id] && !terminal(to)) {
    counted_[id] = 1;
    demand_milli_[t] += asked_milli(id);
    dirty_ = true;
  } else if (terminal(to) && counted_[id]) {
    counted_[id] = 0;
    demand_milli_[t] -= asked_milli(id);
    dirty_ = true;
  }
  if (to == JobStatus::completed) ++figures_.namespaces[t].completed;
}

void TenantLedger::job_started(const RunState& run, JobId id) {
  advance(run.now());
  double held = 0;
  for (const GpuClaim& c : run.claims(id)) held += c.milli.value;
  held_milli_[scenario_.jobs.jobs[id].tenant] += held;
  dirty_ = true;
}

void TenantLedger::job_stopping(const RunState& run, JobId id, StopCause) {
  advance(run.now());
  double held = 0;
  for (const GpuClaim& c : run.claims(id)) held += c.milli.value;
  held_milli_[scenario_.jobs.jobs[id].tenant] -= held;
  dirty_ = true;
}

void TenantLedger::job_preempted(const RunState&, JobId id) {
  ++figures_.namespaces[scenario_.jobs.jobs[id].tenant].preemptions_received;
}

void TenantLedger::job_evicted(const RunState&, JobId victim, JobId by, std::string_view reason) {
  figures_.namespaces[scenario_.jobs.jobs[victim].tenant].received_by_reason[std::string(reason)]++;
  if (by == kNoJob) return;
  NamespaceFigures& f = figures_.namespaces[scenario_.jobs.jobs[by].tenant];
  ++f.preemptions_caused;
  f.caused_by_reason[std::string(reason)]++;
}

void TenantLedger::job_admitted(const RunState& run, JobId id) {
  NamespaceFigures& f = figures_.namespaces[scenario_.jobs.jobs[id].tenant];
  ++f.admitted;
  if (first_admitted_[id] == Time::max()) {
    first_admitted_[id] = run.now();
    f.admission_wait_s.push_back((run.now() - scenario_.jobs.jobs[id].arrival).seconds());
  }
}

void TenantLedger::job_rejected(const RunState&, JobId id, std::string_view reason) {
  NamespaceFigures& f = figures_.namespaces[scenario_.jobs.jobs[id].tenant];
  ++f.rejected;
  f.rejections[std::string(reason)]++;
}

void TenantLedger::node_state(const RunState& run, NodeId n, NodeState from) {
  const Node& node = run.cluster().node(n);
  if (has_capacity(from) == has_capacity(node.state)) return;
  advance(run.now());
  capacity_milli_ += (has_capacity(node.state) ? 1.0 : -1.0) * node.gpu_count * static_cast<double>(kWholeGpu.value);
  dirty_ = true;
}

void TenantLedger::finished(const RunState& run) {
  advance(run.now());
  figures_.jain = figures_.contended_s > 0 ? jain_weighted_s_ / figures_.contended_s : 1.0;
  for (const Job& j : scenario_.jobs.jobs) {
    const JobRecord& r = run.record(j.id);
    NamespaceFigures& f = figures_.namespaces[j.tenant];
    f.lost_gpu_s += r.lost_gpu.seconds();
    if (r.status == JobStatus::not_arrived && r.attempt == 0) continue;  // had not arrived by the end
    if (r.status == JobStatus::rejected || r.status == JobStatus::unschedulable) continue;
    const Time started = r.attempt > 0 ? r.first_start : run.now();
    f.wait_s.push_back((started - j.arrival).seconds());
  }
  for (NamespaceFigures& f : figures_.namespaces) {
    uint64_t named = 0;
    for (const auto& [reason, n] : f.received_by_reason) named += n;
    if (f.preemptions_received > named) f.received_by_reason[std::string(kQueueOrderReason)] += f.preemptions_received - named;
  }
}

}  // namespace gpusim
