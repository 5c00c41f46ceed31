// Every trace reader (workloads/traces.hpp, and the SkyPilot availability series of sim/market.hpp)
// over arbitrary bytes. The first byte picks the reader (its value mod 5) and its options (untimed,
// a limit: the quotient's bits); the rest is the file. A reader either returns
// or throws InputError; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpusim/core/error.hpp"
#include "gpusim/sim/market.hpp"
#include "gpusim/workloads/traces.hpp"
#include "scratch.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int reader = data[0] % 5;
  const int flags = data[0] / 5;
  const std::string path = gpusim::fuzz::write_scratch("trace.csv",
                                                       std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
  gpusim::TraceOptions options;
  options.untimed = (flags & 1) != 0;
  if (flags & 2) options.limit = flags >> 2;
  try {
    switch (reader) {
      case 0: (void)gpusim::read_generic_csv(path, options); break;
      case 1: (void)gpusim::read_philly_jobs(path, options); break;
      case 2: (void)gpusim::read_openb_pods(path, options); break;
      case 3: (void)gpusim::read_openb_nodes(path); break;
      case 4: (void)gpusim::read_skypilot_series(path); break;
    }
  } catch (const gpusim::InputError&) {
  }
  return 0;
}
