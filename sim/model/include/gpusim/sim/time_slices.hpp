#pragma once
// Time-slicing slot by slot (docs/guide/sharing.md#time-slicing): what the fluid rates of
// execution.hpp average over, for work that synchronizes often (a serving engine's steps, the
// measurement's kernel loops) and for checks against the measurements.
#include <cstdint>
#include <span>
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/sim/execution.hpp"

namespace gpusim {

// A context that repeats one step: `work` of GPU time, ending at a synchronization, then a pause off the
// GPU before its next step: `pause` give or take up to `jitter` (uniform, drawn from a fixed seed: a
// host's sleeps are not exact), plus, for duty < 1, the step's latency x (1 - duty) / duty (a loop
// that keeps itself busy `duty` of its wall time, as the measurement's duty-cycled probes do).
struct SlicedContext {
  Duration work;
  Duration pause;
  double duty = 1;
  Duration jitter;
};

struct SlicedOutcome {
  int64_t steps = 0;  // steps completed within the horizon
  Duration busy;      // their latencies summed (ready to done)
};

// All contexts ready at 0; the GPU runs one at a time. The contexts that have work take slices in turn
// (round robin from the last one that ran); a slice ends when the context's step is done (it yields:
// the next context with work takes the GPU after yield_switch) or after `timeslice` with work left
// and another context waiting (preemption: preempt_switch). A context alone runs without switching;
// one taking an idle GPU pays yield_switch when another context ran last.
std::vector<SlicedOutcome> round_robin(std::span<const SlicedContext> contexts, const TimeSlicingModel& m, Duration horizon);

}  // namespace gpusim
