// First-fit: the lowest-numbered node that fits, and its lowest-numbered GPUs with room.
#include "builtin.hpp"

namespace gpusim::builtin {
std::unique_ptr<PlacementPolicy> make_first_fit() { return std::make_unique<PlacementPolicy>(); }

PlacementRegistration first_fit_placement() {
  return {"first-fit", "lowest-numbered node and GPUs with room", [](const PolicyContext&) { return make_first_fit(); }, {}};
}

}  // namespace gpusim::builtin
