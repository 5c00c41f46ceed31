// Least KV-cache usage: the ready replica whose KV blocks are least held by requests (vLLM's
// vllm:gpu_cache_usage_perc; llm-d's kv-cache-utilization scorer), then the fewest outstanding
// requests, then the lowest slot.
#include "gpusim/sim/request_router.hpp"

namespace gpusim::routers {

namespace {
class LeastKv final : public RequestRouter {
 public:
  std::size_t route(const RoutedRequest&, const ReplicaSet& replicas) override {
    std::size_t best = replicas.size();
    double usage = 0;
    int32_t outstanding = 0;
    for (std::size_t i = 0; i < replicas.size(); ++i) {
      if (!replicas.ready(i)) continue;
      const double u = replicas.kv_usage(i);
      const int32_t n = replicas.outstanding(i);
      if (best == replicas.size() || u < usage || (u == usage && n < outstanding)) {
        best = i;
        usage = u;
        outstanding = n;
      }
    }
    return best;
  }
};
}  // namespace

RouterRegistration least_kv_router() {
  return {"least-kv", "the ready replica with the least of its KV cache held by requests", {}, [](const auto&) {
            return std::make_unique<LeastKv>();
          }};
}

}  // namespace gpusim::routers
