#pragma once
// Simulated time: int64 microseconds behind a type (DESIGN §2, STYLE 3). Files speak seconds or
// strings such as "30m"; those are parsed only at the edges, by parse_duration.
#include <compare>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace gpusim {

class Time {
 public:
  constexpr Time() = default;
  static constexpr Time from_us(int64_t us) { return Time(us); }
  static constexpr Time from_seconds(int64_t s) { return Time(s * 1'000'000); }
  static constexpr Time max() { return Time(std::numeric_limits<int64_t>::max()); }

  constexpr int64_t us() const { return us_; }
  constexpr double seconds() const { return static_cast<double>(us_) / 1e6; }
  constexpr double hours() const { return static_cast<double>(us_) / 3.6e9; }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Time o) const { return Time(us_ + o.us_); }
  constexpr Time operator-(Time o) const { return Time(us_ - o.us_); }
  constexpr Time& operator+=(Time o) { us_ += o.us_; return *this; }
  constexpr Time& operator-=(Time o) { us_ -= o.us_; return *this; }

 private:
  constexpr explicit Time(int64_t us) : us_(us) {}
  int64_t us_ = 0;
};

// Parses "90" or "90s" (seconds), "250ms", "30m", "2h", "30d", "1.5h". Throws std::invalid_argument
// whose message says what was expected.
Time parse_duration(std::string_view text);

// Seconds with up to six decimals and no trailing zeros: "12.5", "3600".
std::string format_seconds(Time t);

}  // namespace gpusim
