#pragma once
// A quantity that holds a value from each of its points to the next and repeats after its period (a
// grid's carbon intensity, an electricity price), with its integral over time: a load drawing P watts
// from t0 to t1 accrues P x (integral(t1) - integral(t0)) watt-seconds x the quantity.
#include <cstdint>
#include <vector>

#include "gpusim/core/time.hpp"

namespace gpusim {

class StepSeries {
 public:
  // The same value at all times.
  static StepSeries constant(double value) { return StepSeries({Duration()}, {value}, Duration::from_us(0)); }
  // values[i] holds from starts[i] to starts[i + 1] (starts[0] is 0, increasing), the last one to
  // `period`, after which the series repeats (a period of 0: the last value holds for ever); the
  // run's time 0 falls at `offset` into it (0 <= offset < period).
  StepSeries(std::vector<Duration> starts, std::vector<double> values, Duration period, Duration offset = Duration());

  double at(Time t) const;
  // The first instant after t at which the value may change (a step's end); Time::max() for a constant.
  Time next_change(Time t) const;
  // The integral of the value from the run's time 0 to t, in value x seconds.
  double integral(Time t) const { return from_start(t.us() + offset_us_) - from_start(offset_us_); }
  double mean() const;  // over a period (the value, for a constant)
  bool is_constant() const { return values_.size() == 1; }

 private:
  std::size_t step_of(int64_t us) const;  // the step holding `us` into the series' first period
  double from_start(int64_t us) const;    // the integral from the series' own start
  std::vector<int64_t> starts_us_;
  std::vector<double> values_;
  std::vector<double> cumulative_;  // the integral up to each start
  int64_t period_us_ = 0;           // 0: no repeat
  int64_t offset_us_ = 0;
  double per_period_ = 0;
};

}  // namespace gpusim
