#pragma once
// Names of an enumeration's values, declared once in a table that drives parsing, printing and the
// choices an error message lists. An enum opts in with a function beside it (found by
// argument-dependent lookup) that lists every value once, in declaration order:
//
//   enum class Market : uint8_t { on_demand, spot, reserved };
//   constexpr auto enum_table(Market) {
//     return std::to_array<EnumName<Market>>({{Market::on_demand, "on-demand"}, {Market::spot, "spot"}, ...});
//   }
#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpusim {

template <class E>
using EnumName = std::pair<E, std::string_view>;

template <class E>
concept NamedEnum = std::is_enum_v<E> && requires(E e) {
  enum_table(e);
};

template <class Table>
constexpr bool in_declaration_order(const Table& table) {
  for (std::size_t i = 0; i < table.size(); ++i)
    if (static_cast<std::size_t>(table[i].first) != i) return false;
  return true;
}

// E's table, checked: as values run from 0 in table order, a value is its name's index and can
// index arrays of enum_count<E> elements.
template <NamedEnum E>
inline constexpr auto enum_entries = [] {
  constexpr auto table = enum_table(E{});
  static_assert(in_declaration_order(table), "an enum table lists every value once, in declaration order");
  return table;
}();

template <NamedEnum E>
inline constexpr std::size_t enum_count = enum_entries<E>.size();

// The names alone, e.g. for ConfigNode::allow_only when E's values are a map's keys.
template <NamedEnum E>
inline constexpr auto enum_names = [] {
  std::array<std::string_view, enum_count<E>> names;
  for (std::size_t i = 0; i < names.size(); ++i) names[i] = enum_entries<E>[i].second;
  return names;
}();

template <NamedEnum E>
constexpr std::string_view to_string(E value) {
  return enum_names<E>[static_cast<std::size_t>(value)];
}

template <NamedEnum E>
constexpr std::optional<E> parse_enum(std::string_view name) {
  for (const auto& [value, n] : enum_entries<E>)
    if (n == name) return value;
  return std::nullopt;
}

// Names joined as error messages list choices: "a, b, c", or with last = " or ", "a, b or c".
inline std::string join_choices(std::span<const std::string_view> names, std::string_view last) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? last : ", ";
    out += names[i];
  }
  return out;
}

template <NamedEnum E>
std::string enum_choices(std::string_view last = ", ") {
  return join_choices(enum_names<E>, last);
}

// Some of E's values only, for a field that takes a subset of them.
template <NamedEnum E>
std::string enum_choices(std::initializer_list<E> values, std::string_view last = ", ") {
  std::vector<std::string_view> names;
  for (E v : values) names.push_back(to_string(v));
  return join_choices(names, last);
}

}  // namespace gpusim
