#pragma once
// gpusim calibrate: a probe kit's raw files (tools/probe, data/measurements/h200-2026-11-28/README.md)
// turned into `model:` overrides, one pure function per figure (docs/guide/calibrate.md).
#include <string>
#include <vector>

#include "gpusim/core/json.hpp"
#include "gpusim/hardware/catalog.hpp"
#include "gpusim/sim/execution.hpp"

namespace gpusim::cli {

// One JSON-lines file, each record with its line number so that a bad field names both.
struct JsonLines {
  struct Record {
    Json value;
    int line = 0;
  };
  std::string file;
  std::vector<Record> records;
};

// A measurement directory's files, parsed; a missing file or a line that is not JSON throws an
// InputError naming the file (and the line).
struct Measurements {
  std::string dir;
  JsonLines sharing, timeslice, power_phases, power_tensor, ceilings;
  std::string nvidia_smi;  // nvidia-smi.txt's text
};
JsonLines parse_json_lines(const std::string& text, const std::string& file);
Measurements read_measurements(const std::string& dir);

// Each figure from its file (units in the names); InputError naming file, line and field when a
// record lacks what it needs.
double timeslice_ms(const JsonLines& timeslice);
double preempt_switch_ms(const JsonLines& timeslice);
double yield_switch_ms(const JsonLines& sharing);
double context_memory_mib(const JsonLines& sharing);
double bandwidth_interference(const JsonLines& sharing);

struct PowerFigures {
  double tdp_w = 0, idle_low_w = 0, idle_high_w = 0, clock_hold_s = 0, fp32_w = 0, memory_w = 0, capped_w = 0;
  double throttled_clock = 0, throttled_throughput = 0;
  double max_sm_mhz = 0, gemm_sustained_tflops = 0, gemm_burst_tflops = 0;
};
PowerFigures power_figures(const JsonLines& phases, const JsonLines& tensor, const JsonLines& ceilings);

// The GPU's NVML name: ceilings.jsonl's `gpu`, else nvidia-smi's table.
std::string gpu_name(const Measurements& m);
// The catalog entry whose name, alias or product name is `nvml_name`; nullptr when none.
const GpuModel* catalog_gpu(const Catalog& catalog, const std::string& nvml_name);

// The whole calibration as YAML with model.yaml's keys; `model` supplies the serving figures one
// GPU cannot measure (carried, and listed as assumed).
std::string calibration_yaml(const Measurements& m, const Catalog& catalog, const ExecutionModel& model);

int cmd_calibrate(const std::string& dir);

}  // namespace gpusim::cli
