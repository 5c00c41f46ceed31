#pragma once
// Finding a GPU model's entry in model.yaml's per-GPU lists (time-slicing, power, serving
// efficiencies), which a scenario extends with its own.
#include <vector>

#include "gpusim/hardware/catalog.hpp"

namespace gpusim {

// model.yaml's per-GPU entries (time-slicing, power, serving efficiencies), searched from the back so
// that a scenario's entries (applied later) win: the entry listing `gpu` (by name or alias), else the
// default entry (no list) with the highest min_compute_capability the GPU reaches; null when none.
template <class Entry>
const Entry* entry_for(const std::vector<Entry>& entries, const GpuModel& gpu) {
  for (auto e = entries.rbegin(); e != entries.rend(); ++e)
    for (const auto& n : e->gpus)
      if (gpu.is_named(n)) return &*e;
  const auto from = [](const Entry& e) {
    if constexpr (requires { e.min_compute_capability; }) return e.min_compute_capability;
    else return 0.0;  // power entries: every default applies from 0
  };
  const Entry* best = nullptr;
  for (auto e = entries.rbegin(); e != entries.rend(); ++e)
    if (e->gpus.empty() && from(*e) <= gpu.compute_capability && (!best || from(*e) > from(*best))) best = &*e;
  return best;
}

}  // namespace gpusim
