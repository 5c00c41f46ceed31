// What a run directory holds (`outputs:`): the timeseries step, the date metrics.om starts at, and
// the outputs written on request, checked against the output catalog (output_spec.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "gpusim/sim/output_spec.hpp"
#include "scenario_parts.hpp"

namespace gpusim {

// timeseries_step, and `NAME: true` for each output written on request (the output table).
const Section& outputs_section() {
  static const Section s = [] {
    std::vector<Field> fields{
        {"timeseries_step", Type::duration(), "1h", "", "Time between rows of timeseries.csv (and samples of metrics.om)"},
        {"metrics_start", Type::string(), kDefaultMetricsStart.data(), "",
         "The date simulated time 0 is in metrics.om: YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC)"}};
    for (const OutputSpec& o : output_table())
      if (!o.by_default)
        fields.push_back(
            {o.name, Type::boolean(), "false", "", fmt::format("Also write {} with --out: {}", o.file, o.description)});
    return Section("outputs", "What a run directory holds besides the default files", std::move(fields));
  }();
  return s;
}

void read_outputs(const ConfigNode& node, Scenario& s) {
  const Fields out = outputs_section().read(node);
  const ConfigNode step = out.value("timeseries_step");
  s.timeseries_step = step.as_duration();
  if (s.timeseries_step <= Duration()) step.fail("expected a positive step");
  const ConfigNode start = out.value("metrics_start");
  const auto start_s = parse_utc_date(start.as_string());
  if (!start_s) start.fail(fmt::format("expected {}, got '{}'", kUtcDateExpected, start.as_string()));
  s.metrics_start_unix_s = *start_s;
  for (const OutputSpec& o : output_table())
    if (!o.by_default && out.value(o.name).as_bool()) s.outputs.emplace_back(o.name);
  // Written whenever the scenario has what they report.
  const auto implied = [&](bool has, std::string_view name) {
    if (has && std::find(s.outputs.begin(), s.outputs.end(), name) == s.outputs.end()) s.outputs.emplace_back(name);
  };
  implied(s.tenancy.given, "tenants");
  implied(!s.services.empty(), "services");
  implied(std::any_of(s.services.begin(), s.services.end(), [](const ServiceSpec& v) { return v.autoscaler.has_value(); }),
          "replicas");
}

}  // namespace gpusim
