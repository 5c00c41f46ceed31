#include "gpusim/sim/goodput.hpp"

#include <algorithm>

namespace gpusim {

GpuTime goodput(const GoodputParts& p) { return std::max(GpuTime(), p.computing - p.comm_stall - p.rerun); }

double goodput_ratio(GpuTime goodput, GpuTime allocated) { return allocated.us() > 0 ? goodput.us() / allocated.us() : 0.0; }

}  // namespace gpusim
