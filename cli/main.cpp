// gpusim: the command-line front end. Exit codes: 0 success, 1 a run failed (e.g. a policy made an
// invalid decision), 2 bad input (scenario, trace, flag) with a message naming the file and field.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#include "gpusim/core/error.hpp"
#include "gpusim/policies/registry.hpp"
#include "gpusim/sim/engine.hpp"
#include "gpusim/sim/report.hpp"
#include "gpusim/sim/scenario.hpp"
#include "table.hpp"

namespace {

using namespace gpusim;
using Clock = std::chrono::steady_clock;

// A progress bar on stderr, only when stderr is a terminal and the run has lasted half a second.
class Progress {
 public:
  explicit Progress(std::string label) : label_(std::move(label)), enabled_(isatty(STDERR_FILENO) == 1) {}
  ~Progress() {
    if (drawn_) std::fputs("\r\033[K", stderr);
  }
  std::function<void(double)> callback() {
    if (!enabled_) return {};
    return [this](double fraction) {
      const auto now = Clock::now();
      if (now - start_ < std::chrono::milliseconds(500) || now - last_ < std::chrono::milliseconds(100)) return;
      last_ = now;
      drawn_ = true;
      const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 30);
      std::fprintf(stderr, "\r%s [%s%s] %3d%%", label_.c_str(), std::string(static_cast<std::size_t>(filled), '#').c_str(),
                   std::string(static_cast<std::size_t>(30 - filled), ' ').c_str(), static_cast<int>(fraction * 100));
      std::fflush(stderr);
    };
  }

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_ = Clock::now(), last_{};
};

struct Common {
  std::string scenario;
  std::vector<std::string> sets;
  std::optional<std::string> data;
};

void add_common(CLI::App* cmd, Common& c) {
  cmd->add_option("scenario", c.scenario, "Scenario file (YAML or JSON)")->required();
  cmd->add_option("--set", c.sets, "Override a scenario field, e.g. --set cluster.pools[0].count=8 (repeatable)");
  cmd->add_option("--data", c.data, "Data directory for trace files (default: $GPUSIM_DATA, else data/ in the repo)");
}

Scenario load(const Common& c) { return load_scenario(c.scenario, {c.sets, c.data}); }

struct TimedRun {
  RunResult result;
  double seconds;
};

// Simulates with a progress bar, timing the run (the time goes to stderr, never into the outputs).
TimedRun run_timed(const Scenario& s, Scheduler& scheduler) {
  const auto t0 = Clock::now();
  Progress progress(fmt::format("{} {}", s.name, scheduler.name()));
  RunResult r = simulate(s, scheduler, {progress.callback()});
  return {std::move(r), std::chrono::duration<double>(Clock::now() - t0).count()};
}

int cmd_run(const Common& c, const std::optional<std::string>& policy, const std::optional<std::string>& out, bool force,
            bool json) {
  const Scenario s = load(c);
  const std::string name = policy.value_or(s.policy);
  const SourceLocation where = policy ? SourceLocation{"--policy", std::nullopt, ""} : s.policy_where;
  auto scheduler = Registry::global().make(name, {s.seed}, where);
  if (out) {  // fail before running, not after
    std::error_code ec;
    if (std::filesystem::exists(*out, ec) && !std::filesystem::is_empty(*out, ec) && !force)
      throw InputError({*out, std::nullopt, "--out"}, "directory exists and is not empty; pass --force to overwrite its files");
  }
  const auto [r, wall] = run_timed(s, *scheduler);
  const Json summary = summarize(s, r);
  if (out) write_run_directory(*out, force, s, r, summary);
  if (json) {
    std::cout << summary.dump(2) << '\n';
  } else {
    std::cout << cli::run_table(summary);
    std::cout << (out ? fmt::format("\n  wrote {}/summary.json, jobs.csv, timeseries.csv, scenario.yaml\n", *out)
                      : std::string("\n  (add --out DIR to write summary.json, jobs.csv and timeseries.csv)\n"));
  }
  std::cerr << fmt::format("simulated {} events in {:.3f} s\n", r.events, wall);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpusim: a deterministic discrete-event simulator of GPU clusters.\n"
               "Replays workloads on a GPU fleet under a scheduling policy and reports utilization, cost\n"
               "and job latency. Same scenario and seed, byte-identical results."};
  app.set_version_flag("--version", std::string("gpusim ") + kVersion);
  app.require_subcommand(1);
  app.footer("Exit codes: 0 ok, 1 a run failed, 2 bad input.\nExample: gpusim run scenarios/quickstart.yaml");

  Common run_c, cmp_c, val_c;
  std::optional<std::string> run_policy, run_out, cmp_out;
  bool run_force = false, run_json = false, cmp_json = false;
  std::vector<std::string> cmp_policies;

  auto* run = app.add_subcommand("run", "Run one scenario and print its result table");
  add_common(run, run_c);
  run->add_option("--policy", run_policy, "Policy QUEUE+PLACEMENT (default: the scenario's)");
  run->add_option("--out", run_out, "Write summary.json, jobs.csv, timeseries.csv, scenario.yaml into this directory");
  run->add_flag("--force", run_force, "Overwrite files in a non-empty --out directory");
  run->add_flag("--json", run_json, "Print summary.json to stdout instead of the table");

  auto* cmp = app.add_subcommand("compare", "Run one scenario under several policies; one table, best values marked");
  add_common(cmp, cmp_c);
  cmp->add_option("--policies", cmp_policies, "Comma-separated policies, e.g. fifo+first-fit,fifo+best-fit")
      ->required()
      ->delimiter(',');
  cmp->add_flag("--json", cmp_json, "Print the summaries as a JSON array");

  auto* val = app.add_subcommand("validate", "Check a scenario (fields, traces, policy) without running it");
  add_common(val, val_c);

  auto* pol = app.add_subcommand("policies", "List the queue orders and placements that compose a policy");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }

  try {
    if (run->parsed()) return cmd_run(run_c, run_policy, run_out, run_force, run_json);
    if (cmp->parsed()) {
      const Scenario s = load(cmp_c);
      std::vector<Json> summaries;
      for (const auto& p : cmp_policies) {
        auto scheduler = Registry::global().make(p, {s.seed}, {"--policies", std::nullopt, p});
        const auto [r, seconds] = run_timed(s, *scheduler);
        summaries.push_back(summarize(s, r));
        std::cerr << fmt::format("{}: {:.3f} s\n", p, seconds);
      }
      if (cmp_json) std::cout << Json(summaries).dump(2) << '\n';
      else std::cout << cli::compare_table(summaries);
      return 0;
    }
    if (val->parsed()) {
      const Scenario s = load(val_c);
      Registry::global().make(s.policy, {s.seed}, s.policy_where);
      validate_scenario(s);
      std::size_t nodes = 0, gpus = 0;
      for (const auto& p : s.pools) {
        nodes += p.nodes.size();
        for (const auto& n : p.nodes) gpus += static_cast<std::size_t>(n.gpus);
      }
      std::cout << fmt::format("{}: ok: scenario '{}', {} pools, {} nodes, {} GPUs, {} jobs, policy {}\n", s.file, s.name,
                               s.pools.size(), nodes, gpus, s.jobs.jobs.size(), s.policy);
      return 0;
    }
    if (pol->parsed()) {
      const auto& r = Registry::global();
      std::cout << "A policy is QUEUE+PLACEMENT, e.g. fifo+best-fit.\n\nQueue orders:\n";
      for (const auto& e : r.queue_orders()) std::cout << fmt::format("  {:<12} {}\n", e.name, e.description);
      std::cout << "\nPlacements:\n";
      for (const auto& e : r.placements()) std::cout << fmt::format("  {:<12} {}\n", e.name, e.description);
      return 0;
    }
  } catch (const InputError& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 2;
  } catch (const PolicyError& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
