#include "k8s_objects.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "gpusim/core/ascii.hpp"
#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/number.hpp"
#include "gpusim/sim/kueue_spec.hpp"
#include "gpusim/sim/priority_classes.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim::cli::k8s {

bool TenancyOut::any() const {
  for (const auto* v : {&priority_classes, &budgets, &quotas, &flavors, &cohorts, &cluster_queues, &local_queues, &device_classes,
                        &claim_templates, &resource_claims})
    if (!v->empty()) return true;
  return false;
}

namespace {

// Kueue's camelCase field names as the scenario's snake_case.
std::string snake(std::string_view camel) {
  std::string s;
  for (char c : camel) {
    if (const char lower = ascii_lower(c); lower != c) {
      s += '_';
      s += lower;
    } else {
      s += c;
    }
  }
  return s;
}

void read_priority_class(const Object& o, TenancyOut& t, std::vector<std::string>& ignored) {
  // scheduling.k8s.io/v1 PriorityClass: value, preemptionPolicy, globalDefault, description at the top level.
  YAML::Node c(YAML::NodeType::Map);
  c["name"] = o.name;
  c["value"] = whole(o, at(o.node, {"value"}), "value", -2147483648LL, 2147483647LL);  // system classes exceed 1e9
  if (const YAML::Node p = at(o.node, {"preemptionPolicy"}))
    c["preemption_policy"] = one_of(o, p, "preemptionPolicy", {"PreemptLowerPriority", "Never"});
  if (const YAML::Node g = at(o.node, {"globalDefault"}))
    c["global_default"] = one_of(o, g, "globalDefault", {"true", "false"}) == "true";
  if (const YAML::Node d = at(o.node, {"description"})) {
    expect(o, d, "description", YAML::NodeType::Scalar);
    c["description"] = d.Scalar();
  }
  if (!t.class_names.insert(o.name).second)
    o.fail(at(o.node, {"metadata", "name"}), "metadata.name", "a second PriorityClass of this name");
  t.priority_classes.push_back(c);
  report_fields(
      o, "", other_keys(o.node, {"apiVersion", "kind", "metadata", "value", "preemptionPolicy", "globalDefault", "description"}),
      "not modelled", ignored);
}

// minAvailable / maxUnavailable: a count or "N%" (the scenario reader's budget_percent).
YAML::Node count_or_percent(const Object& o, const YAML::Node& n, const std::string& field) {
  expect(o, n, field, YAML::NodeType::Scalar);
  const std::string text = scalar(n);
  if (text.ends_with('%')) {
    if (!budget_percent(text))
      o.fail(n, field,
             fmt::format("expected a count or a percent (2, \"50%\"), a whole percent from 0% to 100%, got '{}'", text));
    return YAML::Node(text);
  }
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); }) || text.size() > 9)
    o.fail(n, field, fmt::format("expected a count or a percent (2, \"50%\"), got '{}'", text));
  return YAML::Node(std::stoll(text));
}

void read_budget(const Object& o, TenancyOut& t, std::vector<std::string>& ignored) {
  const YAML::Node spec = at(o.node, {"spec"});
  expect(o, spec, "spec", YAML::NodeType::Map);
  const YAML::Node sel = at(spec, {"selector"});
  expect(o, sel, "spec.selector", YAML::NodeType::Map);
  if (at(sel, {"matchExpressions"})) {
    // Dropping the expressions would widen the budget to pods it does not cover.
    ignored.push_back(o.id() + ": spec.selector.matchExpressions (gpusim's budgets select by matchLabels only)");
    return;
  }
  const YAML::Node min = at(spec, {"minAvailable"}), max = at(spec, {"maxUnavailable"});
  if (min && max) o.fail(spec, "spec", "minAvailable and maxUnavailable: give one of them (Kubernetes refuses both)");
  if (!min && !max) o.fail(spec, "spec", "expected minAvailable or maxUnavailable");
  YAML::Node b(YAML::NodeType::Map);
  b["name"] = o.name;
  b["namespace"] = ns_of(o);
  YAML::Node s(YAML::NodeType::Map);
  s["match_labels"] = string_map(o, at(sel, {"matchLabels"}), "spec.selector.matchLabels");
  b["selector"] = s;
  if (min) b["min_available"] = count_or_percent(o, min, "spec.minAvailable");
  else b["max_unavailable"] = count_or_percent(o, max, "spec.maxUnavailable");
  t.budgets.push_back(b);
  report_fields(o, "spec.", other_keys(spec, {"selector", "minAvailable", "maxUnavailable"}), "not modelled", ignored);
}

// The resources gpusim's quotas count (sim/resource_quota.cpp): GPUs by requests, cpu, memory, pods.
bool quota_resource(std::string_view name) {
  if (name == "count/pods" || name == "pods") return true;
  if (name.starts_with("requests.")) name.remove_prefix(9);
  return name == "cpu" || name == "memory" || is_device_resource(name);
}

void read_quota(const Object& o, TenancyOut& t, std::vector<std::string>& ignored) {
  const YAML::Node spec = at(o.node, {"spec"});
  expect(o, spec, "spec", YAML::NodeType::Map);
  const YAML::Node hard = at(spec, {"hard"});
  if (!hard || !hard.IsMap()) o.fail(spec, "spec.hard", "expected a map of resource names to quantities");
  if (items(o, at(spec, {"scopes"}), "spec.scopes").size() > 0) {
    ignored.push_back(o.id() + ": spec.scopes (gpusim's quotas take a PriorityClass scopeSelector only)");
    return;
  }
  YAML::Node q(YAML::NodeType::Map);
  q["name"] = o.name;
  q["namespace"] = ns_of(o);
  YAML::Node h(YAML::NodeType::Map);
  for (const auto& kv : hard) {
    const std::string key = kv.first.Scalar();
    const std::string value = quantity_text(o, kv.second, "spec.hard." + key);
    if (quota_resource(key)) h[key] = value;
    else ignored.push_back(fmt::format("{}: spec.hard.{} (gpusim counts GPUs, cpu, memory and pods)", o.id(), key));
  }
  if (h.size() == 0) {
    ignored.push_back(o.id() + ": no resource gpusim counts in spec.hard");
    return;
  }
  q["hard"] = h;
  if (const YAML::Node sel = at(spec, {"scopeSelector"})) {
    const YAML::Node exprs = at(sel, {"matchExpressions"});
    if (!exprs || !exprs.IsSequence()) o.fail(sel, "spec.scopeSelector.matchExpressions", "expected a list of expressions");
    YAML::Node list(YAML::NodeType::Sequence);
    for (std::size_t i = 0; i < exprs.size(); ++i) {
      const std::string field = fmt::format("spec.scopeSelector.matchExpressions[{}]", i);
      const std::string scope = text(o, at(exprs[i], {"scopeName"}), field + ".scopeName");
      if (scope != "PriorityClass") {
        // Dropping the expression would widen the quota to pods it does not cover.
        ignored.push_back(fmt::format("{}: {}.scopeName {} (gpusim's quotas scope by PriorityClass only)", o.id(), field,
                                      scope.empty() ? "missing" : scope));
        return;
      }
      YAML::Node e(YAML::NodeType::Map);
      e["scope_name"] = scope;
      e["operator"] = one_of(o, at(exprs[i], {"operator"}), field + ".operator", {"In", "NotIn", "Exists", "DoesNotExist"});
      if (const YAML::Node v = items(o, at(exprs[i], {"values"}), field + ".values"); v.size() > 0) e["values"] = v;
      list.push_back(e);
    }
    YAML::Node s(YAML::NodeType::Map);
    s["match_expressions"] = list;
    q["scope_selector"] = s;
  }
  t.quotas.push_back(q);
}

// Kueue's fields gpusim reads (docs/guide/tenants.md, Kueue), camelCase; the scenario's are their snake_case.
struct KueueField {
  std::string_view name;
  YAML::NodeType::value type;
  std::vector<std::string_view> values = {};  // an enumeration's values
  bool quantity = false;
};

// The names of `values` as Kueue spells them (kueue_spec.hpp's tables: one spelling for the reader and here).
template <NamedEnum E>
std::vector<std::string_view> names(std::initializer_list<E> values) {
  std::vector<std::string_view> out;
  for (E v : values) out.push_back(to_string(v));
  return out;
}

const KueueField* kueue_field(std::string_view name) {
  using T = YAML::NodeType;
  using P = KueuePreemptionPolicy;
  using F = Fungibility;
  static const std::vector<KueueField> fields{
      {"resourceGroups", T::Sequence},
      {"coveredResources", T::Sequence},
      {"flavors", T::Sequence},
      {"resources", T::Sequence},
      {"name", T::Scalar},
      {"nominalQuota", T::Scalar, {}, true},
      {"borrowingLimit", T::Scalar, {}, true},
      {"lendingLimit", T::Scalar, {}, true},
      {"cohort", T::Scalar},
      {"parent", T::Scalar},
      {"queueingStrategy", T::Scalar, {enum_names<QueueingStrategy>.begin(), enum_names<QueueingStrategy>.end()}},
      {"preemption", T::Map},
      {"withinClusterQueue", T::Scalar, names({P::never, P::lower_priority, P::lower_or_newer_equal_priority})},
      {"reclaimWithinCohort", T::Scalar, names({P::never, P::lower_priority, P::any})},
      {"borrowWithinCohort", T::Map},
      {"policy", T::Scalar, names({P::never, P::lower_priority})},
      {"maxPriorityThreshold", T::Scalar},
      {"flavorFungibility", T::Map},
      {"whenCanBorrow", T::Scalar, names({F::borrow, F::try_next_flavor})},
      {"whenCanPreempt", T::Scalar, names({F::preempt, F::try_next_flavor})},
      {"fairSharing", T::Map},
      {"weight", T::Scalar, {}, true},
  };
  for (const KueueField& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

// A Kueue spec with its fields renamed; fields gpusim does not model are reported (an empty
// namespaceSelector, every namespace, is what gpusim does: not reported).
YAML::Node kueue_spec(const Object& o, const YAML::Node& n, const std::string& field, std::vector<std::string>& ignored) {
  if (n.IsSequence()) {
    YAML::Node out(YAML::NodeType::Sequence);
    for (std::size_t i = 0; i < n.size(); ++i) out.push_back(kueue_spec(o, n[i], fmt::format("{}[{}]", field, i), ignored));
    return out;
  }
  if (!n.IsMap()) return YAML::Node(n.Scalar());
  YAML::Node out(YAML::NodeType::Map);
  for (const auto& kv : n) {
    std::string key = kv.first.Scalar();
    const std::string where = field + "." + key;
    if (key == "cohortName") key = "cohort";  // v1beta2's name
    if (key == "parentName") key = "parent";  // Cohort v1beta1's name
    const KueueField* f = kueue_field(key);
    if (!f) {
      if (!(key == "namespaceSelector" && kv.second.IsMap() && kv.second.size() == 0))
        ignored.push_back(fmt::format("{}: {} (not modelled)", o.id(), where));
      continue;
    }
    expect(o, kv.second, where, f->type);
    if (!f->values.empty()) one_of(o, kv.second, where, f->values);
    if (f->quantity) quantity_text(o, kv.second, where);
    if (key == "maxPriorityThreshold") whole(o, kv.second, where, -2147483648LL, 2147483647LL);
    if (key == "weight") out["weight"] = quantity(o, kv.second, where, 9e15);
    else out[snake(key)] = kueue_spec(o, kv.second, where, ignored);
  }
  return out;
}

void read_kueue(const Object& o, TenancyOut& t, std::vector<std::string>& ignored) {
  const YAML::Node spec = at(o.node, {"spec"});
  expect(o, spec, "spec", YAML::NodeType::Map);
  YAML::Node out(YAML::NodeType::Map);
  out["name"] = o.name;
  if (o.kind == "ResourceFlavor") {
    if (const YAML::Node l = at(spec, {"nodeLabels"})) {
      out["node_labels"] = string_map(o, l, "spec.nodeLabels");
      for (const auto& kv : l) t.label_keys.insert(kv.first.Scalar());
    }
    report_fields(o, "spec.", other_keys(spec, {"nodeLabels"}), "not modelled; the nodes' own taints are imported", ignored);
    t.flavors.push_back(out);
  } else if (o.kind == "LocalQueue") {
    const YAML::Node cq = at(spec, {"clusterQueue"});
    if (!cq || !cq.IsScalar() || cq.Scalar().empty()) o.fail(spec, "spec.clusterQueue", "expected the name of a ClusterQueue");
    out["namespace"] = ns_of(o);
    out["cluster_queue"] = cq.Scalar();
    report_fields(o, "spec.", other_keys(spec, {"clusterQueue"}), "not modelled", ignored);
    t.local_queues.push_back(out);
    t.queues.emplace(ns_of(o), o.name);
    t.queue_targets.emplace_back(&o, cq.Scalar());
  } else {
    if (o.kind == "ClusterQueue" && !at(spec, {"resourceGroups"}))
      o.fail(spec, "spec.resourceGroups", "expected resource groups");
    for (const auto& kv : kueue_spec(o, spec, "spec", ignored)) out[kv.first] = kv.second;
    (o.kind == "ClusterQueue" ? t.cluster_queues : t.cohorts).push_back(out);
    if (o.kind == "ClusterQueue") t.cluster_queue_names.insert(o.name);
  }
}

// CEL selectors (spec.selectors[].cel.expression) as plain strings.
YAML::Node cel_selectors(const Object& o, const YAML::Node& n, const std::string& field) {
  expect(o, n, field, YAML::NodeType::Sequence);
  YAML::Node out(YAML::NodeType::Sequence);
  for (std::size_t i = 0; i < n.size(); ++i) {
    const YAML::Node e = at(n[i], {"cel", "expression"});
    if (!e || !e.IsScalar()) o.fail(n[i], fmt::format("{}[{}].cel.expression", field, i), "expected a CEL expression");
    out.push_back(e.Scalar());
  }
  return out;
}

void read_device_class(const Object& o, TenancyOut& t, std::vector<std::string>& ignored) {
  const YAML::Node spec = at(o.node, {"spec"});
  expect(o, spec, "spec", YAML::NodeType::Map);
  YAML::Node c(YAML::NodeType::Map);
  c["name"] = o.name;
  if (const YAML::Node s = items(o, at(spec, {"selectors"}), "spec.selectors"); s.size() > 0)
    c["selectors"] = cel_selectors(o, s, "spec.selectors");
  report_fields(o, "spec.", other_keys(spec, {"selectors"}), "not modelled", ignored);
  t.device_classes.push_back(c);
}

// A ResourceClaimTemplate (its claim's spec under spec.spec) or a ResourceClaim (under spec): the
// same DeviceClaim (resource.k8s.io/v1).
void read_claim(const Object& o, TenancyOut& t, std::vector<std::string>& ignored) {
  const bool from_template = o.kind == "ResourceClaimTemplate";
  if (!from_template) {
    // The resourceclaim controller makes a claim from a template for each pod naming the template,
    // owned by that pod (ownerReferences, controller: true); the pod and its template are imported.
    const YAML::Node owners = items(o, at(o.node, {"metadata", "ownerReferences"}), "metadata.ownerReferences");
    for (std::size_t i = 0; i < owners.size(); ++i)
      if (text(o, at(owners[i], {"kind"}), fmt::format("metadata.ownerReferences[{}].kind", i)) == "Pod") {
        const std::string why = fmt::format(
            "made for Pod {} from a ResourceClaimTemplate, which is read instead",
            text(o, at(owners[i], {"name"}), fmt::format("metadata.ownerReferences[{}].name", i)));
        ignored.push_back(fmt::format("{}: {}", o.id(), why));
        t.claim_sources.push_back({ns_of(o), o.name, false, 0, 1, why});
        return;
      }
  }
  const std::string dev_field = from_template ? "spec.spec.devices" : "spec.devices";
  const YAML::Node devices = from_template ? at(o.node, {"spec", "spec", "devices"}) : at(o.node, {"spec", "devices"});
  const YAML::Node requests = at(devices, {"requests"});
  if (!requests || !requests.IsSequence() || requests.size() == 0)
    o.fail(devices ? devices : o.node, dev_field + ".requests", "expected a list of device requests");
  ClaimSource ct{ns_of(o), o.name, from_template, requests.size(), 1, ""};
  YAML::Node c(YAML::NodeType::Map), list(YAML::NodeType::Sequence);
  c["name"] = o.name;
  c["namespace"] = ns_of(o);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const std::string field = fmt::format("{}.requests[{}]", dev_field, i);
    if (at(requests[i], {"firstAvailable"})) {
      ct.unusable = fmt::format("{}.firstAvailable (prioritized alternatives are not modelled)", field);
      continue;
    }
    // resource.k8s.io/v1 nests the request under `exactly`; v1beta1 gives its fields directly.
    const YAML::Node exactly = at(requests[i], {"exactly"});
    const YAML::Node r = exactly ? exactly : requests[i];
    const std::string rf = exactly ? field + ".exactly" : field;
    YAML::Node q(YAML::NodeType::Map);
    const YAML::Node name = at(requests[i], {"name"}), cls = at(r, {"deviceClassName"});
    if (!name || !name.IsScalar()) o.fail(requests[i], field + ".name", "expected the request's name");
    if (!cls || !cls.IsScalar()) o.fail(r, rf + ".deviceClassName", "expected a DeviceClass name");
    q["name"] = name.Scalar();
    q["device_class"] = cls.Scalar();
    const std::string mode = at(r, {"allocationMode"})
                                 ? one_of(o, at(r, {"allocationMode"}), rf + ".allocationMode", {"ExactCount", "All"})
                                 : "ExactCount";
    if (mode == "All") q["allocation_mode"] = "All";
    if (const YAML::Node n = at(r, {"count"})) {
      ct.per_pod = whole(o, n, rf + ".count", 1, 100000);
      if (mode == "ExactCount") q["count"] = ct.per_pod;
    }
    if (const YAML::Node s = items(o, at(r, {"selectors"}), rf + ".selectors"); s.size() > 0)
      q["selectors"] = cel_selectors(o, s, rf + ".selectors");
    report_fields(o, rf + ".", other_keys(r, {"name", "deviceClassName", "allocationMode", "count", "selectors", "exactly"}),
                  "not modelled", ignored);
    list.push_back(q);
  }
  report_fields(o, dev_field + ".", other_keys(devices, {"requests"}), "not modelled", ignored);
  t.claim_sources.push_back(ct);
  if (!ct.unusable.empty()) {
    ignored.push_back(fmt::format("{}: {}", o.id(), ct.unusable));
    return;
  }
  c["requests"] = list;
  (from_template ? t.claim_templates : t.resource_claims).push_back(c);
}

}  // namespace

bool read_tenancy_object(const Object& o, TenancyOut& t, std::vector<std::string>& ignored) {
  const std::string api = text(o, at(o.node, {"apiVersion"}), "apiVersion");
  const std::string group = api.substr(0, api.find('/'));
  if (o.kind == "PriorityClass" && group == "scheduling.k8s.io") read_priority_class(o, t, ignored);
  else if (o.kind == "PodDisruptionBudget" && group == "policy") read_budget(o, t, ignored);
  else if (o.kind == "ResourceQuota" && api == "v1") read_quota(o, t, ignored);
  else if (group == "kueue.x-k8s.io" &&
           (o.kind == "ResourceFlavor" || o.kind == "ClusterQueue" || o.kind == "LocalQueue" || o.kind == "Cohort"))
    read_kueue(o, t, ignored);
  else if (group == "resource.k8s.io" && o.kind == "DeviceClass") read_device_class(o, t, ignored);
  else if (group == "resource.k8s.io" && (o.kind == "ResourceClaimTemplate" || o.kind == "ResourceClaim"))
    read_claim(o, t, ignored);
  else return false;
  return true;
}

}  // namespace gpusim::cli::k8s
