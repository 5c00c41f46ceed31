#pragma once
// Ids between Python and the engine: Python sees job, node, GPU and pool ids as plain ints, and every
// id a Python call hands the view or the binder is read here, checked against the run's range.
#include <fmt/format.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>

#include "gpusim/core/error.hpp"
#include "gpusim/core/id.hpp"
#include "gpusim/sim/observer.hpp"
#include "gpusim/sim/scheduler.hpp"

namespace py = pybind11;

// Python sees job, node, GPU and pool ids as plain ints, both ways.
template <class Tag, class Rep>
struct pybind11::detail::type_caster<gpusim::Id<Tag, Rep>> {
  using Value = gpusim::Id<Tag, Rep>;
  PYBIND11_TYPE_CASTER(Value, const_name("int"));
  bool load(handle src, bool convert) {
    make_caster<Rep> rep;
    if (!rep.load(src, convert)) return false;
    value = Value(cast_op<Rep>(rep));
    return true;
  }
  static handle cast(Value id, return_value_policy policy, handle parent) {
    return make_caster<Rep>::cast(id.value(), policy, parent);
  }
};

namespace gpusim::python {

// --- Ids from Python. Every view method and binder argument that takes an id reads it with read_id,
// so an id out of range (negative, or past the end) is an error naming it and the valid range,
// never a read past the end of a vector.

enum class IdKind : uint8_t { job, node, gpu, pool };
template <class T>
constexpr IdKind id_kind = T::not_an_id_kind;
template <>
constexpr IdKind id_kind<JobId> = IdKind::job;
template <>
constexpr IdKind id_kind<NodeId> = IdKind::node;
template <>
constexpr IdKind id_kind<GpuId> = IdKind::gpu;
template <>
constexpr IdKind id_kind<PoolId> = IdKind::pool;

// How many ids of a kind the view has: ids run 0..count-1. The view the engine hands a policy is
// its RunState, whose scenario holds the run's jobs.
inline std::size_t id_count(const ClusterView& v, IdKind kind) {
  switch (kind) {
    case IdKind::job: {
      const auto* run = dynamic_cast<const RunState*>(&v);
      if (!run) throw std::logic_error("a ClusterView that is not a run's state");
      return run->scenario().jobs.jobs.size();
    }
    case IdKind::node: return v.cluster().node_count();
    case IdKind::gpu: return v.cluster().gpu_count();
    case IdKind::pool: return v.cluster().pools().size();
  }
  return 0;
}

// A Python int (or anything with __index__, as numpy's ints) as 64 bits; nullopt if it is not an
// int or does not fit.
inline std::optional<int64_t> as_int(const py::handle& h) {
  if (!PyIndex_Check(h.ptr())) return std::nullopt;
  const auto i = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!i) throw py::error_already_set();
  int overflow = 0;
  const long long value = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  if (overflow != 0) return std::nullopt;
  return value;
}

inline std::string class_name(const py::handle& obj) { return py::str(obj.get_type().attr("__name__")); }

// Ints are ids; True and False are not.
inline bool is_id(const py::handle& h) { return PyIndex_Check(h.ptr()) && !py::isinstance<py::bool_>(h); }

inline std::string short_repr(const py::handle& h) {
  std::string r = py::repr(h);
  return r.size() > 80 ? r.substr(0, 77) + "..." : r;
}

// An id of `kind` as the index it names, or (nullopt) why it is not one in `why`: not an int, or
// out of 0..count-1.
inline std::optional<uint32_t> read_id(const ClusterView& v, IdKind kind, const py::handle& h, std::string& why) {
  static constexpr const char* kName[] = {"job", "node", "GPU", "pool"};
  static constexpr const char* kPlural[] = {"jobs", "nodes", "GPUs", "pools"};
  static constexpr const char* kOwner[] = {"the run", "the cluster", "the cluster", "the cluster"};
  const auto k = static_cast<std::size_t>(kind);
  if (!is_id(h)) {
    why = fmt::format("a {} id must be an int, not {} ({})", kName[k], class_name(h), short_repr(h));
    return std::nullopt;
  }
  const std::optional<int64_t> value = as_int(h);
  const std::size_t count = id_count(v, kind);
  if (value && *value >= 0 && static_cast<uint64_t>(*value) < count) return static_cast<uint32_t>(*value);
  const std::string shown = py::str(h);
  why = count == 0 ? fmt::format("{} {} is out of range: {} has no {}", kName[k], shown, kOwner[k], kPlural[k])
                   : fmt::format("{} {} is out of range: {} has {} 0..{}", kName[k], shown, kOwner[k], kPlural[k], count - 1);
  return std::nullopt;
}

// An id argument of a view method: an IndexError (a TypeError if not an int) when it names nothing.
template <class IdT>
IdT view_id(const ClusterView& v, const py::handle& h) {
  std::string why;
  if (auto id = read_id(v, id_kind<IdT>, h, why)) return IdT(*id);
  if (!is_id(h)) throw py::type_error(why);
  throw py::index_error(why);
}

template <class>
struct PyArg {
  using type = py::object;
};

// A view method taking ids, for Python: each id checked by view_id first.
template <class R, class... Ids>
auto checked(R (ClusterView::*f)(Ids...) const) {
  return [f](const ClusterView& v, typename PyArg<Ids>::type... ids) -> R { return (v.*f)(view_id<Ids>(v, ids)...); };
}
template <class R, class... Ids>
auto checked(R (*f)(const ClusterView&, Ids...)) {
  return [f](const ClusterView& v, typename PyArg<Ids>::type... ids) -> R { return f(v, view_id<Ids>(v, ids)...); };
}

}  // namespace gpusim::python
