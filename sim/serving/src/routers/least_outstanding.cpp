// Least outstanding requests: the ready replica with the fewest requests waiting or running, the
// lowest slot on a tie (Envoy's LEAST_REQUEST with every replica compared; vLLM's production-stack
// router's session-less "least loaded").
#include "gpusim/sim/request_router.hpp"

namespace gpusim::routers {

namespace {
class LeastOutstanding final : public RequestRouter {
 public:
  std::size_t route(const RoutedRequest&, const ReplicaSet& replicas) override {
    return least_ready(replicas, [&](std::size_t i) { return replicas.outstanding(i); });
  }
};
}  // namespace

RouterRegistration least_outstanding_router() {
  return {"least-outstanding", "the ready replica with the fewest requests waiting or running", {}, [](const auto&) {
            return std::make_unique<LeastOutstanding>();
          }};
}

}  // namespace gpusim::routers
