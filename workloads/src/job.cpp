#include "gpusim/workloads/job.hpp"

#include <algorithm>
#include <stdexcept>

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
