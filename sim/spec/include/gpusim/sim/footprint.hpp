#pragma once
// What a run will hold, estimated from the counts a scenario gives before anything is expanded
// (docs/guide/checks-and-sweeps.md, Memory limit): a run whose estimate is over the memory limit is refused before it
// allocates, naming the fields responsible, instead of growing until the machine runs out.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/core/time.hpp"
#include "gpusim/hardware/catalog.hpp"

namespace gpusim {

// Bytes one object of each kind costs over a whole run (scenario, engine state, metrics, outputs);
// measured, see footprint.cpp.
struct FootprintCosts {
  static const uint64_t job;
  static const uint64_t node;
  static const uint64_t gpu;
  static const uint64_t timeseries_row;
  static const uint64_t timeseries_row_per_pool;
  static const uint64_t request;  // of a service's requests generator
};

// One count of the scenario and what it costs.
struct FootprintItem {
  SourceLocation where;  // the field that sets the count
  std::string what;      // e.g. "1000000000 jobs"
  double bytes = 0;      // a double: a count the scenario gives may be beyond any integer type
};

struct Footprint {
  std::vector<FootprintItem> items;
  double bytes() const;
};

// The most a run may hold: given (--max-memory, max_memory=) or half of the machine's physical memory.
struct MemoryLimit {
  uint64_t bytes = 0;
  std::string source;  // how the limit was set, for the message
  // Half of physical memory (sysconf pages x page size, which is MemTotal of /proc/meminfo): the
  // same figure for every run on one machine, leaving room for the rest of it.
  static MemoryLimit machine_default();
  // A size such as "4GiB", "512MiB", "2GB", "1.5G" or a byte count; `flag` names it in the error.
  static MemoryLimit parse(std::string_view text, const SourceLocation& flag);
};

// "1.5 GiB".
std::string format_bytes(double bytes);

// The counts of a scenario tree (after overrides; `catalog` gives node templates their GPUs, and
// `default_step` is outputs.timeseries_step's default):
// inline job counts, generator class counts, pool node counts and autoscaler maxima, time-series rows
// (horizon / outputs.timeseries_step), services' generated requests (rate x duration). Traces and node lists are not counted:
// they are streamed and bounded by their files. A value that is not a number is left to its field's reader.
Footprint estimate_footprint(const ConfigNode& scenario, const Catalog& catalog, Duration default_step);

// Throws an InputError naming the largest item's field when the footprint is over the limit.
void check_footprint(const Footprint& footprint, const MemoryLimit& limit);

}  // namespace gpusim
