#pragma once
// A documented subset of CEL, the language of Kubernetes DRA device selectors (resource.k8s.io
// CELDeviceSelector: "an expression which evaluates a single device; true when the device satisfies
// the criteria, false when it does not; any other result is an error and causes allocation to abort").
// Pure: a parser and an evaluator over one device; nothing about scheduling. docs/guide/tenants.md, DRA claims.
//
// What it reads (everything else is a syntax error naming the column and what was expected):
//   device.driver                              string
//   device.attributes["DOMAIN"].NAME           bool, int, string or version (semver) attribute
//   device.capacity["DOMAIN"].NAME             quantity
//   has(device.attributes["DOMAIN"].NAME)      does the device publish it (also for capacity)
//   literals: "str" 'str' 42 -3 true false [a, b, ...] quantity("40Gi") semver("8.0.0")
//   == != < <= > >=  (ints, strings, versions, quantities; bools == != only)
//   && || !  ( )  x in [list]
//   methods as in Kubernetes' CEL libraries: quantity and version .compareTo(x) (-1, 0, 1),
//   .isGreaterThan(x), .isLessThan(x); string .startsWith(s), .endsWith(s), .contains(s), .lowerAscii()
// One documented extension: the comparison operators also apply between two quantities or two
// versions (CEL itself offers only the methods; `a >= quantity("40Gi")` means
// `a.compareTo(quantity("40Gi")) >= 0`).
// As in CEL, && and || absorb an error on one side when the other decides the result (false && err
// is false), so `type == "mig" && profile == "1g.10gb"` is false on a whole GPU, which has no profile.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gpusim::cel {

// A Kubernetes resource.Quantity ("40Gi", "1.5", "500m", "2e3"), exact to the nano-unit.
struct Quantity {
  int64_t units = 0;  // whole units
  int32_t nanos = 0;  // 0 .. 999,999,999 (added to units, also for negative values)
  auto operator<=>(const Quantity&) const = default;
  static Quantity of(int64_t units) { return {units, 0}; }
};
// Parses Kubernetes' quantity syntax (apimachinery resource.ParseQuantity); false if malformed or
// beyond int64 units.
bool parse_quantity(std::string_view text, Quantity& out);

// A semantic version (major.minor.patch), as DRA version attributes hold them.
struct Version {
  int64_t major = 0, minor = 0, patch = 0;
  auto operator<=>(const Version&) const = default;
};
bool parse_version(std::string_view text, Version& out);

using Value = std::variant<bool, int64_t, std::string, Quantity, Version>;

// A device as a DRA driver publishes it in a ResourceSlice: its driver, and its attributes and
// capacities, all in the driver's domain (the only one gpusim's devices use).
struct Device {
  std::string driver;
  std::map<std::string, Value, std::less<>> attributes;
  std::map<std::string, Quantity, std::less<>> capacity;
};

// A malformed expression: the 1-based column and what was expected there.
struct SyntaxError {
  int column = 0;
  std::string message;
};

struct Node;  // the syntax tree, private to cel.cpp

class Expression {
 public:
  // Throws SyntaxError.
  static Expression compile(std::string_view text);
  // True or false, or the reason it is neither (a missing attribute, a type mismatch, a non-bool result).
  struct Result {
    bool value = false;
    std::string error;  // empty: value holds
  };
  Result evaluate(const Device& d) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace gpusim::cel
