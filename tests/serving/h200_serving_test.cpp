// The H200's serving efficiencies (sim/data/model.yaml, fitted by tests/data/h200_serving_fit.py) against
// what they were fitted to: a Llama-3-8B-shaped decoder in plain PyTorch on one H200
// (data/measurements/h200-2026-11-28/power-tensor-and-llm.jsonl), decode steps at batch 1 / 64 / 256 with
// 1,024 cached tokens and a 2,048-token prefill. iteration_time_s with the shipped entry but overhead 0
// (the run has no vLLM scheduler or sampler and one CUDA graph a decode step; gpusim's replicas add
// overhead_tp1) must be within 0.5 point of each error docs/serving.md#calibration states.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/serving_model.hpp"
#include "test_util.hpp"

using namespace gpusim;

namespace {

const std::string kDir = "data/measurements/h200-2026-11-28/";

// `"key": number` on the line of `file` that contains `match`; NaN when absent.
double field(const std::string& file, const std::string& match, const std::string& key) {
  std::ifstream in(test::source_path(kDir + file));
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(match) == std::string::npos) continue;
    const std::size_t at = line.find("\"" + key + "\": ");
    if (at != std::string::npos) return std::stod(line.substr(at + key.size() + 4));
  }
  return std::nan("");
}

struct Point {
  const char* phase;
  int64_t batch, q, o;  // requests, tokens each computes, tokens each has cached
  double error;         // stated error of the model, %
};

}  // namespace

TEST(H200Serving, ServedModelIsTheMeasuredOne) {
  const ServedModel& m = *ModelCatalog::builtin().find("llama-3-8b");
  // The run's model lacks gpusim's 65 RMSNorm weight vectors (2 a layer + the final one, 4,096 each).
  EXPECT_EQ(m.params - static_cast<int64_t>(field("ceilings.jsonl", "\"params\"", "params")), 65 * 4096);
  // It reads every weight but the embedding table a decode step; gpusim counts all of them (7 % more).
  EXPECT_EQ(m.weights_bytes() - 2.0 * m.vocab * m.hidden,
            field("ceilings.jsonl", "\"params\"", "weight_bytes_read_per_step") + 2.0 * 65 * 4096);
}

TEST(H200Serving, IterationTimeAgainstMeasuredPoints) {
  const GpuModel& gpu = *Catalog::builtin().find_gpu("H200");
  ASSERT_EQ(gpu.name, "H200-141GB");
  const ServedModel& m = *ModelCatalog::builtin().find("llama-3-8b");
  ServingEfficiency eff = ExecutionModel::builtin().serving_efficiency(gpu);
  EXPECT_DOUBLE_EQ(eff.e_bw, 0.61);  // the H200 entry, not the Hopper default
  eff.overhead_tp1 = Duration{};
  const ReplicaHardware hw{gpu.bf16_tflops * 1e12, gpu.memory_bandwidth_gb_per_s * 1e9, 1, 0, &eff};
  for (const Point& p : {Point{"decode_b1_c1024", 1, 1, 1024, -7.2}, Point{"decode_b64_c1024", 64, 1, 1024, +1.4},
                         Point{"decode_b256_c1024", 256, 1, 1024, +4.0}, Point{"prefill2048", 1, 2048, 0, -1.7}}) {
    const double measured_ms = field("power-tensor-and-llm.jsonl", fmt::format("\"phase\": \"{}\"", p.phase), "iter_ms");
    ASSERT_FALSE(std::isnan(measured_ms)) << p.phase;
    // The shape sim/serving/src/serving.cpp builds: q (o + q/2) of attention and o + q KV entries a request.
    const BatchShape shape{p.batch * p.q,
                           static_cast<double>(p.batch * p.q) * (static_cast<double>(p.o) + static_cast<double>(p.q) / 2.0),
                           p.batch * (p.o + p.q)};
    const double model_ms = iteration_time_s(m, hw, shape) * 1e3;
    const double error = 100 * (model_ms / measured_ms - 1);
    std::cout << fmt::format("{}: measured {:.2f} ms, model {:.2f} ms, error {:+.1f} %\n", p.phase, measured_ms, model_ms, error);
    EXPECT_LE(std::abs(error), std::abs(p.error) + 0.5) << p.phase;
  }
}
