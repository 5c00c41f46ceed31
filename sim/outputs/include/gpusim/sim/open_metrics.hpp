#pragma once
// The pure pieces of metrics.om (docs/guide/prometheus.md): the OpenMetrics text format's
// escaping and timestamps, and the step average (the power model is sim/power.hpp). The writer
// (sim/outputs/src/metrics_writer.cpp) is an observer that samples the run with them; the start date
// it counts from is read with the scenario (parse_utc_date, output_spec.hpp).
//
// Format: OpenMetrics 1.0 text exposition (github.com/OpenObservability/OpenMetrics,
// specification/OpenMetrics.md): one `# TYPE`/`# HELP` (and `# UNIT`) block per metric family, a
// family's samples together, label values escaped (\\, \", \n), timestamps in seconds, `# EOF` last.
// Prometheus' `promtool tsdb create-blocks-from openmetrics` (prometheus.io/docs/prometheus/latest/
// storage/#backfilling-from-openmetrics-format) reads that and needs a timestamp on every sample and
// each series' samples in increasing time.
#include <cstdint>
#include <string>
#include <string_view>

#include "gpusim/core/time.hpp"

namespace gpusim {

// `s` as an OpenMetrics label value between its quotes: backslash, double quote and line feed escaped.
std::string om_escape(std::string_view s);

// A sample timestamp in seconds: the start date plus the simulated time, with microseconds only
// where the time has them ("1767225600", "1767225600.5").
std::string om_timestamp(int64_t start_unix_s, Time t);

// The mean busy fraction over a step from a GPU's busy-time integral at its two ends (us x fraction),
// clamped to 0..1 against rounding: DCGM's utilization is the share of the sample period the GPU was busy.
double step_average(double busy_us_before, double busy_us_after, Duration step);

}  // namespace gpusim
