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

// Uniform in [0, 1) with 53 random bits; stable across Boost versions.
double uniform01(Rng& rng);

}  // namespace gpusim
