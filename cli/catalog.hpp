#pragma once
// What the hardware catalog holds, as `gpusim catalog` prints it: GPU models, node templates, prices
// and markets, and each MIG-capable model's profiles with the configs mig-parted generates for it; and
// the served models services name.
// One implementation for both front ends: the CLI prints these strings and Python returns them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/json.hpp"
#include "gpusim/hardware/catalog.hpp"

namespace gpusim::cli {

// models: the served-model catalog (workloads/data/models.yaml), which services name.
enum class CatalogView : uint8_t { all, gpus, nodes, prices, mig, models };
constexpr auto enum_table(CatalogView) {
  using V = CatalogView;
  return std::to_array<EnumName<V>>(
      {{V::all, "all"}, {V::gpus, "gpus"}, {V::nodes, "nodes"}, {V::prices, "prices"}, {V::mig, "mig"}, {V::models, "models"}});
}
// The view of that name; an InputError (field VIEW) naming the views when it is unknown.
CatalogView parse_catalog_view(std::string_view name);

struct CatalogQuery {
  CatalogView view = CatalogView::all;
  // Only entries whose name (a GPU model's aliases too, a node template's GPU model too) contains
  // this text, ignoring case.
  std::optional<std::string> filter;
  // Only this GPU model (name or alias) and the node templates that carry it; an InputError (field
  // --gpu) naming the valid models when it is unknown (the MIG-capable ones for the mig view).
  std::optional<std::string> gpu;
};

// Aligned tables for a terminal.
std::string catalog_text(const Catalog& catalog, const CatalogQuery& query);
// The same entries, every field (sources included), for machines.
Json catalog_json(const Catalog& catalog, const CatalogQuery& query);

// The node templates as `gpusim catalog nodes` prints them (also `gpusim topo` without a template).
std::string node_templates_text(const Catalog& catalog);

}  // namespace gpusim::cli
