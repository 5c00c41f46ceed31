#pragma once
// A pod's rules about the nodes it may run on, as Kubernetes defines them (issue 17;
// docs/guide/tenants.md, "Taints, selectors and affinity"): tolerations of node taints
// (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/), nodeSelector and
// node affinity (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/), and the
// node side they match (labels, taints). The matching rules are those of k8s.io/api/core/v1
// (Toleration.ToleratesTaint) and k8s.io/component-helpers/scheduling/corev1/nodeaffinity.
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/fields.hpp"

namespace gpusim {

// A node's metadata.labels, sorted by key (keys unique).
using Labels = std::vector<std::pair<std::string, std::string>>;
// The value of `key`, if the node has that label.
std::optional<std::string_view> label(const Labels& labels, std::string_view key);

enum class TaintEffect : uint8_t { no_schedule, prefer_no_schedule, no_execute };
constexpr auto enum_table(TaintEffect) {
  return std::to_array<EnumName<TaintEffect>>({{TaintEffect::no_schedule, "NoSchedule"},
                                               {TaintEffect::prefer_no_schedule, "PreferNoSchedule"},
                                               {TaintEffect::no_execute, "NoExecute"}});
}

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::no_schedule;
  auto operator<=>(const Taint&) const = default;
};

enum class TolerationOperator : uint8_t { equal, exists };
constexpr auto enum_table(TolerationOperator) {
  return std::to_array<EnumName<TolerationOperator>>(
      {{TolerationOperator::equal, "Equal"}, {TolerationOperator::exists, "Exists"}});
}

struct Toleration {
  std::string key;  // "": every key (operator Exists only)
  TolerationOperator op = TolerationOperator::equal;
  std::string value;
  std::optional<TaintEffect> effect;  // none: every effect
  auto operator<=>(const Toleration&) const = default;
};

// Does the toleration tolerate the taint? Effects must match unless the toleration names none; keys
// unless it names none; then Exists matches any value and Equal the same value.
bool tolerates(const Toleration& t, const Taint& taint);
bool tolerated(const std::vector<Toleration>& tolerations, const Taint& taint);

enum class SelectorOperator : uint8_t { in, not_in, exists, does_not_exist, gt, lt };
constexpr auto enum_table(SelectorOperator) {
  return std::to_array<EnumName<SelectorOperator>>({{SelectorOperator::in, "In"},
                                                    {SelectorOperator::not_in, "NotIn"},
                                                    {SelectorOperator::exists, "Exists"},
                                                    {SelectorOperator::does_not_exist, "DoesNotExist"},
                                                    {SelectorOperator::gt, "Gt"},
                                                    {SelectorOperator::lt, "Lt"}});
}

// One of a term's matchExpressions.
struct SelectorRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::in;
  std::vector<std::string> values;  // In, NotIn: the values; Gt, Lt: one integer
  auto operator<=>(const SelectorRequirement&) const = default;
};

// A nodeSelectorTerm: its expressions are ANDed.
struct SelectorTerm {
  std::vector<SelectorRequirement> match_expressions;
  auto operator<=>(const SelectorTerm&) const = default;
};

struct PreferredTerm {
  int32_t weight = 1;  // 1-100
  SelectorTerm preference;
  auto operator<=>(const PreferredTerm&) const = default;
};

// Does the node with `labels` satisfy the requirement? In: the label is one of the values; NotIn:
// absent or none of them; Exists / DoesNotExist: present / absent; Gt / Lt: present, an integer, and
// greater / less than the value (a label that is not an integer matches neither).
bool matches(const SelectorRequirement& r, const Labels& labels);
// All of the term's expressions (an empty term matches nothing, as in Kubernetes).
bool matches(const SelectorTerm& t, const Labels& labels);

// A pod's node rules. Equal rules are interned (PodSpec), so jobs that share them share request shapes.
struct NodeRules {
  Labels node_selector;                  // spec.nodeSelector: every label, with that value
  std::vector<Toleration> tolerations;   // spec.tolerations
  std::vector<SelectorTerm> required;    // ...requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: ORed
  std::vector<PreferredTerm> preferred;  // ...preferredDuringSchedulingIgnoredDuringExecution
  auto operator<=>(const NodeRules&) const = default;
};

// Does a node with `labels` pass the pod's nodeSelector and required node affinity (both must)?
bool selects(const NodeRules& rules, const Labels& labels);
// kube-scheduler's NodeAffinity score of a node: the summed weights of the preferred terms it matches.
int32_t affinity_weight(const NodeRules& rules, const Labels& labels);

// The job fields that give a pod's node rules, and their reader (InputError naming the field and
// what was expected on a malformed rule).
std::vector<Field> node_rule_fields();
NodeRules read_node_rules(const Fields& job);

// A pool's `taints:` field and its reader.
Field taints_field();
std::vector<Taint> read_taints(const ConfigNode& list);

}  // namespace gpusim
