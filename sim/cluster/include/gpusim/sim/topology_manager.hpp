#pragma once
// The kubelet's Topology Manager (kubernetes.io, "Control Topology Management Policies on a node"),
// for GPUs: the device manager offers one hint per set of NUMA nodes that can hold the request; the
// narrowest sets possible on the node (counting all its GPUs, free or not) are "preferred".
//   none              any free GPUs
//   best-effort       the narrowest NUMA set with enough free GPUs, preferred or not
//   restricted        a preferred (narrowest possible) NUMA set, else the pod is refused
//   single-numa-node  one NUMA node, else the pod is refused
// Scope pod and container coincide here: every pod is one container.
#include <cstdint>
#include <optional>
#include <string_view>

#include "gpusim/core/enum_table.hpp"
#include "gpusim/hardware/topology.hpp"

namespace gpusim {

enum class TopologyPolicy : uint8_t { none, best_effort, restricted, single_numa_node };
constexpr auto enum_table(TopologyPolicy) {
  using P = TopologyPolicy;
  return std::to_array<EnumName<P>>({{P::none, "none"},
                                     {P::best_effort, "best-effort"},
                                     {P::restricted, "restricted"},
                                     {P::single_numa_node, "single-numa-node"}});
}

// The GPUs (a mask of node-local indices) the kubelet lets a pod take `count` of, given the free
// GPUs `available`; nullopt when the policy refuses the pod. Among equally narrow NUMA sets the one
// with the lowest NUMA ids wins, as the kubelet merges hints.
std::optional<uint32_t> topology_manager_allows(TopologyPolicy policy, const NodeTopology& topology, uint32_t available,
                                                int count);

// Would the policy admit a pod holding exactly `chosen`?
bool topology_manager_admits(TopologyPolicy policy, const NodeTopology& topology, uint32_t chosen);

}  // namespace gpusim
