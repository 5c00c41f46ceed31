// Sharing probe (tools/probe/README.md): one process, one CUDA context, a fixed kernel loop from a
// wall-clock instant shared by the group; prints one `procs` entry of sharing.jsonl as JSON.
#include <cstdio>
#include <string>
#include <vector>

#include "probe_common.cuh"
#include "probe_stats.hpp"

namespace {

constexpr int kThreadsPerBlock = 1024;
constexpr int kStampCap = 1 << 18;  // kernel starts kept (2 MiB): ~34 s of the shortest kernel
constexpr size_t kMemCopyBytes = size_t{1} << 30;

// Four dependent FP32 FMA chains a thread: enough independent work per warp to keep the FMA units
// busy, so the kernel's time scales with `iters`. Block 0 stamps the kernel's start on the device clock.
__global__ void alu_kernel(int iters, float a, float b, float* sink, unsigned long long* start_ns) {
  if (start_ns != nullptr && blockIdx.x == 0 && threadIdx.x == 0) *start_ns = probe::globaltimer_ns(0.0f);
  float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
  for (int i = 0; i < iters; ++i) {
    x0 = fmaf(x0, a, b);
    x1 = fmaf(x1, a, b);
    x2 = fmaf(x2, a, b);
    x3 = fmaf(x3, a, b);
  }
  const float sum = x0 + x1 + x2 + x3;
  if (sum == 0.125f) sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // never true; keeps the chains
}

// Streaming copy: 1 GiB read + 1 GiB written a launch.
__global__ void copy_kernel(const float4* __restrict__ src, float4* __restrict__ dst, size_t n) {
  const size_t stride = size_t{gridDim.x} * blockDim.x;
  for (size_t i = size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

struct Loop {
  std::vector<double> latencies_ms;
  double wall_s = 0, busy_s = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const auto args = probe::parse_args(argc, argv,
                                      {{"tag", "probe#0"},
                                       {"mode", "alu"},
                                       {"blocks", "0"},
                                       {"iters", "9100"},
                                       {"duty", "1.0"},
                                       {"dur", "3.0"},
                                       {"start", "0"},
                                       {"info", "0"}});
  probe::FirstError err;
  int device = 0, sms = 0;
  err.ok(cudaGetDevice(&device));
  err.ok(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  size_t free_b = 0, total_b = 0;
  err.ok(cudaMemGetInfo(&free_b, &total_b));  // after the context, before this process's buffers
  if (args.at("info") == "1") {
    cudaDeviceProp prop{};
    err.ok(cudaGetDeviceProperties(&prop, device));
    std::printf("{\"gpu\": %s, \"sms\": %d, \"total_mib\": %zu, \"err\": %s}\n", probe::json_string(prop.name).c_str(), sms,
                total_b >> 20, probe::json_string(err.text()).c_str());
    return err.ok() ? 0 : 1;
  }
  const std::string mode = args.at("mode");
  const bool alu = mode == "alu";
  const int blocks = std::stoi(args.at("blocks"));
  const int iters = std::stoi(args.at("iters"));
  const double duty = std::stod(args.at("duty"));
  const double dur_s = std::stod(args.at("dur"));

  float* sink = nullptr;
  unsigned long long* starts_dev = nullptr;
  float4 *src = nullptr, *dst = nullptr;
  const size_t n4 = kMemCopyBytes / sizeof(float4);
  if (alu) {
    err.ok(cudaMalloc(&sink, size_t(blocks) * kThreadsPerBlock * sizeof(float)));
    err.ok(cudaMalloc(&starts_dev, kStampCap * sizeof(unsigned long long)));
  } else {
    err.ok(cudaMalloc(&src, kMemCopyBytes));
    err.ok(cudaMalloc(&dst, kMemCopyBytes));
    err.ok(cudaMemset(src, 0, kMemCopyBytes));
  }
  cudaStream_t stream{};
  err.ok(cudaStreamCreate(&stream));
  long launches = 0;
  auto launch = [&] {
    if (alu) {
      unsigned long long* stamp = launches < kStampCap ? starts_dev + launches : nullptr;
      alu_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(iters, 0.999999f, 1e-6f, sink, stamp);
    } else {
      copy_kernel<<<2 * sms, kThreadsPerBlock, 0, stream>>>(src, dst, n4);
    }
    return err.ok(cudaGetLastError()) && err.ok(cudaStreamSynchronize(stream));
  };
  launch();  // warm-up (module load), not counted: the first counted launch overwrites its stamp

  probe::sleep_until_epoch_s(std::stod(args.at("start")));
  Loop loop;
  const double t0_s = probe::steady_s();
  while (err.ok() && probe::steady_s() - t0_s < dur_s) {
    const double before_s = probe::steady_s();
    if (!launch()) break;
    const double latency_s = probe::steady_s() - before_s;
    ++launches;
    loop.latencies_ms.push_back(latency_s * 1e3);
    loop.busy_s += latency_s;
    // Sleeping in proportion to the last latency keeps the process busy `duty` of its wall time,
    // so contention stretches its idle time too, as for a real duty-cycled client.
    if (duty < 1.0) std::this_thread::sleep_for(std::chrono::duration<double>(latency_s * (1.0 - duty) / duty));
  }
  loop.wall_s = probe::steady_s() - t0_s;

  std::vector<std::uint64_t> starts_ns(alu ? std::min<long>(launches, kStampCap) : 0);
  if (!starts_ns.empty())
    err.ok(cudaMemcpy(starts_ns.data(), starts_dev, starts_ns.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  const probe::StartGaps gaps = probe::start_gaps(starts_ns);

  std::printf("{\"tag\": %s, \"mode\": %s, \"blocks\": %d, \"iters\": %d, \"duty\": %.4f, \"launches\": %ld, "
              "\"wall_s\": %.4f, \"busy_s\": %.4f, \"lat_p50_ms\": %.4f, \"lat_p99_ms\": %.4f, \"gap_p50_ms\": %.4f, "
              "\"gap_p99_ms\": %.4f, \"gap_max_ms\": %.3f, \"long_gaps\": %d, \"long_gap_mean_ms\": %.4f, "
              "\"free_mib_at_start\": %zu, \"err\": %s}\n",
              probe::json_string(args.at("tag")).c_str(), probe::json_string(mode).c_str(), alu ? blocks : 0, iters, duty,
              launches, loop.wall_s, loop.busy_s, probe::percentile(loop.latencies_ms, 0.5),
              probe::percentile(loop.latencies_ms, 0.99), gaps.p50_ms, gaps.p99_ms, gaps.max_ms, gaps.long_gaps,
              gaps.long_gap_mean_ms, free_b >> 20, probe::json_string(err.text()).c_str());
  return err.ok() ? 0 : 1;
}
