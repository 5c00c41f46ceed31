#pragma once
// The job (pod) model (DESIGN §2). A job's `work` is how long it runs alone on its request; its
// compute demand `u` is the fraction of one full GPU's SMs it keeps busy on each GPU it holds.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/core/units.hpp"

namespace gpusim {

using JobId = uint32_t;

enum class JobKind : uint8_t { training, inference, notebook, batch };
std::string_view to_string(JobKind kind);
bool parse_job_kind(std::string_view text, JobKind& out);
inline constexpr std::string_view kJobKindNames = "training, inference, notebook, batch";

// Default compute demand per kind. Source: DESIGN §2 and background article 001 ("training 95%,
// inference 15%, notebooks 5%"). Batch is assumed compute-bound like training.
double default_compute_demand(JobKind kind);

struct Request {
  int32_t gpus = 0;                // whole GPUs, or 1 with a fractional milli_per_gpu
  Milli milli_per_gpu = kWholeGpu; // < 1000 only when gpus == 1 (a GPU share)
  int64_t gpu_memory_mib = 0;      // per GPU; 0 = not stated (not accounted)
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  std::vector<std::string> models; // allowed GPU models (names or aliases); empty = any
  // The device-plugin resource asked for: "" is nvidia.com/gpu; also nvidia.com/gpu.shared or
  // nvidia.com/mig-<profile>.
  std::string resource;
  // A capacity claim (like a DRA claim): any MIG instance or whole GPU with at least
  // gpu_memory_mib of memory and min_sms SMs; the smallest that fits is taken.
  bool claim = false;
  int32_t min_sms = 0;
  int64_t gpu_memory_limit_mib = 0; // the pod's own GPU memory limit (time-slicing cap, MPS pinned limit); 0 = none
  int32_t thread_percent = 0;       // MPS active thread percentage; 0 = the device plugin's 100/replicas
  bool fractional() const { return gpus == 1 && milli_per_gpu < kWholeGpu; }
};

struct Job {
  JobId id = 0;                    // index in its JobSet, in arrival order
  std::string name;
  Time arrival;
  Time work;
  Request request;
  JobKind kind = JobKind::batch;
  double u = 0.95;
  uint16_t tenant = 0;             // index into JobSet::tenants
  int32_t priority = 0;            // larger runs first under the priority order
  bool multi_node = false;         // may a multi-GPU job be split across nodes
  std::string reference_gpu;        // the GPU model `work` was measured on; "" = any (hardware factor 1)
  bool strict = false;             // from the scenario itself: a job that can never fit is an error
  std::string origin;              // "file:line" for messages
};

struct JobSet {
  std::vector<Job> jobs;
  std::vector<std::string> tenants{"default"};
  uint16_t tenant(std::string_view name);
  // Appends `other`, re-interning its tenants.
  void append(JobSet&& other);
  // Stable sort by arrival (ties keep source order), then ids = positions.
  void finalize();
};

}  // namespace gpusim
