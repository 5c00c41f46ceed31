#include "gpusim/sim/dra.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "gpusim/hardware/dra_devices.hpp"
#include "gpusim/sim/scenario.hpp"

namespace gpusim {

namespace {

constexpr std::string_view kSelectorHelp =
    "selectors are CEL over device.driver, device.attributes[DRIVER].NAME and device.capacity[DRIVER].NAME, DRIVER being "
    "\"gpu.nvidia.com\", \"gpu.amd.com\" or \"gaudi.intel.com\"; docs/guide/tenants.md, DRA claims";

// A selector as Kubernetes writes it: {cel: {expression: "..."}} (DeviceSelector, CELDeviceSelector).
const Section& cel_selector_section() {
  static const Section s{
      "cel_device_selector",
      "A CEL device selector (selectors[].cel)",
      {{"expression", Type::string(), required, "", "The CEL expression (docs/guide/tenants.md, DRA claims)"}}};
  return s;
}
const Section& device_selector_section() {
  static const Section s{"device_selector",
                         "A device selector in Kubernetes' form (selectors[])",
                         {{"cel", Type::section(cel_selector_section()), required, "", "A CEL selector"}}};
  return s;
}
// CEL expressions: a string, or a list of strings and Kubernetes' {cel: {expression: ...}} maps.
Type selectors_type() {
  return Type::one_of({Type::string(), Type::list(Type::one_of({Type::string(), Type::section(device_selector_section())}))});
}

const Section& device_class_section() {
  static const Section s{
      "device_class",
      "A DeviceClass: the devices its selectors all accept",
      {
          {"name", Type::string(), required, "", "Its name, which device requests give as device_class"},
          {"selectors", selectors_type(), "", "", "CEL expressions a device must all satisfy (spec.selectors[].cel.expression)"},
      }};
  return s;
}

const Section& device_request_section() {
  static const Section s{
      "device_request",
      "One device request of a claim (spec.devices.requests[].exactly)",
      {
          {"name", Type::string(), required, "", "Its name in the claim"},
          {"device_class", Type::string(), required, "", "The DeviceClass whose devices it takes (deviceClassName)"},
          {"count", Type::integer().at_least(1).at_most(kJobGpuRange.maximum->value), "", "",
           "Devices it takes (allocationMode ExactCount); absent: 1"},
          {"allocation_mode", Type::choice({"ExactCount", "All"}), "ExactCount", "",
           "ExactCount: count devices; All: every matching device of the node"},
          {"selectors", selectors_type(), "", "", "CEL expressions a device must also satisfy, after its class's"},
      }};
  return s;
}

Field requests_field() {
  return {"requests", Type::list(Type::section(device_request_section())), required, "",
          "Its device requests (gpusim places one kind of device per job: one request)"};
}

const Section& claim_template_section() {
  static const Section s{"resource_claim_template",
                         "A ResourceClaimTemplate: each pod that names it gets a claim of its own made from it",
                         {
                             {"name", Type::string(), required, "", "Its name, which jobs give in resource_claims"},
                             {"namespace", Type::string(), "", "", "Its namespace; absent: every namespace may use it"},
                             requests_field(),
                         }};
  return s;
}

const Section& compute_domain_template_section() {
  static const Section s{"compute_domain_template",
                         "The ResourceClaimTemplate the ComputeDomain's controller makes",
                         {{"name", Type::string(), required, "", "Its name, which pods give in resource_claims"}}};
  return s;
}

const Section& compute_domain_channel_section() {
  static const Section s{"compute_domain_channel",
                         "The IMEX channel of a ComputeDomain",
                         {{"resourceClaimTemplate", Type::section(compute_domain_template_section()), required, "",
                           "The template pods claim the channel by"}}};
  return s;
}

// NVIDIA's DRA driver's ComputeDomain (resource.nvidia.com/v1beta1): an IMEX domain across the nodes of
// one NVLink domain, its channel claimed by a template the controller makes.
const Section& compute_domain_section() {
  static const Section s{"compute_domain",
                         "A ComputeDomain (NVIDIA's DRA driver): the pods claiming its channel run in one NVLink domain",
                         {
                             {"name", Type::string(), required, "", "Its name"},
                             {"numNodes", Type::integer().at_least(0), "", "", "Accepted (deprecated by the driver)"},
                             {"channel", Type::section(compute_domain_channel_section()), required, "",
                              "channel.resourceClaimTemplate.name: the template pods name in resource_claims"},
                         }};
  return s;
}

// A ResourceClaim is a namespaced object; a manifest without metadata.namespace puts it in "default".
const Section& resource_claim_section() {
  static const Section s{"resource_claim",
                         "A ResourceClaim: a claim object one pod of its namespace names (resource_claim_name)",
                         {
                             {"name", Type::string(), required, "", "Its name, which a job gives as resource_claim_name"},
                             {"namespace", Type::string(), "default", "", "Its namespace: only pods of it may name the claim"},
                             requests_field(),
                         }};
  return s;
}

std::vector<DraSelector> read_selectors(const Fields& f) {
  std::vector<DraSelector> out;
  auto node = f.get("selectors");
  if (!node) return out;
  for (const ConfigNode& item : node->is_sequence() ? node->items() : std::vector<ConfigNode>{*node}) {
    const ConfigNode text = item.is_map()
                                ? cel_selector_section().read(device_selector_section().read(item).at("cel")).at("expression")
                                : item;
    try {
      out.push_back({cel::Expression::compile(text.as_string()), text.where()});
    } catch (const cel::SyntaxError& e) {
      text.fail(fmt::format("column {}: {} ({})", e.column, e.message, kSelectorHelp));
    }
  }
  return out;
}

std::vector<DeviceRequestSpec> read_requests(const Fields& f, const std::vector<DeviceClassSpec>& classes) {
  std::vector<DeviceRequestSpec> requests;
  for (const ConfigNode& r : f.at("requests").items()) {
    const Fields rf = device_request_section().read(r);
    const std::string mode = rf.value("allocation_mode").as_string();
    if (mode != "ExactCount" && mode != "All")
      rf.at("allocation_mode").fail(fmt::format("expected ExactCount or All, got '{}'", mode));
    DeviceRequestSpec q{rf.at("name").as_string(), 0, 1, mode == "All", read_selectors(rf)};
    const std::string cls = rf.at("device_class").as_string();
    const auto c = std::find_if(classes.begin(), classes.end(), [&](const DeviceClassSpec& d) { return d.name == cls; });
    if (c == classes.end()) {
      std::vector<std::string> known;
      for (const DeviceClassSpec& d : classes) known.push_back(d.name);
      rf.at("device_class")
          .fail(fmt::format("unknown DeviceClass '{}'; expected one of tenancy.device_classes: {}", cls,
                            known.empty() ? "(none)" : fmt::format("{}", fmt::join(known, ", "))));
    }
    q.device_class = static_cast<uint32_t>(c - classes.begin());
    if (auto n = rf.get("count")) {
      if (q.all) n->fail("count goes with allocation_mode ExactCount; All takes every matching device");
      q.count = n->as_int<int32_t>(rf.range("count"));
    }
    if (std::any_of(requests.begin(), requests.end(), [&](const auto& o) { return o.name == q.name; }))
      rf.at("name").fail(fmt::format("a second request named '{}' in this claim", q.name));
    requests.push_back(std::move(q));
  }
  return requests;
}

std::string names_or_none(const std::vector<std::string>& names) {
  return names.empty() ? "(none)" : fmt::format("{}", fmt::join(names, ", "));
}

// A device of one of a pool's device kinds, named for messages.
struct DeviceKind {
  cel::Device device;
  std::string name;
};

std::vector<DeviceKind> device_kinds(const GpuModel& gpu) {
  std::vector<DeviceKind> kinds{{whole_gpu_device(gpu), fmt::format("the whole-GPU device of {}", gpu.name)}};
  if (gpu.mig)
    for (const MigProfile& p : gpu.mig->profiles)
      kinds.push_back({mig_device(gpu, p), fmt::format("the MIG {} device of {}", p.name, gpu.name)});
  return kinds;
}

// Do a class's selectors, then a request's, all accept `kind`? The first that says false decides,
// as the scheduler's allocator checks them; an error is bad input here (Kubernetes aborts the
// allocation, so no pod using the request could ever be placed).
bool accepts(const DeviceKind& kind, const std::vector<DraSelector>& class_selectors, const std::vector<DraSelector>& own) {
  for (const auto* list : {&class_selectors, &own})
    for (const DraSelector& s : *list) {
      const cel::Expression::Result r = s.expression.evaluate(kind.device);
      if (!r.error.empty())
        throw InputError(s.where, fmt::format("on {}: {}; Kubernetes aborts an allocation whose selector fails (test the type or "
                                              "has(...) first)",
                                              kind.name, r.error));
      if (!r.value) return false;
    }
  return true;
}

// Matching devices of one node of `pool` (its largest shape) a job may hold for a request matching `mask`.
int32_t matching_per_node(const PoolSpec& pool, uint64_t mask) {
  int32_t gpus = 0;
  pool.for_each_shape([&](const PoolSpec::NodeSpec& n, uint32_t) { gpus = std::max(gpus, n.gpus); });
  int32_t count = 0;
  for (int32_t g = 0; g < gpus; ++g) {
    const auto& layouts = pool.sharing.mig_layouts;
    if (pool.sharing.mode == Sharing::mig && static_cast<std::size_t>(g) < layouts.size() && layouts[g]) {
      // A job holds one device per GPU (fit rules): a GPU counts once, however many of its instances
      // match; a partitionable one also publishes itself whole.
      count += static_cast<int32_t>((pool.sharing.mig_partitionable && (mask & 1)) ||
                                    std::any_of(layouts[g]->begin(), layouts[g]->end(),
                                                [&](const MigInstance& in) { return mask >> (1 + in.profile) & 1; }));
    } else {
      count += static_cast<int32_t>(mask & 1);
    }
  }
  return count;
}

// The spec a job's resource_claims entry names (a template of its namespace, else one for every
// namespace; a ResourceClaim of its namespace), or an InputError at `where`.
const ClaimSpec& find_claim(const DraSpec& dra, const PodClaimRef& ref, const std::string& ns, const Job& j,
                            const SourceLocation& where) {
  const std::vector<ClaimSpec>& specs = ref.from_template ? dra.templates : dra.claims;
  auto named = [&](std::string_view in) {
    return std::find_if(specs.begin(), specs.end(), [&](const ClaimSpec& o) { return o.name == ref.name && o.ns == in; });
  };
  auto it = named(ns);
  if (it == specs.end() && ref.from_template) it = named("");
  if (it != specs.end()) return *it;
  const std::string_view kind = ref.from_template ? "ResourceClaimTemplate" : "ResourceClaim";
  if (!ref.from_template) {
    // A pod references a claim by name in its own namespace (PodResourceClaim.resourceClaimName).
    const auto other = std::find_if(specs.begin(), specs.end(), [&](const ClaimSpec& o) { return o.name == ref.name; });
    if (other != specs.end())
      throw InputError(where, fmt::format("job {}: ResourceClaim '{}' is in namespace {}; a pod (namespace {}) may only name a "
                                          "claim of its own namespace",
                                          j.name, ref.name, other->ns, ns));
  }
  std::vector<std::string> known;
  for (const ClaimSpec& o : specs)
    if (o.ns == ns || (ref.from_template && o.ns.empty())) known.push_back(o.name);
  throw InputError(
      where, fmt::format("job {}: unknown {} '{}' in namespace {}; expected one of tenancy.{}: {}", j.name, kind, ref.name, ns,
                         ref.from_template ? "resource_claim_templates" : "resource_claims", names_or_none(known)));
}

}  // namespace

std::vector<Field> dra_fields() {
  return {
      {"device_classes", Type::list(Type::section(device_class_section())), "", "",
       "DRA DeviceClasses (docs/guide/tenants.md, DRA claims)"},
      {"resource_claim_templates", Type::list(Type::section(claim_template_section())), "", "",
       "DRA ResourceClaimTemplates jobs name in resource_claims"},
      {"resource_claims", Type::list(Type::section(resource_claim_section())), "", "",
       "DRA ResourceClaims, each of which one job of its namespace may name in resource_claims (resource_claim_name)"},
      {"compute_domains", Type::list(Type::section(compute_domain_section())), "", "",
       "ComputeDomains (NVIDIA's DRA driver): a job naming one's channel template runs inside one NVLink domain"},
  };
}

DraSpec read_dra(const Fields& tenancy) {
  DraSpec dra;
  if (auto classes = tenancy.get("device_classes"))
    for (const ConfigNode& e : classes->items()) {
      const Fields f = device_class_section().read(e);
      DeviceClassSpec c{f.at("name").as_string(), read_selectors(f)};
      if (std::any_of(dra.classes.begin(), dra.classes.end(), [&](const DeviceClassSpec& o) { return o.name == c.name; }))
        f.at("name").fail(fmt::format("a second DeviceClass named '{}'", c.name));
      dra.classes.push_back(std::move(c));
    }
  if (auto templates = tenancy.get("resource_claim_templates"))
    for (const ConfigNode& e : templates->items()) {
      const Fields f = claim_template_section().read(e);
      const auto ns = f.get("namespace");
      ClaimSpec t{f.at("name").as_string(), ns ? ns->as_string() : "", {}, e.where()};
      if (std::any_of(dra.templates.begin(), dra.templates.end(),
                      [&](const auto& o) { return o.name == t.name && o.ns == t.ns; }))
        f.at("name").fail(fmt::format("a second ResourceClaimTemplate named '{}' in {}", t.name,
                                      t.ns.empty() ? "every namespace" : "namespace " + t.ns));
      t.requests = read_requests(f, dra.classes);
      dra.templates.push_back(std::move(t));
    }
  if (auto domains = tenancy.get("compute_domains"))
    for (const ConfigNode& e : domains->items()) {
      const Fields f = compute_domain_section().read(e);
      const Fields channel = compute_domain_channel_section().read(f.at("channel"));
      const std::string name = compute_domain_template_section().read(channel.at("resourceClaimTemplate")).at("name").as_string();
      if (std::find(dra.channel_templates.begin(), dra.channel_templates.end(), name) != dra.channel_templates.end())
        f.at("channel").fail(fmt::format("a second ComputeDomain channel template named '{}'", name));
      dra.channel_templates.push_back(name);
    }
  if (auto claims = tenancy.get("resource_claims"))
    for (const ConfigNode& e : claims->items()) {
      const Fields f = resource_claim_section().read(e);
      ClaimSpec c{f.at("name").as_string(), f.value("namespace").as_string(), {}, e.where()};
      if (std::any_of(dra.claims.begin(), dra.claims.end(), [&](const auto& o) { return o.name == c.name && o.ns == c.ns; }))
        f.at("name").fail(fmt::format("a second ResourceClaim named '{}' in namespace {}", c.name, c.ns));
      c.requests = read_requests(f, dra.classes);
      dra.claims.push_back(std::move(c));
    }
  return dra;
}

void apply_dra(Scenario& s) {
  const DraSpec& dra = s.tenancy.dra;
  const bool claims = std::any_of(s.jobs.pods.begin(), s.jobs.pods.end(),
                                  [](const PodSpec& p) { return !p.resource_claims.empty(); });
  if (dra.templates.empty() && dra.claims.empty() && !claims) return;
  // Every device request of every template, then of every ResourceClaim, is a selector
  // (Request::device_selector - 1), in order.
  std::vector<const DeviceRequestSpec*> requests;
  std::map<const ClaimSpec*, uint32_t> first_request;
  for (const auto* specs : {&dra.templates, &dra.claims})
    for (const ClaimSpec& c : *specs) {
      first_request[&c] = static_cast<uint32_t>(requests.size());
      for (const DeviceRequestSpec& r : c.requests) requests.push_back(&r);
    }
  if (requests.size() >= 0xFFFF)
    throw InputError((dra.claims.empty() ? dra.templates : dra.claims).back().where,
                     "at most 65,534 device requests are supported");
  // Each model's device kinds are evaluated once, for every pool of that model.
  std::map<const GpuModel*, std::vector<uint64_t>> by_model;
  std::vector<int32_t> most_per_node(requests.size(), 0);  // allocationMode All
  for (PoolSpec& pool : s.pools) {
    if (!pool.gpu) {
      pool.device_match.assign(requests.size(), 0);
      continue;
    }
    auto [it, added] = by_model.try_emplace(pool.gpu);
    if (added) {
      const std::vector<DeviceKind> kinds = device_kinds(*pool.gpu);
      if (kinds.size() > 64) throw InputError({}, fmt::format("{} has more than 63 MIG profiles", pool.gpu->name));
      for (const DeviceRequestSpec* r : requests) {
        uint64_t mask = 0;
        for (std::size_t k = 0; k < kinds.size(); ++k)
          if (accepts(kinds[k], dra.classes[r->device_class].selectors, r->selectors)) mask |= uint64_t{1} << k;
        it->second.push_back(mask);
      }
    }
    pool.device_match = it->second;
    for (std::size_t r = 0; r < requests.size(); ++r)
      most_per_node[r] = std::max(most_per_node[r], matching_per_node(pool, pool.device_match[r]));
  }

  std::map<const ClaimSpec*, const Job*> claimed_by;  // ResourceClaims: the job whose pod names it
  for (Job& j : s.jobs.jobs) {
    const PodSpec* pod = s.jobs.pod(j);
    if (!pod || pod->resource_claims.empty()) continue;
    SourceLocation where = s.jobs.where(j);
    const std::string field = where.field;
    where.field += ".resource_claims";
    const std::string& ns = s.jobs.tenants[j.tenant];
    Request& q = j.request;
    // Each pod gets its own claim from a template (one per worker of a multi-worker job); a
    // multi-node job without workers has a pod per node it spans.
    int32_t& per_pod = q.worker_gpus > 0 ? q.worker_gpus : q.gpus;
    const int32_t pods = q.worker_gpus > 0 ? q.gpus / q.worker_gpus : 1;
    const bool several_pods = pods > 1 || (q.worker_gpus == 0 && j.multi_node && q.gpus > 1);
    std::size_t held = 0;
    const ClaimSpec* chosen = nullptr;
    std::string_view kind;
    for (const PodClaimRef& ref : pod->resource_claims) {
      // A ComputeDomain's IMEX channel holds no GPU: it keeps the job's nodes in one NVLink domain.
      if (ref.from_template &&
          std::find(dra.channel_templates.begin(), dra.channel_templates.end(), ref.name) != dra.channel_templates.end()) {
        q.one_nvlink_domain = true;
        continue;
      }
      const ClaimSpec& c = find_claim(dra, ref, ns, j, where);
      if (!ref.from_template) {
        // Pods naming one ResourceClaim share its devices (ResourceClaimStatus.reservedFor lists them
        // all), which exclusive device accounting cannot model.
        const auto [other, added] = claimed_by.try_emplace(&c, &j);
        if (!added && other->second == &j)
          throw InputError(where,
                           fmt::format("job {}: ResourceClaim '{}' is named twice; expected each claim once", j.name, c.name));
        if (!added || several_pods)
          throw InputError(
              where,
              fmt::format("job {}: ResourceClaim '{}' is named by {}; a ResourceClaim's devices shared by "
                          "several pods are not modelled; use a ResourceClaimTemplate",
                          j.name, c.name, added ? "several pods of this job" : fmt::format("job {} too", other->second->name)));
      }
      held += c.requests.size();
      chosen = &c;
      kind = ref.from_template ? "ResourceClaimTemplate" : "ResourceClaim";
    }
    if (held == 0 && q.one_nvlink_domain) continue;  // its GPUs come from the device plugin (nvidia.com/gpu)
    if (held != 1)
      throw InputError(where, fmt::format("job {}: its claims hold {} device requests; gpusim places one kind of device per job "
                                          "(expected one claim or template with one request)",
                                          j.name, held));
    const uint32_t index = first_request.at(chosen);
    const DeviceRequestSpec& r = *requests[index];
    if (q.fractional())
      throw InputError(
          where, fmt::format("job {}: a DRA claim allocates whole devices; it cannot go with gpu_milli below 1000", j.name));
    if (r.all) {
      // Every matching device of the node: the most any node has (nodes with fewer cannot hold it).
      if (most_per_node[index] == 0)
        throw InputError(where, fmt::format("job {}: no node has a device that request '{}' of {} '{}' "
                                            "matches (allocation_mode All needs at least one)",
                                            j.name, r.name, kind, chosen->name));
      per_pod = most_per_node[index];
      q.gpus = pods * per_pod;
    } else if (per_pod != r.count) {
      // A service's replica holds tensor_parallel GPUs: that is the field to change, not a gpus the user never wrote.
      const auto index_of_job = static_cast<uint32_t>(&j - s.jobs.jobs.data());
      const auto svc = std::find_if(s.services.begin(), s.services.end(), [&](const ServiceSpec& v) {
        return index_of_job >= v.first_job && index_of_job < v.first_job + static_cast<uint32_t>(v.max_replicas);
      });
      SourceLocation at = where;
      at.field = field + ".gpus";
      std::string_view named = "gpus";
      if (svc != s.services.end()) {
        at = {svc->where.file, svc->where.line, svc->where.field + ".tensor_parallel"};
        named = "tensor_parallel";
      }
      throw InputError(at, fmt::format("job {}: its {} '{}' asks {} device(s) per pod (request '{}'); "
                                       "expected {}: {}, got {}",
                                       j.name, kind, chosen->name, r.count, r.name, named, r.count, per_pod));
    }
    q.claim = true;
    q.device_selector = static_cast<uint16_t>(index + 1);
  }
}

}  // namespace gpusim
