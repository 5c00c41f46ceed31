#include "sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <unordered_map>

namespace gpusim::cli {

GridAxis parse_grid_axis(const std::string& spec) {
  const auto eq = spec.find('=');
  const SourceLocation where{"--grid", std::nullopt, spec};
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    throw InputError(where, "expected PATH=V1,V2,..., e.g. --grid cluster.pools[0].count=4,8,16");
  GridAxis axis{spec.substr(0, eq), {}};
  std::string rest = spec.substr(eq + 1);
  for (std::size_t start = 0;;) {
    const auto comma = rest.find(',', start);
    std::string v = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (v.empty()) throw InputError(where, "empty value in the list (two commas, or one at an end)");
    axis.values.push_back(std::move(v));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return axis;
}

std::vector<SweepPoint> sweep_points(const std::string& scenario, const LoadOptions& options, const std::vector<GridAxis>& axes,
                                     const std::vector<std::string>& policies) {
  for (std::size_t i = 0; i < axes.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (axes[k].path == axes[i].path) throw InputError({"--grid", std::nullopt, axes[i].path}, "the same path is swept twice");
  std::vector<SweepPoint> out;
  // The scenario is loaded once, to check it and read its variants; each point is loaded by its runner.
  const Scenario base = load_scenario(scenario, options);
  const bool named = !base.variants.empty();
  const std::vector<Scenario::Variant> variants = named ? base.variants : std::vector<Scenario::Variant>{{}};
  for (const Scenario::Variant& variant : variants) {
    // Odometer over the axes, the last one fastest.
    std::vector<std::size_t> at(axes.size(), 0);
    for (bool more = true; more;) {
      SweepPoint point;
      if (named) point.columns.emplace_back("variant", variant.name);
      point.overrides = variant.overrides;
      point.overrides.insert(point.overrides.end(), options.overrides.begin(), options.overrides.end());
      for (std::size_t a = 0; a < axes.size(); ++a) {
        point.columns.emplace_back(axes[a].path, axes[a].values[at[a]]);
        point.overrides.push_back(axes[a].path + "=" + axes[a].values[at[a]]);
      }
      // "" for the scenario's own policy, which the point's overrides may change.
      for (const auto& p : policies.empty() ? std::vector<std::string>{""} : policies) {
        SweepPoint row = point;
        row.columns.emplace_back("policy", p);
        row.policy = p;
        out.push_back(std::move(row));
      }
      more = false;
      for (std::size_t a = axes.size(); a-- > 0;) {
        if (++at[a] < axes[a].values.size()) {
          more = true;
          break;
        }
        at[a] = 0;
      }
    }
  }
  return out;
}

namespace {
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
}  // namespace

void write_sweep_csv(std::ostream& out, const std::vector<SweepPoint>& points, const std::vector<RunOutcome>& outcomes) {
  std::vector<std::vector<std::pair<std::string, double>>> figures;
  std::vector<std::string> names;
  std::unordered_map<std::string, std::size_t> column;
  // A swept field the summary also reports (seed) is a column once, as the point's.
  std::vector<std::string> taken;
  if (!points.empty())
    for (const auto& [name, value] : points.front().columns) taken.push_back(name);
  for (const auto& o : outcomes) {
    figures.push_back(flatten_summary(o.summary));
    for (const auto& [name, value] : figures.back())
      if (std::find(taken.begin(), taken.end(), name) == taken.end() && column.emplace(name, names.size()).second)
        names.push_back(name);
  }
  std::string line;
  if (!points.empty())
    for (const auto& [name, value] : points.front().columns) line += csv_field(name) + ",";
  for (const auto& n : names) line += csv_field(n) + ",";
  line.back() = '\n';
  out << line;
  for (std::size_t i = 0; i < points.size(); ++i) {
    line.clear();
    for (const auto& [name, value] : points[i].columns) line += csv_field(value) + ",";
    std::vector<std::string> cells(names.size());
    for (const auto& [name, value] : figures[i])
      if (auto c = column.find(name); c != column.end()) cells[c->second] = fmt::format("{}", value);
    for (const auto& c : cells) line += c + ",";
    line.back() = '\n';
    out << line;
  }
}

void write_sweep_seeds_csv(std::ostream& out, const std::vector<SweepPoint>& points, const std::vector<SeedSummary>& summaries) {
  // The figures a plain sweep has (flatten_summary's: no per-pool or per-tenant columns), over every
  // point and every seed: a figure the first seed leaves null (no job completed) may exist in others.
  const auto under_array = [](const Json& summary, const std::string& path) {
    const Json* j = &summary;
    for (std::size_t start = 0; j->is_object();) {
      const auto dot = path.find('.', start);
      const auto it = j->find(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
      if (it == j->end() || dot == std::string::npos) return false;
      j = &*it;
      start = dot + 1;
    }
    return j->is_array();
  };
  std::vector<std::string> names;
  for (const auto& s : summaries)
    for (const auto& name : s.paths)
      if (name != "seed" && !under_array(s.first, name) && std::find(names.begin(), names.end(), name) == names.end())
        names.push_back(name);
  std::string line;
  if (!points.empty())
    for (const auto& [name, value] : points.front().columns) line += csv_field(name) + ",";
  line += "seeds,n,";
  for (const auto& n : names) line += csv_field(n + "_mean") + "," + csv_field(n + "_ci95") + ",";
  line.back() = '\n';
  out << line;
  for (std::size_t i = 0; i < points.size(); ++i) {
    line.clear();
    for (const auto& [name, value] : points[i].columns) line += csv_field(value) + ",";
    line += csv_field(seeds_text(summaries[i].seeds)) + fmt::format(",{},", summaries[i].seeds.size());
    for (const auto& n : names) {
      const SeedFigure* f = summaries[i].figure(n);
      const auto cell = [](const std::optional<double>& v) { return v ? fmt::format("{}", *v) : std::string(); };
      line += (f ? cell(f->mean) + "," + cell(f->ci95) : std::string(",")) + ",";
    }
    line.back() = '\n';
    out << line;
  }
}

}  // namespace gpusim::cli
