#pragma once
// MIG geometry (docs/hardware.md#mig-geometry): a GPU instance occupies the contiguous memory slices
// start .. start+size-1 at one of its profile's allowed starts. A layout is a set of placed
// instances; these pure functions check, place, explain and enumerate layouts. Nothing here knows
// about jobs or scheduling.
#include <optional>
#include <string>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/hardware/catalog.hpp"

namespace gpusim {

struct MigInstance {
  int profile = 0;  // index into MigTable::profiles
  int start = 0;    // first memory slice
  bool operator==(const MigInstance&) const = default;
};
using MigLayout = std::vector<MigInstance>;  // ordered by start
using MigCounts = std::vector<int>;          // instances per profile index

// Why `profile` cannot be added at `start` to `layout`; nullopt when it can.
std::optional<std::string> mig_conflict(const MigTable& t, const MigLayout& layout, int profile, int start);
// Adds the instance, keeping the layout ordered by start (call only when mig_conflict is nullopt).
void mig_add(MigLayout& layout, MigInstance instance);
MigCounts mig_counts(const MigTable& t, const MigLayout& layout);
// Every placement of every profile (each allowed start), ordered by start, then profile: the MIG
// devices a partitionable GPU publishes (KEP 4815), of which any set without a mig_conflict can exist.
MigLayout mig_placements(const MigTable& t);

// A placement of exactly these counts, trying larger instances first and every allowed start
// (so 1g,1g,2g,3g places although the driver's first-fit creation order would fail); nullopt if none.
std::optional<MigLayout> mig_place(const MigTable& t, const MigCounts& counts);
// Why no placement of `counts` exists, e.g. "4 x 2g.20gb needs 8 memory slices at starts
// {0,2,4,6}; 2g.20gb starts are {0,2,4}, so at most 3 fit".
std::string mig_explain(const MigTable& t, const MigCounts& counts);
// "3 x 2g.20gb + 1 x 1g.10gb" (largest first), or "empty".
std::string mig_describe(const MigTable& t, const MigCounts& counts);

struct MigLayoutOption {
  MigCounts counts;
  MigLayout placement;  // one valid placement of the counts
  bool maximal = false; // no further instance of any profile fits
};
// The MIG-capable model of that name or alias; an InputError (field GPU_MODEL) naming the
// MIG-capable models when it is unknown or has no MIG.
const GpuModel& require_mig_model(const Catalog& catalog, std::string_view name);

// Every non-empty valid combination of instances, largest total memory slices first.
std::vector<MigLayoutOption> mig_enumerate(const MigTable& t);

// A mig-parted config (`version: v1`, `mig-configs: NAME: [{devices, mig-enabled, mig-devices}]`)
// applied to one node of `gpus` GPUs of `model`: per GPU, its layout, or nullopt when MIG is off.
struct MigNodeConfig {
  std::string name;
  std::vector<std::optional<MigLayout>> per_gpu;
};
// The fields of a mig-parted file; its `mig-configs` is also a pool's inline `mig: {mig-configs: ...}`.
const Section& mig_parted_section();
// A mig-parted document checked (version: v1): its `mig-configs` map.
ConfigNode mig_parted_configs(const ConfigNode& doc);
// `entries` is the list under one config name. Throws InputError naming the device entry and why
// its instances do not fit.
MigNodeConfig mig_node_config(const ConfigNode& entries, const std::string& name, const GpuModel& model, int gpus);
// Every config of a mig-parted document, checked against `model` x `gpus`; each failure is reported
// as one line (config name, entry and reason) instead of stopping at the first.
struct MigFileReport {
  std::vector<MigNodeConfig> valid;
  std::vector<std::string> problems;
};
MigFileReport mig_check_file(const ConfigNode& doc, const GpuModel& model, int gpus);

}  // namespace gpusim
