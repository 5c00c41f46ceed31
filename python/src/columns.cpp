// DataFrame columns of a result table (columns.hpp).
#include "columns.hpp"

#include <pybind11/numpy.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace gpusim::python {

namespace {

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

}  // namespace

py::dict frame_columns(const std::function<void(TableSink&)>& fill) {
  ColumnSink sink;
  fill(sink);
  return sink.frame_columns();
}

}  // namespace gpusim::python
