// Request routers (sim/request_router.hpp), each on replicas given by hand: which slot it picks, and
// the registry's errors for an unknown router or parameter.
#include <gtest/gtest.h>

#include "gpusim/core/error.hpp"
#include "gpusim/sim/request_router.hpp"
#include "gpusim/workloads/service.hpp"

using namespace gpusim;

namespace {

struct Fake {
  bool ready = true;
  int32_t waiting = 0, running = 0;
  double kv = 0;
  int64_t cached_blocks = 0;
  int32_t prefix = 0;  // tokens of the request cached
};

class FakeSet final : public ReplicaSet {
 public:
  explicit FakeSet(std::vector<Fake> r) : r_(std::move(r)) {}
  std::size_t size() const override { return r_.size(); }
  bool ready(std::size_t i) const override { return r_[i].ready; }
  int32_t waiting(std::size_t i) const override { return r_[i].waiting; }
  int32_t running(std::size_t i) const override { return r_[i].running; }
  double kv_usage(std::size_t i) const override { return r_[i].kv; }
  int64_t cached_blocks(std::size_t i) const override { return r_[i].cached_blocks; }
  int32_t cached_prefix_tokens(std::size_t i) const override { return r_[i].prefix; }

 private:
  std::vector<Fake> r_;
};

std::unique_ptr<RequestRouter> router(const std::string& name, const std::string& yaml = "") {
  RouterSpec spec;
  spec.name = name;
  if (!yaml.empty()) spec.params = ConfigNode::parse(yaml, "scenario.yaml");
  return RouterRegistry::global().make(spec);
}

RoutedRequest request(int32_t prompt) { return {0, Time(), prompt, 10}; }

}  // namespace

// Slots 0 and 2 ready: round robin goes 0, 2, 0, ... skipping slot 1.
TEST(Routers, RoundRobinSkipsReplicasNotReady) {
  auto r = router("round-robin");
  const FakeSet set({{}, {.ready = false}, {}});
  EXPECT_EQ(r->route(request(1), set), 0u);
  EXPECT_EQ(r->route(request(1), set), 2u);
  EXPECT_EQ(r->route(request(1), set), 0u);
}

TEST(Routers, LeastOutstandingAndLeastKvBreakTiesByLoadThenSlot) {
  const FakeSet set({{.waiting = 2, .running = 1, .kv = 0.2},
                     {.running = 3, .kv = 0.2},
                     {.running = 2, .kv = 0.5},
                     {.ready = false, .kv = 0.0}});
  EXPECT_EQ(router("least-outstanding")->route(request(1), set), 2u);  // 3, 3, 2
  EXPECT_EQ(router("least-kv")->route(request(1), set), 0u);           // 0.2 (3 outstanding, slot 0) beats 0.2 (3, slot 1)
}

// Loads 1, 2, 9, 5 (least 1, cap 4: slots 0, 1 and 3 considered): slot 2 holds the longest prefix but
// is 8 over the least loaded; slot 3 (600 cached) wins. With load_cap 8, slot 2. Nothing cached anywhere:
// the least loaded. Equal prefixes: the lower load.
TEST(Routers, PrefixAffinityTakesTheLongestPrefixWithinTheLoadCap) {
  const FakeSet set(
      {{.running = 1, .prefix = 100}, {.running = 2}, {.running = 9, .prefix = 900}, {.running = 5, .prefix = 600}});
  EXPECT_EQ(router("prefix-affinity")->route(request(1000), set), 3u);
  EXPECT_EQ(router("prefix-affinity", "{name: prefix-affinity, load_cap: 8}")->route(request(1000), set), 2u);
  EXPECT_EQ(router("prefix-affinity")->route(request(1000), FakeSet({{.running = 3}, {.running = 1}, {.running = 2}})), 1u);
  EXPECT_EQ(
      router("prefix-affinity")->route(request(1000), FakeSet({{.running = 3, .prefix = 16}, {.running = 2, .prefix = 16}})), 1u);
}

TEST(Routers, UnknownRoutersAndParametersAreInputErrors) {
  const auto error = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string e = error([] { router("fastest"); });
  EXPECT_NE(e.find("unknown router 'fastest'; known: round-robin, least-outstanding, least-kv, prefix-affinity"),
            std::string::npos)
      << e;
  e = error([] { router("least-kv", "{name: least-kv, load_cap: 3}"); });
  EXPECT_NE(e.find("load_cap"), std::string::npos) << e;
  e = error([] { router("prefix-affinity", "{name: prefix-affinity, load_cap: -1}"); });
  EXPECT_NE(e.find("load_cap"), std::string::npos) << e;
}
