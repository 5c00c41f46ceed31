// Least outstanding requests: the ready replica with the fewest requests waiting or running, the
// lowest slot on a tie (Envoy's LEAST_REQUEST with every replica compared; vLLM's production-stack
// router's session-less "least loaded").
#include "gpusim/sim/request_router.hpp"

namespace gpusim::routers {

namespace {
class LeastOutstanding final : public RequestRouter {
 public:
  std::size_t route(const RoutedRequest&, const ReplicaSet& replicas) override {
    std::size_t best = replicas.size();
    int32_t fewest = 0;
    for (std::size_t i = 0; i < replicas.size(); ++i) {
      if (!replicas.ready(i)) continue;
      const int32_t n = replicas.outstanding(i);
      if (best == replicas.size() || n < fewest) {
        best = i;
        fewest = n;
      }
    }
    return best;
  }
};
}  // namespace

RouterRegistration least_outstanding_router() {
  return {"least-outstanding", "the ready replica with the fewest requests waiting or running", {}, [](const auto&) {
            return std::make_unique<LeastOutstanding>();
          }};
}

}  // namespace gpusim::routers
