#include "gpusim/sim/time_slices.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "gpusim/core/random.hpp"

namespace gpusim {

std::vector<SlicedOutcome> round_robin(std::span<const SlicedContext> contexts, const TimeSlicingModel& m, Duration horizon) {
  const std::size_t n = contexts.size();
  std::vector<SlicedOutcome> out(n);
  std::vector<Time> ready(n), since(n);  // when its next step has work; when that step became ready
  std::vector<Duration> left(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (contexts[i].work <= Duration() || contexts[i].duty <= 0 || contexts[i].duty > 1)
      throw std::invalid_argument("round_robin: each context needs positive work and a duty in (0, 1]");
    left[i] = contexts[i].work;
  }
  const Time end = Time() + horizon;
  Rng rng = make_stream(0, "round_robin");
  Time t;
  // The first context with work at t after `after` in turn (`after` itself last); n: none.
  auto next = [&](std::size_t after, bool include_after) {
    for (std::size_t k = 1; k <= n; ++k) {
      const std::size_t i = (after + k) % n;
      if ((i != after || include_after) && ready[i] <= t) return i;
    }
    return n;
  };
  std::size_t last = n - 1, holder = n;  // the first pick is context 0
  bool ran = false;                      // has any context run yet (the first takes the GPU free)
  Time slice_end;
  while (t < end) {
    if (holder == n) {
      holder = next(last, true);
      if (holder == n) {
        t = *std::min_element(ready.begin(), ready.end());
        continue;
      }
      if (ran && holder != last) t += m.yield_switch;
      ran = true;
      slice_end = t + m.timeslice;
    }
    const std::size_t i = holder;
    if (t + left[i] <= slice_end) {  // the step is done: it yields
      t += left[i];
      const Duration latency = t - since[i];
      if (t <= end) {
        ++out[i].steps;
        out[i].busy += latency;
      }
      const double duty = contexts[i].duty;
      double pause_us = static_cast<double>(contexts[i].pause.us()) + static_cast<double>(latency.us()) * (1 - duty) / duty;
      if (contexts[i].jitter > Duration()) pause_us += static_cast<double>(contexts[i].jitter.us()) * (2 * uniform01(rng) - 1);
      ready[i] = since[i] = t + Duration::from_us(std::max<int64_t>(0, std::llround(pause_us)));
      left[i] = contexts[i].work;
      last = i;
      holder = n;
    } else {  // the slice is over with work left: preempted if another context waits
      left[i] = left[i] - (slice_end - t);
      t = slice_end;
      const std::size_t j = next(i, false);
      if (j != n) {
        t += m.preempt_switch;
        holder = last = j;
      }
      slice_end = t + m.timeslice;
    }
  }
  return out;
}

}  // namespace gpusim
