#pragma once
// Policies written in Python (gpusim.QueueOrder, gpusim.Placement, gpusim.Scheduler) as the engine's
// C++ interfaces, and the scheduler a run's `policy=` argument names (policies.cpp).
#include <pybind11/pybind11.h>

#include <memory>

#include "gpusim/sim/scenario.hpp"
#include "gpusim/sim/scheduler.hpp"

namespace gpusim::python {

// The binder a Python scheduler's decide() gets (gpusim.Binder): the engine's, with the arguments
// checked here so a wrong type or id is a PolicyError naming the policy, not a cast error or a read
// out of range.
struct PyBinder {
  Binder& binder;
  const ClusterView& view;
  pybind11::handle policy;
  void bind(const pybind11::object& job, const pybind11::object& nodes, const pybind11::object& gpus,
            const pybind11::object& instances);
  void recheck_at_s(const pybind11::object& t);
};

// policy: None (the scenario's), "QUEUE+PLACEMENT", a gpusim.QueueOrder or gpusim.Placement alone
// (composed with the other half of the scenario's policy), (queue, placement) with each a name or a
// Python object (a list as a tuple), or a whole Python scheduler. Sets `python` when Python code
// takes part.
std::unique_ptr<Scheduler> make_scheduler(const Scenario& s, const pybind11::object& policy, bool& python);

// gpusim.Router's views (RoutedRequest, ReplicaSet) and register_router (routers.cpp).
void bind_routers(pybind11::module_& m);

}  // namespace gpusim::python
