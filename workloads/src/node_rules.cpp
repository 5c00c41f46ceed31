#include "gpusim/workloads/node_rules.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>

namespace gpusim {

namespace {

// A label value or a Gt/Lt value as an integer (strconv.ParseInt(v, 10, 64), as Kubernetes reads both).
std::optional<int64_t> integer_of(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  int64_t v = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || error != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Per node, not per pool: gpusim matches labels per pool (a job goes to one node by its `node` field).
constexpr std::string_view kHostname = "kubernetes.io/hostname";

std::string read_key(const Fields& e) {
  const ConfigNode k = e.at("key");
  std::string key = k.as_string();
  if (key.empty()) k.fail("expected a non-empty label key (an empty one would match every pool)");
  if (key == kHostname)
    k.fail(fmt::format("{} is a per-node label; gpusim matches node labels per pool: give the job a node: instead", kHostname));
  return key;
}

const Section& toleration_section() {
  static const Section s{
      "toleration",
      "A toleration (spec.tolerations[]): lets the pod onto nodes with a matching taint",
      {
          {"key", Type::string(), "", "", "The taint key it tolerates; absent: every key (operator Exists)"},
          {"operator", Type::enumeration<TolerationOperator>(), "Equal", "",
           "Equal: the taint's value must be `value`; Exists: any value"},
          {"value", Type::string(), "", "", "The taint value (operator Equal)"},
          {"effect", Type::enumeration<TaintEffect>(), "", "", "The taint effect it tolerates; absent: every effect"},
      }};
  return s;
}

const Section& requirement_section() {
  static const Section s{"node_selector_requirement",
                         "A match expression (matchExpressions[]) on a node label",
                         {
                             {"key", Type::string(), required, "", "The label key"},
                             {"operator", Type::enumeration<SelectorOperator>(), required, "",
                              "In, NotIn, Exists, DoesNotExist, Gt, Lt (Kubernetes' node selector operators)"},
                             {"values", Type::list(Type::string()), "", "",
                              "In/NotIn: one or more values; Exists/DoesNotExist: none; Gt/Lt: one integer"},
                         }};
  return s;
}

const Section& term_section() {
  static const Section s{"node_selector_term",
                         "A node selector term: its match expressions are ANDed",
                         {
                             {"match_expressions", Type::list(Type::section(requirement_section())), required, "",
                              "The expressions (matchExpressions), all of which a node's labels must satisfy"},
                         }};
  return s;
}

const Section& preferred_term_section() {
  static const Section s{"preferred_scheduling_term",
                         "A preferred term: nodes it matches score its weight",
                         {
                             {"weight", Type::int32().at_least(1).at_most(100), required, "", "Its weight in scoring, 1-100"},
                             {"preference", Type::section(term_section()), required, "", "The node selector term"},
                         }};
  return s;
}

const Section& node_affinity_section() {
  static const Section s{
      "node_affinity",
      "The pod's node affinity (spec.affinity.nodeAffinity)",
      {
          {"required", Type::list(Type::section(term_section())), "", "",
           "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: a node must match one of these terms"},
          {"preferred", Type::list(Type::section(preferred_term_section())), "", "",
           "preferredDuringSchedulingIgnoredDuringExecution: nodes matching a term score its weight"},
      }};
  return s;
}

const Section& taint_section() {
  static const Section s{
      "taint",
      "A taint on every node of the pool (spec.taints[])",
      {
          {"key", Type::string(), required, "", "The taint key"},
          {"value", Type::string(), "", "", "The taint value; absent: empty"},
          {"effect", Type::enumeration<TaintEffect>(), required, "", "NoSchedule, PreferNoSchedule or NoExecute"},
      }};
  return s;
}

SelectorRequirement read_requirement(const ConfigNode& node) {
  const Fields e = requirement_section().read(node);
  SelectorRequirement r;
  r.key = read_key(e);
  r.op = e.at("operator").as_enum<SelectorOperator>();
  r.values = e.string_list("values");
  const std::string_view op = to_string(r.op);
  // The checks Kubernetes' validation makes (ValidateNodeSelectorRequirement).
  switch (r.op) {
    case SelectorOperator::in:
    case SelectorOperator::not_in:
      if (r.values.empty()) e.fail(fmt::format("operator {} needs values: expected at least one", op));
      break;
    case SelectorOperator::exists:
    case SelectorOperator::does_not_exist:
      if (!r.values.empty()) e.at("values").fail(fmt::format("operator {} takes no values", op));
      break;
    case SelectorOperator::gt:
    case SelectorOperator::lt:
      if (r.values.size() != 1 || !integer_of(r.values.front()))
        (e.has("values") ? e.at("values") : e.node())
            .fail(fmt::format("operator {} needs exactly one value, an integer; got [{}]", op, fmt::join(r.values, ", ")));
      break;
  }
  return r;
}

SelectorTerm read_term(const ConfigNode& node) {
  const Fields e = term_section().read(node);
  SelectorTerm t;
  for (const ConfigNode& r : e.at("match_expressions").items()) t.match_expressions.push_back(read_requirement(r));
  if (t.match_expressions.empty())
    e.at("match_expressions").fail("expected at least one expression (an empty term matches no node in Kubernetes)");
  return t;
}

}  // namespace

std::optional<std::string_view> label(const Labels& labels, std::string_view key) {
  const auto it = std::lower_bound(labels.begin(), labels.end(), key,
                                   [](const auto& l, std::string_view k) { return l.first < k; });
  if (it == labels.end() || it->first != key) return std::nullopt;
  return std::string_view(it->second);
}

bool tolerates(const Toleration& t, const Taint& taint) {
  if (t.effect && *t.effect != taint.effect) return false;
  if (!t.key.empty() && t.key != taint.key) return false;
  return t.op == TolerationOperator::exists || t.value == taint.value;
}

bool tolerated(const std::vector<Toleration>& tolerations, const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(), [&](const Toleration& t) { return tolerates(t, taint); });
}

bool matches(const SelectorRequirement& r, const Labels& labels) {
  const auto value = label(labels, r.key);
  const auto listed = [&] { return std::find(r.values.begin(), r.values.end(), *value) != r.values.end(); };
  switch (r.op) {
    case SelectorOperator::in: return value && listed();
    case SelectorOperator::not_in: return !value || !listed();
    case SelectorOperator::exists: return value.has_value();
    case SelectorOperator::does_not_exist: return !value;
    case SelectorOperator::gt:
    case SelectorOperator::lt: {
      if (!value) return false;
      const auto have = integer_of(*value), bound = integer_of(r.values.front());
      if (!have || !bound) return false;
      return r.op == SelectorOperator::gt ? *have > *bound : *have < *bound;
    }
  }
  return false;
}

bool matches(const SelectorTerm& t, const Labels& labels) {
  return !t.match_expressions.empty() && std::all_of(t.match_expressions.begin(), t.match_expressions.end(),
                                                     [&](const SelectorRequirement& r) { return matches(r, labels); });
}

bool selects(const NodeRules& rules, const Labels& labels) {
  for (const auto& [key, value] : rules.node_selector)
    if (label(labels, key) != std::optional<std::string_view>(value)) return false;
  return rules.required.empty() ||
         std::any_of(rules.required.begin(), rules.required.end(), [&](const SelectorTerm& t) { return matches(t, labels); });
}

int32_t affinity_weight(const NodeRules& rules, const Labels& labels) {
  int32_t sum = 0;
  for (const PreferredTerm& p : rules.preferred)
    if (matches(p.preference, labels)) sum += p.weight;
  return sum;
}

std::vector<Field> node_rule_fields() {
  return {
      {"node_selector", Type::map(Type::string()), "", "", "Its pod's nodeSelector: node labels it needs, with their values"},
      {"tolerations", Type::list(Type::section(toleration_section())), "", "", "Its pod's tolerations of node taints"},
      {"node_affinity", Type::section(node_affinity_section()), "", "", "Its pod's node affinity, required and preferred"},
  };
}

NodeRules read_node_rules(const Fields& job) {
  NodeRules rules;
  if (auto s = job.get("node_selector")) {
    for (const auto& [key, value] : s->entries()) {
      if (key == kHostname)
        s->at(key).fail(
            fmt::format("{} is a per-node label; gpusim matches node labels per pool: give the job a node: instead", kHostname));
      rules.node_selector.emplace_back(key, value.as_string());
    }
    std::sort(rules.node_selector.begin(), rules.node_selector.end());
  }
  if (auto list = job.get("tolerations")) {
    for (const ConfigNode& node : list->items()) {
      const Fields e = toleration_section().read(node);
      Toleration t;
      if (auto k = e.get("key")) t.key = k->as_string();
      t.op = e.value("operator").as_enum<TolerationOperator>();
      if (auto v = e.get("value")) t.value = v->as_string();
      if (auto f = e.get("effect")) t.effect = f->as_enum<TaintEffect>();
      // Kubernetes' validation (validateTolerations): an empty key needs Exists; Exists takes no value.
      if (t.key.empty() && t.op != TolerationOperator::exists)
        e.fail("a toleration without a key tolerates every taint: it needs operator Exists");
      if (t.op == TolerationOperator::exists && !t.value.empty())
        e.at("value").fail("operator Exists takes no value (it tolerates any)");
      rules.tolerations.push_back(std::move(t));
    }
  }
  if (auto a = job.get("node_affinity")) {
    const Fields e = node_affinity_section().read(*a);
    if (auto r = e.get("required")) {
      for (const ConfigNode& t : r->items()) rules.required.push_back(read_term(t));
      if (rules.required.empty()) r->fail("expected at least one term (a node must match one of them)");
    }
    if (auto p = e.get("preferred")) {
      for (const ConfigNode& node : p->items()) {
        const Fields t = preferred_term_section().read(node);
        rules.preferred.push_back({t.integer<int32_t>("weight"), read_term(t.at("preference"))});
      }
    }
  }
  return rules;
}

Field taints_field() {
  return {"taints", Type::list(Type::section(taint_section())), "", "", "Taints on its nodes (spec.taints)"};
}

std::vector<Taint> read_taints(const ConfigNode& list) {
  std::vector<Taint> taints;
  for (const ConfigNode& node : list.items()) {
    const Fields e = taint_section().read(node);
    Taint t{e.at("key").as_string(), "", e.at("effect").as_enum<TaintEffect>()};
    if (auto v = e.get("value")) t.value = v->as_string();
    if (t.key.empty()) e.at("key").fail("expected a non-empty taint key");
    taints.push_back(std::move(t));
  }
  return taints;
}

}  // namespace gpusim
