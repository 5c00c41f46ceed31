#include "check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <ostream>

#include <yaml-cpp/yaml.h>

#include "gpusim/core/config.hpp"
#include "gpusim/core/fields.hpp"
#include "text.hpp"

namespace gpusim::cli {

double Tolerance::allowance(double baseline) const { return std::max(abs, rel * std::fabs(baseline)); }

Verdict judge(double baseline, std::optional<double> now, const Tolerance& t) {
  if (!now) return Verdict::missing;
  const double delta = *now - baseline;
  if (delta == 0) return Verdict::same;
  if (std::fabs(delta) <= t.allowance(baseline)) return Verdict::within;
  switch (t.worse) {
    case Worse::higher: return delta > 0 ? Verdict::worse : Verdict::better;
    case Worse::lower: return delta < 0 ? Verdict::worse : Verdict::better;
    case Worse::either: return Verdict::worse;
  }
  return Verdict::worse;
}

namespace {

const Section& tolerance_section() {
  static const Section s{"tolerance",
                         "How far a metric may move before check calls it a regression",
                         {
                             {"worse", Type::enumeration<Worse>(), required, "", "Which way the metric gets worse"},
                             {"abs", Type::number().at_least(0), "0", "", "Change allowed, in the metric's unit"},
                             {"rel", Type::number().at_least(0), "0", "", "Change allowed, as a fraction of the baseline value"},
                         }};
  return s;
}

// Metric (dotted path in summary.json) -> tolerance.
Type tolerances_type() { return Type::map(Type::section(tolerance_section())); }

const Section& baseline_run_section() {
  static const Section s{"baseline_run",
                         "A scenario run and the figures it recorded",
                         {
                             {"scenario", Type::string(), required, "", "The scenario, relative to the baseline file"},
                             {"variant", Type::string(), "", "", "One of its variants; absent: every variant"},
                             {"policy", Type::string(), "", "", "QUEUE+PLACEMENT; absent: the scenario's"},
                             {"tolerances", tolerances_type(), "", "", "Tolerances of this run, over the file's"},
                             {"metrics", Type::map(Type::number()), "", "", "Recorded figures by dotted path in summary.json"},
                         }};
  return s;
}

const Section& baseline_section() {
  static const Section s{"baseline",
                         "Figures gpusim check compares a new run with",
                         {
                             {"version", Type::integer().at_least(1).at_most(1), required, "", "The baseline format's version"},
                             {"description", Type::string(), "", "", "What it records"},
                             {"tolerances", tolerances_type(), "", "", "Tolerances of every run"},
                             {"runs", Type::list(Type::section(baseline_run_section())), required, "", "The runs"},
                         }};
  return s;
}

std::vector<std::pair<std::string, Tolerance>> read_tolerances(const ConfigNode& node) {
  std::vector<std::pair<std::string, Tolerance>> out;
  for (const auto& [metric, entry] : node.entries()) {
    const Fields e = tolerance_section().read(entry);
    Tolerance t;
    const auto worse = e.at("worse").as_string();
    const auto named = parse_enum<Worse>(worse);
    if (!named)
      e.at("worse").fail(
          fmt::format("expected {} (which way the metric gets worse), got '{}'", enum_choices<Worse>(" or "), worse));
    t.worse = *named;
    t.abs = e.value("abs").as_non_negative_number();
    t.rel = e.value("rel").as_non_negative_number();
    out.emplace_back(metric, t);
  }
  return out;
}

const Tolerance* find(const std::vector<std::pair<std::string, Tolerance>>& list, const std::string& metric) {
  for (const auto& [name, t] : list)
    if (name == metric) return &t;
  return nullptr;
}

std::string describe(const Tolerance& t) {
  std::string out = fmt::format("worse {}", to_string(t.worse));
  if (t.abs > 0) out += fmt::format(", ±{:g}", t.abs);
  if (t.rel > 0) out += fmt::format(", ±{:g}%", t.rel * 100);
  return out;
}

std::string change(const Finding& f) {
  if (!f.now) return "gone";
  const double d = *f.now - f.baseline;
  if (f.baseline == 0) return fmt::format("{:+g}", d);
  return fmt::format("{:+g} ({:+.2f}%)", d, 100 * d / std::fabs(f.baseline));
}

bool moved(const Finding& f) { return f.verdict != Verdict::same; }

std::string now_text(const Finding& f) { return f.now ? fmt::format("{:g}", *f.now) : "-"; }

}  // namespace

const Tolerance* Baseline::tolerance(const BaselineRun& run, const std::string& metric) const {
  if (const Tolerance* t = find(run.tolerances, metric)) return t;
  return find(tolerances, metric);
}

Baseline read_baseline(const std::string& path) {
  const ConfigNode doc = ConfigNode::load_file(path);
  if (!doc.is_map()) doc.fail("expected a baseline: a map with version, tolerances and runs");
  const Fields root = baseline_section().read(doc);
  if (root.at("version").as_int() != 1) root.at("version").fail("expected version 1");
  Baseline b;
  b.file = path;
  if (auto t = root.get("tolerances")) b.tolerances = read_tolerances(*t);
  const auto folder = std::filesystem::path(path).parent_path();
  for (const auto& item : root.at("runs").items()) {
    const Fields e = baseline_run_section().read(item);
    BaselineRun run;
    run.scenario = e.at("scenario").as_string();
    run.path = (folder / run.scenario).lexically_normal().string();
    if (auto v = e.get("variant")) run.variant = v->as_string();
    if (auto p = e.get("policy")) {
      run.policy = p->as_string();
      run.policy_where = p->where();
    }
    run.where = item.where();
    if (auto t = e.get("tolerances")) run.tolerances = read_tolerances(*t);
    if (auto m = e.get("metrics"))
      for (const auto& [metric, value] : m->entries()) {
        if (!b.tolerance(run, metric))
          value.fail(fmt::format("no tolerance for '{}': give it one under tolerances (worse: higher|lower|either, abs, rel)", metric));
        run.metrics.emplace_back(metric, value.as_number());
        run.metric_where.push_back(value.where());
      }
    b.runs.push_back(std::move(run));
  }
  if (b.runs.empty()) root.at("runs").fail("expected at least one run");
  return b;
}

Json baseline_schema() { return json_schema(baseline_section(), "gpusim baseline"); }

std::vector<RunSpec> baseline_specs(const Baseline& baseline, const LoadOptions& options) {
  std::map<std::string, std::vector<std::pair<std::string, Scenario>>> loaded;
  std::vector<RunSpec> specs;
  for (const BaselineRun& run : baseline.runs) {
    auto [it, fresh] = loaded.try_emplace(run.path);
    if (fresh) it->second = load_variants(run.path, options);
    const auto& variants = it->second;
    auto v = std::find_if(variants.begin(), variants.end(), [&](const auto& p) { return p.first == run.variant; });
    if (v == variants.end()) {
      std::string known;
      for (const auto& p : variants) known += (known.empty() ? "" : ", ") + (p.first.empty() ? "(none)" : p.first);
      throw InputError(run.where, fmt::format("{} has no variant '{}'; its variants: {}", run.scenario, run.variant, known));
    }
    const std::string policy = run.policy.empty() ? v->second.policy : run.policy;
    const std::string stem = std::filesystem::path(run.scenario).stem().string();
    specs.push_back({fmt::format("{}{} {}", stem, run.variant.empty() ? "" : "[" + run.variant + "]", policy), v->second, policy,
                     run.policy.empty() ? v->second.policy_where : run.policy_where});
  }
  return specs;
}

std::size_t CheckReport::count(Verdict v) const {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.verdict == v; }));
}

namespace {
// Whether the summary has the dotted path `metric` at all (a figure, or null where it has none this run).
bool has_path(const Json& j, std::string_view metric) {
  if (!j.is_object()) return false;
  for (const auto& [key, value] : j.items()) {
    if (metric == key) return true;
    if (metric.size() > key.size() && metric.starts_with(key) && metric[key.size()] == '.' &&
        has_path(value, metric.substr(key.size() + 1)))
      return true;
  }
  return false;
}
}  // namespace

CheckReport compare_with_baseline(const Baseline& baseline, const std::vector<RunOutcome>& outcomes) {
  CheckReport report;
  for (std::size_t i = 0; i < baseline.runs.size(); ++i) {
    report.labels.push_back(outcomes[i].summary.value("label", ""));
    const auto figures = flatten_summary(outcomes[i].summary);
    for (std::size_t m = 0; m < baseline.runs[i].metrics.size(); ++m) {
      const auto& [metric, recorded] = baseline.runs[i].metrics[m];
      std::optional<double> now;
      for (const auto& [name, value] : figures)
        if (name == metric) now = value;
      // A name no summary has is a typo in the baseline, not a regression of the run.
      if (!now && !has_path(outcomes[i].summary, metric))
        throw InputError(baseline.runs[i].metric_where[m],
                         fmt::format("the run's summary has no metric '{}': expected a dotted path to a number in summary.json, "
                                     "e.g. jct_s.mean (gpusim run --json shows them)",
                                     metric));
      const Tolerance& t = *baseline.tolerance(baseline.runs[i], metric);
      report.findings.push_back({i, metric, recorded, now, t, judge(recorded, now, t)});
    }
  }
  return report;
}

std::string check_table(const CheckReport& r) {
  std::size_t label_w = 3, metric_w = 6;
  for (const Finding& f : r.findings)
    if (moved(f)) {
      label_w = std::max(label_w, r.labels[f.run].size());
      metric_w = std::max(metric_w, f.metric.size());
    }
  std::string out;
  if (r.count(Verdict::same) < r.findings.size()) {
    out += fmt::format("  {:<{}}  {:<{}}  {:>14}  {:>14}  {:>22}  {:<24} {}\n", "run", label_w, "metric", metric_w, "baseline",
                       "now", "change", "tolerance", "verdict");
    for (const Finding& f : r.findings)
      if (moved(f))
        out += fmt::format("  {:<{}}  {:<{}}  {:>14g}  {:>14}  {:>22}  {:<24} {}\n", r.labels[f.run], label_w, f.metric, metric_w,
                           f.baseline, now_text(f), change(f), describe(f.tolerance), to_string(f.verdict));
    out += '\n';
  }
  const std::size_t bad = r.count(Verdict::worse) + r.count(Verdict::missing);
  out += fmt::format("{} run{}, {} metrics: {} unchanged, {} within tolerance, {} better, {} worse{}\n", r.labels.size(),
                     r.labels.size() == 1 ? "" : "s", r.findings.size(), r.count(Verdict::same), r.count(Verdict::within), r.count(Verdict::better), bad,
                     bad ? " -- REGRESSION" : r.count(Verdict::better) ? " (review, then --update to record the gains)" : "");
  return out;
}

void write_junit(std::ostream& out, const CheckReport& r, const std::vector<RunOutcome>& outcomes) {
  std::vector<std::string> failures(r.labels.size());
  std::size_t failed = 0;
  for (const Finding& f : r.findings)
    if (f.verdict == Verdict::worse || f.verdict == Verdict::missing)
      failures[f.run] += fmt::format("{}: baseline {:g}, now {}, change {} ({})\n", f.metric, f.baseline, now_text(f), change(f),
                                     describe(f.tolerance));
  for (const auto& s : failures) failed += !s.empty();
  double total = 0;
  for (const auto& o : outcomes) total += o.seconds;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format("<testsuites name=\"gpusim check\" tests=\"{}\" failures=\"{}\" time=\"{:.3f}\">\n", r.labels.size(), failed, total);
  out << fmt::format("  <testsuite name=\"gpusim check\" tests=\"{}\" failures=\"{}\" time=\"{:.3f}\">\n", r.labels.size(), failed, total);
  for (std::size_t i = 0; i < r.labels.size(); ++i) {
    out << fmt::format("    <testcase classname=\"gpusim.check\" name=\"{}\" time=\"{:.3f}\"", xml_escape(r.labels[i]),
                       outcomes[i].seconds);
    if (failures[i].empty()) {
      out << "/>\n";
      continue;
    }
    const std::size_t n = static_cast<std::size_t>(std::count(failures[i].begin(), failures[i].end(), '\n'));
    out << fmt::format(">\n      <failure message=\"{} metric(s) regressed\" type=\"regression\">{}</failure>\n    </testcase>\n", n,
                       xml_escape(failures[i]));
  }
  out << "  </testsuite>\n</testsuites>\n";
}

void write_markdown(std::ostream& out, const CheckReport& r) {
  const std::size_t bad = r.count(Verdict::worse) + r.count(Verdict::missing);
  out << fmt::format("## gpusim check: {}\n\n", bad ? fmt::format("{} regression(s)", bad) : std::string("no regression"));
  out << fmt::format("{} run{}, {} metrics: {} unchanged, {} within tolerance, {} better, {} worse.\n", r.labels.size(),
                     r.labels.size() == 1 ? "" : "s", r.findings.size(), r.count(Verdict::same), r.count(Verdict::within), r.count(Verdict::better), bad);
  if (r.count(Verdict::same) == r.findings.size()) return;
  out << "\n| run | metric | baseline | now | change | tolerance | verdict |\n|---|---|---:|---:|---:|---|---|\n";
  for (const Finding& f : r.findings)
    if (moved(f))
      out << fmt::format("| {} | `{}` | {:g} | {} | {} | {} | {} |\n", r.labels[f.run], f.metric, f.baseline, now_text(f), change(f),
                         describe(f.tolerance), f.verdict == Verdict::worse || f.verdict == Verdict::missing
                                                    ? fmt::format("**{}**", to_string(f.verdict))
                                                    : std::string(to_string(f.verdict)));
}

namespace {
// A string as a YAML scalar, quoted only when it has to be.
std::string yaml_scalar(const std::string& s) {
  YAML::Emitter e;
  e << s;
  return e.c_str();
}

void write_tolerances(std::ostream& out, const std::vector<std::pair<std::string, Tolerance>>& list, std::string_view indent) {
  for (const auto& [metric, t] : list) {
    out << fmt::format("{}{}: {{worse: {}", indent, yaml_scalar(metric), to_string(t.worse));
    if (t.abs > 0) out << fmt::format(", abs: {}", t.abs);
    if (t.rel > 0) out << fmt::format(", rel: {}", t.rel);
    out << "}\n";
  }
}
}  // namespace

void write_baseline(std::ostream& out, const Baseline& b, const std::vector<RunOutcome>& outcomes) {
  out << "# gpusim check baseline: every run is re-simulated and each metric compared with its tolerance.\n"
         "# Re-record after review with: gpusim check " << b.file << " --update\n";
  out << "version: 1\ntolerances:\n";
  write_tolerances(out, b.tolerances, "  ");
  out << "runs:\n";
  for (std::size_t i = 0; i < b.runs.size(); ++i) {
    const BaselineRun& run = b.runs[i];
    out << fmt::format("  - scenario: {}\n", yaml_scalar(run.scenario));
    if (!run.variant.empty()) out << fmt::format("    variant: {}\n", yaml_scalar(run.variant));
    if (!run.policy.empty()) out << fmt::format("    policy: {}\n", yaml_scalar(run.policy));
    if (!run.tolerances.empty()) {
      out << "    tolerances:\n";
      write_tolerances(out, run.tolerances, "      ");
    }
    // The metrics it recorded, or every metric with a tolerance for a new run.
    std::vector<std::string> names;
    for (const auto& [metric, value] : run.metrics) names.push_back(metric);
    if (names.empty()) {
      for (const auto& [metric, t] : b.tolerances) names.push_back(metric);
      for (const auto& [metric, t] : run.tolerances)
        if (std::find(names.begin(), names.end(), metric) == names.end()) names.push_back(metric);
    }
    const auto figures = flatten_summary(outcomes[i].summary);
    out << "    metrics:\n";
    for (const auto& name : names) {
      auto f = std::find_if(figures.begin(), figures.end(), [&](const auto& p) { return p.first == name; });
      if (f == figures.end()) continue;  // not reported by this run (e.g. no job finished): nothing to hold it to
      out << fmt::format("      {}: {}\n", yaml_scalar(name), f->second);
    }
  }
}

}  // namespace gpusim::cli
