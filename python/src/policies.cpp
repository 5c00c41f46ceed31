// Python policies as the engine's interfaces (policies.hpp).
#include "policies.hpp"

#include <fmt/format.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpusim/core/error.hpp"
#include "gpusim/policies/registry.hpp"
#include "ids.hpp"

namespace gpusim::python {

namespace {

// --- Python policies: adapters over the C++ interfaces. The GIL is held for the whole run when one
// takes part (simulate() releases it only for all-C++ policies). What a policy's method returns is
// checked here: anything else than the interface asks is a PolicyError naming the policy's class,
// the method and its arguments (the job), not pybind11's "Unable to cast".

[[noreturn]] void bad_policy(const py::handle& obj, const std::string& call, const std::string& why) {
  throw PolicyError(fmt::format("Python policy {}: {}: {}", class_name(obj), call, why));
}

// An int from a policy (an int, or a finite float, truncated), or nullopt.
std::optional<int64_t> key_part(const py::handle& h) {
  if (PyIndex_Check(h.ptr())) return as_int(h);
  if (py::isinstance<py::float_>(h)) {
    const double d = h.cast<double>();
    if (std::isfinite(d) && std::abs(d) < 9.2e18) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

QueueKey to_key(const py::handle& policy, const Job& job, const py::handle& r) {
  std::optional<int64_t> primary, secondary = 0;
  if (py::isinstance<py::tuple>(r)) {
    const auto t = py::reinterpret_borrow<py::tuple>(r);
    if (t.size() == 1 || t.size() == 2) primary = key_part(t[0]), secondary = t.size() == 2 ? key_part(t[1]) : 0;
  } else {
    primary = key_part(r);
  }
  if (!primary || !secondary)
    bad_policy(policy, fmt::format("key(job {}) returned {}", job.id, short_repr(r)),
               "it must return an int or a tuple of one or two ints (smaller runs first), finite and within 64 bits");
  return {*primary, *secondary};
}

py::object view_ref(const ClusterView& v) { return py::cast(&v, py::return_value_policy::reference); }
py::object job_ref(const Job& j) { return py::cast(&j, py::return_value_policy::reference); }

class PyQueueOrder final : public QueueOrder {
 public:
  explicit PyQueueOrder(py::object obj) : obj_(std::move(obj)) {}
  QueueKey key(const Job& job) const override { return to_key(obj_, job, obj_.attr("key")(job_ref(job))); }

 private:
  py::object obj_;
};

class PyPlacement final : public PlacementPolicy {
 public:
  explicit PyPlacement(py::object obj)
      : obj_(std::move(obj)), choose_(py::hasattr(obj_, "choose_gpus") && !obj_.attr("choose_gpus").is_none()) {}
  double score(const ClusterView& view, JobId job, NodeId node) const override {
    const py::object r = obj_.attr("score")(view_ref(view), job, node);
    double d = std::nan("");
    try {
      if (!py::isinstance<py::str>(r)) d = r.cast<double>();
    } catch (const py::cast_error&) {
    }
    if (std::isnan(d))
      bad_policy(obj_, fmt::format("score(job {}, node {}) returned {}", job, node, short_repr(r)),
                 "it must return a number, not NaN (lower is better)");
    return d;
  }
  void choose_gpus(const ClusterView& view, JobId job, const std::vector<GpuId>& fitting, int32_t count,
                   std::vector<GpuId>& out) const override {
    if (!choose_) return PlacementPolicy::choose_gpus(view, job, fitting, count, out);
    const py::object r = obj_.attr("choose_gpus")(view_ref(view), job, fitting, count);
    const auto fail = [&] {
      bad_policy(obj_,
                 fmt::format("choose_gpus(job {}, fitting {}, count {}) returned {}", job, short_repr(py::cast(fitting)), count,
                             short_repr(r)),
                 fmt::format("it must return a list of {} distinct GPU ids from the fitting ones", count));
    };
    if (!py::isinstance<py::sequence>(r) || py::isinstance<py::str>(r) || py::len(r) != static_cast<std::size_t>(count)) fail();
    out.clear();
    for (const py::handle e : r) {
      const int64_t g = is_id(e) ? as_int(e).value_or(-1) : -1;  // -1 matches no GPU
      const auto it = std::find_if(fitting.begin(), fitting.end(), [g](GpuId f) { return static_cast<int64_t>(f.value()) == g; });
      if (it == fitting.end() || std::find(out.begin(), out.end(), *it) != out.end()) fail();
      out.push_back(*it);
    }
  }

 private:
  py::object obj_;
  bool choose_;
};

// An instances argument left out (an empty list) is not shown.
bool shown(const py::handle& instances) { return !py::isinstance<py::sequence>(instances) || py::len(instances) > 0; }
std::string call(const py::handle& job, const py::handle& nodes, const py::handle& gpus, const py::handle& instances) {
  return fmt::format("decide() called binder.bind(job {}, nodes {}, gpus {}{})", short_repr(job), short_repr(nodes),
                     short_repr(gpus), shown(instances) ? ", instances " + short_repr(instances) : std::string());
}
template <class IdT>
IdT bound_id(const PyBinder& b, const py::handle& h, const std::function<std::string()>& where) {
  std::string why;
  if (auto id = read_id(b.view, id_kind<IdT>, h, why)) return IdT(*id);
  bad_policy(b.policy, where(), why);
}
template <class IdT>
std::vector<IdT> bound_ids(const PyBinder& b, const py::handle& list, const char* what,
                           const std::function<std::string()>& where) {
  if (!py::isinstance<py::sequence>(list) || py::isinstance<py::str>(list))
    bad_policy(b.policy, where(), fmt::format("{} must be a list of ids, not {}", what, class_name(list)));
  std::vector<IdT> out;
  for (const py::handle e : list) out.push_back(bound_id<IdT>(b, e, where));
  return out;
}

class PyScheduler final : public Scheduler {
 public:
  explicit PyScheduler(py::object obj) : obj_(std::move(obj)) {}
  std::string name() const override { return py::str(obj_.attr("name")); }
  QueueKey queue_key(const Job& job) const override { return to_key(obj_, job, obj_.attr("key")(job_ref(job))); }
  void decide(const ClusterView& view, Binder& binder) override {
    PyBinder b{binder, view, obj_};
    obj_.attr("decide")(view_ref(view), py::cast(&b, py::return_value_policy::reference));
  }
  bool would_use(const ClusterView& view, JobId job, PoolId pool) const override {
    const py::object r = obj_.attr("would_use")(view_ref(view), job, pool);
    if (py::isinstance<py::bool_>(r) || class_name(r) == "bool_") return r.cast<bool>();  // or numpy's bool
    bad_policy(obj_, fmt::format("would_use(job {}, pool {}) returned {}", job, pool, short_repr(r)), "it must return a bool");
  }

 private:
  py::object obj_;
};

std::string policy_name(const py::handle& part) {
  if (py::isinstance<py::str>(part)) return part.cast<std::string>();
  return py::str(part.attr("name"));
}

}  // namespace

void PyBinder::bind(const py::object& job, const py::object& nodes, const py::object& gpus, const py::object& instances) {
  const auto where = [&] { return call(job, nodes, gpus, instances); };
  const JobId j = bound_id<JobId>(*this, job, where);
  Placement p{bound_ids<NodeId>(*this, nodes, "nodes", where), bound_ids<GpuId>(*this, gpus, "gpus", where), {}};
  if (!py::isinstance<py::sequence>(instances) || py::isinstance<py::str>(instances))
    bad_policy(policy, where(), "instances must be a list with, per GPU, a MIG slot index or None");
  for (const py::handle e : instances) {
    if (e.is_none()) {
      p.instances.emplace_back();
      continue;
    }
    const std::optional<int64_t> slot = is_id(e) ? as_int(e) : std::nullopt;
    if (!slot || *slot < 0 || *slot > 255)
      bad_policy(policy, where(), fmt::format("instance {} is not a MIG slot index (an int 0..6) or None", short_repr(e)));
    p.instances.emplace_back(static_cast<MigSlotIndex>(*slot));
  }
  binder.bind(j, p);
}

void PyBinder::recheck_at_s(const py::object& t) {
  double s = std::nan("");
  try {
    if (!py::isinstance<py::str>(t)) s = t.cast<double>();
  } catch (const py::cast_error&) {
  }
  // Microseconds in 64 bits: about 292,000 years either way.
  if (!std::isfinite(s) || std::abs(s) > 9.2e12)
    bad_policy(policy, fmt::format("decide() called binder.recheck_at_s({})", short_repr(t)),
               "the time must be a finite number of seconds");
  binder.recheck_at(Time() + Duration::from_seconds(s, Round::toward_zero));
}

std::unique_ptr<Scheduler> make_scheduler(const Scenario& s, const py::object& policy, bool& python) {
  const PolicyContext context = policy_context(s);
  python = false;
  if (policy.is_none()) return Registry::global().make(s.policy, context, s.policy_where);
  if (py::isinstance<py::str>(policy)) {
    const auto spec = policy.cast<std::string>();
    return Registry::global().make(spec, context, {"policy", std::nullopt, spec});
  }
  // A queue order or a placement alone takes the other half of the scenario's policy.
  const py::module_ classes = py::module_::import("gpusim.policy");
  const std::size_t plus = s.policy.find('+');
  const std::string own_queue = s.policy.substr(0, plus);
  const std::string own_placement = plus == std::string::npos ? "" : s.policy.substr(plus + 1);
  if (py::isinstance(policy, classes.attr("QueueOrder"))) return make_scheduler(s, py::make_tuple(policy, own_placement), python);
  if (py::isinstance(policy, classes.attr("Placement"))) return make_scheduler(s, py::make_tuple(own_queue, policy), python);
  if ((py::isinstance<py::tuple>(policy) || py::isinstance<py::list>(policy)) && py::len(policy) == 2) {
    const py::tuple t = py::tuple(policy);
    const std::string name = policy_name(t[0]) + "+" + policy_name(t[1]);
    const SourceLocation where{"policy", std::nullopt, name};
    std::unique_ptr<QueueOrder> order;
    std::unique_ptr<PlacementPolicy> placement;
    if (py::isinstance<py::str>(t[0])) order = Registry::global().make_queue_order(t[0].cast<std::string>(), context, where);
    else order = std::make_unique<PyQueueOrder>(py::reinterpret_borrow<py::object>(t[0])), python = true;
    if (py::isinstance<py::str>(t[1])) placement = Registry::global().make_placement(t[1].cast<std::string>(), context, where);
    else placement = std::make_unique<PyPlacement>(py::reinterpret_borrow<py::object>(t[1])), python = true;
    return compose_policy(name, std::move(order), std::move(placement));
  }
  if (py::hasattr(policy, "decide")) {
    python = true;
    return std::make_unique<PyScheduler>(policy);
  }
  throw py::type_error("policy must be None, 'QUEUE+PLACEMENT', a (queue, placement) pair, or a gpusim.Scheduler");
}

}  // namespace gpusim::python
