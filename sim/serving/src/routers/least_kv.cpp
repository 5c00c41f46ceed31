// Least KV-cache usage: the ready replica whose KV blocks are least held by requests (vLLM's
// vllm:gpu_cache_usage_perc; llm-d's kv-cache-utilization scorer), then the fewest outstanding
// requests, then the lowest slot.
#include "gpusim/sim/request_router.hpp"

namespace gpusim::routers {

namespace {
class LeastKv final : public RequestRouter {
 public:
  std::size_t route(const RoutedRequest&, const ReplicaSet& replicas) override {
    return least_ready(replicas, [&](std::size_t i) { return std::pair(replicas.kv_usage(i), replicas.outstanding(i)); });
  }
};
}  // namespace

RouterRegistration least_kv_router() {
  return {"least-kv", "the ready replica with the least of its KV cache held by requests", {}, [](const auto&) {
            return std::make_unique<LeastKv>();
          }};
}

}  // namespace gpusim::routers
