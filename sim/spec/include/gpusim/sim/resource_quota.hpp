#pragma once
// Namespace ResourceQuotas (`tenancy.resource_quotas`; docs/guide/tenants.md) and their admission: when a
// job's pods are created, a job whose requests would take its namespace's usage over a matching
// quota's hard limit is rejected for good, never queued
// (https://kubernetes.io/docs/concepts/policy/resource-quotas/). Usage is the requests of the
// namespace's pods that have not ended (pending and running); a job gives its share back when it
// completes or fails.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/fields.hpp"
#include "gpusim/sim/priority_classes.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim {

// What a hard limit counts, per job: its GPUs of one device-plugin resource, its CPU (milli) and
// memory (bytes) over its pods, or its pods.
enum class QuotaResource : uint8_t { device, cpu, memory, pods };

struct QuotaLimit {
  std::string name;  // as written, e.g. requests.nvidia.com/gpu
  QuotaResource resource = QuotaResource::device;
  std::string device;  // QuotaResource::device: the resource, e.g. nvidia.com/gpu or amd.com/cpx_nps4
  int64_t hard = 0;    // GPUs or pods; milli-CPU; bytes
};

// One scopeSelector.matchExpressions entry on scopeName PriorityClass.
struct ScopeExpression {
  enum class Op : uint8_t { In, NotIn, Exists, DoesNotExist };
  friend constexpr auto enum_table(Op) {
    return std::to_array<EnumName<Op>>(
        {{Op::In, "In"}, {Op::NotIn, "NotIn"}, {Op::Exists, "Exists"}, {Op::DoesNotExist, "DoesNotExist"}});
  }
  Op op = Op::In;
  std::vector<std::string> values;
};

struct ResourceQuota {
  static constexpr uint16_t kNoTenant = 0xFFFFu;
  std::string name;
  uint16_t tenant = kNoTenant;  // its namespace (JobSet::tenants); kNoTenant: no job is in it
  std::vector<QuotaLimit> hard;
  std::vector<ScopeExpression> scope;  // all must match; none: every pod of the namespace
};

const Section& resource_quota_section();

// Reads tenancy.resource_quotas. Throws InputError on an unknown resource name in `hard`, a malformed
// quantity or scope selector, naming the file and field.
std::vector<ResourceQuota> read_resource_quotas(const ConfigNode& list, const JobSet& jobs);

// The admission component: one call when a job's pods are created, one when they end.
class QuotaAdmission {
 public:
  QuotaAdmission(const std::vector<ResourceQuota>& quotas, const PrioritySpec& priority, const JobSet& jobs);
  // Charges the job to every quota of its namespace whose scope matches it, or, when one of them
  // would go over its hard limit, charges nothing and returns why (Kubernetes' "exceeded quota: NAME,
  // requested: RESOURCE", without the per-job figures so that reasons add up).
  std::optional<std::string_view> admit(const Job& j);
  // The job's pods ended (completed, failed for good): its usage is given back. Jobs never charged
  // are ignored.
  void release(const Job& j);
  // What a job counts toward a limit.
  static int64_t usage(const Job& j, const QuotaLimit& limit);

 private:
  bool in_scope(const ResourceQuota& q, const Job& j) const;

  const std::vector<ResourceQuota>& quotas_;
  const PrioritySpec& priority_;
  const JobSet& jobs_;
  std::vector<std::vector<int64_t>> used_;  // per quota, per limit
  std::vector<std::string> reasons_;        // per quota and limit, made once
  std::vector<std::size_t> first_reason_;   // per quota: its first limit's reason
  std::vector<bool> charged_;               // per job
};

}  // namespace gpusim
