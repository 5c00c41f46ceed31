#include "gpusim/sim/request_router.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gpusim/core/error.hpp"
#include "gpusim/workloads/service.hpp"

namespace gpusim {

namespace routers {
#define GPUSIM_ROUTER(id) RouterRegistration id##_router();
#include "routers/routers.def"
#undef GPUSIM_ROUTER
}  // namespace routers

RouterRegistry& RouterRegistry::global() {
  static RouterRegistry r = [] {
    RouterRegistry built;
#define GPUSIM_ROUTER(id) built.add(routers::id##_router());
#include "routers/routers.def"
#undef GPUSIM_ROUTER
    return built;
  }();
  return r;
}

void RouterRegistry::add(RouterRegistration r) {
  const auto it = std::find_if(routers_.begin(), routers_.end(), [&](const auto& k) { return k.name == r.name; });
  if (it != routers_.end()) *it = std::move(r);
  else routers_.push_back(std::move(r));
}

std::unique_ptr<RequestRouter> RouterRegistry::make(const RouterSpec& spec) const {
  const auto it = std::find_if(routers_.begin(), routers_.end(), [&](const auto& k) { return k.name == spec.name; });
  if (it == routers_.end()) {
    std::vector<std::string> names;
    for (const auto& k : routers_) names.push_back(k.name);
    throw InputError(spec.where, fmt::format("unknown router '{}'; known: {}", spec.name, fmt::join(names, ", ")));
  }
  if (spec.params) {
    std::vector<std::string_view> allowed{"name"};
    allowed.insert(allowed.end(), it->params.begin(), it->params.end());
    spec.params->allow_only(allowed);
  }
  return it->make(spec.params);
}

}  // namespace gpusim
