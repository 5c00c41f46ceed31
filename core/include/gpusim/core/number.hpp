#pragma once
// Text to a checked number: the one door for every number that enters, a config value (ConfigNode)
// or a trace column (the CSV reader). A number is finite and inside its field's range; an integer
// is whole and inside its range, which the reader into a narrower C++ type must state, so nothing
// wraps to 32 bits. A failure throws std::invalid_argument saying what was expected ("expected an
// integer in 1..1000, got 1001"); each reader prefixes its file, line and field.
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace gpusim {

struct Bound {
  double value;
  bool exclusive = false;
  constexpr Bound(double v, bool strict = false) : value(v), exclusive(strict) {}
};

// The values a field allows (no bound: any finite number, any int64).
struct Range {
  std::optional<Bound> minimum, maximum;

  static constexpr Range at_least(double v) { return {Bound{v}, std::nullopt}; }
  static constexpr Range between(double lo, double hi) { return {Bound{lo}, Bound{hi}}; }
  // Any value of the integer type T.
  template <std::integral T>
  static constexpr Range of() {
    return between(static_cast<double>(std::numeric_limits<T>::min()), static_cast<double>(std::numeric_limits<T>::max()));
  }
  bool contains(double v) const;
  // Every value of the range is a T (an integer type): a reader into T may cast without loss.
  template <std::integral T>
  bool fits() const {
    return std::same_as<T, int64_t> ||
           (minimum && maximum && minimum->value >= static_cast<double>(std::numeric_limits<T>::min()) &&
            maximum->value <= static_cast<double>(std::numeric_limits<T>::max()));
  }
  // "an integer >= 0", "a positive integer", "an integer in 1..1000", "a number > 0 and <= 1"
  std::string describe(bool integer) const;
};

// Whole text as an integer in `range`: "12", not "12.0", "1e3" or "12abc".
int64_t parse_integer(std::string_view text, const Range& range = {});
// Whole text as a finite number in `range`: "12", "1.5e3"; not "nan", "inf" or "1e400".
double parse_number(std::string_view text, const Range& range = {});
// A whole number in `range` that may be written as a float ("2951.0"), as some traces write counts.
int64_t parse_whole(std::string_view text, const Range& range = {});

// A Kubernetes quantity (resource.Quantity: a signed number with an exponent, "1e3", or a binary or
// decimal suffix, "500m", "16Gi", "100u") as a plain number in `range`; an unknown suffix is named
// with the ones Kubernetes has.
double parse_quantity(std::string_view text, const Range& range = {});

}  // namespace gpusim
