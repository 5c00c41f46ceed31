#pragma once
// Helpers every test may use: files under the source tree and the test's temporary directory, error messages, the
// serving tests' toy hardware. Includes nothing above core, so a test of any layer can use it (scenario_util.hpp and
// run_util.hpp add what reaches higher).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gpusim/core/error.hpp"

namespace gpusim::test {

inline std::string source_path(const std::string& rel) { return fmt::format("{}/{}", GPUSIM_SOURCE_DIR, rel); }

// Writes `content` to a fresh file in the test's temporary directory and returns its path.
inline std::string write_file(const std::string& name, const std::string& content) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::temp_directory_path() / "gpusim-tests" / info->test_suite_name() / info->name();
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << content;
  return path.string();
}

// The message of the InputError `f` throws; fails the test if it throws nothing.
template <typename F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return "";
}

// The serving tests' hardware: a toy GPU TOY of 100 TFLOP/s and `bandwidth_gb_per_s` on one-GPU nodes
// toy-1x, with serving efficiencies 1 and no overheads, so that iteration times come out round.
// `gpus` adds catalog GPU entries (given the same efficiencies when `efficiency_gpus` names them).
inline std::string toy_serving_hardware(int bandwidth_gb_per_s, const std::string& gpus = "",
                                        const std::string& efficiency_gpus = "TOY") {
  return fmt::format(
      "catalog:\n"
      "  gpus:\n"
      "    - {{name: TOY, memory_mib: 10240, sms: 100, bf16_tflops: 100, fp32_tflops: 10, memory_bandwidth_gb_per_s: {},\n"
      "       tdp_w: 100, nvlink_gb_per_s: 0, pcie_gen: 4, compute_capability: 8.0, source: test}}\n"
      "{}"
      "  nodes:\n"
      "    - {{name: toy-1x, gpu: TOY, gpus: 1, cpu_milli: 1000, memory_mib: 1024, price_per_node_hour_usd: 1, source: test}}\n"
      "model:\n"
      "  serving:\n"
      "    efficiency:\n"
      "      - {{gpus: [{}], e_flops: 1, e_bw: 1, e_attn: 1, e_link: 1, overhead_tp1: 0, overhead_tp: 0, alpha: 0, source: "
      "test}}\n",
      bandwidth_gb_per_s, gpus, efficiency_gpus);
}

}  // namespace gpusim::test
