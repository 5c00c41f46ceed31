#pragma once
// The subcommands of the gpusim executable that run scenarios or read the catalog, one function each
// (main.cpp declares their flags with CLI11 and calls them), and what they share: where scenarios and
// traces come from, and how one is loaded.
#include <optional>
#include <string>
#include <vector>

#include "gpusim/sim/scenario.hpp"

namespace gpusim::cli {

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

struct Common : Sources {
  std::string scenario;
  std::vector<std::string> sets;
  std::optional<std::string> variant;  // run --variant: the scenario as that variant makes it
};

struct RunFlags {
  std::optional<std::string> policy, out, seeds, report;
  bool force = false, json = false, audit = false;
  int jobs = 0;
  std::vector<std::string> outputs;                        // on-request outputs asked by flag (--trace)
  std::vector<std::string> by;                             // --by breakdowns
  std::optional<std::string> metrics_file, metrics_start;  // --metrics FILE, --metrics-start DATE
};

// gpusim compare's flags beside the scenario's.
struct CompareFlags {
  std::vector<std::string> policies, variants, by;
  std::optional<std::string> seeds, report;
  bool force = false, json = false;
  int jobs = 1;
};

// The scenario (as its --variant makes it) with `sets` applied after the variant's own.
Scenario load(const Common& c, const std::vector<std::string>& sets);
Scenario load(const Common& c);
std::string file_stem(const std::string& path);
// --seeds shared by run, compare and sweep: parsed (nullopt when not given), refusing a seed set
// another way too.
std::optional<std::vector<uint64_t>> seeds_option(const std::optional<std::string>& text, const std::vector<std::string>& sets);
// Refuses to overwrite a file (or a symlink) the user has unless --force (checked before any run).
void refuse_overwrite(const std::optional<std::string>& file, const std::string& flag, bool force);

int cmd_run(const Common& c, const RunFlags& flags);
int cmd_compare(const Common& c, const CompareFlags& flags);
int cmd_check(const std::string& file, const Sources& sources, int jobs, bool update, const std::optional<std::string>& junit,
              const std::optional<std::string>& markdown, bool force);
int cmd_sweep(const Common& c, const std::vector<std::string>& grid, const std::vector<std::string>& policies, int jobs,
              const std::optional<std::string>& out, bool force, const std::optional<std::string>& seeds_flag);
int cmd_mig(const std::string& name, bool layouts, bool maximal_only, bool json);
int cmd_mig_validate(const std::string& file, const std::string& node);
int cmd_topo(const std::string& name, const std::optional<std::string>& scenario);

}  // namespace gpusim::cli
