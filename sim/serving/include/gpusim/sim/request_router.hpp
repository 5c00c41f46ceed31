#pragma once
// Request routers (docs/serving.md#routing): which ready replica of its service a request goes to. A
// router only decides; the serving component checks the choice and sends the request. Built-in
// routers are one file each in sim/serving/src/routers/ and one line in routers.def; Python registers
// its own (gpusim.register_router). A service names its router in the scenario (`router:`).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/time.hpp"

namespace gpusim {

struct RouterSpec;

// The request being routed.
struct RoutedRequest {
  uint64_t id = 0;  // in arrival order within its service
  Time arrival;
  int32_t prompt_tokens = 0, output_tokens = 0;
};

// What a router sees of its service's replicas, slot by slot (slot i is the service's i-th replica,
// ready or not). Each figure is read when asked: a router that looks at two replicas pays for two.
class ReplicaSet {
 public:
  virtual ~ReplicaSet() = default;
  virtual std::size_t size() const = 0;
  virtual bool ready(std::size_t i) const = 0;  // serving and taking requests
  virtual int32_t waiting(std::size_t i) const = 0;
  virtual int32_t running(std::size_t i) const = 0;
  int32_t outstanding(std::size_t i) const { return waiting(i) + running(i); }
  // Share of its KV-cache blocks held by requests (cached blocks no request holds are free), 0..1.
  virtual double kv_usage(std::size_t i) const = 0;
  // Blocks holding a cached prefix (0 without prefix caching): the size of what it has cached.
  virtual int64_t cached_blocks(std::size_t i) const = 0;
  // Tokens of this request's prompt its prefix cache holds now (0 without prefix caching).
  virtual int32_t cached_prefix_tokens(std::size_t i) const = 0;
};

class RequestRouter {
 public:
  virtual ~RequestRouter() = default;
  // The slot of a ready replica for `q`; called only when one is ready. A choice that is not a ready
  // slot is refused (PolicyError naming the router).
  virtual std::size_t route(const RoutedRequest& q, const ReplicaSet& replicas) = 0;
};

// The ready slot whose key(i) is least (keys compare with <: a number, or a std::pair or tuple for ties
// broken in turn); equal keys go to the lower slot. For a router's route(), which is called only when a
// slot is ready.
template <class Key>
std::size_t least_ready(const ReplicaSet& replicas, Key key) {
  std::size_t best = replicas.size();
  decltype(key(std::size_t{0})) least{};
  for (std::size_t i = 0; i < replicas.size(); ++i) {
    if (!replicas.ready(i)) continue;
    auto k = key(i);
    if (best == replicas.size() || k < least) {
      best = i;
      least = std::move(k);
    }
  }
  return best;
}

struct RouterRegistration {
  std::string name;
  std::string description;
  std::vector<std::string> params;  // the keys of `router: {name: ..., key: value}` it reads
  // Builds one router for one service; `params` is the router's map when the scenario gave one.
  std::function<std::unique_ptr<RequestRouter>(const std::optional<ConfigNode>& params)> make;
};

class RouterRegistry {
 public:
  // The built-in routers (routers.def) and any added since.
  static RouterRegistry& global();
  // Adds a router, replacing one of the same name (a notebook may define its router again).
  void add(RouterRegistration r);
  // The service's router; InputError at spec.where for an unknown name (listing the known ones) or a
  // parameter the router does not read.
  std::unique_ptr<RequestRouter> make(const RouterSpec& spec) const;
  const std::vector<RouterRegistration>& list() const { return routers_; }

 private:
  std::vector<RouterRegistration> routers_;
};

}  // namespace gpusim
