#pragma once
// Strong ids: a job, node, GPU and pool id are distinct types, so one can never be passed where
// another is expected.
#include <compare>
#include <concepts>
#include <cstddef>
#include <functional>
#include <type_traits>

#include <fmt/format.h>

namespace gpusim {

// An index of one kind of thing (`Tag`), stored as `Rep`. Made only explicitly and only from an
// integer (`NodeId{n}`, or `static_cast<NodeId>(size)`, which narrows like the static_cast<Rep> it
// replaces), so a NodeId is never accepted where a GpuId is expected, not even by `GpuId{node}`;
// comparing two kinds is deleted. It converts implicitly to its Rep, so `vec[id]`, `id < vec.size()`
// and id arithmetic keep reading as they did and cost nothing.
template <class Tag, class Rep>
class Id {
  static_assert(std::is_unsigned_v<Rep>);  // an index: compared with sizes without sign warnings

 public:
  constexpr Id() = default;
  template <std::integral T>
  constexpr explicit Id(T v) : v_(static_cast<Rep>(v)) {}
  constexpr Rep value() const { return v_; }
  constexpr operator Rep() const { return v_; }

  constexpr auto operator<=>(const Id&) const = default;
  // Two ids of different kinds would otherwise compare as integers.
  template <class OtherTag, class OtherRep>
  requires(!std::is_same_v<OtherTag, Tag>) friend bool operator==(Id, Id<OtherTag, OtherRep>) = delete;
  template <class OtherTag, class OtherRep>
  requires(!std::is_same_v<OtherTag, Tag>) friend auto operator<=>(Id, Id<OtherTag, OtherRep>) = delete;

  constexpr Id& operator++() {
    ++v_;
    return *this;
  }
  constexpr Id operator++(int) { return Id(v_++); }
  constexpr Id& operator--() {
    --v_;
    return *this;
  }
  constexpr Id operator--(int) { return Id(v_--); }

  // nlohmann::json writes it as its number (found by ADL; no json include needed here).
  template <class Json>
  friend void to_json(Json& j, Id id) {
    j = id.v_;
  }

 private:
  Rep v_ = 0;
};

}  // namespace gpusim

template <class Tag, class Rep>
struct std::hash<gpusim::Id<Tag, Rep>> {
  std::size_t operator()(gpusim::Id<Tag, Rep> id) const noexcept { return std::hash<Rep>{}(id.value()); }
};

// Formats as its number, with the number's format specs. (`+Rep{}`: fmt formats promoted integers.)
template <class Tag, class Rep>
struct fmt::formatter<gpusim::Id<Tag, Rep>> : fmt::formatter<decltype(+Rep{})> {
  auto format(gpusim::Id<Tag, Rep> id, format_context& ctx) const {
    return fmt::formatter<decltype(+Rep{})>::format(id.value(), ctx);
  }
};
