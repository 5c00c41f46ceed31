// Request routers written in Python (gpusim.Router) as the serving component's RequestRouter, registered
// by name (gpusim.register_router) so that a scenario's `router:` can name them.
#include <fmt/format.h>
#include <pybind11/pybind11.h>

#include <string>

#include "gpusim/core/error.hpp"
#include "gpusim/sim/request_router.hpp"
#include "gpusim/sim/scenario.hpp"
#include "ids.hpp"

namespace gpusim::python {

namespace {

// A run holds the GIL only while Python policies take part (module.cpp): a router takes it itself.
class PyRouter final : public RequestRouter {
 public:
  explicit PyRouter(py::object obj) : obj_(std::move(obj)) {}
  ~PyRouter() override {
    py::gil_scoped_acquire gil;
    obj_ = py::object();
  }
  PyRouter(const PyRouter&) = delete;
  PyRouter& operator=(const PyRouter&) = delete;
  std::size_t route(const RoutedRequest& q, const ReplicaSet& replicas) override {
    py::gil_scoped_acquire gil;
    const py::object r = obj_.attr("route")(py::cast(&q, py::return_value_policy::reference),
                                            py::cast(&replicas, py::return_value_policy::reference));
    const std::optional<int64_t> slot = is_id(r) ? as_int(r) : std::nullopt;
    if (!slot || *slot < 0 || static_cast<std::size_t>(*slot) >= replicas.size() ||
        !replicas.ready(static_cast<std::size_t>(*slot)))
      throw PolicyError(fmt::format("Python router {}: route(request {}) returned {}: it must return the slot (0 to {}) of a "
                                    "ready replica",
                                    class_name(obj_), q.id, short_repr(r), replicas.size() - 1));
    return static_cast<std::size_t>(*slot);
  }

 private:
  py::object obj_;
};

}  // namespace

void bind_routers(py::module_& m) {
  py::class_<RoutedRequest>(m, "RoutedRequest")
      .def_readonly("id", &RoutedRequest::id)
      .def_property_readonly("arrival_s", [](const RoutedRequest& q) { return q.arrival.seconds(); })
      .def_readonly("prompt_tokens", &RoutedRequest::prompt_tokens)
      .def_readonly("output_tokens", &RoutedRequest::output_tokens);
  const auto slot = [](const ReplicaSet& r, std::size_t i) {
    if (i >= r.size()) throw py::index_error(fmt::format("replica slot {} out of range 0..{}", i, r.size() - 1));
    return i;
  };
  py::class_<ReplicaSet>(m, "ReplicaSet")
      .def("__len__", &ReplicaSet::size)
      .def("ready", [=](const ReplicaSet& r, std::size_t i) { return r.ready(slot(r, i)); })
      .def("waiting", [=](const ReplicaSet& r, std::size_t i) { return r.waiting(slot(r, i)); })
      .def("running", [=](const ReplicaSet& r, std::size_t i) { return r.running(slot(r, i)); })
      .def("outstanding", [=](const ReplicaSet& r, std::size_t i) { return r.outstanding(slot(r, i)); })
      .def("kv_usage", [=](const ReplicaSet& r, std::size_t i) { return r.kv_usage(slot(r, i)); })
      .def("cached_blocks", [=](const ReplicaSet& r, std::size_t i) { return r.cached_blocks(slot(r, i)); })
      .def("cached_prefix_tokens", [=](const ReplicaSet& r, std::size_t i) { return r.cached_prefix_tokens(slot(r, i)); });
  m.def(
      "register_router",
      [](const py::object& cls, const std::string& name, const std::string& description) {
        // The class, kept for the process's life: the registry outlives the interpreter's objects, so it
        // holds a reference it never gives back (a router class is small, and registered once).
        auto* kept = new py::object(cls);
        RouterRegistry::global().add({name, description, {}, [kept](const std::optional<ConfigNode>&) {
                                        py::gil_scoped_acquire gil;
                                        return std::make_unique<PyRouter>((*kept)());
                                      }});
      },
      py::arg("cls"), py::arg("name"), py::arg("description"));
}

}  // namespace gpusim::python
