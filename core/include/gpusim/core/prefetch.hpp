#pragma once
// Asking the cache for memory ahead of its use: on a long run a job's state was last touched hours
// earlier and is no longer cached, so each first touch stalls unless it was asked for in time.
#include <cstddef>

namespace gpusim {

// Asks for every cache line of `value`; changes nothing.
template <class T>
void prefetch(const T& value) {
  for (std::size_t at = 0; at < sizeof(T); at += 64) __builtin_prefetch(reinterpret_cast<const char*>(&value) + at);
}

}  // namespace gpusim
