#pragma once
// Time-slicing slot by slot (docs/guide/sharing.md#time-slicing): what the fluid rates of
// execution.hpp average over, for work that synchronizes often (a serving engine's steps, the
// measurement's kernel loops) and for checks against the measurements.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/sim/execution.hpp"

namespace gpusim {

// One time-sliced GPU's round robin, event by event: what round_robin() runs over a horizon and the
// serving module runs with its replicas' steps. Contexts take turns in the order of their keys. A
// context has a step of known GPU time under way, none, or always has work (a fluid job: it never
// finishes a step). The contexts with work take slices in turn from the one that ran last; a slice ends
// when the holder's step is done (it yields: the next context with work takes the GPU after
// yield_switch) or after `timeslice` with work left and another context waiting (preemption:
// preempt_switch). A context alone runs without switching; one taking an idle GPU pays yield_switch
// when another context ran last. What happens at an instant is decided once everything submitted at
// that instant is in: a step done at t and one submitted at t are both seen by the choice made at t.
class SliceRoundRobin {
 public:
  struct Done {
    uint32_t key = 0;
    Time at;
  };

  // std::invalid_argument unless the timeslice is positive and the switches are not negative.
  explicit SliceRoundRobin(const TimeSlicingModel& m);

  // Context `key` (added if new) has a step of `work` from `now` on; it must have none under way.
  void submit(uint32_t key, Time now, Duration work);
  // From `now` on, the contexts that always have work are `keys` (sorted): those not listed leave.
  void set_always(std::span<const uint32_t> keys, Time now);
  // Context `key` leaves at `now`, with its step if one is under way.
  void remove(uint32_t key, Time now);
  // The step done next if nothing is submitted or removed before it; nullopt while no step is under way.
  std::optional<Done> next_done() const;
  // Takes that step (`next_done()`, which must be `key`'s at `at`); std::logic_error otherwise.
  void take_done(uint32_t key, Time at);

 private:
  struct Context {
    uint32_t key = 0;
    bool always = false;  // a fluid job: work without end
    bool has_work = false;
    Duration left;  // of its step, when it (next) begins computing
  };
  enum class Kind : uint8_t { none, pick, done, slice_end };
  struct Event {
    Kind kind = Kind::none;
    Time at;
  };

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  // The round robin's state; next_done plays a copy of it forward.
  struct State {
    std::vector<Context> ctx;  // by key
    Time t;                    // the state holds up to here; choices due at t are not made yet
    std::size_t holder = npos;
    Time busy_from;  // when the holder began (or begins, after a switch) its run: slices end every timeslice from there
    std::optional<uint32_t> last;  // the key that ran last
    int32_t working = 0;           // contexts with work (the holder among them)
    int32_t stepping = 0;          // of them, those with a step under way

    // What happens next, from the state at t.
    Event next_event(const TimeSlicingModel& m) const;
    void apply(const Event& e, const TimeSlicingModel& m);
    // The context with work after `after` in turn (itself last when `self`); npos: none.
    std::size_t next_with_work(std::optional<uint32_t> after, bool self) const;
    std::size_t find(uint32_t key) const;
    std::size_t insert(uint32_t key);  // its index; the holder's is kept
    void erase(std::size_t i);
  };

  // Applies everything before `now` (a step's end must be taken with take_done first).
  void run_until(Time now);
  // A change from outside (submit, set_always, remove): next_done's play ahead no longer holds.
  void change(Time now) {
    ahead_valid_ = false;
    run_until(now);
  }

  const TimeSlicingModel* m_;
  State s_;
  // next_done's copy, played up to the step's end: take_done adopts it while nothing changed since.
  mutable State ahead_;
  mutable bool ahead_valid_ = false;
};

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

// All contexts ready at 0 on one GPU, taking turns by SliceRoundRobin's rules (context i has key i).
std::vector<SlicedOutcome> round_robin(std::span<const SlicedContext> contexts, const TimeSlicingModel& m, Duration horizon);

}  // namespace gpusim
