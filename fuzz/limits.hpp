#pragma once
// What one fuzz input may ask for so that it runs in milliseconds: sizes beyond these are the memory
// estimate's business, not the readers', and only slow the fuzzer down.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <string_view>

namespace gpusim::fuzz {

inline constexpr double kMaxCount = 64;  // any count, gpus, replicas, limit, ... field

inline bool too_large(std::string_view scalar) {
  double v = 0;
  const auto [p, ec] = std::from_chars(scalar.data(), scalar.data() + scalar.size(), v);
  return ec == std::errc::result_out_of_range || (ec == std::errc() && !(v <= kMaxCount));
}

// True when a field named one of `keys` anywhere in the tree asks for more than kMaxCount.
inline bool asks_too_much(const YAML::Node& node, std::initializer_list<std::string_view> keys, std::string_view key = "",
                          int depth = 0) {
  if (depth > 64) return true;
  if (node.IsScalar()) return std::find(keys.begin(), keys.end(), key) != keys.end() && too_large(node.Scalar());
  if (node.IsSequence()) {
    for (const auto& item : node)
      if (asks_too_much(item, keys, key, depth + 1)) return true;
  } else if (node.IsMap()) {
    for (const auto& kv : node)
      if (asks_too_much(kv.second, keys, kv.first.IsScalar() ? kv.first.Scalar() : "", depth + 1)) return true;
  }
  return false;
}

}  // namespace gpusim::fuzz
