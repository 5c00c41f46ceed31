#include "gpusim/sim/resource_quota.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "gpusim/core/number.hpp"
#include "gpusim/sim/fit.hpp"

namespace gpusim {

namespace {

const Section& scope_expression_section() {
  static const Section s{
      "quota_scope_expression",
      "One scopeSelector.matchExpressions entry",
      {{"scope_name", Type::choice({"PriorityClass"}), required, "", "scopeName (only PriorityClass is modelled)"},
       {"operator", Type::enumeration<ScopeExpression::Op>(), required, "",
        "In / NotIn the values, or whether the pod has a class at all"},
       {"values", Type::list(Type::string()), "", "", "Class names; In and NotIn need some, the others none"}}};
  return s;
}

const Section& scope_selector_section() {
  static const Section s{
      "quota_scope_selector",
      "scopeSelector: the pods a quota covers, by their PriorityClass",
      {{"match_expressions", Type::list(Type::section(scope_expression_section())), required, "", "All must match"}}};
  return s;
}

// The resources a quota may limit, by the names Kubernetes gives them. Extended resources (GPUs) are
// counted by requests only, so `requests.nvidia.com/gpu` and `nvidia.com/gpu` are the same limit.
constexpr std::string_view kKnownResources =
    "requests.nvidia.com/gpu, requests.nvidia.com/gpu.shared, requests.nvidia.com/mig-<profile>, requests.amd.com/gpu, "
    "requests.amd.com/<compute>_<memory>, requests.habana.ai/gaudi (each also without requests.), requests.cpu, cpu, "
    "requests.memory, memory, count/pods, pods";

std::optional<QuotaResource> resource_named(std::string_view name, std::string& device) {
  std::string_view bare = name;
  if (bare.starts_with("requests.")) bare.remove_prefix(9);
  if (is_device_resource(bare)) {
    device = std::string(bare);
    return QuotaResource::device;
  }
  if (bare == "cpu") return QuotaResource::cpu;
  if (bare == "memory") return QuotaResource::memory;
  if (name == "count/pods" || name == "pods") return QuotaResource::pods;
  return std::nullopt;
}

// The hard limit in the unit usage() counts in: milli-CPU, bytes, or a whole count.
int64_t read_hard(const ConfigNode& n, QuotaResource r) {
  const std::string text = n.as_string();
  double q = 0;
  try {
    q = parse_quantity(text, Range::between(0, 9e18 / 1000));
  } catch (const std::invalid_argument& e) {
    n.fail(e.what());
  }
  switch (r) {
    case QuotaResource::cpu: return static_cast<int64_t>(std::floor(q * 1000 + 1e-9));
    case QuotaResource::memory: return static_cast<int64_t>(std::floor(q));
    default:
      if (q != std::floor(q)) n.fail(fmt::format("expected a whole number of {}, got '{}'", n.path(), text));
      return static_cast<int64_t>(q);
  }
}

}  // namespace

const Section& resource_quota_section() {
  static const Section s{"resource_quota",
                         "A namespace's ResourceQuota: hard limits on what its pods that have not ended request together",
                         {{"name", Type::string(), required, "", "metadata.name, named in rejection reasons"},
                          {"namespace", Type::string(), required, "", "The namespace (tenant) it limits"},
                          {"hard", Type::map(Type::one_of({Type::number(), Type::string()})), required, "",
                           "Resource name -> Kubernetes quantity (8, 500m, 64Gi)"},
                          {"scope_selector", Type::section(scope_selector_section()), "", "",
                           "scopeSelector on PriorityClass: the quota covers only the pods it matches"}}};
  return s;
}

std::vector<ResourceQuota> read_resource_quotas(const ConfigNode& list, const JobSet& jobs) {
  std::vector<ResourceQuota> out;
  std::set<std::pair<std::string, std::string>> names;  // (namespace, name)
  for (const ConfigNode& item : list.items()) {
    const Fields f = resource_quota_section().read(item);
    ResourceQuota q;
    q.name = f.at("name").as_string();
    const std::string ns = f.at("namespace").as_string();
    if (!names.emplace(ns, q.name).second)
      f.at("name").fail(
          fmt::format("a second ResourceQuota named '{}' in namespace '{}': names are unique in a namespace", q.name, ns));
    for (std::size_t i = 0; i < jobs.tenants.size(); ++i)
      if (jobs.tenants[i] == ns) q.tenant = static_cast<uint16_t>(i);
    for (const auto& [name, value] : f.at("hard").entries()) {
      QuotaLimit limit;
      limit.name = name;
      const auto r = resource_named(name, limit.device);
      if (!r) value.fail(fmt::format("unknown resource '{}' in a quota; expected one of {}", name, kKnownResources));
      limit.resource = *r;
      limit.hard = read_hard(value, *r);
      q.hard.push_back(std::move(limit));
    }
    if (auto sel = f.get("scope_selector")) {
      const Fields sf = scope_selector_section().read(*sel);
      for (const ConfigNode& e : sf.at("match_expressions").items()) {
        const Fields ef = scope_expression_section().read(e);
        ScopeExpression x;
        if (const std::string scope = ef.at("scope_name").as_string(); scope != "PriorityClass")
          ef.at("scope_name").fail(fmt::format("expected PriorityClass (the only scope modelled), got '{}'", scope));
        x.op = ef.at("operator").as_enum<ScopeExpression::Op>();
        x.values = ef.string_list("values");
        const bool needs_values = x.op == ScopeExpression::Op::In || x.op == ScopeExpression::Op::NotIn;
        if (needs_values == x.values.empty())
          ef.fail(fmt::format("operator {} {}", to_string(x.op), needs_values ? "needs values" : "takes no values"));
        q.scope.push_back(std::move(x));
      }
    }
    out.push_back(std::move(q));
  }
  return out;
}

QuotaAdmission::QuotaAdmission(const std::vector<ResourceQuota>& quotas, const PrioritySpec& priority, const JobSet& jobs)
    : quotas_(quotas), priority_(priority), jobs_(jobs), charged_(jobs.jobs.size(), false) {
  for (const ResourceQuota& q : quotas_) {
    used_.emplace_back(q.hard.size(), 0);
    first_reason_.push_back(reasons_.size());
    for (const QuotaLimit& l : q.hard) reasons_.push_back(fmt::format("exceeded quota: {}, requested: {}", q.name, l.name));
  }
}

int64_t QuotaAdmission::usage(const Job& j, const QuotaLimit& limit) {
  const Request& q = j.request;
  // A multi-worker job is one pod per worker; any other job one pod (a pod per node of a multi-node job
  // without a worker size is known only once it is placed).
  const int64_t pods = q.worker_gpus > 0 ? std::max(1, q.gpus / q.worker_gpus) : 1;
  switch (limit.resource) {
    // A job naming no resource is counted as nvidia.com/gpu, as Kueue counts it; a DRA claim asks for no
    // device-plugin resource.
    case QuotaResource::device: return !q.claim && resource_name(q) == limit.device ? q.gpus : 0;
    case QuotaResource::cpu: return pods * q.cpu_milli;
    case QuotaResource::memory: return pods * q.memory_mib * 1024 * 1024;
    case QuotaResource::pods: return pods;
  }
  return 0;
}

bool QuotaAdmission::in_scope(const ResourceQuota& q, const Job& j) const {
  if (q.tenant != j.tenant) return false;
  // The Priority admission controller runs first and names the global default class on pods naming
  // none, so they match that class's name.
  const PriorityClass* c = priority_.class_of(jobs_, j);
  const std::string_view name = c ? std::string_view(c->name) : std::string_view();
  for (const ScopeExpression& x : q.scope) {
    const bool listed = std::find(x.values.begin(), x.values.end(), name) != x.values.end();
    const bool ok = x.op == ScopeExpression::Op::In       ? !name.empty() && listed
                    : x.op == ScopeExpression::Op::NotIn  ? !listed
                    : x.op == ScopeExpression::Op::Exists ? !name.empty()
                                                          : name.empty();
    if (!ok) return false;
  }
  return true;
}

std::optional<std::string_view> QuotaAdmission::admit(const Job& j) {
  for (std::size_t qi = 0; qi < quotas_.size(); ++qi) {
    if (!in_scope(quotas_[qi], j)) continue;
    const auto& hard = quotas_[qi].hard;
    for (std::size_t l = 0; l < hard.size(); ++l) {
      const int64_t ask = usage(j, hard[l]);
      if (ask > 0 && used_[qi][l] + ask > hard[l].hard) return reasons_[first_reason_[qi] + l];
    }
  }
  for (std::size_t qi = 0; qi < quotas_.size(); ++qi)
    if (in_scope(quotas_[qi], j))
      for (std::size_t l = 0; l < quotas_[qi].hard.size(); ++l) used_[qi][l] += usage(j, quotas_[qi].hard[l]);
  charged_[j.id] = true;
  return std::nullopt;
}

void QuotaAdmission::release(const Job& j) {
  if (!charged_[j.id]) return;
  charged_[j.id] = false;
  for (std::size_t qi = 0; qi < quotas_.size(); ++qi)
    if (in_scope(quotas_[qi], j))
      for (std::size_t l = 0; l < quotas_[qi].hard.size(); ++l) used_[qi][l] -= usage(j, quotas_[qi].hard[l]);
}

}  // namespace gpusim
