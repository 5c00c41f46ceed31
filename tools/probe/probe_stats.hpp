#pragma once
// Host-side figures of the probes (tools/probe/README.md): percentiles, gaps between kernel starts
// and the time-slice analysis of one kernel's clock stamps. Pure C++, so they are tested without a GPU.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace probe {

// Linear interpolation between the closest ranks (numpy's default); 0 for no values.
inline double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
}

// Differences of consecutive device-clock stamps (ns), in ms.
inline std::vector<double> diffs_ms(const std::vector<std::uint64_t>& stamps_ns) {
  std::vector<double> out;
  for (std::size_t i = 1; i < stamps_ns.size(); ++i) out.push_back(static_cast<double>(stamps_ns[i] - stamps_ns[i - 1]) / 1e6);
  return out;
}

struct StartGaps {
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
  int long_gaps = 0;
  double long_gap_mean_ms = 0;  // mean excess of a long gap over the median
};

// A gap between kernel starts is long above 3x the median: the duty cycle's sleep is already in the
// median, so only a wait for another context's slice goes beyond it. Its excess is the time lost.
inline StartGaps start_gaps(const std::vector<std::uint64_t>& starts_ns) {
  const std::vector<double> gaps = diffs_ms(starts_ns);
  StartGaps s;
  if (gaps.empty()) return s;
  s.p50_ms = percentile(gaps, 0.5);
  s.p99_ms = percentile(gaps, 0.99);
  s.max_ms = *std::max_element(gaps.begin(), gaps.end());
  double excess_ms = 0;
  for (double g : gaps) {
    if (g > 3 * s.p50_ms) {
      ++s.long_gaps;
      excess_ms += g - s.p50_ms;
    }
  }
  if (s.long_gaps > 0) s.long_gap_mean_ms = excess_ms / s.long_gaps;
  return s;
}

struct Slices {
  std::vector<double> steps_ms;  // every step between stamps, pauses included
  std::vector<double> gaps_ms;   // pauses: another context held the GPU
  std::vector<double> runs_ms;   // whole slices this context ran between two pauses
};

// A step longer than pause_factor x the kernel's median step is a pause. A run goes from the end of
// one pause to the start of the next; the partial runs before the first and after the last pause are
// not slices, so they are left out.
inline void add_slices(const std::vector<std::uint64_t>& stamps_ns, double pause_factor, Slices& out) {
  const std::vector<double> steps = diffs_ms(stamps_ns);
  if (steps.empty()) return;
  const double threshold_ms = pause_factor * percentile(steps, 0.5);
  bool paused_before = false;
  std::uint64_t resumed_ns = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    out.steps_ms.push_back(steps[i]);
    if (steps[i] <= threshold_ms) continue;
    out.gaps_ms.push_back(steps[i]);
    if (paused_before) out.runs_ms.push_back(static_cast<double>(stamps_ns[i] - resumed_ns) / 1e6);
    paused_before = true;
    resumed_ns = stamps_ns[i + 1];
  }
}

}  // namespace probe
