#pragma once
// `tenancy.kueue`: Kueue's objects (kueue.sigs.k8s.io, API kueue.x-k8s.io/v1beta1) in gpusim's
// snake_case (docs/guide/tenants.md, Kueue maps every field to Kueue's): ResourceFlavors matched to node
// pools by their labels, ClusterQueues with quotas per flavor and resource, hierarchical Cohorts,
// LocalQueues per namespace, and the global fair-sharing settings of Kueue's Configuration.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/core/fields.hpp"
#include "gpusim/core/time.hpp"

namespace gpusim {

struct Scenario;

// ClusterQueue.spec.queueingStrategy.
enum class QueueingStrategy : uint8_t { strict_fifo, best_effort_fifo };
constexpr auto enum_table(QueueingStrategy) {
  return std::to_array<EnumName<QueueingStrategy>>(
      {{QueueingStrategy::strict_fifo, "StrictFIFO"}, {QueueingStrategy::best_effort_fifo, "BestEffortFIFO"}});
}

// ClusterQueue.spec.preemption.withinClusterQueue / reclaimWithinCohort / borrowWithinCohort.policy
// (each takes some of these values only).
enum class KueuePreemptionPolicy : uint8_t { never, lower_priority, lower_or_newer_equal_priority, any };
constexpr auto enum_table(KueuePreemptionPolicy) {
  return std::to_array<EnumName<KueuePreemptionPolicy>>(
      {{KueuePreemptionPolicy::never, "Never"},
       {KueuePreemptionPolicy::lower_priority, "LowerPriority"},
       {KueuePreemptionPolicy::lower_or_newer_equal_priority, "LowerOrNewerEqualPriority"},
       {KueuePreemptionPolicy::any, "Any"}});
}

// ClusterQueue.spec.flavorFungibility.whenCanBorrow / whenCanPreempt.
enum class Fungibility : uint8_t { borrow, preempt, try_next_flavor };
constexpr auto enum_table(Fungibility) {
  return std::to_array<EnumName<Fungibility>>(
      {{Fungibility::borrow, "Borrow"}, {Fungibility::preempt, "Preempt"}, {Fungibility::try_next_flavor, "TryNextFlavor"}});
}

// Configuration.fairSharing.preemptionStrategies.
enum class FairSharingStrategy : uint8_t { less_than_or_equal_to_final_share, less_than_initial_share };
constexpr auto enum_table(FairSharingStrategy) {
  return std::to_array<EnumName<FairSharingStrategy>>(
      {{FairSharingStrategy::less_than_or_equal_to_final_share, "LessThanOrEqualToFinalShare"},
       {FairSharingStrategy::less_than_initial_share, "LessThanInitialShare"}});
}

// A resource's quantities in gpusim's units: GPUs and other device counts as counts, cpu in
// milli-CPU, memory in MiB.
struct KueueResourceQuota {
  std::string resource;  // nvidia.com/gpu, nvidia.com/mig-<profile>, nvidia.com/gpu.shared, cpu, memory
  int64_t nominal = 0;
  std::optional<int64_t> borrowing_limit;  // none: unlimited
  std::optional<int64_t> lending_limit;    // none: all its unused nominal quota may be lent
};

struct KueueFlavorQuotas {
  uint32_t flavor = 0;  // index into KueueSpec::flavors
  std::vector<KueueResourceQuota> resources;
};

struct KueueResourceGroup {
  std::vector<std::string> covered_resources;
  std::vector<KueueFlavorQuotas> flavors;  // in the order Kueue tries them
};

struct KueueFlavor {
  std::string name;
  std::vector<std::pair<std::string, std::string>> node_labels;
  uint64_t pool_mask = 0;  // the pools whose labels include every node label
};

struct KueueCohort {
  std::string name;
  std::string parent;  // "": a root
  std::vector<KueueResourceGroup> resource_groups;
  double weight = 1;     // fair_sharing.weight
  bool declared = true;  // false: only named by a ClusterQueue (Kueue creates it implicitly)
};

struct KueueClusterQueue {
  std::string name;
  std::string cohort;  // "": none
  std::vector<KueueResourceGroup> resource_groups;
  QueueingStrategy queueing_strategy = QueueingStrategy::best_effort_fifo;
  KueuePreemptionPolicy within_cluster_queue = KueuePreemptionPolicy::never;
  KueuePreemptionPolicy reclaim_within_cohort = KueuePreemptionPolicy::never;
  KueuePreemptionPolicy borrow_within_cohort = KueuePreemptionPolicy::never;
  std::optional<int32_t> max_priority_threshold;
  Fungibility when_can_borrow = Fungibility::borrow;
  Fungibility when_can_preempt = Fungibility::try_next_flavor;
  double weight = 1;  // fair_sharing.weight
};

struct KueueLocalQueue {
  std::string name;
  std::string namespace_name;
  uint32_t cluster_queue = 0;  // index into KueueSpec::cluster_queues
};

struct KueueSpec {
  std::vector<KueueFlavor> flavors;
  std::vector<KueueCohort> cohorts;  // declared ones, then the implicit ones ClusterQueues name
  std::vector<KueueClusterQueue> cluster_queues;
  std::vector<KueueLocalQueue> local_queues;
  bool fair_sharing = false;
  std::vector<FairSharingStrategy> fair_sharing_strategies{FairSharingStrategy::less_than_or_equal_to_final_share,
                                                           FairSharingStrategy::less_than_initial_share};
  bool enabled() const { return !cluster_queues.empty(); }
};

const Section& kueue_section();

// Reads `tenancy.kueue` and checks it against the scenario's pools and jobs: an unknown flavor,
// cluster queue, cohort or queue, a cycle of cohorts or a negative quota is an InputError naming the
// file, the field and what was expected.
KueueSpec read_kueue(const ConfigNode& node, const Scenario& s);
// Every job naming a queue names a LocalQueue of its namespace (its tenant).
void check_kueue_queues(const KueueSpec& k, const Scenario& s);

}  // namespace gpusim
