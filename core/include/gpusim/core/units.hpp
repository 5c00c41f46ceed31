#pragma once
// Quantities that can be confused get their own types (docs/design/testing.md). A milli-GPU is a thousandth of
// one GPU's compute, as in Alibaba's GPU-sharing traces and Kubernetes' milli-CPU.
#include <compare>
#include <cstdint>

namespace gpusim {

struct Milli {
  int32_t value = 0;
  constexpr auto operator<=>(const Milli&) const = default;
  constexpr Milli operator+(Milli o) const { return {value + o.value}; }
  constexpr Milli operator-(Milli o) const { return {value - o.value}; }
  constexpr Milli& operator+=(Milli o) { value += o.value; return *this; }
  constexpr Milli& operator-=(Milli o) { value -= o.value; return *this; }
  constexpr double gpus() const { return value / 1000.0; }
};

inline constexpr Milli kWholeGpu{1000};

}  // namespace gpusim
