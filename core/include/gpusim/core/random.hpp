#pragma once
// Named, seeded random streams: every component draws from its own stream, derived from
// the scenario seed and the stream's name, so one extra draw in one component never shifts another.
// Boost.Random engines and distributions give the same numbers on every platform, which the
// standard library's distributions do not promise.
#include <boost/random/mersenne_twister.hpp>

#include <cstdint>
#include <string_view>

namespace gpusim {

using Rng = boost::random::mt19937_64;

// The seed of stream `name` under scenario seed `seed` (FNV-1a of the name mixed by SplitMix64).
uint64_t stream_seed(uint64_t seed, std::string_view name);

inline Rng make_stream(uint64_t seed, std::string_view name) { return Rng(stream_seed(seed, name)); }

// A 64-bit label of the pair (a, b): SplitMix64's finalizer over a and b combined; it chains (mix64(mix64(a, b), c)) to
// name a sequence. Labels of different inputs collide with probability about 2^-64 a pair.
constexpr uint64_t mix64(uint64_t a, uint64_t b) {
  uint64_t z = a * 0x9e3779b97f4a7c15ULL + b + 0x632be59bd9b4e019ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Uniform in [0, 1) with 53 random bits; stable across Boost versions.
double uniform01(Rng& rng);

}  // namespace gpusim
