#pragma once
// DRA, Kubernetes Dynamic Resource Allocation (resource.k8s.io/v1; kubernetes.io/docs/concepts/
// scheduling-eviction/dynamic-resource-allocation): DeviceClasses select devices by CEL expressions,
// ResourceClaimTemplates and ResourceClaims hold device requests (a class, a count or allocationMode
// All, more selectors). A pod that names a template gets a claim of its own made from it; a pod that
// names a ResourceClaim (of its namespace) takes that claim. Either is allocated specific devices.
// A ResourceClaim named by several pods shares its devices among them, which gpusim's exclusive
// device accounting cannot model: that is bad input. Devices are what NVIDIA's DRA driver publishes for each GPU of a pool
// (hardware/dra_devices.hpp): the whole GPU, and on MIG pools the MIG devices of the layout; on
// partitionable pools (SharingConfig::mig_partitionable) the whole GPU and every MIG placement.
// Part of the scenario's `tenancy:` block (docs/guide/tenants.md, DRA claims). A job's claim becomes a capacity
// claim (Request::claim) whose device selector (Request::device_selector) is worked out once per
// pool and device kind here (PoolSpec::device_match), so the fit rules (sim/fit.hpp) answer every
// caller alike and no CEL runs during a simulation.
#include <cstdint>
#include <string>
#include <vector>

#include "gpusim/core/error.hpp"
#include "gpusim/core/fields.hpp"
#include "gpusim/hardware/cel.hpp"

namespace gpusim {

struct Scenario;

struct DraSelector {
  cel::Expression expression;
  SourceLocation where;
};

struct DeviceClassSpec {
  std::string name;
  std::vector<DraSelector> selectors;
};

// One device request of a claim (ResourceClaimSpec.devices.requests[].exactly).
struct DeviceRequestSpec {
  std::string name;
  uint32_t device_class = 0;  // index into DraSpec::classes
  int32_t count = 1;          // allocationMode ExactCount
  bool all = false;           // allocationMode All: every matching device of the node
  std::vector<DraSelector> selectors;
};

// A ResourceClaimTemplate's or a ResourceClaim's spec.
struct ClaimSpec {
  std::string name;
  std::string ns;  // its namespace; "" (templates only): every namespace may use it
  std::vector<DeviceRequestSpec> requests;
  SourceLocation where;
};

struct DraSpec {
  std::vector<DeviceClassSpec> classes;
  std::vector<ClaimSpec> templates;
  std::vector<ClaimSpec> claims;  // ResourceClaims, each in a namespace
  // The channel templates of ComputeDomains: a pod naming one runs inside one NVLink domain.
  std::vector<std::string> channel_templates;
};

// The fields of `tenancy:` this part declares, and their reader (its Fields are tenancy's).
std::vector<Field> dra_fields();
DraSpec read_dra(const Fields& tenancy);

// Binds every job's resource_claims to their templates (in the job's namespace, else one without a
// namespace) and ResourceClaims (in the job's namespace; one pod each), evaluates each device
// request's selectors (its class's, then its own) on every pool's device kinds into
// PoolSpec::device_match, and turns each such job's request into a claim on the devices they match.
// Without DRA objects and claims it changes nothing. Throws InputError naming the file, the field
// and what was expected.
void apply_dra(Scenario& s);

}  // namespace gpusim
