// Time-slice probe (tools/probe/README.md): one long kernel (~48 ms alone, 2 blocks per SM) whose
// block 0 stamps the device clock after every ~5 us step. With other contexts running the same kernel,
// a pause in the stamps is a slice another context held. Prints one line of timeslice.jsonl.
#include <cstdio>
#include <string>
#include <vector>

#include "probe_common.cuh"
#include "probe_stats.hpp"

namespace {

constexpr int kThreadsPerBlock = 1024;
constexpr int kWarmupSteps = 10;
constexpr double kPauseFactor = 10;  // a step 10x the median is a pause: slices are ~400x a step

// Every block runs `steps` x `iters_per_step` FMAs on four chains; only block 0's first thread
// stamps, each stamp tied to the chain so that it follows the step's work.
__global__ void sliced_kernel(int steps, int iters_per_step, float a, float b, float* sink, unsigned long long* stamps_ns) {
  const bool stamper = blockIdx.x == 0 && threadIdx.x == 0;
  float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
  if (stamper) stamps_ns[0] = probe::globaltimer_ns(x0);
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < iters_per_step; ++i) {
      x0 = fmaf(x0, a, b);
      x1 = fmaf(x1, a, b);
      x2 = fmaf(x2, a, b);
      x3 = fmaf(x3, a, b);
    }
    if (stamper) stamps_ns[s + 1] = probe::globaltimer_ns(x0 + x1 + x2 + x3);
  }
  const float sum = x0 + x1 + x2 + x3;
  if (sum == 0.125f) sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // never true; keeps the chains
}

}  // namespace

int main(int argc, char** argv) {
  const auto args = probe::parse_args(
      argc, argv, {{"run", "slice_n1_1"}, {"steps", "9600"}, {"iters-per-step", "182"}, {"reps", "2"}, {"start", "0"}});
  const int steps = std::stoi(args.at("steps"));
  const int iters_per_step = std::stoi(args.at("iters-per-step"));
  const int reps = std::stoi(args.at("reps"));

  probe::FirstError err;
  int device = 0, sms = 0;
  err.ok(cudaGetDevice(&device));
  err.ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int blocks = 2 * sms;
  float* sink = nullptr;
  unsigned long long* stamps_dev = nullptr;
  err.ok(cudaMalloc(&sink, size_t(blocks) * kThreadsPerBlock * sizeof(float)));
  err.ok(cudaMalloc(&stamps_dev, size_t(steps + 1) * sizeof(unsigned long long)));
  auto run_kernel = [&](int n_steps) {
    sliced_kernel<<<blocks, kThreadsPerBlock>>>(n_steps, iters_per_step, 0.999999f, 1e-6f, sink, stamps_dev);
    return err.ok(cudaGetLastError()) && err.ok(cudaDeviceSynchronize());
  };
  run_kernel(kWarmupSteps);  // module load outside the measurement

  probe::sleep_until_epoch_s(std::stod(args.at("start")));
  probe::Slices slices;
  std::vector<double> kernel_ms;
  std::vector<std::uint64_t> stamps_ns(size_t(steps) + 1);
  for (int r = 0; r < reps && err.ok(); ++r) {
    const double before_s = probe::steady_s();
    if (!run_kernel(steps)) break;
    kernel_ms.push_back((probe::steady_s() - before_s) * 1e3);
    if (!err.ok(cudaMemcpy(stamps_ns.data(), stamps_dev, stamps_ns.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost)))
      break;
    probe::add_slices(stamps_ns, kPauseFactor, slices);
  }

  auto min_of = [](const std::vector<double>& v) { return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()); };
  auto max_of = [](const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); };
  std::printf("{\"run\":%s,\"step_med_ms\":%.5f,\"gaps\":%zu,\"gap_med_ms\":%.4f,\"gap_min_ms\":%.4f,\"gap_max_ms\":%.4f,"
              "\"run_med_ms\":%.4f,\"run_min_ms\":%.4f,\"run_max_ms\":%.4f,\"kernel_med_ms\":%.3f,\"err\":%s}\n",
              probe::json_string(args.at("run")).c_str(), probe::percentile(slices.steps_ms, 0.5), slices.gaps_ms.size(),
              probe::percentile(slices.gaps_ms, 0.5), min_of(slices.gaps_ms), max_of(slices.gaps_ms),
              probe::percentile(slices.runs_ms, 0.5), min_of(slices.runs_ms), max_of(slices.runs_ms),
              probe::percentile(kernel_ms, 0.5), probe::json_string(err.text()).c_str());
  return err.ok() ? 0 : 1;
}
