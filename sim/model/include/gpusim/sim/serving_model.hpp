#pragma once
// The serving model's pure formulas (docs/serving.md): KV-cache
// capacity, vLLM's engine defaults, the roofline iteration time of a replica, and the share of a
// GPU a replica gets under time-slicing and MPS. Each is a small function with a test worked by hand
// (tests/serving/serving_test.cpp). The constants live in sim/data/model.yaml under `serving:`.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/hardware/catalog.hpp"
#include "gpusim/workloads/served_model.hpp"

namespace gpusim {

// Per-GPU-class kernel efficiencies and overheads of the roofline.
struct ServingEfficiency {
  double e_flops = 0, e_bw = 0, e_attn = 0, e_link = 0;
  Duration overhead_tp1, overhead_tp;  // t0 at TP 1 and at TP >= 2
  double alpha_s = 0;                  // per-step latency of a ring all-reduce
};

// model.yaml's `serving:`: vLLM's cache settings and the efficiencies by GPU model.
struct ServingModel {
  struct Entry {
    std::vector<std::string> gpus;      // GPU model names; empty: a default entry
    double min_compute_capability = 0;  // a default entry applies to unlisted GPUs of at least this
    ServingEfficiency efficiency;
    std::vector<std::string> assumed;
    std::string source;
  };
  double gpu_memory_utilization = 0;  // vLLM's per-instance fraction of the visible memory
  int32_t block_size = 0;             // tokens per KV block
  // Searched from the back: a scenario's entries (applied later) win over model.yaml's.
  std::vector<Entry> efficiency;
  // The entry listing `gpu` (by name or alias), else the default entry with the highest
  // min_compute_capability the GPU reaches; std::logic_error when none applies (model.yaml has a
  // default from compute capability 0).
  const ServingEfficiency& efficiency_of(const GpuModel& gpu) const;
};

struct ReplicaHardware {   // what one replica has, per GPU, already scaled by its share
  double flops_per_s = 0;  // peak dense bf16 FLOP/s x compute share
  double bytes_per_s = 0;  // peak memory bandwidth x bandwidth share
  int32_t tp = 1;
  double link_bytes_per_s = 0;  // ring bottleneck link, per direction (tp > 1)
  const ServingEfficiency* eff = nullptr;
};

struct BatchShape {       // one iteration's scheduled work
  int64_t tokens = 0;     // sum of q (new tokens computed)
  double attention = 0;   // sum of q x (o + q/2), o = tokens already cached for that sequence
  int64_t kv_tokens = 0;  // sum of (o + q): KV entries read or written
};

// Bytes of one activation element in the tensor-parallel all-reduce (fp16/bf16 activations, also
// for quantized weights).
inline constexpr double kActivationBytes = 2;

// A decode step of `sequences` sequences that each have `cached` tokens in the cache (one new token
// each), and a prefill of one `tokens`-token prompt with nothing cached: the shapes the serving
// engine builds from its batch (q = 1, o = cached; q = tokens, o = 0).
BatchShape decode_shape(int64_t sequences, int64_t cached);
BatchShape prefill_shape(int64_t tokens);

// The terms of one iteration, in seconds (docs/serving.md#iteration-time), with n = tp:
//   compute    t_comp = 2 P T / (n F e_flops),  memory t_mem = (W / n + kv(n) x kv_tokens) / (B e_bw),
//   attention  t_attn = 4 L Hq hd x attention / (n F e_attn),
//   all_reduce t_ar   = 2 L [2 (n-1) alpha + T h 2 B / (e_link link) x 2 (n-1)/n]  (n > 1; two all-reduces a layer),
//   overhead   t0(tp).
struct IterationTerms {
  double overhead = 0, compute = 0, memory = 0, attention = 0, all_reduce = 0;
  // t0 + max(t_comp, t_mem) + t_attn + t_ar: compute and weight streaming overlap.
  double total() const { return overhead + std::max(compute, memory) + attention + all_reduce; }
};
IterationTerms iteration_terms(const ServedModel& m, const ReplicaHardware& hw, const BatchShape& b);
// Seconds one iteration takes: iteration_terms(m, hw, b).total().
double iteration_time_s(const ServedModel& m, const ReplicaHardware& hw, const BatchShape& b);

// The same terms for one model on one replica's hardware, with what does not depend on the batch worked
// out once (a replica steps thousands of times between changes of its share); each term is the same
// double as iteration_terms gives.
class IterationModel {
 public:
  IterationModel() = default;
  IterationModel(const ServedModel& m, const ReplicaHardware& hw);
  IterationTerms terms(const BatchShape& b) const;
  double time_s(const BatchShape& b) const { return terms(b).total(); }

 private:
  // compute = two_params x T / compute_div, memory = (weights_per_gpu + kv_per_token x kv_tokens) / memory_div,
  // attention = attention_flops x attention / attention_div, all_reduce = two_layers x (ar_latency + T x hidden x
  // kActivationBytes / ar_div x ring) when tp > 1.
  double two_params = 0, compute_div = 1, weights_per_gpu = 0, kv_per_token = 0, memory_div = 1, attention_flops = 0,
         attention_div = 1, two_layers = 0, ar_latency = 0, hidden = 0, ar_div = 1, ring = 0, overhead = 0;
  bool tensor_parallel = false;
};

// Seconds a batch of `batch` requests of a model of kind fixed takes (docs/serving.md#non-llm-models):
//   service_time x (1 + batch_alpha x (batch - 1)) x reference / (F e_flops)
// where F is the replica's FLOP/s after its share (hw.flops_per_s) and `reference_flops_per_s` the
// effective FLOP/s (F x e_flops) of a whole reference GPU: the model is taken as compute-bound.
double fixed_batch_time_s(const ServedModel& m, const ReplicaHardware& hw, double reference_flops_per_s, int32_t batch);

struct EngineLimits {
  int32_t max_num_batched_tokens = 2048, max_num_seqs = 256, block_size = 16;
  double gpu_memory_utilization = 0.9;
};
// vLLM's EngineArgs.get_batch_defaults, OPENAI_API_SERVER column (docs/serving.md#vllm-v1-scheduling), on the memory the
// replica sees: 8192 tokens / 1024 sequences on a non-A100 GPU showing >= 70 GiB, else 2048 / 256.
EngineLimits default_engine_limits(const GpuModel& gpu, int64_t visible_memory_mib);
// The same with model.yaml's (or a scenario's) block size and memory utilization.
EngineLimits default_engine_limits(const GpuModel& gpu, int64_t visible_memory_mib, const ServingModel& serving);

// Per GPU of a replica (docs/serving.md#kv-cache): budget = floor(utilization x visible), weights = P x dtype / tp,
// reserve = context memory + activations of one max_num_batched_tokens pass
// (tokens x (2 I / tp + 4 h) x 2 B) + fp32 logits of max_num_seqs rows (seqs x vocab x 4 B),
// blocks = floor((budget - weights - reserve) / (block_size x kv_bytes_per_token(tp))).
// The subtraction is done in bytes; the MiB fields are rounded for messages (kv_mib down).
struct KvCapacity {
  int64_t budget_mib = 0, weights_mib = 0, reserve_mib = 0, kv_mib = 0, blocks = 0;  // blocks <= 0: does not fit
};
KvCapacity kv_capacity(const ServedModel& m, int64_t visible_memory_mib, int32_t tp, const EngineLimits& l,
                       int64_t context_memory_mib);

// Max-min fair split of 1 among `demands` (MPS memory bandwidth, docs/serving.md#sharing); out[i] <= demands[i].
void max_min_shares(std::span<const double> demands, std::span<double> out);

}  // namespace gpusim
