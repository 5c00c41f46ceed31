// The small text parsers over arbitrary bytes; the first byte picks one, the rest is its text.
// Each either returns or throws what its header documents (InputError; std::invalid_argument from
// parse_duration); anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "gpusim/core/config.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/core/time.hpp"
#include "gpusim/core/utf8.hpp"
#include "gpusim/sim/scenario.hpp"
#include "gpusim/workloads/traces.hpp"
#include "scratch.hpp"
#include "seeds.hpp"
#include "sweep.hpp"

namespace {

// A scenario small enough to load in well under a millisecond, for --set values to land in.
constexpr const char* kBase = R"(name: base
seed: 1
horizon: 1h
cluster:
  pools:
    - {name: p, node: dgx-a100-80gb, count: 1}
workload:
  jobs:
    - {name: j, arrival: 0, duration: 10m, gpus: 1}
)";

// Every conversion a scenario field goes through, on one YAML document.
void convert_scalars(const std::string& text) {
  const gpusim::ConfigNode node = gpusim::ConfigNode::parse(text, "fuzz.yaml");
  const auto each = [](const gpusim::ConfigNode& n) {
    const auto attempt = [](auto&& f) {
      try {
        f();
      } catch (const gpusim::InputError&) {
      }
    };
    attempt([&] { (void)n.as_string(); });
    attempt([&] { (void)n.as_int(); });
    attempt([&] { (void)n.as_positive_int(); });
    attempt([&] { (void)n.as_non_negative_int(); });
    attempt([&] { (void)n.as_number(); });
    attempt([&] { (void)n.as_non_negative_number(); });
    attempt([&] { (void)n.as_bool(); });
    attempt([&] { (void)n.as_duration(); });
  };
  each(node);
  if (node.is_sequence())
    for (const auto& item : node.items()) each(item);
  if (node.is_map())
    for (const auto& [key, value] : node.entries()) each(value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (data[0] % 7) {
      case 0: try { (void)gpusim::parse_duration(text);
        } catch (const std::invalid_argument&) {
        }
        break;
      case 1: (void)gpusim::parse_timestamp(text); break;
      case 2: (void)gpusim::first_invalid_utf8(text); break;
      case 3: (void)gpusim::cli::parse_seeds(text); break;
      case 4: (void)gpusim::cli::parse_grid_axis(text); break;
      case 5: {
        gpusim::LoadOptions options;
        options.text = kBase;
        options.overrides = {text};
        options.data_dir = gpusim::fuzz::scratch_dir().string();
        (void)gpusim::load_scenario((gpusim::fuzz::scratch_dir() / "base.yaml").string(), options);
        break;
      }
      case 6: convert_scalars(text); break;
    }
  } catch (const gpusim::InputError&) {
  }
  return 0;
}
