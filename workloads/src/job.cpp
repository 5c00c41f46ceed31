#include "gpusim/workloads/job.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpusim {

std::string_view to_string(JobKind kind) {
  switch (kind) {
    case JobKind::training: return "training";
    case JobKind::inference: return "inference";
    case JobKind::notebook: return "notebook";
    case JobKind::batch: return "batch";
  }
  return "batch";
}

bool parse_job_kind(std::string_view text, JobKind& out) {
  for (JobKind k : {JobKind::training, JobKind::inference, JobKind::notebook, JobKind::batch}) {
    if (to_string(k) == text) {
      out = k;
      return true;
    }
  }
  return false;
}

std::string_view to_string(Collective c) {
  switch (c) {
    case Collective::all_reduce: return "all-reduce";
    case Collective::all_gather: return "all-gather";
    case Collective::reduce_scatter: return "reduce-scatter";
    case Collective::all_to_all: return "all-to-all";
  }
  return "all-reduce";
}

bool parse_collective(std::string_view text, Collective& out) {
  for (Collective c : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter, Collective::all_to_all}) {
    if (to_string(c) == text) {
      out = c;
      return true;
    }
  }
  return false;
}

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
  for (std::size_t i = 0; i < tenants.size(); ++i)
    if (tenants[i] == name) return static_cast<uint16_t>(i);
  if (tenants.size() >= 65535) throw std::length_error("more than 65535 tenants");
  tenants.emplace_back(name);
  return static_cast<uint16_t>(tenants.size() - 1);
}

void JobSet::append(JobSet&& other) {
  jobs.reserve(jobs.size() + other.jobs.size());
  for (Job& j : other.jobs) {
    j.tenant = tenant(other.tenants[j.tenant]);
    jobs.push_back(std::move(j));
  }
}

void JobSet::finalize() {
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.arrival < b.arrival; });
  for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].id = static_cast<JobId>(i);
}

}  // namespace gpusim
