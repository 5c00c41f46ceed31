#include "gpusim/core/step_series.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpusim {

StepSeries::StepSeries(std::vector<Duration> starts, std::vector<double> values, Duration period, Duration offset)
    : values_(std::move(values)), period_us_(period.us()), offset_us_(offset.us()) {
  if (starts.empty() || starts.size() != values_.size() || starts.front() != Duration())
    throw std::invalid_argument("StepSeries: one value per start, the first at 0");
  for (std::size_t i = 0; i < starts.size(); ++i) {
    starts_us_.push_back(starts[i].us());
    if (i > 0 && starts_us_[i] <= starts_us_[i - 1]) throw std::invalid_argument("StepSeries: starts must increase");
  }
  if (period_us_ != 0 && period_us_ <= starts_us_.back())
    throw std::invalid_argument("StepSeries: the period must end after the last start");
  if (offset_us_ < 0 || (period_us_ != 0 && offset_us_ >= period_us_))
    throw std::invalid_argument("StepSeries: the offset must fall within the first period");
  double sum = 0;
  for (std::size_t i = 0; i < starts_us_.size(); ++i) {
    cumulative_.push_back(sum);
    const int64_t end = i + 1 < starts_us_.size() ? starts_us_[i + 1] : period_us_;
    if (end != 0) sum += values_[i] * static_cast<double>(end - starts_us_[i]) / 1e6;
  }
  per_period_ = sum;
}

std::size_t StepSeries::step_of(int64_t us) const {
  return static_cast<std::size_t>(std::upper_bound(starts_us_.begin(), starts_us_.end(), us) - starts_us_.begin()) - 1;
}

double StepSeries::from_start(int64_t us) const {
  double whole = 0;
  if (period_us_ != 0) {
    whole = static_cast<double>(us / period_us_) * per_period_;
    us %= period_us_;
  }
  const std::size_t i = step_of(us);
  return whole + cumulative_[i] + values_[i] * static_cast<double>(us - starts_us_[i]) / 1e6;
}

double StepSeries::at(Time t) const {
  int64_t us = t.us() + offset_us_;
  if (period_us_ != 0) us %= period_us_;
  return values_[step_of(us)];
}

Time StepSeries::next_change(Time t) const {
  if (values_.size() == 1 && period_us_ == 0) return Time::max();
  const int64_t us = t.us() + offset_us_;
  const int64_t in = period_us_ != 0 ? us % period_us_ : us;
  const std::size_t i = step_of(in);
  if (i + 1 == starts_us_.size() && period_us_ == 0) return Time::max();  // the last value holds for ever
  const int64_t end = i + 1 < starts_us_.size() ? starts_us_[i + 1] : period_us_;
  return t + Duration::from_us(end - in);
}

double StepSeries::mean() const {
  return period_us_ == 0 ? values_.back() : per_period_ / (static_cast<double>(period_us_) / 1e6);
}

}  // namespace gpusim
