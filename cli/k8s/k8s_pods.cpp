#include "k8s_objects.hpp"

#include <fmt/format.h>

#include <cmath>

#include "gpusim/core/number.hpp"
#include "gpusim/workloads/job.hpp"

namespace gpusim::cli::k8s {

constexpr std::string_view kAnnotationPrefix = "gpusim.io/";

// --- a pod's request ----------------------------------------------------------------------------

PodRequest read_pod_spec(const Object& o, const YAML::Node& spec, const std::string& field) {
  PodRequest r;
  const YAML::Node containers = at(spec, {"containers"});
  if (!containers || !containers.IsSequence()) o.fail(spec, field + ".containers", "expected a list of containers");
  for (std::size_t i = 0; i < containers.size(); ++i) {
    expect(o, containers[i], fmt::format("{}.containers[{}]", field, i), YAML::NodeType::Map);
    const std::string path = fmt::format("{}.containers[{}].resources", field, i);
    const YAML::Node res = entries(o, at(containers[i], {"resources"}), path);
    // Extended resources (GPUs) are given as limits (requests, if given, must equal them); CPU and
    // memory requests default to their limits.
    for (const char* part : {"limits", "requests"}) {
      for (const auto& kv : entries(o, at(res, {part}), path + "." + part)) {
        const std::string key = kv.first.Scalar();
        const std::string where = fmt::format("{}.{}.{}", path, part, key);
        if (key.starts_with("nvidia.com/") || key.starts_with("amd.com/") || key == "habana.ai/gaudi") {
          if (std::string_view(part) == "requests" && at(res, {"limits", key})) continue;
          const double q = quantity(o, kv.second, where, 100000);
          if (q != std::floor(q))
            o.fail(kv.second, where, fmt::format("expected a whole number of devices, got '{}'", scalar(kv.second)));
          if (q == 0) continue;
          if (!is_device_resource(key)) o.fail(kv.second, where, fmt::format("expected {}", kDeviceResources));
          if (!r.resource.empty() && r.resource != key)
            o.fail(kv.second, where, fmt::format("asks both {} and {}; gpusim models one GPU resource per pod", r.resource, key));
          r.resource = key;
          r.gpus += static_cast<int64_t>(q);
        } else if (key == "cpu" || key == "memory") {
          if (std::string_view(part) == "limits" && at(res, {"requests", key})) continue;
          // Bounds far past any node (a million cores, an exbibyte) keep the sums in 64 bits.
          const double q = quantity(o, kv.second, where, key == "cpu" ? 1e6 : 0x1p60);
          if (key == "cpu") r.cpu_milli += static_cast<int64_t>(std::ceil(q * 1000 - 1e-9));
          else r.memory_mib += static_cast<int64_t>(std::ceil(q / 1048576.0 - 1e-9));
        }
      }
    }
  }
  if (r.gpus > 100000) o.fail(spec, field, fmt::format("asks {} GPUs; a pod has at most 100000", r.gpus));
  return r;
}

std::optional<std::pair<std::string, YAML::Node>> annotation(const Object& o, const YAML::Node& tmpl, const std::string& key) {
  const std::string full = std::string(kAnnotationPrefix) + key;
  for (const YAML::Node& a : {at(o.node, {"metadata", "annotations", full}), at(tmpl, {"metadata", "annotations", full})})
    if (a) return std::pair(text(o, a, "metadata.annotations." + full), a);
  return std::nullopt;
}

std::string duration_annotation(const Object& o, const YAML::Node& tmpl, const std::string& key, const std::string& fallback) {
  const auto a = annotation(o, tmpl, key);
  if (!a) return fallback;
  const std::string field = "metadata.annotations." + std::string(kAnnotationPrefix) + key;
  Duration d;
  try {
    d = parse_duration(a->first);
  } catch (const std::exception& e) {
    o.fail(a->second, field, e.what());
  }
  if (key == "deadline" && d <= Duration()) o.fail(a->second, field, "expected a positive duration after the job's arrival");
  return a->first;
}

// --- a pod's Kubernetes settings -------------------------------------------------------------

namespace {

// A nodeSelectorTerm's matchExpressions; expressions gpusim cannot match (matchFields, per-node
// hostname labels: gpusim matches labels per pool) are reported. Undefined when none is left.
YAML::Node selector_term(const Object& o, const YAML::Node& n, const std::string& field, std::vector<std::string>& ignored) {
  expect(o, n, field, YAML::NodeType::Map);
  if (at(n, {"matchFields"})) ignored.push_back(fmt::format("{}: {}.matchFields (not modelled)", o.id(), field));
  const YAML::Node exprs = at(n, {"matchExpressions"});
  expect(o, exprs, field + ".matchExpressions", YAML::NodeType::Sequence);
  YAML::Node list(YAML::NodeType::Sequence);
  for (std::size_t i = 0; exprs && i < exprs.size(); ++i) {
    const std::string f = fmt::format("{}.matchExpressions[{}]", field, i);
    const YAML::Node key = at(exprs[i], {"key"});
    if (!key || !key.IsScalar() || key.Scalar().empty()) o.fail(exprs[i], f + ".key", "expected a label key");
    if (key.Scalar() == kHostname) {
      ignored.push_back(fmt::format("{}: {} on {} (a per-node label; gpusim matches labels per pool)", o.id(), f, kHostname));
      continue;
    }
    YAML::Node e(YAML::NodeType::Map);
    e["key"] = key.Scalar();
    e["operator"] = one_of(o, at(exprs[i], {"operator"}), f + ".operator", {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"});
    if (const YAML::Node v = items(o, at(exprs[i], {"values"}), f + ".values"); v.size() > 0) e["values"] = v;
    list.push_back(e);
  }
  if (list.size() == 0) return YAML::Node(YAML::NodeType::Undefined);
  YAML::Node term(YAML::NodeType::Map);
  term["match_expressions"] = list;
  return term;
}

YAML::Node node_affinity(const Object& o, const YAML::Node& a, const std::string& field, std::vector<std::string>& ignored) {
  YAML::Node out(YAML::NodeType::Map);
  const std::string rf = field + ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
  if (const YAML::Node terms = at(a, {"requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"})) {
    expect(o, terms, rf, YAML::NodeType::Sequence);
    YAML::Node req(YAML::NodeType::Sequence);
    for (std::size_t i = 0; i < terms.size(); ++i)
      if (const YAML::Node t = selector_term(o, terms[i], fmt::format("{}[{}]", rf, i), ignored)) req.push_back(t);
    if (req.size() > 0) out["required"] = req;
  }
  const std::string pf = field + ".preferredDuringSchedulingIgnoredDuringExecution";
  if (const YAML::Node prefs = at(a, {"preferredDuringSchedulingIgnoredDuringExecution"})) {
    expect(o, prefs, pf, YAML::NodeType::Sequence);
    YAML::Node list(YAML::NodeType::Sequence);
    for (std::size_t i = 0; i < prefs.size(); ++i) {
      const std::string f = fmt::format("{}[{}]", pf, i);
      YAML::Node p(YAML::NodeType::Map);
      p["weight"] = whole(o, at(prefs[i], {"weight"}), f + ".weight", 1, 100);
      const YAML::Node pref = at(prefs[i], {"preference"});
      if (!pref) o.fail(prefs[i], f + ".preference", "expected a node selector term");
      if (const YAML::Node t = selector_term(o, pref, f + ".preference", ignored)) {
        p["preference"] = t;
        list.push_back(p);
      }
    }
    if (list.size() > 0) out["preferred"] = list;
  }
  return out;
}

YAML::Node tolerations(const Object& o, const YAML::Node& n, const std::string& field, std::vector<std::string>& ignored) {
  expect(o, n, field, YAML::NodeType::Sequence);
  YAML::Node list(YAML::NodeType::Sequence);
  for (std::size_t i = 0; i < n.size(); ++i) {
    const std::string f = fmt::format("{}[{}]", field, i);
    expect(o, n[i], f, YAML::NodeType::Map);
    YAML::Node t(YAML::NodeType::Map);
    const std::string key = text(o, at(n[i], {"key"}), f + ".key"), value = text(o, at(n[i], {"value"}), f + ".value");
    const std::string op = at(n[i], {"operator"}) ? one_of(o, at(n[i], {"operator"}), f + ".operator", {"Equal", "Exists"})
                                                  : "Equal";
    // Kubernetes' validation (validateTolerations).
    if (key.empty() && op != "Exists") o.fail(n[i], f + ".operator", "a toleration without a key needs operator Exists");
    if (op == "Exists" && !value.empty()) o.fail(at(n[i], {"value"}), f + ".value", "operator Exists takes no value");
    if (!key.empty()) t["key"] = key;
    t["operator"] = op;
    if (!value.empty()) t["value"] = value;
    if (const YAML::Node e = at(n[i], {"effect"}); !text(o, e, f + ".effect").empty())
      t["effect"] = one_of(o, e, f + ".effect", {"NoSchedule", "PreferNoSchedule", "NoExecute"});
    if (at(n[i], {"tolerationSeconds"}))
      ignored.push_back(fmt::format("{}: {}.tolerationSeconds (gpusim's taints do not evict running pods)", o.id(), f));
    list.push_back(t);
  }
  return list;
}

}  // namespace

PodRules read_pod_rules(const Object& o, const YAML::Node& tmpl, const std::string& field, bool with_labels,
                        std::vector<std::string>& ignored) {
  PodRules r;
  const YAML::Node spec = at(tmpl, {"spec"});
  const std::string sf = field + "spec";
  if (const YAML::Node p = at(spec, {"priorityClassName"})) {
    expect(o, p, sf + ".priorityClassName", YAML::NodeType::Scalar);
    r.priority_class = p.Scalar();
    r.fields["priority_class"] = r.priority_class;
  }
  // Kueue reads the queue label of the job object (its integrations), a plain pod's own.
  for (const auto& [where, in] : {std::pair(std::string(), o.node), std::pair(field, tmpl)})
    if (const YAML::Node q = at(in, {"metadata", "labels", std::string(kQueueLabel)}); q && r.queue.empty()) {
      r.queue = text(o, q, fmt::format("{}metadata.labels.{}", where, kQueueLabel));
      r.queue_at = q;
      r.queue_at_field = where;
    }
  if (!r.queue.empty()) r.fields["queue"] = r.queue;
  // Pod labels matter to PodDisruptionBudgets' selectors: written with a tenancy: block only.
  if (const YAML::Node l = at(tmpl, {"metadata", "labels"}); l && with_labels)
    r.fields["labels"] = string_map(o, l, field + "metadata.labels");
  if (const YAML::Node s = at(spec, {"nodeSelector"})) {
    YAML::Node sel = string_map(o, s, sf + ".nodeSelector");
    if (sel[std::string(kHostname)]) {
      r.hostname = sel[std::string(kHostname)].Scalar();
      sel.remove(std::string(kHostname));
    }
    if (sel.size() > 0) r.fields["node_selector"] = sel;
  }
  if (const YAML::Node t = items(o, at(spec, {"tolerations"}), sf + ".tolerations"); t.size() > 0)
    r.fields["tolerations"] = tolerations(o, t, sf + ".tolerations", ignored);
  const YAML::Node affinity = at(spec, {"affinity"});
  expect(o, affinity, sf + ".affinity", YAML::NodeType::Map);
  if (const YAML::Node a = at(affinity, {"nodeAffinity"})) {
    expect(o, a, sf + ".affinity.nodeAffinity", YAML::NodeType::Map);
    if (const YAML::Node na = node_affinity(o, a, sf + ".affinity.nodeAffinity", ignored); na.size() > 0)
      r.fields["node_affinity"] = na;
  }
  report_fields(o, sf + ".affinity.", other_keys(affinity, {"nodeAffinity"}), "not modelled", ignored);
  if (const YAML::Node g = at(spec, {"terminationGracePeriodSeconds"}))
    r.fields["termination_grace_period"] = fmt::format("{}s",
                                                       whole(o, g, sf + ".terminationGracePeriodSeconds", 0, 1'000'000'000));
  if (const YAML::Node c = at(spec, {"resourceClaims"})) {
    expect(o, c, sf + ".resourceClaims", YAML::NodeType::Sequence);
    r.claims_at = c;
    // A template stays a bare name in the scenario, a ResourceClaim is {resource_claim_name: NAME}.
    YAML::Node out(YAML::NodeType::Sequence);
    for (std::size_t i = 0; i < c.size(); ++i) {
      const std::string f = fmt::format("{}.resourceClaims[{}]", sf, i);
      const YAML::Node t = at(c[i], {"resourceClaimTemplateName"}), byname = at(c[i], {"resourceClaimName"});
      const YAML::Node given = t ? t : byname;
      if (!given || (t && byname) || !given.IsScalar() || given.Scalar().empty())
        o.fail(c[i], f, "expected one of resourceClaimTemplateName and resourceClaimName");
      r.claims.emplace_back(given.Scalar(), bool(t));
      if (t) {
        out.push_back(given.Scalar());
      } else {
        YAML::Node ref(YAML::NodeType::Map);
        ref["resource_claim_name"] = given.Scalar();
        out.push_back(ref);
      }
    }
    if (!r.claims.empty()) r.fields["resource_claims"] = out;
  }
  return r;
}

void selected_label_keys(const YAML::Node& n, bool in_affinity, std::set<std::string>& out) {
  if (n.IsSequence())
    for (const auto& item : n) selected_label_keys(item, in_affinity, out);
  if (!n.IsMap()) return;
  for (const auto& kv : n) {
    const std::string k = kv.first.Scalar();
    if (k == "nodeSelector" && kv.second.IsMap())
      for (const auto& s : kv.second) out.insert(s.first.Scalar());
    else if (in_affinity && k == "key" && kv.second.IsScalar()) out.insert(kv.second.Scalar());
    else selected_label_keys(kv.second, in_affinity || k == "nodeAffinity", out);
  }
}

}  // namespace gpusim::cli::k8s
