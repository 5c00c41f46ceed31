#pragma once
// What both CUDA probes share: the device clock, the first CUDA error, wall-clock waits, JSON strings.
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include <cuda_runtime.h>

namespace probe {

// %globaltimer: nanoseconds on a clock all contexts of the GPU share. The input operand ties the read
// to `after`, so the compiler cannot move it before the work that produced that value.
__device__ inline std::uint64_t globaltimer_ns(float after) {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : "f"(after) : "memory");
  return t;
}

// Keeps the first error: later calls after a failure only repeat it.
class FirstError {
 public:
  bool ok(cudaError_t e) {
    if (err_ == cudaSuccess) err_ = e;
    return err_ == cudaSuccess;
  }
  bool ok() const { return err_ == cudaSuccess; }
  const char* text() const { return cudaGetErrorString(err_); }  // "no error" when fine

 private:
  cudaError_t err_ = cudaSuccess;
};

inline double steady_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Blocks until the wall-clock instant (seconds since the epoch) that all processes of a group share.
inline void sleep_until_epoch_s(double start_epoch_s) {
  const auto start = std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(start_epoch_s)));
  std::this_thread::sleep_until(start);
}

inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += (c == '\n') ? ' ' : c;
  }
  return out + "\"";
}

}  // namespace probe

#include <cstdio>
#include <cstdlib>
#include <map>

namespace probe {

// `--key value` pairs; a key not in `defaults` is a usage error (exit 2) that lists the known ones.
inline std::map<std::string, std::string> parse_args(int argc, char** argv, std::map<std::string, std::string> defaults) {
  for (int i = 1; i < argc; ++i) {
    const std::string key = argv[i];
    const bool known = key.rfind("--", 0) == 0 && defaults.count(key.substr(2)) > 0;
    if (!known || (i + 1 == argc && key != "--info")) {
      std::fprintf(stderr, "%s: bad argument '%s'; known:", argv[0], key.c_str());
      for (const auto& [k, v] : defaults) std::fprintf(stderr, " --%s (default '%s')", k.c_str(), v.c_str());
      std::fprintf(stderr, "\n");
      std::exit(2);
    }
    defaults[key.substr(2)] = key == "--info" ? "1" : argv[++i];
  }
  return defaults;
}

}  // namespace probe
