#include "gpusim/sim/priority_classes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace gpusim {

const Section& priority_class_section() {
  static const Section s{
      "priority_class",
      "A PriorityClass (scheduling.k8s.io/v1): the priority of the pods that name it",
      {{"name", Type::string(), required, "", "metadata.name, what jobs' priority_class names"},
       {"value", Type::int32(), required, "", "The priority of its pods: larger preempts smaller"},
       {"preemption_policy", Type::enumeration<PreemptionPolicy>(), "PreemptLowerPriority", "",
        "preemptionPolicy: Never pods wait for room instead of preempting lower-priority ones"},
       {"global_default", Type::boolean(), "false", "", "globalDefault: the class of pods naming none (at most one class)"},
       {"description", Type::string(), "", "", "What it is for"}}};
  return s;
}

const Section& disruption_budget_section() {
  static const Section s{"pod_disruption_budget",
                         "A PodDisruptionBudget (policy/v1): how many of its pods preemption should leave running",
                         {{"name", Type::string(), "", "", "metadata.name, for messages"},
                          {"namespace", Type::string(), required, "", "The namespace (tenant) of the pods it covers"},
                          {"selector", Type::map(Type::map(Type::string()), {"match_labels"}), required, "",
                           "selector.match_labels: the labels its pods carry (an empty selector matches no pod)"},
                          {"min_available", Type::one_of({Type::integer().at_least(0), Type::string(R"(^[0-9]+%$)")}), "", "",
                           "minAvailable: pods that must stay up, a count or a percent of its pods (rounded up)"},
                          {"max_unavailable", Type::one_of({Type::integer().at_least(0), Type::string(R"(^[0-9]+%$)")}), "", "",
                           "maxUnavailable: pods that may be down, a count or a percent of its pods (rounded up)"}}};
  return s;
}

bool DisruptionBudget::matches(const JobSet& jobs, const Job& j) const {
  if (j.tenant != tenant || match_labels.empty()) return false;
  const PodSpec* p = jobs.pod(j);
  if (!p) return false;
  return std::includes(p->labels.begin(), p->labels.end(), match_labels.begin(), match_labels.end());
}

int64_t DisruptionBudget::disruptions_allowed(int64_t healthy, int64_t matching) const {
  // The disruption controller (pkg/controller/disruption): expected pods = the matching pods here (no
  // controller scale to read), percents rounded up (GetScaledValueFromIntOrPercent, roundUp true).
  const int64_t scaled = percent ? (value * matching + 99) / 100 : value;
  const int64_t desired = min_available ? scaled : matching - scaled;
  return std::max<int64_t>(0, healthy - desired);
}

const PriorityClass* PrioritySpec::class_of(const JobSet& jobs, const Job& j) const {
  const PodSpec* p = jobs.pod(j);
  if (p && !p->priority_class.empty()) {
    for (const PriorityClass& c : classes)
      if (c.name == p->priority_class) return &c;
    return nullptr;
  }
  if (p && p->priority_given) return nullptr;  // its own priority, no class
  return global_default_ ? &classes[*global_default_] : nullptr;
}

namespace {

// A count, or "N%" (budget_percent).
std::pair<int32_t, bool> count_or_percent(const ConfigNode& n) {
  const std::string text = n.as_string();
  if (!text.ends_with('%')) return {n.as_int<int32_t>(Range::between(0, 2147483647)), false};
  const std::optional<int32_t> percent = budget_percent(text);
  if (!percent)
    n.fail(fmt::format("expected a count or a whole percent from 0% to 100% (Kubernetes refuses others), got '{}'", text));
  return {*percent, true};
}

}  // namespace

std::optional<int32_t> budget_percent(std::string_view text) {
  if (!text.ends_with('%')) return std::nullopt;
  const std::string_view digits = text.substr(0, text.size() - 1);
  if (digits.empty() || digits.size() > 3 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  const int32_t n = std::stoi(std::string(digits));
  return n <= 100 ? std::optional(n) : std::nullopt;
}

void read_priority_classes(const Fields* t, JobSet& jobs, PrioritySpec& out) {
  if (auto list = t ? t->get("priority_classes") : std::nullopt) {
    for (const ConfigNode& item : list->items()) {
      const Fields f = priority_class_section().read(item);
      PriorityClass c{f.at("name").as_string(), f.integer<int32_t>("value"),
                      f.value("preemption_policy").as_enum<PreemptionPolicy>(), f.value("global_default").as_bool(),
                      f.get("description") ? f.at("description").as_string() : ""};
      if (c.name.empty()) f.at("name").fail("expected a name (a PriorityClass is an object named as any other)");
      for (const PriorityClass& other : out.classes)
        if (other.name == c.name) f.at("name").fail(fmt::format("a second priority class named '{}'", c.name));
      if (c.global_default) {
        if (out.global_default_)
          f.at("global_default")
              .fail(fmt::format("'{}' is already the global default: at most one class may be",
                                out.classes[*out.global_default_].name));
        out.global_default_ = out.classes.size();
      }
      out.classes.push_back(std::move(c));
    }
  }
  // The classes every cluster has (the API server creates them: pkg/apis/scheduling
  // SystemPriorityClasses), unless the scenario declares its own of that name.
  for (const PriorityClass& system :
       {PriorityClass{"system-cluster-critical", 2'000'000'000, PreemptionPolicy::PreemptLowerPriority, false, "built in"},
        PriorityClass{"system-node-critical", 2'000'001'000, PreemptionPolicy::PreemptLowerPriority, false, "built in"}})
    if (std::none_of(out.classes.begin(), out.classes.end(), [&](const PriorityClass& c) { return c.name == system.name; }))
      out.classes.push_back(system);
  // The Priority admission controller (plugin/pkg/admission/priority): a pod's priority is its class's
  // value (the global default's when it names none); one that states another priority is refused. A job
  // giving `priority` without a class keeps it (gpusim's priority predates classes).
  for (Job& j : jobs.jobs) {
    const PodSpec* p = jobs.pod(j);
    if (p && !p->priority_class.empty()) {
      const PriorityClass* c = out.class_of(jobs, j);
      if (!c) {
        SourceLocation where = jobs.where(j);
        where.field += ".priority_class";
        std::vector<std::string_view> known;
        for (const PriorityClass& k : out.classes) known.push_back(k.name);
        throw InputError(
            where, fmt::format("job '{}': unknown priority class '{}'; expected one of tenancy.priority_classes: {}", j.name,
                               p->priority_class, known.empty() ? "(none)" : fmt::format("{}", fmt::join(known, ", "))));
      }
      if (p->priority_given && j.priority != c->value) {
        SourceLocation where = jobs.where(j);
        where.field += ".priority";
        throw InputError(where, fmt::format("job '{}': priority {} is not the value of its class '{}' ({}); give one of them",
                                            j.name, j.priority, c->name, c->value));
      }
      j.priority = c->value;
    } else if (const PriorityClass* c = out.class_of(jobs, j)) {
      j.priority = c->value;
    }
  }
  if (auto list = t ? t->get("pod_disruption_budgets") : std::nullopt) {
    for (const ConfigNode& item : list->items()) {
      const Fields f = disruption_budget_section().read(item);
      DisruptionBudget b;
      b.name = f.get("name") ? f.at("name").as_string() : "";
      const std::string ns = f.at("namespace").as_string();
      for (std::size_t i = 0; i < jobs.tenants.size(); ++i)
        if (jobs.tenants[i] == ns) b.tenant = static_cast<uint16_t>(i);
      if (auto m = f.at("selector").get("match_labels"))
        for (const auto& [key, value] : m->entries()) b.match_labels.emplace_back(key, value.as_string());
      std::sort(b.match_labels.begin(), b.match_labels.end());
      const auto min = f.get("min_available"), max = f.get("max_unavailable");
      if (min.has_value() == max.has_value()) f.fail("expected exactly one of min_available, max_unavailable");
      b.min_available = min.has_value();
      std::tie(b.value, b.percent) = count_or_percent(min ? *min : *max);
      out.budgets.push_back(std::move(b));
    }
  }
}

}  // namespace gpusim
