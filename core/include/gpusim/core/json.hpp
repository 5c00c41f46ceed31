#pragma once
// JSON documents keep their keys in insertion order, so what gpusim writes reads in a stable order.
#include <nlohmann/json.hpp>

namespace gpusim {

using Json = nlohmann::ordered_json;

}  // namespace gpusim
