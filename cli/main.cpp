// gpusim: the command-line front end. Exit codes: 0 success, 1 a run failed (e.g. a policy made an
// invalid decision) or `check` found a regression, 2 bad input (scenario, trace, flag) with a message
// naming the file and field.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/ranges.h>

#include "catalog.hpp"
#include "check.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/hardware/mig.hpp"
#include "gpusim/policies/registry.hpp"
#include "gpusim/sim/audit.hpp"
#include "gpusim/sim/engine.hpp"
#include "gpusim/sim/open_metrics.hpp"
#include "gpusim/sim/outputs.hpp"
#include "gpusim/sim/report.hpp"
#include "gpusim/sim/scenario.hpp"
#include "k8s_import.hpp"
#include "packing.hpp"
#include "progress.hpp"
#include "runs.hpp"
#include "seeds.hpp"
#include "sweep.hpp"
#include "table.hpp"

namespace {

using namespace gpusim;
using Clock = std::chrono::steady_clock;

// --data and --max-memory, which every command that loads scenarios takes.
struct Sources {
  std::optional<std::string> data;
  std::optional<std::string> max_memory;
  // How to load a scenario with these --set overrides; a bad --max-memory fails here, naming the flag.
  LoadOptions options(std::vector<std::string> sets) const {
    std::optional<MemoryLimit> limit;
    if (max_memory) limit = MemoryLimit::parse(*max_memory, {"", std::nullopt, "--max-memory"});
    return {std::move(sets), data, {}, std::move(limit)};
  }
};

// A --data that names no directory is refused even when no trace needs it: a mistyped path would
// otherwise go unnoticed until the day a trace is looked up there.
void add_sources(CLI::App* cmd, Sources& s) {
  cmd->add_option("--data", s.data, "Data directory for trace files (default: $GPUSIM_DATA, else data/ in the repo)")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--max-memory", s.max_memory,
                  "Refuse a run whose estimated memory is over this size, e.g. 4GiB (default: half of physical memory)");
}

struct Common : Sources {
  std::string scenario;
  std::vector<std::string> sets;
  std::optional<std::string> variant;  // run --variant: the scenario as that variant makes it
};

void add_common(CLI::App* cmd, Common& c) {
  cmd->add_option("scenario", c.scenario, "Scenario file (YAML or JSON)")->required();
  cmd->add_option("--set", c.sets, "Override a scenario field, e.g. --set cluster.pools[0].count=8 (repeatable)");
  add_sources(cmd, c);
}

// The scenario (as its --variant makes it) with `sets` applied after the variant's own.
Scenario load(const Common& c, const std::vector<std::string>& sets) {
  return c.variant ? load_variant(c.scenario, c.options(sets), *c.variant, {"", std::nullopt, "--variant"})
                   : load_scenario(c.scenario, c.options(sets));
}
Scenario load(const Common& c) { return load(c, c.sets); }

std::string file_stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// --jobs: 0 (one worker per core) or a worker count; named with its real range when out of it.
const CLI::Validator kJobsRange(
    [](std::string& text) {
      int v = 0;
      if (CLI::detail::lexical_cast(text, v) && v >= 0) return std::string();
      return fmt::format("expected 0 (one worker per core) or a number of workers from 1 to {}, got {}", INT_MAX, text);
    },
    "0..N", "jobs");

// --seeds shared by run, compare and sweep: parsed (nullopt when not given), refusing a seed set
// another way too.
std::optional<std::vector<uint64_t>> seeds_option(const std::optional<std::string>& text, const std::vector<std::string>& sets) {
  if (!text) return std::nullopt;
  for (const auto& s : sets)
    if (s.starts_with("seed="))
      throw InputError({"", std::nullopt, "--seeds"}, fmt::format("the seed is also set by --set {}; give one of them", s));
  return cli::parse_seeds(*text);
}

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
  for (cli::Breakdown b : by) out += "\n" + cli::breakdown_table(s, b);
  return out;
}

// The policy a run uses and where its name came from (for messages): --policy, else the scenario's.
std::pair<std::string, SourceLocation> run_policy(const Scenario& s, const std::optional<std::string>& flag) {
  if (flag) return {*flag, {"--policy", std::nullopt, ""}};
  return {s.policy, s.policy_where};
}

struct RunFlags {
  std::optional<std::string> policy, out, seeds, report;
  bool force = false, json = false, audit = false;
  int jobs = 0;
  std::vector<std::string> outputs;                        // on-request outputs asked by flag (--trace)
  std::vector<std::string> by;                             // --by breakdowns
  std::optional<std::string> metrics_file, metrics_start;  // --metrics FILE, --metrics-start DATE
};

// Refuses to overwrite a file (or a symlink) the user has unless --force (checked before any run).
void refuse_overwrite(const std::optional<std::string>& file, const std::string& flag, bool force) {
  if (file) check_output_file(*file, flag, force);
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
  const std::unique_ptr<OutputWriter> metrics = metrics_file ? find_output("metrics")->make() : nullptr;
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
                      : fmt::format("\n  (add --out DIR to write {})\n", default_output_files()));
    if (metrics_file) std::cout << fmt::format("  wrote {}\n", *metrics_file);
    if (report) std::cout << fmt::format("  wrote {}\n", *report);
  }
  std::cerr << fmt::format("simulated {} events in {:.3f} s\n", r.events, wall);
  return 0;
}

Json layout_json(const MigTable& t, const MigLayoutOption& o) {
  Json instances = Json::array();
  for (const MigInstance& in : o.placement) instances.push_back({{"profile", t.profiles[in.profile].name}, {"start", in.start}});
  return {{"layout", mig_describe(t, o.counts)}, {"maximal", o.maximal}, {"instances", std::move(instances)}};
}

// gpusim mig MODEL [--layouts [--maximal]] [--json]
int cmd_mig(const std::string& name, bool layouts, bool maximal_only, bool json) {
  const GpuModel& g = require_mig_model(Catalog::builtin(), name);
  const MigTable& t = *g.mig;
  if (!layouts) {
    if (json) {
      Json profiles = Json::array();
      for (const MigProfile& p : t.profiles)
        profiles.push_back({{"name", p.name},         {"profile_id", p.profile_id ? Json(*p.profile_id) : Json(nullptr)},
                            {"memory_mib", p.memory_mib}, {"sms", p.sms},
                            {"compute_slices", p.compute_slices}, {"memory_slices", p.memory_slices},
                            {"starts", p.starts},     {"max_count", p.max_count},
                            {"media_extensions", p.media_extensions}});
      std::cout << Json{{"gpu", g.name}, {"memory_slices", t.memory_slices}, {"compute_slices", t.compute_slices},
                        {"profiles", std::move(profiles)}}
                       .dump(2)
                << '\n';
      return 0;
    }
    std::cout << fmt::format("{}: {} memory slices, {} compute slices, {} SMs, {} MiB ({})\n\n", g.name, t.memory_slices,
                             t.compute_slices, g.sms, g.memory_mib, g.source);
    std::cout << fmt::format("  {:<12} {:>3} {:>10} {:>5} {:>8} {:>8} {:>14} {:>5}\n", "profile", "id", "memory MiB", "SMs",
                             "compute", "memory", "starts", "max");
    for (const MigProfile& p : t.profiles)
      std::cout << fmt::format("  {:<12} {:>3} {:>10} {:>5} {:>8} {:>8} {:>14} {:>5}\n", p.name,
                               p.profile_id ? fmt::format("{}", *p.profile_id) : "-", p.memory_mib, p.sms, p.compute_slices,
                               p.memory_slices, fmt::format("{{{}}}", fmt::join(p.starts, ",")), p.max_count);
    std::cout << "\n  compute/memory: slices one instance takes; starts: first memory slice it may occupy.\n"
                 "  At most one +me instance per GPU"
              << (t.allows_4g_with_3g ? "" : "; 4g and 3g cannot be combined (pre-R510)") << ".\n";
    return 0;
  }
  const auto all = mig_enumerate(t);
  std::size_t maximal = 0;
  for (const auto& o : all) maximal += o.maximal;
  if (json) {
    Json out = Json::array();
    for (const auto& o : all)
      if (!maximal_only || o.maximal) out.push_back(layout_json(t, o));
    std::cout << Json{{"gpu", g.name}, {"layouts", all.size()}, {"maximal", maximal}, {"items", std::move(out)}}.dump(2) << '\n';
    return 0;
  }
  std::cout << fmt::format("{}: {} valid layouts, {} of them maximal (no further instance fits){}\n\n", g.name, all.size(),
                           maximal, maximal_only ? "; showing the maximal ones" : "; * = maximal");
  for (const auto& o : all) {
    if (maximal_only && !o.maximal) continue;
    std::string where;
    for (const MigInstance& in : o.placement) where += fmt::format(" {}@{}", t.profiles[in.profile].name, in.start);
    std::cout << fmt::format("  {} {:<44} {}\n", o.maximal ? '*' : ' ', mig_describe(t, o.counts), where);
  }
  return 0;
}

// gpusim mig validate FILE --node TEMPLATE: every config of a mig-parted file against a node.
int cmd_mig_validate(const std::string& file, const std::string& node) {
  const NodeTemplate* t = Catalog::builtin().find_node(node);
  if (!t) throw InputError({"", std::nullopt, "--node"}, fmt::format("unknown node template '{}'", node));
  const GpuModel& g = *Catalog::builtin().find_gpu(t->gpu);
  const auto report = mig_check_file(ConfigNode::load_file(file), g, t->gpus);
  for (const auto& cfg : report.valid) {
    std::vector<std::string> gpus;
    for (std::size_t i = 0; i < cfg.per_gpu.size(); ++i)
      gpus.push_back(cfg.per_gpu[i] ? fmt::format("{}: {}", i, g.mig ? mig_describe(*g.mig, mig_counts(*g.mig, *cfg.per_gpu[i])) : "")
                                    : fmt::format("{}: MIG off", i));
    std::cout << fmt::format("ok   {}: {}\n", cfg.name, fmt::join(gpus, "; "));
  }
  for (const auto& p : report.problems) std::cout << fmt::format("FAIL {}\n", p);
  std::cout << fmt::format("{}: {} of {} configs fit node {} ({} x {})\n", file, report.valid.size(),
                           report.valid.size() + report.problems.size(), t->name, t->gpus, g.name);
  return report.problems.empty() ? 0 : 2;
}

// gpusim topo TEMPLATE: the GPU link matrix as `nvidia-smi topo -m` prints it (same codes and
// legend), then the bandwidths and the network. Without a template: the templates it knows.
int cmd_topo(const std::string& name, const std::optional<std::string>& scenario) {
  Catalog catalog = Catalog::builtin();
  if (scenario) {
    const Scenario s = load_scenario(*scenario, {});
    catalog = *s.catalog;
  }
  if (name.empty()) {
    std::cout << "Node templates (gpusim topo NAME prints one's GPU link matrix):\n\n" << cli::node_templates_text(catalog);
    return 0;
  }
  const NodeTemplate* t = catalog.find_node(name);
  if (!t) {
    std::vector<std::string> known;
    for (const auto& n : catalog.nodes()) known.push_back(n.name);
    throw InputError({"", std::nullopt, "NODE_TEMPLATE"},
                     fmt::format("unknown node template '{}'; known: {}", name, fmt::join(known, ", ")));
  }
  const NodeTopology& topo = t->topology;
  const int n = topo.gpus();
  const int64_t cores = t->cpu_milli / 1000;
  std::string out;
  for (int g = 0; g < n; ++g) out += fmt::format("\tGPU{}", g);
  out += "\tCPU Affinity\tNUMA Affinity\n";
  for (int a = 0; a < n; ++a) {
    out += fmt::format("GPU{}", a);
    for (int b = 0; b < n; ++b) out += a == b ? "\t X " : fmt::format("\t{}", link_code(topo.link(a, b)));
    // Cores split evenly over the NUMA nodes, in order.
    const int64_t per = cores / topo.numa_nodes(), numa = topo.numa_of(a);
    out += fmt::format("\t{}-{}\t{}\n", numa * per, (numa + 1) * per - 1, numa);
  }
  out += "\nLegend:\n\n"
         "  X    = Self\n"
         "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
         "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
         "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
         "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
         "  PIX  = Connection traversing at most a single PCIe bridge\n"
         "  NV#  = Connection traversing a bonded set of # NVLinks\n";
  out += "\nBus bandwidth per direction (GB/s), as collectives see it:\n";
  for (int g = 0; g < n; ++g) out += fmt::format("\tGPU{}", g);
  out += '\n';
  for (int a = 0; a < n; ++a) {
    out += fmt::format("GPU{}", a);
    for (int b = 0; b < n; ++b) out += a == b ? "\t -" : fmt::format("\t{:g}", topo.link(a, b).gb_per_s);
    out += '\n';
  }
  out += fmt::format("\nNode {}: {} x {}; {}\n", t->name, n, t->gpu, topo.source());
  if (t->network)
    out += fmt::format("Network: {} x {:g} Gb/s NICs = {:g} GB/s per direction, shared by the node's multi-node jobs\n",
                       t->network->nics, t->network->gbps_per_nic, t->network->gb_per_s());
  else
    out += "Network: not described (give the pool a network: to run jobs across nodes with it)\n";
  std::cout << out;
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
  std::cerr << fmt::format("swept {} runs in {:.2f} s{}\n", specs.size(), std::chrono::duration<double>(Clock::now() - t0).count(),
                           out ? fmt::format("; wrote {}", *out) : std::string());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // glibc raises its mmap threshold to the largest block freed so far (up to 32 MB); blocks below it
  // then come from the heap and leave holes there when freed: synthetic-1m peaked 8 MB higher. A fixed
  // threshold keeps large blocks mapped, and returned when freed (issue 22).
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
  CLI::App app{"gpusim: a deterministic discrete-event simulator of GPU clusters.\n"
               "Replays workloads on a GPU fleet under a scheduling policy and reports utilization, cost\n"
               "and job latency. Same scenario and seed, byte-identical results."};
  app.set_version_flag("--version", std::string("gpusim ") + kVersion);
  app.require_subcommand(1);
  app.footer("Exit codes: 0 ok, 1 a run failed or (check) a figure regressed, 2 bad input.\nExample: gpusim run scenarios/quickstart.yaml");

  Common run_c, cmp_c, val_c;
  RunFlags run_f;
  std::optional<std::string> cmp_out;
  bool cmp_json = false;
  std::vector<std::string> cmp_policies;

  auto* run = app.add_subcommand("run", "Run one scenario and print its result table");
  add_common(run, run_c);
  run->add_option("--policy", run_f.policy, "Policy QUEUE+PLACEMENT (default: the scenario's)");
  run->add_option("--variant", run_c.variant, "Run the scenario as its variant NAME makes it (its set: before --set)");
  run->add_option("--out", run_f.out, fmt::format("Write {} into this directory", default_output_files()));
  // One flag per output written on request (the output table), e.g. --trace.
  for (const OutputSpec& o : output_table())
    if (!o.by_default && o.name != "metrics")
      run->add_flag_callback(
          fmt::format("--{}", o.name), [&run_f, name = std::string(o.name)] { run_f.outputs.push_back(name); },
          fmt::format("Also write {} into the --out directory: {}", o.file, o.description));
  // --metrics alone is an output of the --out directory as --trace is; with a value, a file of its own.
  auto* run_metrics = run->add_option("--metrics", run_f.metrics_file,
                                      fmt::format("Also write {}: {}. Alone, into the --out directory; --metrics=FILE (or "
                                                  "--metrics FILE after the scenario) writes FILE, no --out needed",
                                                  find_output("metrics")->file, find_output("metrics")->description))
                          ->expected(0, 1);
  run->add_option("--metrics-start", run_f.metrics_start,
                  fmt::format("The UTC date simulated time 0 is in metrics.om, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (default: the "
                              "scenario's outputs.metrics_start, else {})",
                              kDefaultMetricsStart));
  run->add_option("--report", run_f.report, "Also write the run's HTML report (self-contained, plots inline) to this file");
  run->add_flag("--force", run_f.force,
                "Replace a non-empty --out directory of an earlier run (its files are removed once the new run is written), "
                "and an existing --report file");
  auto* run_json = run->add_flag("--json", run_f.json, "Print summary.json to stdout instead of the table");
  run->add_flag("--audit", run_f.audit, "Check the run's invariants after every event; stop at the first broken one (slower)");
  auto* run_seeds = run->add_option(
      "--seeds", run_f.seeds,
      "Run once per seed (FIRST-LAST, a list, or both: 1-10, 1,3,5, 1-3,7); print each figure's mean and 95% CI");
  // One run has nothing to run in parallel: --jobs without --seeds is refused rather than ignored.
  run->add_option("--jobs,-j", run_f.jobs, "With --seeds: runs in parallel (default 0: one per core)")
      ->check(kJobsRange)
      ->needs(run_seeds);
  // The JSON already holds every breakdown: --by with --json is refused rather than ignored.
  run->add_option(
         "--by", run_f.by,
         fmt::format("Also print breakdown tables: {} (comma-separated or repeated)", enum_choices<cli::Breakdown>(", ")))
      ->delimiter(',')
      ->excludes(run_json);

  auto* cmp = app.add_subcommand("compare",
                                 "Run one scenario under several policies, or each of its variants; one table, best values marked");
  add_common(cmp, cmp_c);
  cmp->add_option("--policies", cmp_policies,
                  "Comma-separated policies, e.g. fifo+first-fit,fifo+best-fit (default: the scenario's, once per variant)")
      ->delimiter(',');
  std::vector<std::string> cmp_variants;
  cmp->add_option("--variant", cmp_variants, "Only these of the scenario's variants (comma-separated or repeated)")
      ->delimiter(',');
  auto* cmp_json_flag = cmp->add_flag("--json", cmp_json, "Print the summaries as a JSON array");
  std::optional<std::string> cmp_seeds;
  std::vector<std::string> cmp_by;
  cmp->add_option("--seeds", cmp_seeds, "Run every column once per seed (1-10, 1,3,5, 1-3,7); mean and 95% CI per figure");
  cmp->add_option("--by", cmp_by,
                  fmt::format("Also print each column's breakdown tables: {}", enum_choices<cli::Breakdown>(", ")))
      ->delimiter(',')
      ->excludes(cmp_json_flag);

  std::optional<std::string> cmp_report;
  bool cmp_force = false;
  cmp->add_option("--report", cmp_report, "Also write an HTML report of the runs side by side to this file");
  cmp->add_flag("--force", cmp_force, "Overwrite an existing --report file (a symlink is replaced, not written through)");
  int cmp_jobs = 1;
  cmp->add_option("--jobs,-j", cmp_jobs, "Runs in parallel (0: one per core); the table is the same whatever the number")
      ->check(kJobsRange);

  std::string chk_baseline;
  Sources chk_sources;
  std::optional<std::string> chk_junit, chk_markdown;
  bool chk_update = false, chk_force = false;
  int chk_jobs = 0;
  auto* chk = app.add_subcommand("check",
                                 "Re-run every scenario x policy of a baseline file; exit 1 if a metric got worse than its tolerance");
  chk->add_option("baseline", chk_baseline, "Baseline file, e.g. results/baseline.yaml")->required();
  add_sources(chk, chk_sources);
  chk->add_option("--jobs,-j", chk_jobs, "Runs in parallel (default 0: one per core)")->check(kJobsRange);
  chk->add_flag("--update", chk_update, "Rewrite the baseline with the figures of this run (after review)");
  chk->add_option("--junit", chk_junit, "Also write JUnit XML (one test case per run) to this file");
  chk->add_option("--markdown", chk_markdown, "Also write a Markdown summary (for a CI job page) to this file");
  chk->add_flag("--force", chk_force, "Overwrite existing --junit/--markdown files (a symlink is replaced, not written through)");

  Common swp_c;
  std::vector<std::string> swp_grid, swp_policies;
  std::optional<std::string> swp_out;
  bool swp_force = false;
  int swp_jobs = 0;
  auto* swp = app.add_subcommand("sweep", "Run every combination of --grid values (x variants x policies); one CSV row per run");
  add_common(swp, swp_c);
  swp->add_option("--grid", swp_grid, "PATH=V1,V2,... a scenario field and the values it takes (repeatable)")->required();
  swp->add_option("--policies", swp_policies, "Comma-separated policies (default: the scenario's)")->delimiter(',');
  swp->add_option("--jobs,-j", swp_jobs, "Runs in parallel (default 0: one per core); rows are the same whatever the number")
      ->check(kJobsRange);
  std::optional<std::string> swp_seeds;
  swp->add_option("--seeds", swp_seeds,
                  "Run every point once per seed (1-10, 1,3,5, 1-3,7); columns FIGURE_mean and FIGURE_ci95 (95% CI)");
  swp->add_option("--out", swp_out, "Write the CSV to this file instead of stdout");
  swp->add_flag("--force", swp_force, "Overwrite an existing --out file (a symlink is replaced, not written through)");

  Common pk_c;
  std::vector<std::string> pk_policies{"fifo+random",      "fifo+dot-product", "fifo+gpu-clustering",
                                       "fifo+gpu-packing", "fifo+best-fit",    "fifo+fgd"};
  std::string pk_seeds = "42-51";
  std::optional<std::string> pk_csv, pk_placements;
  bool pk_force = false;
  int pk_jobs = 0;
  auto* pk = app.add_subcommand("packing",
                                "The FGD paper's capacity-packing experiment: allocation and fragmentation as pods arrive, per policy");
  add_common(pk, pk_c);
  pk->add_option("--policies", pk_policies, "Comma-separated policies (default: the paper's six, under fifo)")->delimiter(',');
  pk->add_option("--seeds", pk_seeds, "Seeds of the pod order, FIRST-LAST or a list (default 42-51, as the paper)");
  pk->add_option("--jobs,-j", pk_jobs, "Runs in parallel (default 0: one per core)")->check(kJobsRange);
  pk->add_option("--csv", pk_csv, "Also write every run's checkpoints (each 1% of arrived demand) to this CSV file");
  pk->add_option("--placements", pk_placements,
                 "Write each pod's placement (CSV pod,node,gpus; node empty when it failed) to this file; one policy and seed");
  pk->add_flag("--force", pk_force, "Overwrite existing --csv/--placements files (a symlink is replaced, not written through)");

  std::string rep_dir, rep_out = "report.html";
  bool rep_force = false;
  auto* rep = app.add_subcommand(
      "report", "Write the HTML report of a run directory (gpusim run --out DIR; --occupancy adds the heat map)");
  rep->add_option("run_dir", rep_dir, "Run directory written by gpusim run --out DIR")->required();
  rep->add_option("--out", rep_out, "The HTML file to write (default report.html)");
  rep->add_flag("--force", rep_force, "Overwrite an existing --out file (a symlink is replaced, not written through)");

  auto* val = app.add_subcommand("validate", "Check a scenario (fields, traces, policy) without running it");
  add_common(val, val_c);

  auto* pol = app.add_subcommand("policies", "List the queue orders and placements that compose a policy");

  std::string mig_model, mig_file, mig_node;
  bool mig_layouts = false, mig_maximal = false, mig_json = false;
  auto* mig = app.add_subcommand("mig", "MIG profiles and valid layouts of a GPU model; validate mig-parted files");
  mig->add_option("gpu_model", mig_model, "GPU model, e.g. A100-80GB-SXM");
  mig->add_flag("--layouts", mig_layouts, "Enumerate every valid layout (combination of instances)");
  mig->add_flag("--maximal", mig_maximal, "With --layouts: only layouts to which no further instance can be added");
  mig->add_flag("--json", mig_json, "Print JSON");
  auto* mig_val = mig->add_subcommand("validate", "Check every config of a mig-parted file against a node template");
  mig_val->add_option("file", mig_file, "mig-parted config (version: v1, mig-configs: ...)")->required();
  mig_val->add_option("--node", mig_node, "Node template, e.g. dgx-a100-80gb")->required();

  std::string topo_node;
  std::optional<std::string> topo_scenario;
  auto* topo = app.add_subcommand("topo", "A node template's GPU topology matrix, as nvidia-smi topo -m prints it");
  topo->add_option("node_template", topo_node, "Node template, e.g. dgx-a100-80gb (none: list the templates)");
  topo->add_option("--scenario", topo_scenario, "Also look in this scenario's catalog");

  std::string cat_view = "all";
  cli::CatalogQuery cat_query;
  bool cat_json = false;
  auto* cat = app.add_subcommand("catalog", "What the hardware catalog holds: GPU models, node templates, prices, MIG configs");
  cat->add_option("view", cat_view, fmt::format("What to list: {} (default all)", enum_choices<cli::CatalogView>(", ")))
      ->check(CLI::IsMember(std::vector<std::string>(enum_names<cli::CatalogView>.begin(), enum_names<cli::CatalogView>.end())));
  cat->add_option("--filter", cat_query.filter, "Only entries whose name contains this text (any case), e.g. h100");
  cat->add_option("--gpu", cat_query.gpu,
                  "Only this GPU model (name or alias) and the node templates with it, e.g. H100-80GB-SXM");
  cat->add_flag("--json", cat_json, "Print JSON (every field, with each entry's source)");
  cat->footer("Examples: gpusim catalog nodes; gpusim catalog mig --gpu H100-80GB-SXM; gpusim catalog --filter a100 --json\n"
              "Sources of every value: docs/hardware.md");

  std::string schema_format = "scenario";
  auto* sch = app.add_subcommand("schema", "Print the JSON Schema of scenario files (or baselines), for editors and validators");
  sch->add_option("format", schema_format, "scenario (default) or baseline")->check(CLI::IsMember({"scenario", "baseline"}));

  cli::K8sImportOptions k8s;
  std::string k8s_duration = "1h", k8s_horizon = "24h";
  std::optional<std::string> k8s_out;
  bool k8s_force = false;
  auto* imp = app.add_subcommand("import", "Write a scenario from another tool's files");
  imp->require_subcommand(1);
  auto* imp_k8s = imp->add_subcommand(
      "k8s",
      "Kubernetes objects (Nodes, Pods, Deployments, Jobs, PyTorchJobs, device-plugin and MIG ConfigMaps, PriorityClasses, "
      "PodDisruptionBudgets, ResourceQuotas, Kueue objects, DeviceClasses, ResourceClaimTemplates) or a snapshot");
  imp_k8s->add_option("paths", k8s.paths, "Files (YAML, JSON, multi-document, kind: List) or directories (*.yaml, *.yml, *.json)")
      ->required();
  imp_k8s->add_option("--out", k8s_out, "Write the scenario to this file (default: stdout)");
  imp_k8s->add_flag("--force", k8s_force, "Overwrite an existing --out file");
  imp_k8s->add_option("--name", k8s.name, "The scenario's name (default k8s-import)");
  imp_k8s->add_option("--duration", k8s_duration, "Run time of a pod without a gpusim.io/duration annotation (default 1h)");
  imp_k8s->add_option("--horizon", k8s_horizon, "The run's length when serving replicas run throughout (default 24h)");

  // An unknown first word is a subcommand the user meant, not a missing one: name it and the valid ones.
  if (argc >= 2 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      std::cerr << fmt::format("error: unknown subcommand '{}'; valid subcommands: {} (gpusim --help)\n", argv[1],
                               fmt::join(names, ", "));
      return 2;
    }
  }

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
    if (run->parsed()) {
      if (run_metrics->count() > 0 && run_f.metrics_file && run_f.metrics_file->empty()) {
        run_f.metrics_file.reset();
        run_f.outputs.emplace_back("metrics");
      }
      return cmd_run(run_c, run_f);
    }
    if (cmp->parsed()) {
      const auto seeds = seeds_option(cmp_seeds, cmp_c.sets);
      const auto by = parse_breakdowns(cmp_by);
      if (cmp_report && seeds) throw InputError({"", std::nullopt, "--report"}, "reports one run per column; not with --seeds");
      refuse_overwrite(cmp_report, "--report", cmp_force);
      cli::Progress progress(file_stem(cmp_c.scenario));
      progress.phase(fmt::format("loading {}", cmp_c.scenario));
      // One load of the variants per seed (the seed set last, so it wins over a variant's).
      const std::vector<uint64_t> each_seed = seeds ? *seeds : std::vector<uint64_t>{0};
      std::vector<std::vector<std::pair<std::string, Scenario>>> loaded;
      for (uint64_t seed : each_seed) {
        std::vector<std::string> sets = cmp_c.sets;
        if (seeds) sets.push_back(fmt::format("seed={}", seed));
        loaded.push_back(load_variants(cmp_c.scenario, cmp_c.options(sets)));
        // --variant: those variants alone, in the scenario's order; a name it does not have is refused.
        for (const std::string& name : cmp_variants)
          if (std::none_of(loaded.back().begin(), loaded.back().end(), [&](const auto& v) { return v.first == name; })) {
            std::vector<std::string> known;
            for (const auto& v : loaded.back()) known.push_back(v.first.empty() ? "(none)" : v.first);
            throw InputError({"", std::nullopt, "--variant"}, fmt::format("{} has no variant '{}'; its variants: {}",
                                                                          cmp_c.scenario, name, fmt::join(known, ", ")));
          }
        if (!cmp_variants.empty())
          std::erase_if(loaded.back(), [&](const auto& v) {
            return std::find(cmp_variants.begin(), cmp_variants.end(), v.first) == cmp_variants.end();
          });
      }
      if (cmp_policies.empty() && loaded.front().front().first.empty())
        throw InputError({"", std::nullopt, "--policies"}, "give --policies, or a scenario with variants");
      // Each variant under every policy (then each seed); a variant's column is named by the variant
      // alone when one policy runs.
      std::vector<cli::RunSpec> specs;
      for (std::size_t v = 0; v < loaded.front().size(); ++v) {
        const auto& [variant, s0] = loaded.front()[v];
        const std::vector<std::string> policies = cmp_policies.empty() ? std::vector<std::string>{s0.policy} : cmp_policies;
        for (const auto& p : policies)
          for (const auto& per_seed : loaded) {
            const Scenario& s = per_seed[v].second;
            specs.push_back({variant.empty()       ? p
                             : policies.size() > 1 ? fmt::format("{} {}", variant, p)
                                                   : variant,
                             s, p, cmp_policies.empty() ? s.policy_where : SourceLocation{"--policies", std::nullopt, p}, false,
                             cmp_report.has_value()});
          }
      }
      const auto outcomes = cli::run_all(specs, cli::resolve_workers(cmp_jobs), &progress);
      progress.finish();
      warn_unpriced(outcomes);
      if (seeds) {
        const auto setups = by_seed(outcomes, *seeds);
        std::vector<double> seconds(setups.size(), 0.0);
        for (std::size_t i = 0; i < outcomes.size(); ++i) seconds[i / seeds->size()] += outcomes[i].seconds;
        for (std::size_t i = 0; i < setups.size(); ++i)
          std::cerr << fmt::format("{}: {:.3f} s for {} seeds\n", setups[i].first["label"].get<std::string>(), seconds[i],
                                   seeds->size());
        if (cmp_json) {
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
      if (cmp_report) {
        std::vector<std::pair<std::string, cli::RunFiles>> runs;
        runs.reserve(outcomes.size());
        for (const auto& o : outcomes) runs.emplace_back(o.summary["label"].get<std::string>(), o.files);
        write_output_file(*cmp_report,
                          cli::html_compare_report(runs, fmt::format("gpusim compare: {}", loaded.front().front().second.name)));
        std::cerr << fmt::format("wrote {}\n", *cmp_report);
      }
      if (cmp_json) std::cout << Json(summaries).dump(2) << '\n';
      else {
        std::cout << cli::compare_table(summaries);
        for (const auto& s : summaries)
          if (!by.empty()) std::cout << fmt::format("\n{}:\n", s["label"].get<std::string>()) << breakdowns(s, by);
      }
      return 0;
    }
    if (rep->parsed()) {
      check_output_file(rep_out, "--out", rep_force);
      write_output_file(rep_out, cli::html_report(cli::read_run_dir(rep_dir), rep_dir));
      std::cout << fmt::format("wrote {}\n", rep_out);
      return 0;
    }
    if (pk->parsed()) {
      refuse_overwrite(pk_csv, "--csv", pk_force);
      refuse_overwrite(pk_placements, "--placements", pk_force);
      const auto seeds = cli::parse_seeds(pk_seeds);
      if (pk_placements && pk_policies.size() * seeds.size() != 1)
        throw InputError(
            {"", std::nullopt, "--placements"},
            fmt::format("writes one run's placements; got {} policies x {} seeds (give one --policies and one --seeds)",
                        pk_policies.size(), seeds.size()));
      cli::Progress progress(file_stem(pk_c.scenario));
      progress.phase(fmt::format("loading {}", pk_c.scenario));
      const auto t0 = Clock::now();
      const auto runs = cli::run_packing_grid(pk_c.scenario, pk_c.options(pk_c.sets), pk_policies, seeds,
                                              cli::resolve_workers(pk_jobs), &progress, pk_placements.has_value());
      progress.finish();
      std::cout << cli::packing_table(runs);
      if (pk_placements) {
        std::ostringstream csv;
        write_pod_placements(csv, runs.front().placements);
        write_output_file(*pk_placements, csv.str());
      }
      if (pk_csv) {
        std::ostringstream csv;
        cli::write_packing_csv(csv, runs);
        write_output_file(*pk_csv, csv.str());
      }
      std::cerr << fmt::format("{} runs in {:.2f} s\n", runs.size(), std::chrono::duration<double>(Clock::now() - t0).count());
      return 0;
    }
    if (chk->parsed()) return cmd_check(chk_baseline, chk_sources, chk_jobs, chk_update, chk_junit, chk_markdown, chk_force);
    if (swp->parsed()) return cmd_sweep(swp_c, swp_grid, swp_policies, swp_jobs, swp_out, swp_force, swp_seeds);
    if (val->parsed()) {
      // Each warning once, prefixed by the variant it is about (when not every one).
      std::vector<std::string> warnings;
      const auto check = [&](const Scenario& v, const std::string& variant) {
        Registry::global().make(v.policy, policy_context(v), v.policy_where);
        for (std::string& w : scenario_warnings(build_world(v))) {  // the world build checks the jobs against the cluster
          if (std::find(warnings.begin(), warnings.end(), w) != warnings.end()) continue;
          warnings.push_back(variant.empty() ? w : fmt::format("variant {}: {}", variant, w));
        }
      };
      const Scenario s = load(val_c);
      check(s, "");
      // Each variant as compare runs it: its overrides applied, its jobs against its cluster.
      if (!s.variants.empty())
        for (const auto& [name, v] : load_variants(val_c.scenario, val_c.options(val_c.sets))) check(v, name);
      uint64_t nodes = 0, gpus = 0;
      for (const auto& p : s.pools) {
        nodes += p.node_count;
        gpus += p.gpu_slots();
      }
      std::cout << fmt::format("{}: ok: scenario '{}', {} pools, {} nodes, {} GPUs, {} jobs, policy {}{}\n", s.file, s.name,
                               s.pools.size(), nodes, gpus, s.jobs.jobs.size(), s.policy,
                               s.variants.empty() ? "" : fmt::format(", {} variants", s.variants.size()));
      for (const std::string& w : warnings) std::cout << "warning: " << w << '\n';
      return 0;
    }
    if (mig_val->parsed()) return cmd_mig_validate(mig_file, mig_node);
    if (topo->parsed()) return cmd_topo(topo_node, topo_scenario);
    if (cat->parsed()) {
      cat_query.view = cli::parse_catalog_view(cat_view);
      if (cat_json) std::cout << cli::catalog_json(Catalog::builtin(), cat_query).dump(2) << '\n';
      else std::cout << cli::catalog_text(Catalog::builtin(), cat_query);
      return 0;
    }
    if (mig->parsed()) {
      if (mig_model.empty()) throw InputError({"", std::nullopt, "GPU_MODEL"}, "expected a GPU model, e.g. gpusim mig A100-80GB-SXM");
      return cmd_mig(mig_model, mig_layouts, mig_maximal, mig_json);
    }
    if (imp_k8s->parsed()) {
      const auto duration_flag = [](const std::string& flag, const std::string& text) {
        try {
          return parse_duration(text);
        } catch (const std::exception& e) {
          throw InputError({"", std::nullopt, flag}, e.what());
        }
      };
      k8s.duration = duration_flag("--duration", k8s_duration);
      k8s.horizon = duration_flag("--horizon", k8s_horizon);
      refuse_overwrite(k8s_out, "--out", k8s_force);
      const cli::K8sImport imported = cli::import_k8s(k8s, Catalog::builtin());
      for (const std::string& i : imported.ignored) std::cerr << "ignored: " << i << '\n';
      if (k8s_out) write_output_file(*k8s_out, imported.scenario_yaml);
      else std::cout << imported.scenario_yaml;
      return 0;
    }
    if (sch->parsed()) {
      const Json schema = schema_format == "baseline" ? cli::baseline_schema()
                                                      : scenario_schema(Registry::global().param_names());
      std::cout << schema.dump(2) << '\n';
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
  } catch (const std::exception& e) {
    // A policy's impossible request, a broken invariant or an output the disk refused: the run
    // failed, its input was good. Anything else is gpusim's own fault.
    const bool run_failed = dynamic_cast<const PolicyError*>(&e) || dynamic_cast<const AuditError*>(&e) ||
                            dynamic_cast<const OutputError*>(&e);
    std::cerr << (run_failed ? "error: " : "internal error: ") << e.what() << '\n';
    return 1;
  }
  return 0;
}
