#include "gpusim/sim/execution.hpp"

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace gpusim {

double speed_factor(const Catalog& catalog, const GpuModel& gpu, const SpeedProfile& job) {
  if (!job.reference || job.reference == &gpu) return 1.0;
  if (job.speedup)
    for (const auto& [name, ratio] : *job.speedup)
      if (catalog.find_gpu(name) == &gpu) return ratio;
  return catalog.throughput(*job.throughput, gpu).value / catalog.throughput(*job.throughput, *job.reference).value;
}

double mig_rate(double slice_sm_fraction, double u) {
  if (u <= 0) return 1.0;
  return std::min(1.0, slice_sm_fraction / u);
}

void max_min_fair(std::span<const double> demands, double capacity, std::span<double> shares) {
  const std::size_t n = demands.size();
  // Smallest demand first, ties in index order (a stable insertion: the residents of one GPU are few,
  // and the rates are worked out at every placement, so the usual case allocates nothing).
  boost::container::small_vector<std::size_t, 16> order;
  for (std::size_t i = 0; i < n; ++i)
    order.insert(
        std::upper_bound(order.begin(), order.end(), i, [&](std::size_t a, std::size_t b) { return demands[a] < demands[b]; }),
        i);
  double left = std::max(0.0, capacity);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = order[k];
    const double fair = left / static_cast<double>(n - k);
    shares[i] = std::min(std::max(0.0, demands[i]), fair);
    left -= shares[i];
  }
}

double contention_probability(std::span<const double> duty) {
  double none = 1.0, one = 0.0;  // P(no context busy), P(exactly one busy)
  for (double x : duty) {
    x = std::clamp(x, 0.0, 1.0);
    one = one * (1 - x) + none * x;
    none *= 1 - x;
  }
  return std::max(0.0, 1.0 - none - one);
}

double switch_overhead(const TimeSlicingModel& m) {
  const double slice = static_cast<double>(m.timeslice.us()), lost = static_cast<double>(m.preempt_switch.us());
  return slice + lost <= 0 ? 0.0 : lost / (slice + lost);
}

double switching_fraction(std::span<const double> duty, const TimeSlicingModel& m) {
  return switch_overhead(m) * contention_probability(duty);
}

namespace {
// rate_i = share_i / demand_i, at most 1; 1 for a context that asks for nothing.
void rates_from_shares(std::span<const double> demand, std::span<const double> shares, std::span<double> rates) {
  for (std::size_t i = 0; i < demand.size(); ++i) rates[i] = demand[i] <= 0 ? 1.0 : std::min(1.0, shares[i] / demand[i]);
}
}  // namespace

void time_slicing_rates(std::span<const double> duty, const TimeSlicingModel& m, std::span<double> rates) {
  const double capacity = 1.0 - switching_fraction(duty, m);
  boost::container::small_vector<double, 16> held(duty.size());  // one GPU's contexts: no allocation
  const std::span<double> shares(held.data(), held.size());
  max_min_fair(duty, capacity, shares);
  rates_from_shares(duty, shares, rates);
}

double collective_bus_factor(Collective c, int ranks) {
  if (ranks <= 1) return 0.0;
  const double n = ranks;
  return c == Collective::all_reduce ? 2.0 * (n - 1) / n : (n - 1) / n;
}

double collective_time_s(const CommProfile& p, int ranks, double bus_gb_per_s) {
  const double factor = collective_bus_factor(p.collective, ranks);
  if (factor == 0 || p.bytes_per_iteration <= 0) return 0.0;
  return p.bytes_per_iteration / (bus_gb_per_s * 1e9) * factor;
}

double communication_rate(double compute_rate, const CommProfile& p, double collective_s, double reference_collective_s) {
  if (!p.given() || compute_rate <= 0) return compute_rate;
  return (p.compute_per_iteration_s + reference_collective_s) / (p.compute_per_iteration_s / compute_rate + collective_s);
}

double collective_stall_fraction(double compute_rate, const CommProfile& p, double collective_s) {
  if (!p.given() || compute_rate <= 0 || collective_s <= 0) return 0;
  return collective_s / (p.compute_per_iteration_s / compute_rate + collective_s);
}

void max_min_fair_flows(std::span<const double> capacities, const std::vector<std::vector<uint32_t>>& paths,
                        std::span<const double> caps, std::span<double> rates) {
  FlowPaths flat;
  for (const auto& path : paths) flat.add(path);
  MaxMinScratch scratch;
  max_min_fair_flows(capacities, flat, caps, rates, scratch);
}

void max_min_fair_flows(std::span<const double> capacities, const FlowPaths& paths, std::span<const double> caps,
                        std::span<double> rates, MaxMinScratch& scratch) {
  std::vector<double>& left = scratch.left;
  std::vector<uint32_t>& users = scratch.users;
  std::vector<uint32_t>& live = scratch.live;      // the links some active flow crosses
  std::vector<uint32_t>& active = scratch.active;  // the flows still growing, in index order
  std::vector<char>& saturated = scratch.saturated;
  left.assign(capacities.begin(), capacities.end());
  users.assign(left.size(), 0u);
  saturated.assign(left.size(), 0);
  active.resize(paths.size());
  std::fill(rates.begin(), rates.end(), 0.0);
  std::iota(active.begin(), active.end(), 0u);
  for (uint32_t l : paths.links) ++users[l];
  live.clear();
  for (uint32_t l = 0; l < users.size(); ++l)
    if (users[l] > 0) live.push_back(l);
  while (!active.empty()) {
    // The largest equal increment every active flow can take: a minimum, exact in any order, so
    // taken over the live links only and in two interleaved chains.
    double step = std::numeric_limits<double>::infinity(), step2 = step;
    std::size_t k = 0;
    for (; k + 1 < live.size(); k += 2) {
      step = std::min(step, left[live[k]] / users[live[k]]);
      step2 = std::min(step2, left[live[k + 1]] / users[live[k + 1]]);
    }
    if (k < live.size()) step = std::min(step, left[live[k]] / users[live[k]]);
    step = std::min(step, step2);
    for (uint32_t f : active) step = std::min(step, caps[f] - rates[f]);
    if (!std::isfinite(step)) step = 0;  // flows crossing no link and uncapped: nothing bounds them
    for (uint32_t f : active) {
      rates[f] += step;
      for (uint32_t l : paths.of(f)) left[l] -= step;
    }
    // Freeze flows that reached their cap or cross a saturated link; they leave their links' users.
    for (uint32_t l : live) saturated[l] = left[l] <= capacities[l] * 1e-12;
    std::size_t kept = 0;
    for (uint32_t f : active) {
      const std::span<const uint32_t> path = paths.of(f);
      bool frozen = rates[f] >= caps[f] * (1 - 1e-12) || path.empty();
      for (uint32_t l : path) frozen = frozen || saturated[l];
      if (frozen) {
        for (uint32_t l : path) --users[l];
      } else {
        active[kept++] = f;
      }
    }
    active.resize(kept);
    std::erase_if(live, [&](uint32_t l) { return users[l] == 0; });
  }
}

void mps_rates(std::span<const double> duty, std::span<const double> occupancy, std::span<const double> caps, const MpsModel& m,
               std::span<double> rates) {
  const std::size_t n = duty.size();
  boost::container::small_vector<double, 5 * 16> columns(5 * n);  // one GPU's clients: no allocation
  const auto column = [&](std::size_t k) { return std::span<double>(columns.data() + k * n, n); };
  const std::span<double> fill = column(0), busy = column(1), asked = column(2), shares = column(3), stretch = column(4);
  std::fill(stretch.begin(), stretch.end(), 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    fill[i] = std::min(occupancy[i], caps[i]);
    busy[i] = duty[i];
  }
  // A client's busy spells stretch (its thread cap, then its SM share), so it has work more of the
  // time while its idle spells stay as long: the share of time it is busy and the SM shares settle
  // together. Each pass can only raise the busy shares, which are bounded by 1: it converges.
  for (int pass = 0; pass < 100; ++pass) {
    for (std::size_t i = 0; i < n; ++i) asked[i] = busy[i] * fill[i];
    max_min_fair(asked, 1.0, shares);
    double moved = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (duty[i] <= 0 || fill[i] <= 0) continue;
      stretch[i] = occupancy[i] / fill[i] / std::min(1.0, shares[i] / asked[i]);
      const double next = duty[i] >= 1 ? 1.0 : duty[i] * stretch[i] / (duty[i] * stretch[i] + 1 - duty[i]);
      moved = std::max(moved, std::abs(next - busy[i]));
      busy[i] = next;
    }
    if (moved < 1e-12) break;
  }
  const double total = std::accumulate(shares.begin(), shares.end(), 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    if (duty[i] <= 0 || occupancy[i] <= 0) {
      rates[i] = 1.0;
      continue;
    }
    rates[i] = 1.0 / (duty[i] * stretch[i] + 1 - duty[i]);
    rates[i] *= 1.0 - m.bandwidth_interference * std::min(1.0, std::max(0.0, total - shares[i]));
  }
}

}  // namespace gpusim
