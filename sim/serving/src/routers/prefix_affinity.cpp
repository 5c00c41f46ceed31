// Prefix affinity: the ready replica whose prefix cache holds the longest prefix of the request, among
// those whose load (requests waiting or running) is within `load_cap` of the least loaded one; ties
// go to the lower load, then the lower slot. Without a cached prefix anywhere, it is least-outstanding.
// It reads each replica's actual cache (what llm-d's precise prefix-cache scorer learns from vLLM's KV
// events); SGLang's cache-aware router instead guesses from the prompts it sent where, and balances
// by thresholds on the same loads (docs/serving.md#routing).
#include <tuple>

#include "gpusim/core/fields.hpp"
#include "gpusim/sim/request_router.hpp"

namespace gpusim::routers {

namespace {

class PrefixAffinity final : public RequestRouter {
 public:
  explicit PrefixAffinity(int32_t load_cap) : load_cap_(load_cap) {}
  std::size_t route(const RoutedRequest&, const ReplicaSet& replicas) override {
    const auto load = [&](std::size_t i) { return replicas.outstanding(i); };
    const int32_t cap = load(least_ready(replicas, load)) + load_cap_;
    // Over the cap last; then the longest cached prefix (looked up only within the cap), then the load.
    return least_ready(replicas, [&](std::size_t i) {
      const int32_t l = load(i);
      return l > cap ? std::tuple(true, 0, l) : std::tuple(false, -replicas.cached_prefix_tokens(i), l);
    });
  }

 private:
  int32_t load_cap_;
};

// The default cap, 4, did best of 0, 1, 2, 4, 8 and 16 on the Mooncake hour (serving-prefix-cache.yaml:
// SLO attainment and TTFT p50); 16 let bursts pile onto the replica holding a popular prefix.
const Section& params_section() {
  static const Section s{"prefix_affinity",
                         "The prefix-affinity router's parameters",
                         {
                             {"name", Type::string(), "", "", "prefix-affinity"},
                             {"load_cap", Type::int32().at_least(0), "4", "requests",
                              "Only replicas with at most this many more requests waiting or running than the least loaded are "
                              "considered (0: least-outstanding, with the longest prefix breaking ties)"},
                         }};
  return s;
}

}  // namespace

RouterRegistration prefix_affinity_router() {
  return {"prefix-affinity",
          "the replica holding the longest cached prefix of the request, within a load cap",
          {"load_cap"},
          [](const std::optional<ConfigNode>& params) {
            return std::make_unique<PrefixAffinity>(params ? params_section().read(*params).integer<int32_t>("load_cap") : 4);
          }};
}

}  // namespace gpusim::routers
