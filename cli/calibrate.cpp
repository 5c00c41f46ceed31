#include "calibrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <regex>
#include <sstream>

#include "gpusim/core/error.hpp"

namespace gpusim::cli {
namespace {

using Record = JsonLines::Record;

[[noreturn]] void fail(const JsonLines& f, const Record& r, const std::string& field, const std::string& expected) {
  throw InputError({f.file, r.line, field}, "expected " + expected);
}

double number(const JsonLines& f, const Record& r, const std::string& field) {
  const auto it = r.value.find(field);
  if (it == r.value.end() || !it->is_number()) fail(f, r, field, "a number");
  return it->get<double>();
}

std::string text(const JsonLines& f, const Record& r, const std::string& field) {
  const auto it = r.value.find(field);
  if (it == r.value.end() || !it->is_string()) fail(f, r, field, "a string");
  return it->get<std::string>();
}

std::vector<Record> array(const JsonLines& f, const Record& r, const std::string& field) {
  const auto it = r.value.find(field);
  if (it == r.value.end() || !it->is_array() || it->empty()) fail(f, r, field, "a non-empty list");
  std::vector<Record> items;
  for (const Json& v : *it) items.push_back({v, r.line});
  return items;
}

[[noreturn]] void missing(const JsonLines& f, const std::string& what) {
  throw InputError({f.file, std::nullopt, ""}, "expected " + what);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double mean(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()); }

// timeslice.jsonl's runs in which the context was paused (gaps > 0): N >= 2 contexts.
std::vector<Record> sliced_runs(const JsonLines& timeslice) {
  std::vector<Record> runs;
  for (const Record& r : timeslice.records)
    if (number(timeslice, r, "gaps") > 0) runs.push_back(r);
  if (runs.empty()) missing(timeslice, "a run with gaps > 0 (2 or more contexts)");
  return runs;
}

// The sharing.jsonl record of `group` with `n` processes, or nullptr.
const Record* find_group(const JsonLines& sharing, const std::string& group, double n) {
  for (const Record& r : sharing.records)
    if (text(sharing, r, "group") == group && number(sharing, r, "n") == n) return &r;
  return nullptr;
}

double total_launches(const JsonLines& sharing, const Record& r) {
  double total = 0;
  for (const Record& p : array(sharing, r, "procs")) total += number(sharing, p, "launches");
  return total;
}

const Record& find_phase(const JsonLines& f, const std::string& phase, std::optional<double> n = std::nullopt) {
  for (const Record& r : f.records)
    if (text(f, r, "phase") == phase && (!n || number(f, r, "n") == *n)) return r;
  missing(f, n ? fmt::format("a phase {} with n {}", phase, *n) : fmt::format("a phase {}", phase));
}

const Record& find_probe(const JsonLines& f, const std::string& probe) {
  for (const Record& r : f.records)
    if (r.value.value("probe", "") == probe) return r;
  missing(f, fmt::format("a probe {}", probe));
}

// A bound's full-time draw: its measured draw at `util` % busy, taken to 100 % above idle_high_w.
double full_time_w(const JsonLines& f, const Record& phase, double idle_high_w) {
  const double busy = number(f, phase, "util_gpu") / 100;
  if (busy <= 0) fail(f, phase, "util_gpu", "a utilization above 0");
  return idle_high_w + (number(f, phase, "power_w") - idle_high_w) / busy;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in)
    throw InputError({path.string(), std::nullopt, ""}, "expected a file written by the probe kit (tools/probe/README.md)");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Figures rounded to 3 significant digits, the precision model.yaml states its measurements in.
std::string sig3(double v) { return fmt::format("{:.3g}", v); }

std::string match(const std::string& text, const std::string& pattern) {
  std::smatch m;
  return std::regex_search(text, m, std::regex(pattern)) ? m[1].str() : std::string();
}

}  // namespace

JsonLines parse_json_lines(const std::string& text, const std::string& file) {
  JsonLines f{file, {}};
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Json v = Json::parse(line, nullptr, false);
    if (v.is_discarded() || !v.is_object()) throw InputError({file, n, ""}, "expected one JSON object a line");
    f.records.push_back({std::move(v), n});
  }
  if (f.records.empty()) throw InputError({file, std::nullopt, ""}, "expected at least one JSON line");
  return f;
}

Measurements read_measurements(const std::string& dir) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir))
    throw InputError({dir, std::nullopt, ""}, "expected a directory written by the probe kit (tools/probe)");
  auto lines = [&](const char* name) {
    const fs::path p = fs::path(dir) / name;
    return parse_json_lines(read_file(p), p.string());
  };
  Measurements m{dir,
                 lines("sharing.jsonl"),
                 lines("timeslice.jsonl"),
                 lines("power-sharing-phases.jsonl"),
                 lines("power-tensor-and-llm.jsonl"),
                 lines("ceilings.jsonl"),
                 read_file(fs::path(dir) / "nvidia-smi.txt")};
  return m;
}

double timeslice_ms(const JsonLines& timeslice) {
  std::vector<double> run_ms;
  for (const Record& r : sliced_runs(timeslice)) run_ms.push_back(number(timeslice, r, "run_med_ms"));
  return median(run_ms);
}

// With N contexts each cycle is N slices and N switches, so one switch is (run + gap) / N - run.
double preempt_switch_ms(const JsonLines& timeslice) {
  std::vector<double> switch_ms;
  for (const Record& r : sliced_runs(timeslice)) {
    const std::string name = text(timeslice, r, "run");
    const std::string n_text = match(name, R"(^slice_n(\d+)_)");
    if (n_text.empty()) fail(timeslice, r, "run", "a name slice_nN_k, N the number of contexts");
    const double run = number(timeslice, r, "run_med_ms"), gap = number(timeslice, r, "gap_med_ms");
    switch_ms.push_back((run + gap) / std::stod(n_text) - run);
  }
  return mean(switch_ms);
}

// N always-busy contexts alternating at kernel boundaries complete sum(launches) in dur: each step
// takes dur / sum(launches), its time alone (the n = 1 run of the group) plus one switch.
double yield_switch_ms(const JsonLines& sharing) {
  std::vector<double> switch_ms;
  for (const Record& r : sharing.records) {
    const std::string group = text(sharing, r, "group");
    if (!group.starts_with("ts-") || number(sharing, r, "duty") != 1 || number(sharing, r, "n") < 2) continue;
    const Record* solo = find_group(sharing, group, 1);
    if (!solo) fail(sharing, r, "group", fmt::format("a run of {} with n 1 to compare with", group));
    const double solo_ms = 1e3 * number(sharing, *solo, "dur") / total_launches(sharing, *solo);
    switch_ms.push_back(1e3 * number(sharing, r, "dur") / total_launches(sharing, r) - solo_ms);
  }
  if (switch_ms.empty()) missing(sharing, "a ts-* group with duty 1 and n >= 2");
  return mean(switch_ms);
}

// apps_mem holds nvidia-smi's "pid-ish, used MiB" per process, one a line.
double context_memory_mib(const JsonLines& sharing) {
  for (const Record& r : sharing.records) {
    const auto it = r.value.find("apps_mem");
    if (it == r.value.end() || !it->is_string()) continue;
    std::vector<double> used_mib;
    std::istringstream in(it->get<std::string>());
    for (std::string line; std::getline(in, line);) {
      const std::string used = match(line, R"(,\s*(\d+)\s*$)");
      if (used.empty()) fail(sharing, r, "apps_mem", "lines of two numbers, e.g. \"816, 524\"");
      used_mib.push_back(std::stod(used));
    }
    if (!used_mib.empty()) return median(used_mib);
  }
  missing(sharing, "a group with apps_mem (the 7-process run)");
}

// Four quarter-GPU MPS clients fill the GPU side by side: what each loses against one alone is the
// interference; the kernels are ALU-bound, so a loss would show contention beyond the SM share.
double bandwidth_interference(const JsonLines& sharing) {
  const Record* solo = find_group(sharing, "mps-alu-quarter", 1);
  const Record* four = find_group(sharing, "mps-alu-quarter", 4);
  if (!solo || !four) missing(sharing, "mps-alu-quarter runs with n 1 and n 4");
  return std::max(0.0, 1 - total_launches(sharing, *four) / 4 / total_launches(sharing, *solo));
}

PowerFigures power_figures(const JsonLines& phases, const JsonLines& tensor, const JsonLines& ceilings) {
  PowerFigures p;
  const Record& gemm = find_phase(tensor, "gemm8192");
  const Record& idle_after = find_phase(tensor, "idle_after");
  p.tdp_w = number(tensor, gemm, "limit_w");
  p.idle_low_w = number(phases, find_phase(phases, "idle"), "power_w");
  p.idle_high_w = (number(tensor, find_phase(tensor, "idle"), "power_w") + number(tensor, idle_after, "power_w")) / 2;
  p.clock_hold_s = number(tensor, idle_after, "secs");
  // The highest SM clock any phase ran at: the GPU's maximum (1,980 MHz on the H200).
  for (const auto* f : {&phases, &tensor})
    for (const Record& r : f->records) p.max_sm_mhz = std::max(p.max_sm_mhz, number(*f, r, "sm_mhz"));
  p.fp32_w = full_time_w(phases, find_phase(phases, "pw-alu", 1), p.idle_high_w);
  p.memory_w = full_time_w(phases, find_phase(phases, "ts-mem", 1), p.idle_high_w);
  p.capped_w = number(tensor, gemm, "power_w");
  p.throttled_clock = number(tensor, gemm, "sm_mhz") / p.max_sm_mhz;
  p.gemm_sustained_tflops = number(tensor, gemm, "tflops");
  p.gemm_burst_tflops = number(ceilings, find_probe(ceilings, "gemm8192"), "tflops");
  p.throttled_throughput = p.gemm_sustained_tflops / p.gemm_burst_tflops;
  return p;
}

std::string gpu_name(const Measurements& m) {
  for (const Record& r : m.ceilings.records)
    if (r.value.contains("gpu")) return text(m.ceilings, r, "gpu");
  // nvidia-smi's table: "|   0  NVIDIA H200      On  |".
  const std::string name = match(m.nvidia_smi, R"(\|\s+\d+\s+(\S.*?\S)\s+(?:On|Off)\s+\|)");
  if (name.empty()) throw InputError({m.dir + "/ceilings.jsonl", std::nullopt, "gpu"}, "expected the GPU's name");
  return name;
}

const GpuModel* catalog_gpu(const Catalog& catalog, const std::string& nvml_name) {
  if (const GpuModel* g = catalog.find_gpu(nvml_name)) return g;
  for (const GpuModel& g : catalog.gpus())
    if (std::ranges::find(g.product_names, nvml_name) != g.product_names.end()) return &g;
  return nullptr;
}

std::string calibration_yaml(const Measurements& m, const Catalog& catalog, const ExecutionModel& model) {
  const std::string gpu = gpu_name(m);
  const std::string driver = match(m.nvidia_smi, R"(Driver Version:\s*(\S+))");
  const std::string cuda = match(m.nvidia_smi, R"(CUDA Version:\s*(\S+))");
  const std::string source = fmt::format("measured on an {}{}{} ({}; gpusim calibrate)", gpu,
                                         driver.empty() ? "" : ", driver " + driver, cuda.empty() ? "" : ", CUDA " + cuda, m.dir);
  const double slice_ms = timeslice_ms(m.timeslice), preempt_ms = preempt_switch_ms(m.timeslice);
  const double interference = bandwidth_interference(m.sharing);
  const PowerFigures p = power_figures(m.power_phases, m.power_tensor, m.ceilings);
  std::string y = fmt::format("# gpusim calibrate {}: model.yaml's keys from this GPU's measurements\n"
                              "# (docs/guide/calibrate.md). Include it in a scenario with model: {{include: FILE}}.\n",
                              m.dir);
  y += fmt::format("time_slicing:\n"
                   "  # median run_med_ms of timeslice.jsonl's runs with gaps > 0 ({:.4f} ms)\n"
                   "  timeslice: {}\n"
                   "  # mean over those runs of (run_med_ms + gap_med_ms) / N - run_med_ms ({:.4f} ms); the gap over\n"
                   "  # (N - 1) slices is the same switch counted once per gap rather than once per slice\n"
                   "  preempt_switch: {}\n"
                   "  # mean over sharing.jsonl's ts-* groups with duty 1 and n >= 2 of dur / sum(launches) minus the\n"
                   "  # group's n = 1 dur / launches ({:.4f} ms)\n"
                   "  yield_switch: {}\n"
                   "  # median per-process used MiB in sharing.jsonl's apps_mem\n"
                   "  context_memory_mib: {}\n"
                   "  source: \"{}\"\n",
                   slice_ms, sig3(slice_ms / 1e3), preempt_ms, sig3(preempt_ms / 1e3), yield_switch_ms(m.sharing),
                   sig3(yield_switch_ms(m.sharing) / 1e3), std::lround(context_memory_mib(m.sharing)), source);
  y += fmt::format("mps:\n"
                   "  # 1 - mean launches per client of mps-alu-quarter at n 4 over n 1 ({:.4f}), to 0.01: a loss under\n"
                   "  # 1% is within the run-to-run spread of the launch counts\n"
                   "  bandwidth_interference: {:.2f}\n"
                   "  source: \"{}\"\n",
                   interference, interference, source);
  const GpuModel* entry = catalog_gpu(catalog, gpu);
  if (!entry) {
    y += fmt::format("# power and serving: \"{}\" is no catalog GPU's name, alias or product name\n"
                     "# (gpusim catalog gpus); add it to a scenario's catalog: and rerun to get them.\n",
                     gpu);
    std::cerr << fmt::format("gpusim calibrate: notice: {} is not in the catalog; power and serving left out\n", gpu);
    return y;
  }
  y += fmt::format("power:\n"
                   "  entries:\n"
                   "    - gpus: [{}]\n"
                   "      tdp_w: {:.0f}  # gemm8192's limit_w, the power limit\n"
                   "      idle_low_w: {:.1f}  # power-sharing-phases idle, {:.0f} MHz\n"
                   "      idle_high_w: {:.1f}  # mean of power-tensor-and-llm idle and idle_after, clocks up\n"
                   "      clock_hold: {:.0f}  # idle_after's length: the clocks were still up at its end\n"
                   "      fp32_w: {:.1f}  # pw-alu taken to 100% util above idle_high_w\n"
                   "      memory_w: {:.1f}  # ts-mem n 1 taken to 100% util above idle_high_w\n"
                   "      capped_w: {:.1f}  # gemm8192, sustained at the power limit\n"
                   "      throttled_clock: {:.3f}  # gemm8192's sm_mhz over the highest seen, {:.0f} MHz\n"
                   "      throttled_throughput: {:.3f}  # gemm8192's {:.1f} TFLOP/s over the {:.1f} burst (ceilings.jsonl)\n"
                   "      assumed: [clock_hold]\n"
                   "      source: \"{}\"\n",
                   entry->name, p.tdp_w, p.idle_low_w, find_phase(m.power_phases, "idle").value.value("sm_mhz", 0.0),
                   p.idle_high_w, p.clock_hold_s, p.fp32_w, p.memory_w, p.capped_w, p.throttled_clock, p.max_sm_mhz,
                   p.throttled_throughput, p.gemm_sustained_tflops, p.gemm_burst_tflops, source);
  // One GPU measures no tensor parallelism, and fitting e_bw and e_attn needs the measured model's
  // shape (tests/data/h200_serving_fit.py): those are carried from the GPU's current entry.
  const ServingEfficiency& carried = model.serving.efficiency_of(*entry);
  const Record& b1 = [&]() -> const Record& {
    for (const Record& r : m.ceilings.records)
      if (r.value.value("probe", "") == "gemm_gu" && r.value.value("b", 0) == 1) return r;
    missing(m.ceilings, "a gemm_gu probe with b 1");
  }();
  const double stream_tb_s = number(m.ceilings, b1, "tb_s");
  y += fmt::format("serving:\n"
                   "  efficiency:\n"
                   "    - gpus: [{}]\n"
                   "      e_flops: {:.2f}  # gemm8192 sustained {:.1f} TFLOP/s over the catalog's {:.0f} bf16\n"
                   "      # carried from the current {} entry: the weight-streaming kernel at batch 1 reaches {:.2f}\n"
                   "      # of the catalog's {:.0f} GB/s ({:.2f} TB/s), an upper bound on e_bw\n"
                   "      e_bw: {}\n"
                   "      e_attn: {}\n"
                   "      e_link: {}\n"
                   "      overhead_tp1: {}\n"
                   "      overhead_tp: {}\n"
                   "      alpha: {}\n"
                   "      assumed: [e_bw, e_attn, e_link, overhead_tp1, overhead_tp, alpha]\n"
                   "      source: \"{}: e_flops; the rest carried\"\n",
                   entry->name, p.gemm_sustained_tflops / entry->bf16_tflops, p.gemm_sustained_tflops, entry->bf16_tflops,
                   entry->name, stream_tb_s * 1e3 / entry->memory_bandwidth_gb_per_s, entry->memory_bandwidth_gb_per_s,
                   stream_tb_s, carried.e_bw, carried.e_attn, carried.e_link, carried.overhead_tp1.seconds(),
                   carried.overhead_tp.seconds(), carried.alpha_s, source);
  return y;
}

int cmd_calibrate(const std::string& dir) {
  const Measurements m = read_measurements(dir);
  std::cout << calibration_yaml(m, Catalog::builtin(), ExecutionModel::builtin());
  return 0;
}

}  // namespace gpusim::cli
