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

#include "calibrate.hpp"
#include "catalog.hpp"
#include "check.hpp"
#include "commands.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/hardware/mig.hpp"
#include "gpusim/policies/registry.hpp"
#include "gpusim/sim/audit.hpp"
#include "gpusim/sim/output_spec.hpp"
#include "gpusim/sim/outputs.hpp"
#include "gpusim/sim/report.hpp"
#include "gpusim/sim/request_router.hpp"
#include "gpusim/sim/run.hpp"
#include "gpusim/sim/scenario.hpp"
#include "k8s/k8s_import.hpp"
#include "packing.hpp"
#include "progress.hpp"
#include "runs.hpp"
#include "seeds.hpp"
#include "serving_profile.hpp"
#include "sweep.hpp"
#include "table.hpp"

namespace {

using namespace gpusim;
using namespace gpusim::cli;  // the subcommands (commands.hpp)
using Clock = std::chrono::steady_clock;

// A --data that names no directory is refused even when no trace needs it: a mistyped path would
// otherwise go unnoticed until the day a trace is looked up there.
void add_sources(CLI::App* cmd, Sources& s) {
  cmd->add_option("--data", s.data, "Data directory for trace files (default: $GPUSIM_DATA, else data/ in the repo)")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--max-memory", s.max_memory,
                  "Refuse a run whose estimated memory is over this size, e.g. 4GiB (default: half of physical memory)");
}

void add_common(CLI::App* cmd, Common& c) {
  cmd->add_option("scenario", c.scenario, "Scenario file (YAML or JSON)")->required();
  cmd->add_option("--set", c.sets, "Override a scenario field, e.g. --set cluster.pools[0].count=8 (repeatable)");
  add_sources(cmd, c);
}

// --jobs: 0 (one worker per core) or a worker count; named with its real range when out of it.
const CLI::Validator kJobsRange(
    [](std::string& text) {
      int v = 0;
      if (CLI::detail::lexical_cast(text, v) && v >= 0) return std::string();
      return fmt::format("expected 0 (one worker per core) or a number of workers from 1 to {}, got {}", INT_MAX, text);
    },
    "0..N", "jobs");

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

  auto* pol = app.add_subcommand("policies",
                                 "List the queue orders and placements that compose a policy, and the request routers");

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
  cat->add_option(
         "view", cat_view,
         fmt::format("What to list: {} (default all: GPUs, node templates, prices and MIG layouts; models only on their own)",
                     enum_choices<cli::CatalogView>(", ")))
      ->check(CLI::IsMember(std::vector<std::string>(enum_names<cli::CatalogView>.begin(), enum_names<cli::CatalogView>.end())));
  cat->add_option("--filter", cat_query.filter, "Only entries whose name contains this text (any case), e.g. h100");
  cat->add_option("--gpu", cat_query.gpu,
                  "Only this GPU model (name or alias) and the node templates with it, e.g. H100-80GB-SXM");
  cat->add_flag("--json", cat_json, "Print JSON (every field, with each entry's source)");
  cat->footer("Examples: gpusim catalog nodes; gpusim catalog mig --gpu H100-80GB-SXM; gpusim catalog --filter a100 --json\n"
              "Sources of every value: docs/hardware.md");

  std::string cal_dir;
  auto* cal = app.add_subcommand("calibrate", "Print model: overrides (YAML) derived from a probe kit's measurement directory");
  cal->add_option("dir", cal_dir, "Directory the probe kit wrote (tools/probe), e.g. data/measurements/h200-2026-11-28")
      ->required();
  cal->footer(
      "Example: gpusim calibrate results/probe > calibration.yaml; a scenario then sets model: {include: calibration.yaml}\n"
      "What each figure is derived from: docs/guide/calibrate.md");

  cli::ServingProfileFlags prof;
  auto* srv = app.add_subcommand("serving", "What the serving model predicts for one replica");
  srv->require_subcommand(1);
  auto* srv_prof = srv->add_subcommand("profile", "The iteration time of one step of a replica, term by term");
  srv_prof->add_option("--model", prof.model, "Served model (name or alias), e.g. llama-3-8b")->required();
  srv_prof->add_option("--gpu", prof.gpu, "GPU model (name or alias), e.g. H200")->required();
  srv_prof->add_option("--tp", prof.tp, "Tensor-parallel degree: GPUs of one node (default 1)");
  srv_prof->add_option("--node", prof.node, "Node template the tp GPUs are on (default: the first with the GPU and room)");
  srv_prof->add_option("--share", prof.share,
                       "mig:PROFILE (a MIG instance), ts:N or mps:N (N identical replicas iterating without pause)");
  srv_prof->add_option("--batch", prof.batch, "A decode step of B sequences (with --context)");
  srv_prof->add_option("--context", prof.context, "Tokens each decoding sequence has cached");
  srv_prof->add_option("--prefill", prof.prefill, "A prefill of one T-token prompt, nothing cached");
  srv_prof->add_flag("--json", prof.json, "Print JSON: iteration_ms and the terms");
  srv_prof->footer("Examples: gpusim serving profile --model llama-3-8b --gpu H200 --batch 64 --context 2048\n"
                   "          gpusim serving profile --model llama-3-8b --gpu H200 --share ts:2 --prefill 2048 --json\n"
                   "The formula and its sources: docs/serving.md#profile");

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
    // CLI11's own message, as an error of the subcommand it belongs to.
    std::string command = "gpusim";
    for (CLI::App* at = &app;;) {
      const auto parsed = at->get_subcommands([](CLI::App* sub) { return sub->parsed(); });
      if (parsed.empty()) break;
      at = parsed.front();
      command += " " + at->get_name();
    }
    std::cerr << fmt::format("error: {} ({} --help lists what it takes)\n", e.what(), command);
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
      return cli::cmd_compare(cmp_c, {cmp_policies, cmp_variants, cmp_by, cmp_seeds, cmp_report, cmp_force, cmp_json, cmp_jobs});
    }
    if (cal->parsed()) return cli::cmd_calibrate(cal_dir);
    if (srv_prof->parsed()) return cli::cmd_serving_profile(prof);
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
        for (const ServiceSpec& service : v.services) RouterRegistry::global().make(service.router);
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
      std::cout << "\nRequest routers (a service's router:):\n";
      for (const auto& e : RouterRegistry::global().list())
        std::cout << fmt::format("  {:<17} {}{}\n", e.name, e.description,
                                 e.params.empty() ? "" : fmt::format(" (parameters: {})", fmt::join(e.params, ", ")));
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
