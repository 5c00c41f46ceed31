// `gpusim report`'s reading of a run directory over arbitrary text: the input is the directory's
// files as `tail -n +1 DIR/*` prints them (a line "==> DIR/NAME <==" before each file's text), read
// as read_run_dir would give them, then drawn as one report and as a comparison of the run with
// itself. Expected: InputError; anything else (another exception, a crash, a sanitizer report, a
// slow input) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpusim/core/error.hpp"
#include "html_report.hpp"

namespace {

gpusim::cli::RunFiles split(std::string_view text) {
  gpusim::cli::RunFiles files;
  std::string* current = nullptr;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl == std::string_view::npos ? text.size() : nl + 1);
    text.remove_prefix(line.size());
    if (line.starts_with("==> ") && line.find(" <==") != std::string_view::npos) {
      std::string_view name = line.substr(4, line.find(" <==") - 4);
      if (const std::size_t slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
      current = &files[std::string(name)];
      continue;
    }
    if (current) *current += line;
  }
  // As read_run_dir: only the files the report reads.
  gpusim::cli::RunFiles out;
  for (std::string_view f : gpusim::cli::report_files())
    if (const auto it = files.find(std::string(f)); it != files.end()) out.insert(*it);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const gpusim::cli::RunFiles run = split(std::string_view(reinterpret_cast<const char*>(data), size));
  try {
    (void)gpusim::cli::html_report(run, "run");
    (void)gpusim::cli::html_compare_report({{"a", run}, {"b", run}}, "compare");
  } catch (const gpusim::InputError&) {
  }
  return 0;
}
