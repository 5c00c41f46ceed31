// Round robin: the next ready replica after the one chosen last, slots in order (Kubernetes Services
// spread connections about evenly; vLLM's production-stack router's roundrobin).
#include "gpusim/sim/request_router.hpp"

namespace gpusim::routers {

namespace {
class RoundRobin final : public RequestRouter {
 public:
  std::size_t route(const RoutedRequest&, const ReplicaSet& replicas) override {
    const std::size_t n = replicas.size();
    for (std::size_t k = 0;; ++k) {
      const std::size_t at = (next_ + k) % n;
      if (!replicas.ready(at)) continue;
      next_ = at + 1;
      return at;
    }
  }

 private:
  std::size_t next_ = 0;  // the slot after the last one chosen
};
}  // namespace

RouterRegistration round_robin_router() {
  return {"round-robin", "the next ready replica in turn (the default)", {}, [](const auto&) {
            return std::make_unique<RoundRobin>();
          }};
}

}  // namespace gpusim::routers
