// The subcommands that run scenarios: run (once or per seed), compare, check and sweep.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "check.hpp"
#include "commands.hpp"
#include "compare_plan.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/policies/registry.hpp"
#include "gpusim/sim/audit.hpp"
#include "gpusim/sim/output_spec.hpp"
#include "gpusim/sim/outputs.hpp"
#include "gpusim/sim/report.hpp"
#include "gpusim/sim/run.hpp"
#include "gpusim/sim/scenario.hpp"
#include "progress.hpp"
#include "runs.hpp"
#include "seeds.hpp"
#include "sweep.hpp"
#include "table.hpp"

namespace gpusim::cli {

namespace {

using Clock = std::chrono::steady_clock;

// Runs once per seed of every setup, setup-major: specs[i * seeds.size() + k] has seeds[k].
std::vector<cli::SeedSummary> by_seed(const std::vector<cli::RunOutcome>& outcomes, const std::vector<uint64_t>& seeds) {
  std::vector<cli::SeedSummary> out;
  for (std::size_t i = 0; i + seeds.size() <= outcomes.size(); i += seeds.size()) {
    std::vector<Json> summaries;
    for (std::size_t k = 0; k < seeds.size(); ++k) summaries.push_back(outcomes[i + k].summary);
    out.push_back(cli::aggregate_seeds(seeds, summaries));
  }
  return out;
}

// One warning on stderr per unpriced pool of the runs: their cost figures leave it out.
void warn_unpriced(const std::vector<cli::RunOutcome>& outcomes) {
  std::vector<std::string> pools;  // every run's, once each: one warning for them all
  for (const cli::RunOutcome& o : outcomes)
    for (const Json& pool : o.summary.value("unpriced_pools", Json::array()))
      if (std::find(pools.begin(), pools.end(), pool.get<std::string>()) == pools.end()) pools.push_back(pool.get<std::string>());
  if (pools.empty()) return;
  const bool one = pools.size() == 1;
  std::cerr << fmt::format("gpusim: warning: pool{} {} {} unpriced: no cost figure counts {} (give {} price_per_gpu_hour_usd or "
                           "price_per_node_hour_usd)\n",
                           one ? "" : "s", fmt::join(pools, ", "), one ? "is" : "are", one ? "it" : "them",
                           one ? "the pool" : "each");
}

std::vector<cli::Breakdown> parse_breakdowns(const std::vector<std::string>& names) {
  std::vector<cli::Breakdown> out;
  for (const auto& n : names) {
    const auto b = parse_enum<cli::Breakdown>(n);
    if (!b)
      throw InputError({"", std::nullopt, "--by"},
                       fmt::format("unknown breakdown '{}'; expected {}", n, enum_choices<cli::Breakdown>(" or ")));
    if (std::find(out.begin(), out.end(), *b) == out.end()) out.push_back(*b);
  }
  return out;
}

const Json& first_summary(const Json& s) { return s; }
const Json& first_summary(const cli::SeedSummary& s) { return s.first; }

// The --by tables, and the services' whenever the scenario has services: a run's one clear table.
template <class Summary>
std::string breakdowns(const Summary& s, std::vector<cli::Breakdown> by) {
  if (first_summary(s).contains("services") && std::find(by.begin(), by.end(), cli::Breakdown::service) == by.end())
    by.push_back(cli::Breakdown::service);
  std::string out;
  for (cli::Breakdown b : by) {  // two appends: "\n" + a temporary trips GCC 12's -Wrestrict (a false positive)
    out += '\n';
    out += cli::breakdown_table(s, b);
  }
  return out;
}

// The policy a run uses and where its name came from (for messages): --policy, else the scenario's.
std::pair<std::string, SourceLocation> run_policy(const Scenario& s, const std::optional<std::string>& flag) {
  if (flag) return {*flag, {"--policy", std::nullopt, ""}};
  return {s.policy, s.policy_where};
}

// gpusim run --seeds: the scenario once per seed, one table of means and confidence intervals.
int cmd_run_seeds(const Common& c, const RunFlags& flags, const std::vector<uint64_t>& seeds) {
  if (flags.out)
    throw InputError({"", std::nullopt, "--out"}, "writes one run's files; with --seeds, run a seed at a time (--set seed=N)");
  if (!flags.outputs.empty())
    throw InputError({"", std::nullopt, "--" + flags.outputs.front()}, "writes one run's files; not with --seeds");
  if (flags.metrics_file) throw InputError({"", std::nullopt, "--metrics"}, "writes one run's series; not with --seeds");
  if (flags.report)
    throw InputError({"", std::nullopt, "--report"}, "reports one run; with --seeds, run a seed at a time (--set seed=N)");
  const auto by = parse_breakdowns(flags.by);
  cli::Progress progress(file_stem(c.scenario));
  progress.phase(fmt::format("loading {} x {} seeds", c.scenario, seeds.size()));
  std::vector<cli::RunSpec> specs;
  for (uint64_t seed : seeds) {
    std::vector<std::string> sets = c.sets;
    sets.push_back(fmt::format("seed={}", seed));
    Scenario s = load(c, sets);
    auto [name, where] = run_policy(s, flags.policy);
    specs.push_back({name, std::move(s), name, where, flags.audit});
  }
  const auto t0 = Clock::now();
  const auto outcomes = cli::run_all(specs, cli::resolve_workers(flags.jobs), &progress);
  progress.finish();
  warn_unpriced(outcomes);
  const cli::SeedSummary summary = by_seed(outcomes, seeds).front();
  if (flags.json) std::cout << summary.json().dump(2) << '\n';
  else std::cout << cli::run_table(summary) << breakdowns(summary, by);
  std::cerr << fmt::format("simulated {} seeds in {:.3f} s\n", seeds.size(),
                           std::chrono::duration<double>(Clock::now() - t0).count());
  return 0;
}

}  // namespace

// The scenario (as its --variant makes it) with `sets` applied after the variant's own.
Scenario load(const Common& c, const std::vector<std::string>& sets) {
  return c.variant ? load_variant(c.scenario, c.options(sets), *c.variant, {"", std::nullopt, "--variant"})
                   : load_scenario(c.scenario, c.options(sets));
}
Scenario load(const Common& c) { return load(c, c.sets); }

std::string file_stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// --seeds shared by run, compare and sweep: parsed (nullopt when not given), refusing a seed set
// another way too.
std::optional<std::vector<uint64_t>> seeds_option(const std::optional<std::string>& text, const std::vector<std::string>& sets) {
  if (!text) return std::nullopt;
  for (const auto& s : sets)
    if (s.starts_with("seed="))
      throw InputError({"", std::nullopt, "--seeds"}, fmt::format("the seed is also set by --set {}; give one of them", s));
  return cli::parse_seeds(*text);
}

// Refuses to overwrite a file (or a symlink) the user has unless --force (checked before any run).
void refuse_overwrite(const std::optional<std::string>& file, const std::string& flag, bool force) {
  if (file) check_output_file(*file, flag, force);
}

int cmd_run(const Common& c, const RunFlags& flags) {
  if (const auto seeds = seeds_option(flags.seeds, c.sets)) return cmd_run_seeds(c, flags, *seeds);
  const auto& [policy, out, seeds_text, report, force, json, audit, jobs, asked, by_names, metrics_file, metrics_start] = flags;
  const auto by = parse_breakdowns(by_names);
  // --metrics-start is the scenario's outputs.metrics_start, so scenario.yaml records it.
  Common common = c;
  if (metrics_start) {
    if (!parse_utc_date(*metrics_start))
      throw InputError({"", std::nullopt, "--metrics-start"},
                       fmt::format("expected {}, got '{}'", kUtcDateExpected, *metrics_start));
    common.sets.push_back("outputs.metrics_start=" + *metrics_start);
  }
  // Shown from the start: a million-job scenario loads for seconds before its run begins.
  cli::Progress progress("");
  progress.phase(fmt::format("loading {}", c.scenario));
  const Scenario s = load(common);
  const auto [name, where] = run_policy(s, policy);
  auto scheduler = Registry::global().make(name, policy_context(s), where);
  if (out) RunOutputs::check_target(*out, force);  // fail before running, not after
  refuse_overwrite(metrics_file, "--metrics", force);
  refuse_overwrite(report, "--report", force);
  if (!asked.empty() && !out)
    throw InputError({"", std::nullopt, "--" + asked.front()}, "writes a file into the run directory; give --out DIR too");
  std::vector<std::string> requested = s.outputs;
  requested.insert(requested.end(), asked.begin(), asked.end());
  if (report)  // what the report draws beyond the default files
    for (std::string& o : cli::report_outputs(s)) requested.push_back(std::move(o));
  const RunOutputs outputs(requested);
  std::vector<Observer*> observers = out || report ? outputs.observers() : std::vector<Observer*>{};
  // --metrics FILE: the metrics writer on its own, into FILE.
  const std::unique_ptr<OutputWriter> metrics = metrics_file ? make_output_writer(*find_output("metrics")) : nullptr;
  if (metrics) observers.push_back(metrics.get());
  // Timed for stderr only, never written into the outputs.
  const auto t0 = Clock::now();
  progress.phase(fmt::format("{} {}: starting", s.name, scheduler->name()));
  const RunResult r = simulate(s, *scheduler,
                               {progress.fraction_callback(fmt::format("{} {}", s.name, scheduler->name())), observers, audit});
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  progress.phase("summarizing");
  const Json summary = summarize(s, r);
  if (out) {
    progress.phase(fmt::format("writing {}", *out));
    outputs.write(*out, force, s, r, summary);
  }
  if (metrics) {
    progress.phase(fmt::format("writing {}", *metrics_file));
    write_output_file(*metrics_file, [&](std::ostream& text) { metrics->write(text, s, r, summary); });
  }
  if (report) {
    progress.phase(fmt::format("writing {}", *report));
    write_output_file(*report, cli::html_report(cli::run_files(outputs, s, r, summary), out ? *out : "run"));
  }
  progress.finish();
  warn_unpriced({{summary, wall, {}}});
  if (json) {
    std::cout << summary.dump(2) << '\n';
  } else {
    std::cout << cli::run_table(summary) << breakdowns(summary, by);
    std::cout << (out ? fmt::format("\n  wrote {}/{}\n", *out, outputs.files())
                      : fmt::format("\n  (add --out DIR to write {})\n", outputs.files()));
    if (metrics_file) std::cout << fmt::format("  wrote {}\n", *metrics_file);
    if (report) std::cout << fmt::format("  wrote {}\n", *report);
  }
  std::cerr << fmt::format("simulated {} events in {:.3f} s\n", r.events, wall);
  return 0;
}

// gpusim compare: each variant (or those --variant names) under every policy, then each seed; one table.
int cmd_compare(const Common& c, const CompareFlags& flags) {
  const auto seeds = seeds_option(flags.seeds, c.sets);
  const auto by = parse_breakdowns(flags.by);
  if (flags.report && seeds) throw InputError({"", std::nullopt, "--report"}, "reports one run per column; not with --seeds");
  refuse_overwrite(flags.report, "--report", flags.force);
  cli::Progress progress(file_stem(c.scenario));
  progress.phase(fmt::format("loading {}", c.scenario));
  const cli::ComparePlan plan = cli::compare_plan(
      c.scenario, c.options(c.sets),
      {flags.policies, flags.variants, seeds.value_or(std::vector<uint64_t>{}), flags.report.has_value()});
  const auto outcomes = cli::run_all(plan.specs, cli::resolve_workers(flags.jobs), &progress);
  progress.finish();
  warn_unpriced(outcomes);
  if (seeds) {
    const auto setups = by_seed(outcomes, *seeds);
    std::vector<double> seconds(setups.size(), 0.0);
    for (std::size_t i = 0; i < outcomes.size(); ++i) seconds[i / seeds->size()] += outcomes[i].seconds;
    for (std::size_t i = 0; i < setups.size(); ++i)
      std::cerr << fmt::format("{}: {:.3f} s for {} seeds\n", setups[i].first["label"].get<std::string>(), seconds[i],
                               seeds->size());
    if (flags.json) {
      Json out = Json::array();
      for (const auto& s : setups) out.push_back(s.json());
      std::cout << out.dump(2) << '\n';
    } else {
      std::cout << cli::compare_table(setups);
      for (const auto& s : setups)
        if (!by.empty()) std::cout << fmt::format("\n{}:\n", s.first["label"].get<std::string>()) << breakdowns(s, by);
    }
    return 0;
  }
  std::vector<Json> summaries;
  for (const auto& o : outcomes) {
    std::cerr << fmt::format("{}: {:.3f} s\n", o.summary["label"].get<std::string>(), o.seconds);
    summaries.push_back(o.summary);
  }
  if (flags.report) {
    std::vector<std::pair<std::string, cli::RunFiles>> runs;
    runs.reserve(outcomes.size());
    for (const auto& o : outcomes) runs.emplace_back(o.summary["label"].get<std::string>(), o.files);
    write_output_file(*flags.report,
                      cli::html_compare_report(runs, fmt::format("gpusim compare: {}", plan.specs.front().scenario.name)));
    std::cerr << fmt::format("wrote {}\n", *flags.report);
  }
  if (flags.json) std::cout << Json(summaries).dump(2) << '\n';
  else {
    std::cout << cli::compare_table(summaries);
    for (const auto& s : summaries)
      if (!by.empty()) std::cout << fmt::format("\n{}:\n", s["label"].get<std::string>()) << breakdowns(s, by);
  }
  return 0;
}

// gpusim check BASELINE: 0 nothing regressed, 1 a regression, 2 bad input.
int cmd_check(const std::string& file, const Sources& sources, int jobs, bool update, const std::optional<std::string>& junit,
              const std::optional<std::string>& markdown, bool force) {
  refuse_overwrite(junit, "--junit", force);
  refuse_overwrite(markdown, "--markdown", force);
  cli::Progress progress(file_stem(file));
  progress.phase(fmt::format("loading {}", file));
  const cli::Baseline baseline = cli::read_baseline(file);
  const auto specs = cli::baseline_specs(baseline, sources.options({}));
  const auto t0 = Clock::now();
  const auto outcomes = cli::run_all(specs, cli::resolve_workers(jobs), &progress);
  progress.finish();
  const auto report = cli::compare_with_baseline(baseline, outcomes);
  std::cout << cli::check_table(report);
  if (junit) {
    std::ostringstream x;
    cli::write_junit(x, report, outcomes);
    write_output_file(*junit, x.str());
  }
  if (markdown) {
    std::ostringstream m;
    cli::write_markdown(m, report);
    write_output_file(*markdown, m.str());
  }
  std::cerr << fmt::format("checked {} runs in {:.2f} s\n", baseline.runs.size(),
                           std::chrono::duration<double>(Clock::now() - t0).count());
  if (update) {
    std::ostringstream b;
    cli::write_baseline(b, baseline, outcomes);
    // The baseline the user named is rewritten where it lives: through a symlink to it, the link stays.
    std::error_code ec;
    const std::filesystem::path real = std::filesystem::canonical(file, ec);
    write_output_file(ec ? file : real.string(), b.str());
    std::cout << fmt::format("updated {}\n", file);
    return 0;
  }
  return report.regressed() ? 1 : 0;
}

int cmd_sweep(const Common& c, const std::vector<std::string>& grid, const std::vector<std::string>& policies, int jobs,
              const std::optional<std::string>& out, bool force, const std::optional<std::string>& seeds_flag) {
  refuse_overwrite(out, "--out", force);
  const auto seeds = seeds_option(seeds_flag, c.sets);
  std::vector<cli::GridAxis> axes;
  axes.reserve(grid.size());
  for (const auto& g : grid) {
    axes.push_back(cli::parse_grid_axis(g));
    if (seeds && axes.back().path == "seed")
      throw InputError({"", std::nullopt, "--seeds"}, "the seed is also swept by --grid seed=...; give one of them");
  }
  cli::Progress progress(file_stem(c.scenario));
  progress.phase(fmt::format("loading {}", c.scenario));
  const LoadOptions options = c.options(c.sets);
  auto points = cli::sweep_points(c.scenario, options, axes, policies);
  const std::vector<uint64_t> each_seed = seeds ? *seeds : std::vector<uint64_t>{0};
  std::vector<cli::RunSpec> specs;
  for (auto& point : points)
    for (uint64_t seed : each_seed) {
      std::vector<std::string> overrides = point.overrides;
      if (seeds) overrides.push_back(fmt::format("seed={}", seed));
      Scenario s = load_scenario(c.scenario, c.options(overrides));
      if (point.policy.empty()) point.policy = point.columns.back().second = s.policy;
      std::string label;
      for (const auto& [name, value] : point.columns) label += (label.empty() ? "" : " ") + value;
      const SourceLocation where = policies.empty() ? s.policy_where : SourceLocation{"--policies", std::nullopt, point.policy};
      specs.push_back({label, std::move(s), point.policy, where});
    }
  const auto t0 = Clock::now();
  const auto outcomes = cli::run_all(specs, cli::resolve_workers(jobs), &progress);
  progress.finish();
  warn_unpriced(outcomes);
  std::ostringstream csv;
  if (seeds) cli::write_sweep_seeds_csv(csv, points, by_seed(outcomes, *seeds));
  else cli::write_sweep_csv(csv, points, outcomes);
  if (out) write_output_file(*out, csv.str());
  else std::cout << csv.str();
  std::cerr << fmt::format("swept {} runs in {:.2f} s{}\n", specs.size(),
                           std::chrono::duration<double>(Clock::now() - t0).count(),
                           out ? fmt::format("; wrote {}", *out) : std::string());
  return 0;
}

}  // namespace gpusim::cli
