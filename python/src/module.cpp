// gpusim._core: the engine, scenarios, catalog and policies for the Python package (python/gpusim).
// Thin: every figure comes from the same C++ as the CLI (summary.json and the CSV writers), and
// Python policies are adapters over the same QueueOrder / PlacementPolicy / Scheduler interfaces,
// so the engine validates their decisions exactly as it validates the built-ins'.
#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_map>

#include "catalog.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/hardware/mig.hpp"
#include "gpusim/policies/registry.hpp"
#include "gpusim/sim/audit.hpp"
#include "gpusim/sim/engine.hpp"
#include "gpusim/sim/observer.hpp"
#include "gpusim/sim/outputs.hpp"
#include "gpusim/sim/report.hpp"
#include "gpusim/sim/scenario.hpp"
#include "html_report.hpp"
#include "sweep.hpp"

namespace py = pybind11;
using namespace gpusim;

// Python sees job, node, GPU and pool ids as plain ints, both ways.
template <class Tag, class Rep>
struct pybind11::detail::type_caster<Id<Tag, Rep>> {
  using Value = Id<Tag, Rep>;
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

namespace {

// A resolved scenario tree as Python objects (plain scalars read as YAML would: bool, int, float, str).
py::object to_python(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      py::dict d;
      for (const auto& kv : n) d[py::str(kv.first.Scalar())] = to_python(kv.second);
      return d;
    }
    case YAML::NodeType::Sequence: {
      py::list l;
      for (const auto& e : n) l.append(to_python(e));
      return l;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      if (n.Tag() == "!") return py::str(s);  // quoted in the file: a string
      if (s == "true" || s == "True") return py::bool_(true);
      if (s == "false" || s == "False") return py::bool_(false);
      if (s == "~" || s == "null") return py::none();
      try {
        std::size_t used = 0;
        const long long i = std::stoll(s, &used);
        if (used == s.size()) return py::int_(i);
      } catch (const std::exception&) {
      }
      try {
        std::size_t used = 0;
        const double d = std::stod(s, &used);
        if (used == s.size()) return py::float_(d);
      } catch (const std::exception&) {
      }
      return py::str(s);
    }
    default: return py::none();
  }
}

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
std::size_t id_count(const ClusterView& v, IdKind kind) {
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
std::optional<int64_t> as_int(const py::handle& h) {
  if (!PyIndex_Check(h.ptr())) return std::nullopt;
  const auto i = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!i) throw py::error_already_set();
  int overflow = 0;
  const long long value = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  if (overflow != 0) return std::nullopt;
  return value;
}

std::string class_name(const py::handle& obj) { return py::str(obj.get_type().attr("__name__")); }

// Ints are ids; True and False are not.
bool is_id(const py::handle& h) { return PyIndex_Check(h.ptr()) && !py::isinstance<py::bool_>(h); }

std::string short_repr(const py::handle& h) {
  std::string r = py::repr(h);
  return r.size() > 80 ? r.substr(0, 77) + "..." : r;
}

// An id of `kind` as the index it names, or (nullopt) why it is not one in `why`: not an int, or
// out of 0..count-1.
std::optional<uint32_t> read_id(const ClusterView& v, IdKind kind, const py::handle& h, std::string& why) {
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

// The binder a Python scheduler's decide() gets: the engine's, with the arguments checked here so a
// wrong type or id is a PolicyError naming the policy, not a cast error or a read out of range.
struct PyBinder {
  Binder& binder;
  const ClusterView& view;
  py::handle policy;

  // An instances argument left out (an empty list) is not shown.
  static bool shown(const py::handle& instances) { return !py::isinstance<py::sequence>(instances) || py::len(instances) > 0; }
  std::string call(const py::handle& job, const py::handle& nodes, const py::handle& gpus, const py::handle& instances) const {
    return fmt::format("decide() called binder.bind(job {}, nodes {}, gpus {}{})", short_repr(job), short_repr(nodes),
                       short_repr(gpus), shown(instances) ? ", instances " + short_repr(instances) : std::string());
  }
  template <class IdT>
  IdT id(const py::handle& h, const std::function<std::string()>& where) const {
    std::string why;
    if (auto id = read_id(view, id_kind<IdT>, h, why)) return IdT(*id);
    bad_policy(policy, where(), why);
  }
  template <class IdT>
  std::vector<IdT> ids(const py::handle& list, const char* what, const std::function<std::string()>& where) const {
    if (!py::isinstance<py::sequence>(list) || py::isinstance<py::str>(list))
      bad_policy(policy, where(), fmt::format("{} must be a list of ids, not {}", what, class_name(list)));
    std::vector<IdT> out;
    for (const py::handle e : list) out.push_back(id<IdT>(e, where));
    return out;
  }
  void bind(const py::object& job, const py::object& nodes, const py::object& gpus, const py::object& instances) {
    const auto where = [&] { return call(job, nodes, gpus, instances); };
    const JobId j = id<JobId>(job, where);
    Placement p{ids<NodeId>(nodes, "nodes", where), ids<GpuId>(gpus, "gpus", where), {}};
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
  void recheck_at_s(const py::object& t) {
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
};

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

// policy: None (the scenario's), "QUEUE+PLACEMENT", (queue, placement) with each a name or a Python
// object, or a whole Python scheduler. Sets `python` when Python code takes part.
std::unique_ptr<Scheduler> make_scheduler(const Scenario& s, const py::object& policy, bool& python) {
  const PolicyContext context = policy_context(s);
  python = false;
  if (policy.is_none()) return Registry::global().make(s.policy, context, s.policy_where);
  if (py::isinstance<py::str>(policy)) {
    const auto spec = policy.cast<std::string>();
    return Registry::global().make(spec, context, {"policy", std::nullopt, spec});
  }
  if (py::isinstance<py::tuple>(policy) && py::len(policy) == 2) {
    const py::tuple t = policy;
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

// One finished run: the engine's result and its summary, kept for the CSV writers, and the writers
// of its run directory, which observed it.
struct Run {
  std::shared_ptr<const Scenario> scenario;
  RunResult result;
  Json summary;
  double seconds = 0;
  std::shared_ptr<const RunOutputs> outputs;
};

std::shared_ptr<Run> simulate_py(std::shared_ptr<const Scenario> s, const py::object& policy, std::vector<std::string> outputs,
                                 bool audit) {
  bool python = false;
  auto scheduler = make_scheduler(*s, policy, python);
  outputs.insert(outputs.begin(), s->outputs.begin(), s->outputs.end());
  for (const std::string& name : outputs)
    if (!find_output(name)) throw InputError({"outputs", std::nullopt, name}, fmt::format("no output named '{}'", name));
  auto writers = std::make_shared<const RunOutputs>(outputs);
  const RunOptions options{{}, writers->observers(), audit};
  const auto t0 = std::chrono::steady_clock::now();
  RunResult result = [&] {
    if (python) return simulate(*s, *scheduler, options);
    py::gil_scoped_release release;  // other Python threads (a thread-pool sweep) run meanwhile
    return simulate(*s, *scheduler, options);
  }();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Json summary = summarize(*s, result);
  return std::make_shared<Run>(Run{std::move(s), std::move(result), std::move(summary), seconds, std::move(writers)});
}

// A result table as DataFrame columns, typed as pandas.read_csv types the table's CSV text, so a
// frame is the same whether read from a run directory or taken from a Run: an empty field (or a
// text read_csv takes for NaN) is NaN; a column of integer fields is int64, one with NaN or a
// fraction float64, one with no value at all float64; texts are str in an object column, unless
// every one reads as a number (then the column is numeric, as read_csv makes it).
// Each field goes straight into the array the frame keeps: numbers into numpy's own 8-byte slots
// (numpy backs large arrays with huge pages), texts into str objects as they come.
class ColumnSink final : public TableSink {
 public:
  ColumnSink() : nan_(py::module_::import("numpy").attr("nan")) {}
  void header(std::span<const std::string_view> names) override {
    for (std::string_view n : names) columns_.emplace_back(n);
  }
  using TableSink::header;
  void reserve(std::size_t rows) override {
    for (Column& c : columns_) c.reserve(rows);
  }
  void cell(int64_t v) override { next().number(static_cast<double>(v), true); }
  // "{}" prints an integral double without a fraction (up to 1e16, then with an exponent).
  void cell(double v) override { next().number(v, v == std::trunc(v) && std::fabs(v) < 1e16); }
  void cell(Duration v) override { next().number(v.seconds(), v.us() % 1'000'000 == 0); }
  void cell(std::string_view v) override { next().text(v, nan_.ptr()); }
  void empty() override { next().empty(nan_.ptr()); }
  void end_row() override {
    if (at_ != columns_.size()) throw std::logic_error("ColumnSink: a row shorter than the header");
    at_ = 0;
    ++rows_;
  }
  using TableSink::cell;

  py::dict frame_columns() {
    py::dict out;
    for (Column& c : columns_) out[py::str(c.name)] = c.to_numpy(rows_);
    return out;
  }

 private:
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

  // A numpy int64 array filled from the front: sized for the rows to come when they are known,
  // else grown by doubling. A float64 column keeps its doubles' bits in it and is handed out as a view.
  class Slots {
   public:
    void reserve(std::size_t rows) { reserved_ = rows; }
    void push(int64_t bits) {
      if (size_ == capacity_) [[unlikely]]
        grow();
      data_[size_++] = bits;
    }
    std::size_t size() const { return size_; }
    int64_t* data() { return data_; }
    py::array take() {
      if (size_ != capacity_) array_.resize({static_cast<py::ssize_t>(size_)}, false);
      return std::move(array_);
    }

   private:
    [[gnu::noinline]] void grow() {
      capacity_ = std::max({reserved_, 2 * capacity_, std::size_t{1024}});
      py::array_t<int64_t> bigger(static_cast<py::ssize_t>(capacity_));
      if (size_) std::copy_n(data_, size_, bigger.mutable_data());
      array_ = std::move(bigger);
      data_ = array_.mutable_data();
    }
    py::array_t<int64_t> array_;
    int64_t* data_ = nullptr;
    std::size_t size_ = 0, capacity_ = 0, reserved_ = 0;
  };

  // A column holds numbers or texts (the first field that is not empty decides; the tables never mix).
  struct Column {
    enum class Kind : uint8_t { unknown, number, text };
    // A column of mostly distinct texts (names, placements) stops sharing strs after this many: a
    // larger table is slower than new strs (synthetic-1m's 28,796 placements shared: 1.5x the time,
    // the lookups missing the cache).
    static constexpr std::size_t kShared = 4096;

    explicit Column(std::string_view n) : name(n) {}
    Column(Column&&) = default;
    ~Column() {
      for (PyObject* o : objects) Py_XDECREF(o);
    }

    std::string name;
    Kind kind = Kind::unknown;
    std::size_t leading_empty = 0;  // empty fields before the kind is known
    bool integral = true;           // every field an integer, none empty
    std::size_t reserved_rows = 0;  // the rows to come, when known
    Slots numbers;                  // Kind::number, and a text column's numbers while every text reads as one
    bool texts_are_numbers = true;
    std::vector<PyObject*> objects;  // Kind::text: one reference per field (a str, or NaN)
    // One str per distinct text, shared by the fields that hold it (kinds, statuses, pools); the key
    // views the str's own UTF-8, which `objects` keeps alive.
    std::unordered_map<std::string_view, PyObject*> shared;
    PyObject* last = nullptr;  // the last str made or shared (borrowed: `objects` holds it), and its text
    std::string_view last_text;

    void reserve(std::size_t rows) {
      reserved_rows = rows;
      numbers.reserve(rows);
    }
    void become(Kind k, PyObject* nan) {
      if (kind == k) return;
      if (kind != Kind::unknown) throw std::logic_error("ColumnSink: a column of numbers and texts");
      kind = k;
      for (std::size_t i = 0; i < leading_empty; ++i) numbers.push(std::bit_cast<int64_t>(kNaN));
      if (k == Kind::text) {
        objects.reserve(std::max(reserved_rows, leading_empty));
        objects.assign(leading_empty, nan);
        for (std::size_t i = 0; i < leading_empty; ++i) Py_INCREF(nan);
      }
    }
    void number(double v, bool is_integer) {
      become(Kind::number, nullptr);
      numbers.push(std::bit_cast<int64_t>(v));
      integral = integral && is_integer;
    }
    void text(std::string_view v, PyObject* nan) {
      if (v.empty() || is_na(v)) return empty(nan);
      become(Kind::text, nan);
      if (texts_are_numbers) read_number(v);
      objects.push_back(str(v));
    }
    void empty(PyObject* nan) {
      integral = false;
      switch (kind) {
        case Kind::unknown: ++leading_empty; break;
        case Kind::number: numbers.push(std::bit_cast<int64_t>(kNaN)); break;
        case Kind::text:
          if (texts_are_numbers) numbers.push(std::bit_cast<int64_t>(kNaN));
          Py_INCREF(nan);
          objects.push_back(nan);
          break;
      }
    }
    // read_csv makes a column of texts that all read as numbers a numeric one.
    void read_number(std::string_view v) {
      const char* end = v.data() + v.size();
      int64_t whole = 0;
      if (auto [p, e] = std::from_chars(v.data(), end, whole); e == std::errc() && p == end)
        return numbers.push(std::bit_cast<int64_t>(static_cast<double>(whole)));
      integral = false;
      double fraction = 0;
      if (auto [p, e] = std::from_chars(v.data(), end, fraction); e == std::errc() && p == end)
        return numbers.push(std::bit_cast<int64_t>(fraction));
      texts_are_numbers = false;
      numbers = Slots();
    }
    // A new reference to a str of `v`, shared with the earlier fields that hold the same text: the
    // field before (a run of one value: statuses, pools), or any of the first kShared distinct texts.
    PyObject* str(std::string_view v) {
      if (last && v == last_text) return Py_NewRef(last);
      const bool sharing = shared.size() < kShared;
      if (sharing) {
        if (auto it = shared.find(v); it != shared.end()) {
          std::tie(last_text, last) = *it;
          return Py_NewRef(last);
        }
      }
      PyObject* s = PyUnicode_FromStringAndSize(v.data(), static_cast<Py_ssize_t>(v.size()));
      if (!s) throw py::error_already_set();
      Py_ssize_t size = 0;
      const char* utf8 = PyUnicode_AsUTF8AndSize(s, &size);  // the str's own bytes, for ASCII no copy
      if (!utf8) {
        Py_DECREF(s);
        throw py::error_already_set();
      }
      last = s;
      last_text = std::string_view(utf8, static_cast<std::size_t>(size));
      if (sharing) shared.emplace(last_text, s);
      return s;
    }
    static bool is_na(std::string_view v) {          // read_csv's default na_values
      constexpr std::string_view kFirst = "#-1<Nn";  // how NA texts start: most texts are ruled out at once
      if (v.size() > 8 || kFirst.find(v.front()) == std::string_view::npos) return false;
      static constexpr std::string_view kNa[] = {"#N/A", "#N/A N/A", "#NA",     "-1.#IND", "-1.#QNAN", "-NaN",
                                                 "-nan", "1.#IND",   "1.#QNAN", "<NA>",    "N/A",      "NA",
                                                 "NULL", "NaN",      "None",    "n/a",     "nan",      "null"};
      return std::find(std::begin(kNa), std::end(kNa), v) != std::end(kNa);
    }

    // The column's numbers as int64 (converted in place) or float64.
    py::object numeric() {
      if (integral) {
        int64_t* v = numbers.data();
        for (std::size_t i = 0; i < numbers.size(); ++i) v[i] = static_cast<int64_t>(std::bit_cast<double>(v[i]));
        return numbers.take();
      }
      return numbers.take().view("float64");
    }

    py::object to_numpy(std::size_t rows) {
      if (rows == 0) return py::array(py::dtype("O"), 0);  // read_csv of a header alone: object columns
      if (kind == Kind::unknown) {
        for (std::size_t i = 0; i < rows; ++i) numbers.push(std::bit_cast<int64_t>(kNaN));
        return numeric();
      }
      if (kind == Kind::number || texts_are_numbers) return numeric();
      shared.clear();
      py::array a(py::dtype("O"), static_cast<py::ssize_t>(rows));
      auto** cells = static_cast<PyObject**>(a.mutable_data());
      for (std::size_t i = 0; i < rows; ++i) {
        Py_XDECREF(cells[i]);  // the None numpy filled the array with
        cells[i] = std::exchange(objects[i], nullptr);
      }
      objects.clear();
      return a;
    }
  };

  Column& next() {
    if (at_ >= columns_.size()) throw std::logic_error("ColumnSink: a row longer than the header");
    return columns_[at_++];
  }

  py::object nan_;  // read_csv's NaN in a text column, the one object
  std::vector<Column> columns_;
  std::size_t at_ = 0;
  std::size_t rows_ = 0;
};

template <typename Table>
py::dict frame_columns(Table&& table) {
  ColumnSink sink;
  table(sink);
  return sink.frame_columns();
}

// `max_memory` (a size such as "4GiB", or bytes) as --max-memory takes it; none: the machine's default.
LoadOptions load_options(std::optional<std::string> text, std::vector<std::string> overrides, std::optional<std::string> data,
                         const std::optional<std::string>& max_memory) {
  std::optional<MemoryLimit> limit;
  if (max_memory) limit = MemoryLimit::parse(*max_memory, {"", std::nullopt, "max_memory"});
  return {std::move(overrides), std::move(data), std::move(text), std::move(limit)};
}

std::shared_ptr<Scenario> load(const std::string& path, std::optional<std::string> text, std::vector<std::string> overrides,
                               std::optional<std::string> data, const std::optional<std::string>& max_memory) {
  return std::make_shared<Scenario>(
      load_scenario(path, load_options(std::move(text), std::move(overrides), std::move(data), max_memory)));
}

py::dict pool_dict(const PoolSpec& p) {
  py::dict d;
  d["name"] = p.name;
  d["node_template"] = p.node_template;
  d["gpu_model"] = p.gpu ? py::object(py::str(p.gpu->name)) : py::object(py::none());
  d["nodes"] = p.node_count;
  d["initial_nodes"] = p.initial_nodes;
  d["gpus_per_node"] = p.nodes.front().gpus;
  d["sharing"] = std::string(to_string(p.sharing.mode));
  d["replicas"] = p.sharing.replicas;
  d["market"] = std::string(to_string(p.market));
  d["price_per_node_hour_usd"] = p.price_per_node_hour_usd;
  return d;
}

// The job set as columns (a DataFrame on the Python side).
py::dict job_columns(const Scenario& s) {
  std::vector<uint32_t> id;
  std::vector<std::string> name, kind, tenant;
  std::vector<double> arrival_s, work_s, u;
  std::vector<int32_t> gpus, priority;
  std::vector<int64_t> milli, gpu_memory_mib, cpu_milli, memory_mib;
  for (const Job& j : s.jobs.jobs) {
    id.push_back(j.id);
    name.push_back(j.name);
    kind.emplace_back(to_string(j.kind));
    tenant.push_back(s.jobs.tenants[j.tenant]);
    arrival_s.push_back(j.arrival.seconds());
    work_s.push_back(j.work.seconds());
    u.push_back(j.u);
    gpus.push_back(j.request.gpus);
    priority.push_back(j.priority);
    milli.push_back(j.request.milli_per_gpu.value);
    gpu_memory_mib.push_back(j.request.gpu_memory_mib);
    cpu_milli.push_back(j.request.cpu_milli);
    memory_mib.push_back(j.request.memory_mib);
  }
  py::dict d;
  d["id"] = id, d["name"] = name, d["arrival_s"] = arrival_s, d["work_s"] = work_s, d["kind"] = kind, d["tenant"] = tenant;
  d["gpus"] = gpus, d["milli_per_gpu"] = milli, d["gpu_memory_mib"] = gpu_memory_mib, d["cpu_milli"] = cpu_milli;
  d["memory_mib"] = memory_mib, d["u"] = u, d["priority"] = priority;
  return d;
}

// View methods Python has that the C++ view has not (each id checked by checked()). A slot an
// autoscaled pool has not built yet is an off node: a copy describes it (node_admits and
// fits_on_node say no, fitting_gpus is empty, gpu_fits false).
py::object view_node(const ClusterView& v, NodeId n) {
  if (v.cluster().has_node(n)) return py::cast(&v.cluster().node(n), py::return_value_policy::reference);
  return py::cast(v.cluster().slot_node(n));
}
py::object view_gpu(const ClusterView& v, GpuId g) {
  if (v.cluster().has_gpu(g)) return py::cast(&v.cluster().gpu(g), py::return_value_policy::reference);
  return py::cast(v.cluster().slot_gpu(g));
}
bool gpu_fits(const ClusterView& v, JobId job, GpuId g) { return v.cluster().has_gpu(g) && v.gpu_fits(job, g); }
const Pool* view_pool(const ClusterView& v, PoolId p) { return &v.cluster().pool(p); }
std::vector<GpuId> fitting_gpus(const ClusterView& v, JobId job, NodeId node) {
  std::vector<GpuId> out;
  v.fitting_gpus(job, node, out);
  return out;
}
// Seconds, as the rest of the Python view speaks: how long after its arrival the job must end (None:
// no deadline), and how long it has waited in the queue over all its waits.
std::optional<double> deadline_s(const ClusterView& v, JobId job) {
  const std::optional<Duration> d = v.deadline(job);
  return d ? std::optional(d->seconds()) : std::nullopt;
}
double waited_s(const ClusterView& v, JobId job) { return v.waited(job).seconds(); }
std::pair<int64_t, int64_t> gpu_demand(const ClusterView& v, JobId job, PoolId pool) {
  const GpuDemand d = v.gpu_demand(job, pool);
  return {d.milli.value, d.memory_mib};
}

std::vector<GpuId> node_gpus(const ClusterView& v, NodeId n) {
  const Node node = v.cluster().slot_node(n);
  std::vector<GpuId> out;
  for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g) out.push_back(g);
  return out;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "gpusim's C++ core (use the gpusim package)";
  m.attr("__version__") = kVersion;
  // The CLI exits 2 on an InputError and 1 on a PolicyError; Python gets the same messages.
  py::register_exception<InputError>(m, "InputError", PyExc_ValueError);
  py::register_exception<PolicyError>(m, "PolicyError", PyExc_RuntimeError);
  py::register_exception<AuditError>(m, "AuditError", PyExc_RuntimeError);
  py::register_exception<OutputError>(m, "OutputError", PyExc_OSError);

  // --- hardware catalog and MIG geometry
  py::class_<MigProfile>(m, "MigProfile")
      .def_readonly("name", &MigProfile::name)
      .def_readonly("profile_id", &MigProfile::profile_id)
      .def_readonly("memory_mib", &MigProfile::memory_mib)
      .def_readonly("sms", &MigProfile::sms)
      .def_readonly("compute_slices", &MigProfile::compute_slices)
      .def_readonly("memory_slices", &MigProfile::memory_slices)
      .def_readonly("starts", &MigProfile::starts)
      .def_readonly("max_count", &MigProfile::max_count)
      .def_readonly("media_extensions", &MigProfile::media_extensions)
      .def("__repr__", [](const MigProfile& p) { return "<MigProfile " + p.name + ">"; });
  py::class_<MigLayoutOption>(m, "MigLayout")
      .def_readonly("counts", &MigLayoutOption::counts)
      .def_readonly("maximal", &MigLayoutOption::maximal)
      .def_property_readonly("instances",
                             [](const MigLayoutOption& o) {
                               std::vector<std::pair<int, int>> out;
                               for (const MigInstance& in : o.placement) out.emplace_back(in.profile, in.start);
                               return out;
                             });
  py::class_<MigTable>(m, "MigTable")
      .def_readonly("geometry", &MigTable::geometry)
      .def_readonly("memory_slices", &MigTable::memory_slices)
      .def_readonly("compute_slices", &MigTable::compute_slices)
      .def_readonly("profiles", &MigTable::profiles)
      .def("layouts", [](const MigTable& t) { return mig_enumerate(t); }, "Every valid layout, largest first")
      .def("describe", [](const MigTable& t, const MigCounts& c) { return mig_describe(t, c); });
  py::class_<GpuModel>(m, "GpuModel")
      .def_readonly("name", &GpuModel::name)
      .def_readonly("aliases", &GpuModel::aliases)
      .def_readonly("memory_mib", &GpuModel::memory_mib)
      .def_readonly("sms", &GpuModel::sms)
      .def_readonly("bf16_tflops", &GpuModel::bf16_tflops)
      .def_readonly("fp32_tflops", &GpuModel::fp32_tflops)
      .def_readonly("memory_bandwidth_gb_per_s", &GpuModel::memory_bandwidth_gb_per_s)
      .def_readonly("tdp_w", &GpuModel::tdp_w)
      .def_readonly("nvlink_gb_per_s", &GpuModel::nvlink_gb_per_s)
      .def_readonly("pcie_gen", &GpuModel::pcie_gen)
      .def_readonly("compute_capability", &GpuModel::compute_capability)
      .def_readonly("source", &GpuModel::source)
      .def_property_readonly("mig", [](const GpuModel& g) { return g.mig ? &*g.mig : nullptr; }, py::return_value_policy::reference_internal)
      .def("__repr__", [](const GpuModel& g) { return "<GpuModel " + g.name + ">"; });
  py::class_<NodeTemplate>(m, "NodeTemplate")
      .def_readonly("name", &NodeTemplate::name)
      .def_readonly("gpu", &NodeTemplate::gpu)
      .def_readonly("gpus", &NodeTemplate::gpus)
      .def_readonly("cpu_milli", &NodeTemplate::cpu_milli)
      .def_readonly("memory_mib", &NodeTemplate::memory_mib)
      .def_readonly("price_per_node_hour_usd", &NodeTemplate::price_per_node_hour_usd)
      .def_readonly("spot_price_per_node_hour_usd", &NodeTemplate::spot_price_per_node_hour_usd)
      .def_readonly("source", &NodeTemplate::source)
      .def("__repr__", [](const NodeTemplate& t) { return "<NodeTemplate " + t.name + ">"; });
  // The built-in catalog lives as long as the process: Python holds references into it.
  m.def("builtin_gpus", [] {
    py::list out;
    for (const GpuModel& g : Catalog::builtin().gpus()) out.append(py::cast(&g, py::return_value_policy::reference));
    return out;
  });
  m.def("builtin_nodes", [] {
    py::list out;
    for (const NodeTemplate& n : Catalog::builtin().nodes()) out.append(py::cast(&n, py::return_value_policy::reference));
    return out;
  });
  m.def("mig_model", [](const std::string& name) { return &require_mig_model(Catalog::builtin(), name); },
        py::return_value_policy::reference);
  // `gpusim catalog [VIEW] [--filter F] [--gpu G] [--json]`: the CLI's own text and JSON (as a string).
  const auto catalog_query = [](const std::string& view, std::optional<std::string> filter, std::optional<std::string> gpu) {
    return cli::CatalogQuery{cli::parse_catalog_view(view), std::move(filter), std::move(gpu)};
  };
  m.def(
      "catalog_text",
      [catalog_query](const std::string& view, std::optional<std::string> filter, std::optional<std::string> gpu) {
        return cli::catalog_text(Catalog::builtin(), catalog_query(view, std::move(filter), std::move(gpu)));
      },
      py::arg("view") = "all", py::arg("filter") = py::none(), py::arg("gpu") = py::none());
  m.def(
      "catalog_json",
      [catalog_query](const std::string& view, std::optional<std::string> filter, std::optional<std::string> gpu) {
        return cli::catalog_json(Catalog::builtin(), catalog_query(view, std::move(filter), std::move(gpu))).dump(2);
      },
      py::arg("view") = "all", py::arg("filter") = py::none(), py::arg("gpu") = py::none());

  // --- scenarios
  py::class_<Scenario, std::shared_ptr<Scenario>>(m, "Scenario")
      .def_readonly("file", &Scenario::file)
      .def_readonly("name", &Scenario::name)
      .def_readonly("seed", &Scenario::seed)
      .def_readonly("policy", &Scenario::policy)
      .def_readonly("data_dir", &Scenario::data_dir)
      .def_property_readonly("variants",
                             [](const Scenario& s) {
                               std::vector<std::string> out;
                               for (const auto& v : s.variants) out.push_back(v.name);
                               return out;
                             })
      .def_property_readonly("config", [](const Scenario& s) { return to_python(s.resolved.yaml()); })
      .def_property_readonly("pools",
                             [](const Scenario& s) {
                               py::list out;
                               for (const auto& p : s.pools) out.append(pool_dict(p));
                               return out;
                             })
      .def("job_columns", &job_columns);
  m.def("load_scenario", &load, py::arg("path"), py::arg("text") = py::none(), py::arg("overrides") = std::vector<std::string>{},
        py::arg("data") = py::none(), py::arg("max_memory") = py::none());
  m.def(
      "load_variants",
      [](const std::string& path, std::optional<std::string> text, std::vector<std::string> overrides,
         std::optional<std::string> data, const std::optional<std::string>& max_memory) {
        std::vector<std::pair<std::string, std::shared_ptr<Scenario>>> out;
        for (auto& [name, s] :
             load_variants(path, load_options(std::move(text), std::move(overrides), std::move(data), max_memory)))
          out.emplace_back(name, std::make_shared<Scenario>(std::move(s)));
        return out;
      },
      py::arg("path"), py::arg("text") = py::none(), py::arg("overrides") = std::vector<std::string>{},
      py::arg("data") = py::none(), py::arg("max_memory") = py::none());

  // --- what Python policies see and call
  py::class_<Job>(m, "Job")
      .def_readonly("id", &Job::id)
      .def_readonly("name", &Job::name)
      .def_property_readonly("arrival_s", [](const Job& j) { return j.arrival.seconds(); })
      .def_property_readonly("work_s", [](const Job& j) { return j.work.seconds(); })
      .def_property_readonly("arrival_us", [](const Job& j) { return j.arrival.us(); })
      .def_property_readonly("work_us", [](const Job& j) { return j.work.us(); })
      .def_property_readonly("gpus", [](const Job& j) { return j.request.gpus; })
      .def_property_readonly("milli_per_gpu", [](const Job& j) { return j.request.milli_per_gpu.value; })
      .def_property_readonly("gpu_memory_mib", [](const Job& j) { return j.request.gpu_memory_mib; })
      .def_property_readonly("cpu_milli", [](const Job& j) { return j.request.cpu_milli; })
      .def_property_readonly("memory_mib", [](const Job& j) { return j.request.memory_mib; })
      .def_property_readonly("kind", [](const Job& j) { return std::string(to_string(j.kind)); })
      .def_readonly("u", &Job::u)
      .def_readonly("tenant", &Job::tenant)
      .def_readonly("priority", &Job::priority)
      .def_readonly("multi_node", &Job::multi_node)
      .def("__repr__", [](const Job& j) { return "<Job " + std::to_string(j.id) + " " + j.name + ">"; });
  py::class_<Node>(m, "Node")
      .def_readonly("name", &Node::name)
      .def_readonly("pool", &Node::pool)
      .def_readonly("gpu_count", &Node::gpu_count)
      .def_readonly("first_gpu", &Node::first_gpu)
      .def_readonly("cpu_milli", &Node::cpu_milli)
      .def_readonly("memory_mib", &Node::memory_mib)
      .def_readonly("free_cpu_milli", &Node::free_cpu_milli)
      .def_readonly("free_memory_mib", &Node::free_memory_mib)
      .def_property_readonly("ready", &Node::ready);
  py::class_<Gpu>(m, "Gpu")
      .def_readonly("node", &Gpu::node)
      .def_property_readonly("free_milli", [](const Gpu& g) { return g.free.value; })
      .def_readonly("free_memory_mib", &Gpu::free_memory_mib)
      .def_readonly("slots", &Gpu::slots)
      .def_readonly("mig", &Gpu::mig)
      .def_readonly("busy", &Gpu::busy)
      .def_property_readonly("residents", [](const Gpu& g) { return std::vector<JobId>(g.residents.begin(), g.residents.end()); });
  py::class_<Pool>(m, "Pool")
      .def_readonly("name", &Pool::name)
      .def_property_readonly("gpu_model", [](const Pool& p) { return p.gpu ? p.gpu->name : std::string(); })
      .def_property_readonly("market", [](const Pool& p) { return std::string(to_string(p.market)); })
      .def_property_readonly("sharing", [](const Pool& p) { return std::string(to_string(p.sharing.mode)); })
      .def_readonly("price_per_node_hour_usd", &Pool::price_per_node_hour_usd);
  py::class_<ClusterView>(m, "ClusterView", "The cluster as a policy sees it at a decision point (read-only)")
      .def_property_readonly("now_s", [](const ClusterView& v) { return v.now().seconds(); })
      .def_property_readonly("node_count", [](const ClusterView& v) { return v.cluster().node_count(); })
      .def_property_readonly("gpu_count", [](const ClusterView& v) { return v.cluster().gpu_count(); })
      .def("job", checked(&ClusterView::job), py::return_value_policy::reference)
      .def("node", checked(&view_node))
      .def("gpu", checked(&view_gpu))
      .def("pool", checked(&view_pool), py::return_value_policy::reference)
      .def("node_gpus", checked(&node_gpus))
      .def(
          "pending",
          [](const ClusterView& v) {
            std::vector<JobId> out;
            v.for_each_pending([&](JobId id) {
              out.push_back(id);
              return true;
            });
            return out;
          },
          "Pending jobs in queue order")
      .def("new_arrivals", &ClusterView::new_arrivals)
      .def("is_pending", checked(&ClusterView::is_pending))
      .def("deadline_s", checked(&deadline_s), "Seconds after its arrival by which the job must end; None: no deadline")
      .def("waited_s", checked(&waited_s), "Seconds the job has waited in the queue, over all its waits")
      .def(
          "running",
          [](const ClusterView& v) {
            std::vector<std::pair<JobId, double>> out;
            v.for_each_running([&](JobId id, Time end) { out.emplace_back(id, end.seconds()); });
            return out;
          },
          "(job, expected end in seconds) of every running job")
      .def(
          "distinct_nodes",
          [](const ClusterView& v) {
            std::vector<NodeId> out;
            for (BucketId b : v.cluster().live_buckets()) out.push_back(v.cluster().bucket(b).representative());
            return out;
          },
          "One ready node per group of nodes in identical states (the lowest id)")
      .def("fits_on_node", checked(&ClusterView::fits_on_node))
      .def("node_admits", checked(&ClusterView::node_admits))
      .def("gpu_fits", checked(&gpu_fits))
      .def("gpus_to_place", checked(&ClusterView::gpus_to_place))
      .def("fitting_gpus", checked(&fitting_gpus))
      .def("gpu_demand", checked(&gpu_demand));
  py::class_<PyBinder>(m, "Binder", "Where a policy's decisions go; the engine checks each one")
      .def("bind", &PyBinder::bind, py::arg("job"), py::arg("nodes"), py::arg("gpus"), py::arg("instances") = py::list(),
           "instances: per GPU, its MIG slot (an index into the GPU's instances), None on GPUs without MIG")
      .def("recheck_at_s", &PyBinder::recheck_at_s, py::arg("t"));

  // --- runs
  py::class_<Run, std::shared_ptr<Run>>(m, "Run")
      .def_readonly("seconds", &Run::seconds)
      .def_property_readonly("events", [](const Run& r) { return r.result.events; })
      .def("summary_json", [](const Run& r) { return r.summary.dump(); })
      .def("jobs_columns",
           [](const Run& r) { return frame_columns([&](TableSink& t) { jobs_table(t, *r.scenario, r.result); }); })
      .def("timeseries_columns", [](const Run& r) { return frame_columns([&](TableSink& t) { timeseries_table(t, r.result); }); })
      .def("pool_timeseries_columns",
           [](const Run& r) { return frame_columns([&](TableSink& t) { pool_timeseries_table(t, r.result); }); })
      .def("gpus_columns", [](const Run& r) { return frame_columns([&](TableSink& t) { gpus_table(t, r.result); }); })
      .def("tenants_columns",
           [](const Run& r) { return frame_columns([&](TableSink& t) { tenants_table(t, *r.scenario, r.result); }); })
      .def("cost_columns",
           [](const Run& r) { return frame_columns([&](TableSink& t) { cost_table(t, *r.scenario, r.result); }); })
      .def("services_columns", [](const Run& r) { return frame_columns([&](TableSink& t) { services_table(t, r.summary); }); })
      .def("requests_columns",
           [](const Run& r) { return frame_columns([&](TableSink& t) { requests_table(t, *r.scenario, r.result); }); })
      .def("replicas_columns",
           [](const Run& r) { return frame_columns([&](TableSink& t) { replicas_table(t, *r.scenario, r.result); }); })
      .def(
          "write",
          [](const Run& r, const std::string& dir, bool force) {
            r.outputs->write(dir, force, *r.scenario, r.result, r.summary);
          },
          py::arg("dir"), py::arg("force") = false)
      .def(
          "report",
          [](const Run& r, const std::string& path, bool force) {
            check_output_file(path, "path", force);
            write_output_file(path, cli::html_report(cli::run_files(*r.outputs, *r.scenario, r.result, r.summary), "run"));
          },
          py::arg("path"), py::arg("force") = false);
  // The HTML report of a run directory: the renderer `gpusim report` uses.
  m.def(
      "report",
      [](const std::string& run_dir, const std::string& path, bool force) {
        check_output_file(path, "path", force);
        write_output_file(path, cli::html_report(cli::read_run_dir(run_dir), run_dir));
      },
      py::arg("run_dir"), py::arg("path"), py::arg("force") = false);
  m.def("simulate", &simulate_py, py::arg("scenario"), py::arg("policy") = py::none(),
        py::arg("outputs") = std::vector<std::string>{}, py::arg("audit") = false);
  m.def("outputs", [] {
    std::vector<std::tuple<std::string, std::string, std::string, bool>> out;
    for (const OutputSpec& o : output_table()) out.emplace_back(o.name, o.file, o.description, o.by_default);
    return out;
  });

  m.def("flatten_summary", [](const std::string& summary_json) { return flatten_summary(Json::parse(summary_json)); });
  m.def(
      "sweep_points",
      [](const std::string& path, std::optional<std::string> text, std::vector<std::string> overrides,
         std::optional<std::string> data, std::vector<std::pair<std::string, std::vector<std::string>>> grid,
         const std::vector<std::string>& policies, const std::optional<std::string>& max_memory) {
        std::vector<cli::GridAxis> axes;
        for (auto& axis : grid) {
          if (axis.second.empty()) throw InputError({"grid", std::nullopt, axis.first}, "expected at least one value");
          axes.push_back({axis.first, std::move(axis.second)});
        }
        std::vector<py::dict> out;
        for (auto& point : cli::sweep_points(
                 path, load_options(std::move(text), std::move(overrides), std::move(data), max_memory), axes, policies)) {
          py::dict d;
          d["columns"] = point.columns;
          d["overrides"] = point.overrides;
          d["policy"] = point.policy;
          out.push_back(std::move(d));
        }
        return out;
      },
      py::arg("path"), py::arg("text"), py::arg("overrides"), py::arg("data"), py::arg("grid"), py::arg("policies"),
      py::arg("max_memory") = py::none());
}
