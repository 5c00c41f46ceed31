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
  // Progressive filling: every flow still growing gains one equal step per round, the largest every
  // link and cap allows; flows on a link that fills, or at their cap, stop. The growing flows all hold
  // the same rate (the same steps added from 0), kept once as `level` and given to a flow when it
  // stops; a round touches the links in use and the flows that stop, not every growing flow.
  std::vector<double>& left = scratch.left;
  std::vector<uint32_t>& users = scratch.users;    // per link, the growing flows crossing it
  std::vector<uint32_t>& live = scratch.live;      // the links some growing flow crosses, ascending
  std::vector<uint32_t>& by_cap = scratch.by_cap;  // flows by cap, then index
  std::vector<uint32_t>& link_start = scratch.link_start;
  std::vector<uint32_t>& link_flows = scratch.link_flows;  // the flows of link l: [link_start[l], link_start[l + 1])
  std::vector<char>& stopped = scratch.stopped;
  const std::size_t flow_count = paths.size();
  left.assign(capacities.begin(), capacities.end());
  users.assign(left.size(), 0u);
  for (uint32_t l : paths.links) ++users[l];
  link_start.assign(left.size() + 1, 0u);
  for (std::size_t l = 0; l < left.size(); ++l) link_start[l + 1] = link_start[l] + users[l];
  link_flows.resize(paths.links.size());
  live.assign(link_start.begin(), link_start.end() - 1);  // (each link's next free place, for the fill)
  for (uint32_t f = 0; f < flow_count; ++f)
    for (uint32_t l : paths.of(f)) link_flows[live[l]++] = f;
  live.clear();
  for (uint32_t l = 0; l < users.size(); ++l)
    if (users[l] > 0) live.push_back(l);
  by_cap.resize(flow_count);
  std::iota(by_cap.begin(), by_cap.end(), 0u);
  std::stable_sort(by_cap.begin(), by_cap.end(), [&](uint32_t a, uint32_t b) { return caps[a] < caps[b]; });
  stopped.assign(flow_count, 0);
  std::size_t growing = flow_count, next_cap = 0;
  double level = 0;
  const auto stop = [&](uint32_t f) {
    stopped[f] = 1;
    rates[f] = level;
    for (uint32_t l : paths.of(f)) --users[l];
    --growing;
  };
  // The least room per growing flow over the links in use: a minimum, exact in any order.
  double least = std::numeric_limits<double>::infinity();
  for (uint32_t l : live) least = std::min(least, left[l] / users[l]);
  std::vector<uint32_t>& full = scratch.full;
  for (bool first = true; growing > 0; first = false) {
    // The largest equal step: the least room per flow, and a growing flow's room below its cap,
    // least for the least cap (rounding of cap - level is monotone in cap).
    double step = least;
    while (next_cap < flow_count && stopped[by_cap[next_cap]]) ++next_cap;
    if (next_cap < flow_count) step = std::min(step, caps[by_cap[next_cap]] - level);
    if (!std::isfinite(step)) step = 0;  // flows crossing no link and uncapped: nothing bounds them
    level += step;
    // Each growing flow takes the step from each link it crosses, one subtraction each, as the
    // rounding of the shares depends on it (up to four without a branch on the count, which the
    // processor cannot foresee: subtracting 0 leaves a double as it is); the links it fills are noted.
    full.clear();
    for (uint32_t l : live) {
      const uint32_t u = users[l];
      double x = left[l] - step;
      x -= u > 1 ? step : 0.0;
      x -= u > 2 ? step : 0.0;
      x -= u > 3 ? step : 0.0;
      for (uint32_t i = 4; i < u; ++i) x -= step;
      left[l] = x;
      if (x <= capacities[l] * 1e-12) full.push_back(l);
    }
    // Stop the flows at their cap, crossing no link (after the first step), or crossing a link now full.
    for (; next_cap < flow_count; ++next_cap) {
      const uint32_t f = by_cap[next_cap];
      if (stopped[f]) continue;
      if (!(level >= caps[f] * (1 - 1e-12))) break;
      stop(f);
    }
    if (first)
      for (uint32_t f = 0; f < flow_count; ++f)
        if (!stopped[f] && paths.of(f).empty()) stop(f);
    for (uint32_t l : full)
      for (uint32_t i = link_start[l]; i < link_start[l + 1]; ++i)
        if (!stopped[link_flows[i]]) stop(link_flows[i]);
    // The links still in use, and the next round's least room per flow.
    least = std::numeric_limits<double>::infinity();
    std::size_t kept = 0;
    for (uint32_t l : live)
      if (users[l] > 0) {
        live[kept++] = l;
        least = std::min(least, left[l] / users[l]);
      }
    live.resize(kept);
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
