#include "gpusim/sim/execution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace gpusim {

namespace embedded {
std::string_view model_yaml();
}  // namespace embedded

const ExecutionModel& ExecutionModel::builtin() {
  static const ExecutionModel model = [] {
    ExecutionModel m;
    m.apply(ConfigNode::parse(std::string(embedded::model_yaml()), "<builtin>/sim/data/model.yaml"));
    return m;
  }();
  return model;
}

void ExecutionModel::apply(const ConfigNode& doc) {
  doc.allow_only({"time_slicing", "mps", "mig", "restart"});
  auto positive = [](const ConfigNode& n) {
    const Time t = n.as_duration();
    if (t <= Time()) n.fail("expected a positive duration");
    return t;
  };
  if (auto t = doc.get("time_slicing")) {
    t->allow_only({"context_switch", "timeslice", "context_memory_mib", "max_contexts", "source"});
    if (auto v = t->get("context_switch")) time_slicing.context_switch = v->as_duration();
    if (auto v = t->get("timeslice")) time_slicing.timeslice = positive(*v);
    if (auto v = t->get("context_memory_mib")) time_slicing.context_memory_mib = v->as_non_negative_int();
    if (auto v = t->get("max_contexts")) {
      const auto n = v->as_positive_int();
      if (n > 60) v->fail("expected at most 60 contexts per GPU");
      time_slicing.max_contexts = static_cast<int>(n);
    }
    if (time_slicing.context_switch < Time() || time_slicing.context_switch >= time_slicing.timeslice)
      t->fail("expected 0 <= context_switch < timeslice");
  }
  if (auto m = doc.get("mps")) {
    m->allow_only({"bandwidth_interference", "fault_rate_per_hour", "source"});
    if (auto v = m->get("bandwidth_interference")) {
      mps.bandwidth_interference = v->as_non_negative_number();
      if (mps.bandwidth_interference >= 1) v->fail("expected a value in [0, 1)");
    }
    if (auto v = m->get("fault_rate_per_hour")) mps.fault_rate_per_hour = v->as_non_negative_number();
  }
  if (auto m = doc.get("mig")) {
    m->allow_only({"reconfiguration_delay", "source"});
    if (auto v = m->get("reconfiguration_delay")) mig.reconfiguration_delay = v->as_duration();
    if (mig.reconfiguration_delay < Time()) m->at("reconfiguration_delay").fail("expected a duration >= 0");
  }
  if (auto r = doc.get("restart")) {
    r->allow_only({"policy", "backoff", "backoff_max", "max_restarts", "source"});
    if (auto v = r->get("policy")) {
      const auto p = v->as_string();
      if (p != "requeue" && p != "fail") v->fail(fmt::format("expected requeue or fail, got '{}'", p));
      restart.requeue = p == "requeue";
    }
    if (auto v = r->get("backoff")) restart.backoff = v->as_duration();
    if (auto v = r->get("backoff_max")) restart.backoff_max = v->as_duration();
    if (auto v = r->get("max_restarts")) restart.max_restarts = static_cast<int>(v->as_non_negative_int());
    if (restart.backoff < Time() || restart.backoff_max < restart.backoff) r->fail("expected 0 <= backoff <= backoff_max");
  }
}

double hardware_factor(const GpuModel& gpu, const GpuModel* reference) {
  if (!reference || reference == &gpu || reference->bf16_tflops <= 0 || gpu.bf16_tflops <= 0) return 1.0;
  return gpu.bf16_tflops / reference->bf16_tflops;
}

double mig_rate(double slice_sm_fraction, double u) {
  if (u <= 0) return 1.0;
  return std::min(1.0, slice_sm_fraction / u);
}

void max_min_fair(std::span<const double> demands, double capacity, std::span<double> shares) {
  const std::size_t n = demands.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return demands[a] < demands[b]; });
  double left = std::max(0.0, capacity);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = order[k];
    const double fair = left / static_cast<double>(n - k);
    shares[i] = std::min(std::max(0.0, demands[i]), fair);
    left -= shares[i];
  }
}

double contention_probability(std::span<const double> u) {
  double none = 1.0, one = 0.0;  // P(no context busy), P(exactly one busy)
  for (double x : u) {
    x = std::clamp(x, 0.0, 1.0);
    one = one * (1 - x) + none * x;
    none *= 1 - x;
  }
  return std::max(0.0, 1.0 - none - one);
}

double switch_overhead(const TimeSlicingModel& m) {
  if (m.timeslice <= Time()) return 0.0;
  return std::clamp(static_cast<double>(m.context_switch.us()) / static_cast<double>(m.timeslice.us()), 0.0, 0.99);
}

namespace {
void rates_from_shares(std::span<const double> u, std::span<const double> shares, std::span<double> rates) {
  for (std::size_t i = 0; i < u.size(); ++i) rates[i] = u[i] <= 0 ? 1.0 : std::min(1.0, shares[i] / u[i]);
}
}  // namespace

void time_slicing_rates(std::span<const double> u, const TimeSlicingModel& m, std::span<double> rates) {
  const double capacity = 1.0 - switch_overhead(m) * contention_probability(u);
  std::vector<double> shares(u.size());
  max_min_fair(u, capacity, shares);
  rates_from_shares(u, shares, rates);
}

void mps_rates(std::span<const double> u, std::span<const double> caps, const MpsModel& m, std::span<double> rates) {
  const std::size_t n = u.size();
  std::vector<double> demand(n), shares(n);
  for (std::size_t i = 0; i < n; ++i) demand[i] = std::min(u[i], caps[i]);
  max_min_fair(demand, 1.0, shares);
  rates_from_shares(u, shares, rates);
  const double total = std::accumulate(shares.begin(), shares.end(), 0.0);
  for (std::size_t i = 0; i < n; ++i)
    if (u[i] > 0) rates[i] *= 1.0 - m.bandwidth_interference * std::min(1.0, std::max(0.0, total - shares[i]));
}

}  // namespace gpusim
