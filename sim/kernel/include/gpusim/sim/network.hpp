#pragma once
// Network sharing (docs/guide/topology.md): the multi-node jobs whose collectives cross nodes
// share each node's NICs max-min fairly; a job's link is the slower of its in-node ring and its
// share of the NICs. The component owns the set of such jobs and the links they get.
#include <cstdint>
#include <limits>
#include <vector>

#include "gpusim/core/paged_vector.hpp"
#include "gpusim/hardware/topology.hpp"
#include "gpusim/sim/cluster.hpp"
#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/job_state.hpp"

namespace gpusim {

// The slowest link of the best ring over the placement's GPUs, node by node. With `best`, of the
// best ring over as many GPUs of each node, plus the NICs unshared when it spans nodes: the link a
// job's work was measured over.
Link ring_link(const Cluster& c, const Placement& p, bool best = false);

class NetworkSharing {
 public:
  // A running communicating job that spans nodes joins; one that stops leaves (true if it was in).
  void join(JobId id);
  bool leave(JobId id);
  // Max-min fair NIC shares of the jobs in; sets each one's record.link and appends those whose
  // link changed to `changed`.
  void share(const Cluster& c, std::vector<JobRecord>& records, const JobFlights& flights, std::vector<JobId>& changed);

 private:
  static constexpr uint32_t kNoLink = std::numeric_limits<uint32_t>::max();
  std::vector<JobId> jobs_;  // ascending
  // share's scratch, kept so that sharing allocates nothing once grown
  PagedVector<uint32_t> link_of_node_{0, kNoLink};  // a node's link index, else kNoLink
  std::vector<NodeId> links_;
  FlowPaths paths_;
  std::vector<double> caps_, capacity_, shares_;
  MaxMinScratch scratch_;
  // The input of the last solve, whose output shares_ holds.
  std::vector<double> solved_capacity_, solved_caps_;
  FlowPaths solved_paths_;
};

}  // namespace gpusim
