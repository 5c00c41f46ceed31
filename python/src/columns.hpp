#pragma once
// A result table (jobs.csv, timeseries.csv, ...) as DataFrame columns, typed as pandas.read_csv
// types the table's CSV text (columns.cpp says how), filled cell by cell with no text in between.
#include <pybind11/pybind11.h>

#include <functional>

#include "gpusim/sim/report.hpp"

namespace gpusim::python {

// The columns (name -> numpy array, or list of str) of the table `fill` writes into its sink.
pybind11::dict frame_columns(const std::function<void(TableSink&)>& fill);

}  // namespace gpusim::python
