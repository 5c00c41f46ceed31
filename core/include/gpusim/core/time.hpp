#pragma once
// Simulated time: int64 microseconds behind types. `Time` is an instant,
// `Duration` a length; their difference and sums are typed as absl::Time and absl::Duration are.
// Files speak seconds or strings such as "30m"; those are parsed only at the edges, by parse_duration.
// `GpuTime`, `NodeTime` and `Work` are the fractional integrals the fluid model accumulates.
#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "gpusim/core/number.hpp"

namespace gpusim {

// For rates and figures that are per hour while their arithmetic is in seconds.
inline constexpr double kSecondsPerHour = 3600.0;

// How a fractional number of seconds or hours becomes whole microseconds: std::llround, a
// static_cast (toward zero), or std::ceil. Each caller names the rounding its model needs.
enum class Round : uint8_t { nearest, toward_zero, up };

// std::llround (halves away from zero) without its library call, which a serving run makes at every
// step: below 2^52 the cast's fraction is exact, and above it every double is whole.
inline int64_t round_nearest(double x) {
  if (!(std::fabs(x) < 0x1p52)) return std::llround(x);  // whole already, out of range or NaN: as before
  const auto whole = static_cast<int64_t>(x);            // toward zero
  const double fraction = x - static_cast<double>(whole);
  return fraction >= 0.5 ? whole + 1 : fraction <= -0.5 ? whole - 1 : whole;
}

class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration from_us(int64_t us) { return Duration(us); }
  static constexpr Duration from_seconds(int64_t s) { return Duration(s * 1'000'000); }
  static Duration from_seconds(double s, Round round) { return Duration(rounded(s * 1e6, round)); }
  static Duration from_hours(double h, Round round) { return Duration(rounded(h * 3.6e9, round)); }

  constexpr int64_t us() const { return us_; }
  constexpr double seconds() const { return static_cast<double>(us_) / 1e6; }
  constexpr double hours() const { return static_cast<double>(us_) / 3.6e9; }

  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration operator+(Duration o) const { return Duration(us_ + o.us_); }
  constexpr Duration operator-(Duration o) const { return Duration(us_ - o.us_); }
  constexpr Duration operator*(int64_t k) const { return Duration(us_ * k); }
  constexpr Duration& operator+=(Duration o) {
    us_ += o.us_;
    return *this;
  }

 private:
  constexpr explicit Duration(int64_t us) : us_(us) {}
  static int64_t rounded(double us, Round round) {
    switch (round) {
      case Round::nearest: return round_nearest(us);
      case Round::toward_zero: return static_cast<int64_t>(us);
      case Round::up: return static_cast<int64_t>(std::ceil(us));
    }
    return 0;
  }
  int64_t us_ = 0;
};

class Time {
 public:
  constexpr Time() = default;  // the start of the run
  static constexpr Time from_us(int64_t us) { return Time(us); }
  static constexpr Time from_seconds(int64_t s) { return Time(s * 1'000'000); }
  static constexpr Time max() { return Time(std::numeric_limits<int64_t>::max()); }  // never

  constexpr int64_t us() const { return us_; }
  constexpr double seconds() const { return static_cast<double>(us_) / 1e6; }
  constexpr double hours() const { return static_cast<double>(us_) / 3.6e9; }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Duration operator-(Time o) const { return Duration::from_us(us_ - o.us_); }
  constexpr Time operator+(Duration d) const { return Time(us_ + d.us()); }
  constexpr Time operator-(Duration d) const { return Time(us_ - d.us()); }
  constexpr Time& operator+=(Duration d) {
    us_ += d.us();
    return *this;
  }

 private:
  constexpr explicit Time(int64_t us) : us_(us) {}
  int64_t us_ = 0;
};

// A time integral in double microseconds: `count` of something (GPUs, nodes) held over time, or a
// job's progress at a fractional rate. Unlike the clock it is fractional; the tag keeps the kinds apart.
template <class Of>
class TimeIntegral {
 public:
  constexpr TimeIntegral() = default;
  static constexpr TimeIntegral from_us(double us) { return TimeIntegral(us); }
  // `count` held for `d`.
  static constexpr TimeIntegral of(Duration d, double count) { return TimeIntegral(static_cast<double>(d.us()) * count); }

  constexpr double us() const { return us_; }
  constexpr double seconds() const { return us_ / 1e6; }
  constexpr double hours() const { return us_ / 3.6e9; }

  constexpr auto operator<=>(const TimeIntegral&) const = default;
  constexpr TimeIntegral operator+(TimeIntegral o) const { return TimeIntegral(us_ + o.us_); }
  constexpr TimeIntegral operator-(TimeIntegral o) const { return TimeIntegral(us_ - o.us_); }
  constexpr TimeIntegral operator*(double k) const { return TimeIntegral(us_ * k); }
  constexpr TimeIntegral& operator+=(TimeIntegral o) {
    us_ += o.us_;
    return *this;
  }

 private:
  constexpr explicit TimeIntegral(double us) : us_(us) {}
  double us_ = 0;
};

// The longest duration and the latest instant an input may give (a horizon, an arrival, a job's
// duration, a delay): 100 years of 365 days, 3.15e15 us. A model time adds a few of them (arrival +
// duration + waits, against a horizon), so it stays far inside the clock's int64 microseconds
// (292,000 years) and never wraps.
inline constexpr Duration kMaxSpan = Duration::from_seconds(int64_t{100} * 365 * 86400);
inline constexpr std::string_view kMaxSpanText = "100 years (3153600000 s)";
// Times in seconds a trace gives (an arrival, a duration): 0 to kMaxSpan.
inline constexpr Range kSpanSeconds = Range::between(0, static_cast<double>(kMaxSpan.us()) / 1e6);

// A wait drawn from a rate (a fault, a reclaim) in hours, as a Duration: one past kMaxSpan falls
// after any horizon and is kept there, so that a tiny rate cannot overflow the clock.
Duration sampled_wait(double hours);

using GpuTime = TimeIntegral<struct GpuTimeTag>;    // GPUs x time
using NodeTime = TimeIntegral<struct NodeTimeTag>;  // nodes x time
using Work = TimeIntegral<struct WorkTag>;          // a job's progress: time at its ideal speed (rate 1)

// Parses "90" or "90s" (seconds), "250ms", "30m", "2h", "30d", "1.5h", from 0 to kMaxSpan. Throws
// std::invalid_argument whose message says what was expected.
Duration parse_duration(std::string_view text);

// Seconds with up to six decimals and no trailing zeros: "12.5", "3600"; an instant in seconds since
// the start of the run.
std::string format_seconds(Duration d);
inline std::string format_seconds(Time t) { return format_seconds(t - Time()); }

}  // namespace gpusim
