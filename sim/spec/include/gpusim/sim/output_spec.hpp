#pragma once
// The files of a run directory by name, and the settings of a scenario's `outputs:` block: what the
// scenario reader checks `outputs:` against, and what `--out`, its help text, the on-request flags
// such as `--trace`, the Python API and docs/reference/outputs.md's list read. One list
// (outputs.def, beside this header) makes this catalog and the writers (outputs.hpp), a layer above the reader.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpusim {

struct OutputSpec {
  std::string_view name;         // what `outputs:` and the flags call it: "trace" (--trace)
  std::string_view file;         // in the run directory
  std::string_view description;  // one line, for help texts
  bool by_default = true;        // written by every --out; the others on request
};

// Every output, in the order a run directory lists them.
const std::vector<OutputSpec>& output_table();
const OutputSpec* find_output(std::string_view name);
// "summary.json, jobs.csv, ..." of the outputs written by default (for help texts and messages).
std::string default_output_files();

// outputs.metrics_start when a scenario gives none.
inline constexpr std::string_view kDefaultMetricsStart = "2026-01-01T00:00:00Z";
// Seconds since 1970-01-01T00:00:00Z of "YYYY-MM-DD" (midnight UTC) or "YYYY-MM-DDTHH:MM:SSZ" (UTC,
// a trailing Z required), years 1970-9999; none for anything else (a bad field, day 31 of April).
std::optional<int64_t> parse_utc_date(std::string_view text);
// What a start date must be, for the messages of --metrics-start and outputs.metrics_start.
inline constexpr std::string_view kUtcDateExpected = "a UTC date YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (year 1970 or later)";

}  // namespace gpusim
