#include "gpusim/sim/outputs.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "gpusim/core/error.hpp"

namespace gpusim {

std::unique_ptr<OutputWriter> make_trace_writer();  // trace_writer.cpp

namespace {

// An output written from the run's result alone.
template <void (*Write)(std::ostream&, const Scenario&, const RunResult&, const Json&)>
class ResultWriter final : public OutputWriter {
 public:
  void write(std::ostream& out, const Scenario& s, const RunResult& r, const Json& summary) const override {
    Write(out, s, r, summary);
  }
  static std::unique_ptr<OutputWriter> make() { return std::make_unique<ResultWriter>(); }
};

void summary_json(std::ostream& o, const Scenario&, const RunResult&, const Json& summary) { o << summary.dump(2) << '\n'; }
void jobs_csv(std::ostream& o, const Scenario& s, const RunResult& r, const Json&) { write_jobs_csv(o, s, r); }
void timeseries_csv(std::ostream& o, const Scenario&, const RunResult& r, const Json&) { write_timeseries_csv(o, r); }
void pool_timeseries_csv(std::ostream& o, const Scenario&, const RunResult& r, const Json&) { write_pool_timeseries_csv(o, r); }
void gpus_csv(std::ostream& o, const Scenario&, const RunResult& r, const Json&) { write_gpus_csv(o, r); }
void cost_csv(std::ostream& o, const Scenario& s, const RunResult& r, const Json&) { write_cost_csv(o, s, r); }
void low_utilization_csv(std::ostream& o, const Scenario&, const RunResult& r, const Json&) { write_low_utilization_csv(o, r); }
void scenario_yaml(std::ostream& o, const Scenario& s, const RunResult&, const Json&) {
  YAML::Emitter e;
  e << s.resolved.yaml();
  o << "# The scenario as run, after --set overrides.\n" << e.c_str() << '\n';
}

}  // namespace

const std::vector<OutputSpec>& output_table() {
  static const std::vector<OutputSpec> table{
      {"summary", "summary.json", "every figure, units in the key names", true, &ResultWriter<summary_json>::make},
      {"jobs", "jobs.csv", "one row per job", true, &ResultWriter<jobs_csv>::make},
      {"timeseries", "timeseries.csv", "the cluster sampled every outputs.timeseries_step", true,
       &ResultWriter<timeseries_csv>::make},
      {"pool_timeseries", "pool_timeseries.csv", "the same samples per pool", true, &ResultWriter<pool_timeseries_csv>::make},
      {"gpus", "gpus.csv", "one row per GPU: final MIG layout, utilization", true, &ResultWriter<gpus_csv>::make},
      {"cost", "cost.csv", "cost per pool and market, and by tenant, kind and GPU model", true, &ResultWriter<cost_csv>::make},
      {"low_utilization", "low_utilization.csv", "stretches of a pool under the utilization alert", true,
       &ResultWriter<low_utilization_csv>::make},
      {"scenario", "scenario.yaml", "the scenario as run, after overrides", true, &ResultWriter<scenario_yaml>::make},
      {"trace", "trace.json", "a Perfetto/Chrome timeline: a track per GPU or MIG slice, reclaims, preemptions", false,
       &make_trace_writer},
  };
  return table;
}

const OutputSpec* find_output(std::string_view name) {
  for (const OutputSpec& o : output_table())
    if (o.name == name) return &o;
  return nullptr;
}

std::string default_output_files() {
  std::string out;
  for (const OutputSpec& o : output_table())
    if (o.by_default) out += fmt::format("{}{}", out.empty() ? "" : ", ", o.file);
  return out;
}

RunOutputs::RunOutputs(const std::vector<std::string>& requested) {
  for (const OutputSpec& o : output_table()) {
    if (!o.by_default && std::find(requested.begin(), requested.end(), o.name) == requested.end()) continue;
    writers_.emplace_back(&o, o.make());
    observers_.push_back(writers_.back().second.get());
  }
}

std::string RunOutputs::files() const {
  std::string out;
  for (const auto& [spec, writer] : writers_) out += fmt::format("{}{}", out.empty() ? "" : ", ", spec->file);
  return out;
}

void RunOutputs::write(const std::string& dir, bool force, const Scenario& s, const RunResult& r, const Json& summary) const {
  namespace fs = std::filesystem;
  const SourceLocation where{dir, std::nullopt, "--out"};
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) throw InputError(where, "exists and is not a directory");
    if (!fs::is_empty(dir, ec) && !force)
      throw InputError(where, "directory exists and is not empty; pass --force to overwrite its files");
  }
  fs::create_directories(dir, ec);
  if (ec) throw InputError(where, fmt::format("cannot create directory: {}", ec.message()));
  for (const auto& [spec, writer] : writers_) {
    const fs::path path = fs::path(dir) / spec->file;
    std::ofstream f(path, std::ios::binary);
    if (!f) throw InputError({path.string(), std::nullopt, ""}, "cannot write file");
    writer->write(f, s, r, summary);
  }
}

}  // namespace gpusim
