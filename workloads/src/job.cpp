#include "gpusim/workloads/job.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <utility>

namespace gpusim {

double default_compute_demand(JobKind kind) {
  switch (kind) {
    case JobKind::training: return 0.95;
    case JobKind::inference: return 0.15;
    case JobKind::notebook: return 0.05;
    case JobKind::batch: return 0.95;
  }
  return 0.95;
}

uint16_t JobSet::tenant(std::string_view name) {
  if (tenant_index_.size() != tenants.size()) {  // tenants set some other way than here
    tenant_index_.clear();
    for (std::size_t i = 0; i < tenants.size(); ++i) tenant_index_.emplace(tenants[i], static_cast<uint16_t>(i));
  }
  if (const auto it = tenant_index_.find(name); it != tenant_index_.end()) return it->second;
  if (tenants.size() >= 65535) throw std::length_error("more than 65535 tenants");
  tenants.emplace_back(name);
  tenant_index_.emplace(tenants.back(), static_cast<uint16_t>(tenants.size() - 1));
  return static_cast<uint16_t>(tenants.size() - 1);
}

uint16_t JobSet::pod(PodSpec spec) {
  const auto it = std::find(pods.begin(), pods.end(), spec);
  if (it != pods.end()) return static_cast<uint16_t>(it - pods.begin());
  if (pods.size() >= Job::kNoPod) throw std::length_error("more than 65535 distinct pod settings");
  pods.push_back(std::move(spec));
  return static_cast<uint16_t>(pods.size() - 1);
}

uint32_t JobSet::source(const SourceLocation& where) {
  // The latest first: a trace's jobs come in a run from one source. Inline jobs each have their own
  // (workload.jobs[i]), found by name.
  if (!sources.empty() && sources.back().file == where.file && sources.back().field == where.field)
    return static_cast<uint32_t>(sources.size() - 1);
  if (source_index_.size() != sources.size()) {
    source_index_.clear();
    for (std::size_t i = 0; i < sources.size(); ++i)
      source_index_.emplace(std::pair(sources[i].file, sources[i].field), static_cast<uint32_t>(i));
  }
  const auto [it, fresh] = source_index_.emplace(std::pair(where.file, where.field), static_cast<uint32_t>(sources.size()));
  if (fresh) sources.push_back({where.file, std::nullopt, where.field});
  return it->second;
}

SourceLocation JobSet::where(const Job& j) const {
  if (j.origin.source >= sources.size()) return {"", std::nullopt, ""};
  const SourceLocation& s = sources[j.origin.source];
  return {s.file, j.origin.line > 0 ? std::optional(j.origin.line) : std::nullopt, s.field};
}

void JobSet::append(JobSet&& other) {
  // Its tenants are interned in the order its jobs first name them (tenant ids order outputs), once each.
  constexpr uint32_t kUnseen = 0xFFFFFFFFu;
  std::vector<uint32_t> tenant_of(other.tenants.size(), kUnseen);
  std::vector<uint32_t> source_of(other.sources.size());
  std::vector<uint16_t> pod_of(other.pods.size());
  for (std::size_t p = 0; p < other.pods.size(); ++p) pod_of[p] = pod(std::move(other.pods[p]));
  for (std::size_t s = 0; s < other.sources.size(); ++s) source_of[s] = source(other.sources[s]);
  // The other tables are appended whole: their indices move by this set's sizes.
  const auto offset = [](uint32_t& index, std::size_t by) {
    if (index != Job::kNone) index += static_cast<uint32_t>(by);
  };
  for (Job& j : other.jobs) {
    if (tenant_of[j.tenant] == kUnseen) tenant_of[j.tenant] = tenant(other.tenants[j.tenant]);
    j.tenant = static_cast<uint16_t>(tenant_of[j.tenant]);
    if (j.origin.source < source_of.size()) j.origin.source = source_of[j.origin.source];
    if (j.pod != Job::kNoPod) j.pod = pod_of[j.pod];
    offset(j.node, texts.size());
    offset(j.speed, speeds.size());
    offset(j.communication, profiles.size());
    offset(j.checkpoint, checkpoints.size());
  }
  const auto take = [](auto& to, auto& from) { std::move(from.begin(), from.end(), std::back_inserter(to)); };
  take(texts, other.texts);
  take(speeds, other.speeds);
  take(profiles, other.profiles);
  take(checkpoints, other.checkpoints);
  if (!other.deadlines.empty()) {
    deadlines.resize(jobs.size());
    other.deadlines.resize(other.jobs.size());
    take(deadlines, other.deadlines);
  }
  // The first set's jobs are taken whole: a million jobs are not moved one by one into a second vector.
  if (jobs.empty()) {
    jobs = std::move(other.jobs);
    return;
  }
  jobs.reserve(jobs.size() + other.jobs.size());
  std::move(other.jobs.begin(), other.jobs.end(), std::back_inserter(jobs));
  other.jobs = {};
}

void JobSet::finalize() {
  // Sorts positions, then moves each job once into its place: a stable sort of the jobs themselves
  // would move them (320 bytes each) log n times.
  std::vector<std::pair<Time, uint32_t>> keyed(jobs.size());  // ties keep source order by position
  for (std::size_t i = 0; i < jobs.size(); ++i) keyed[i] = {jobs[i].arrival, static_cast<uint32_t>(i)};
  std::sort(keyed.begin(), keyed.end());
  std::vector<uint32_t> order(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) order[i] = keyed[i].second;
  keyed = {};
  if (!deadlines.empty()) {
    deadlines.resize(jobs.size());
    std::vector<Duration> by_id(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) by_id[i] = deadlines[order[i]];
    deadlines = std::move(by_id);
  }
  // In place, one cycle of the permutation at a time (order[i]: the job that goes to position i;
  // a position done points at itself), so no second copy of the jobs is held.
  for (std::size_t start = 0; start < order.size(); ++start) {
    if (order[start] == start) continue;
    Job held = std::move(jobs[start]);
    std::size_t to = start;
    while (order[to] != start) {
      const std::size_t from = order[to];
      jobs[to] = std::move(jobs[from]);
      order[to] = static_cast<uint32_t>(to);
      to = from;
    }
    jobs[to] = std::move(held);
    order[to] = static_cast<uint32_t>(to);
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].id = static_cast<JobId>(i);
}

}  // namespace gpusim
