// The scenario loader over arbitrary text: ConfigNode::parse, load_variants (the loader, the
// generators, overrides of variants), build_world for each variant and, when the first is small, a
// short audited simulation of it. The scenario is named as a file in an empty scratch directory,
// which is also its data directory: relative trace paths find nothing. Expected: InputError;
// anything else (another exception, an audit failure, a crash, a sanitizer report, a slow input) is
// a finding.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpusim/core/config.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/policies/registry.hpp"
#include "gpusim/sim/run.hpp"
#include "gpusim/sim/scenario.hpp"
#include "gpusim/sim/world.hpp"
#include "limits.hpp"
#include "scratch.hpp"

namespace {

constexpr std::size_t kMaxVariants = 4;
constexpr std::size_t kMaxSimulatedJobs = 200;
constexpr std::size_t kMaxSimulatedNodes = 64;
constexpr auto kMaxHorizon = gpusim::Duration::from_seconds(30 * 86400);

void run(const std::string& text) {
  const std::string path = (gpusim::fuzz::scratch_dir() / "scenario.yaml").string();
  if (gpusim::fuzz::asks_too_much(
          gpusim::ConfigNode::parse(text, path).yaml(),
          {"count", "gpus", "replicas", "limit", "max", "max_count", "min", "until", "workers", "nics", "iterations"}))
    return;
  gpusim::LoadOptions options;
  options.text = text;
  options.data_dir = gpusim::fuzz::scratch_dir().string();
  auto variants = gpusim::load_variants(path, options);
  if (variants.size() > kMaxVariants) return;
  for (const auto& [name, scenario] : variants) (void)gpusim::build_world(scenario);

  gpusim::Scenario& s = variants.front().second;
  std::size_t nodes = 0;
  for (const auto& pool : s.pools) nodes += pool.node_count;
  if (s.packing || s.jobs.jobs.size() > kMaxSimulatedJobs || nodes > kMaxSimulatedNodes) return;
  if (!s.horizon || *s.horizon - gpusim::Time() > kMaxHorizon) s.horizon = gpusim::Time() + kMaxHorizon;
  auto scheduler = gpusim::Registry::global().make(s.policy, gpusim::policy_context(s), s.policy_where);
  (void)gpusim::simulate(s, *scheduler, {{}, {}, /*audit=*/true});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    run(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const gpusim::InputError&) {
  }
  return 0;
}
