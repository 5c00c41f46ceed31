#pragma once
// gpusim serving profile: the serving model's iteration time for one replica described on the command
// line (docs/serving.md#profile).
#include <cstdint>
#include <optional>
#include <string>

namespace gpusim::cli {

struct ServingProfileFlags {
  std::string model, gpu;
  int tp = 1;
  std::optional<std::string> share, node;
  std::optional<int64_t> batch, context, prefill;
  bool json = false;
};

int cmd_serving_profile(const ServingProfileFlags& flags);

}  // namespace gpusim::cli
