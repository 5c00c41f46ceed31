// The served-model catalog and the serving model's pure formulas (sim/model/include/gpusim/sim/serving_model.hpp),
// each against numbers worked by hand (docs/serving.md).
#include <gtest/gtest.h>

#include <array>

#include "gpusim/core/error.hpp"
#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/serving_model.hpp"
#include "gpusim/workloads/served_model.hpp"

using namespace gpusim;

namespace {

const ServedModel& model(std::string_view name) {
  const ServedModel* m = ModelCatalog::builtin().find(name);
  if (!m) throw std::logic_error("no model " + std::string(name));
  return *m;
}
const GpuModel& gpu(std::string_view name) { return *Catalog::builtin().find_gpu(name); }
const ExecutionModel& exec() { return ExecutionModel::builtin(); }

ReplicaHardware whole(const GpuModel& g, int32_t tp = 1) {
  return {g.bf16_tflops * 1e12, g.memory_bandwidth_gb_per_s * 1e9, tp, g.link_gb_per_s / 2 * 1e9, &exec().serving_efficiency(g)};
}

}  // namespace

// ---------------------------------------------------------------------------------------- catalog

TEST(ServedModels, CatalogHoldsTheNoteModelsWithSources) {
  for (const char* name : {"llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b", "llama-3-70b", "mistral-7b-v0.1", "qwen2-7b",
                           "qwen2-1.5b", "qwen2-0.5b", "llama-3.2-1b", "llama-3.2-3b", "bloom-176b"}) {
    const ServedModel& m = model(name);
    EXPECT_FALSE(m.source.empty()) << name;
    EXPECT_GT(m.max_model_len, 0) << name;
  }
  // Found by alias (the HF repo id), case-insensitively.
  EXPECT_EQ(ModelCatalog::builtin().find("meta-llama/Llama-3.2-3B")->name, "llama-3.2-3b");
  EXPECT_EQ(ModelCatalog::builtin().find("LLAMA-3-8B")->name, "llama-3-8b");
  EXPECT_EQ(ModelCatalog::builtin().find("gpt-5"), nullptr);
  EXPECT_EQ(model("mistral-7b-v0.1").sliding_window, 4096);
}

TEST(ServedModels, WeightsAndKvBytesPerToken) {
  // Llama-3-8B: 8,030,261,248 x 2 B; KV 2 x 32 layers x 8 heads x 128 x 2 B = 131,072 B (128 KiB).
  EXPECT_DOUBLE_EQ(model("llama-3-8b").weights_bytes(), 16'060'522'496.0);
  EXPECT_DOUBLE_EQ(model("llama-3-8b").kv_bytes_per_token(), 131'072.0);
  // Llama-2-70B at TP 4: 8 KV heads / 4 = 2 per GPU: 2 x 80 x 2 x 128 x 2 = 81,920 B.
  EXPECT_DOUBLE_EQ(model("llama-2-70b").kv_bytes_per_token(4), 81'920.0);
  // Qwen2-0.5B has 2 KV heads: at TP 4 each GPU keeps a whole one, 2 x 24 x 1 x 64 x 2 = 6,144 B.
  EXPECT_DOUBLE_EQ(model("qwen2-0.5b").kv_bytes_per_token(4), 6'144.0);
  // Llama-3.2-3B: 2 x 28 x 8 x 128 x 2 = 114,688 B; Qwen2-7B: 2 x 28 x 4 x 128 x 2 = 57,344 B.
  EXPECT_DOUBLE_EQ(model("llama-3.2-3b").kv_bytes_per_token(), 114'688.0);
  EXPECT_DOUBLE_EQ(model("qwen2-7b").kv_bytes_per_token(), 57'344.0);
}

TEST(ServedModels, ScenarioAddsItsOwnAndRejectsKnownNames) {
  ModelCatalog c = ModelCatalog::builtin();
  c.add_document(
      ConfigNode::parse("- {name: tiny, aliases: [org/Tiny], params: 1000000, layers: 2, hidden: 64, heads: 4, intermediate: 128,"
                        " vocab: 1000, max_model_len: 512}\n",
                        "s.yaml"));
  const ServedModel* t = c.find("org/tiny");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->kv_heads, 4);   // absent: heads
  EXPECT_EQ(t->head_dim, 16);  // absent: hidden / heads
  EXPECT_DOUBLE_EQ(t->dtype_bytes, 2);
  EXPECT_THROW(c.add_document(
                   ConfigNode::parse("- {name: Llama-3-8B, params: 1, layers: 1, hidden: 8, heads: 1, intermediate: 8, vocab: 8,"
                                     " max_model_len: 8}\n",
                                     "s.yaml")),
               InputError);
  EXPECT_THROW(c.add_document(ConfigNode::parse(
                   "- {name: odd, params: 1, layers: 1, hidden: 8, heads: 4, kv_heads: 3, intermediate: 8, vocab: 8,"
                   " max_model_len: 8}\n",
                   "s.yaml")),
               InputError);
}

TEST(ServedModels, FixedModelsNameAKnownReferenceGpu) {
  for (const char* name : {"resnet-50", "bert-large"}) {
    const ServedModel& m = model(name);
    EXPECT_EQ(m.kind, ModelKind::fixed) << name;
    EXPECT_NE(Catalog::builtin().find_gpu(m.reference_gpu), nullptr) << name;
    EXPECT_FALSE(m.source.empty()) << name;
  }
  EXPECT_EQ(model("llama-3-8b").kind, ModelKind::llm);
  ModelCatalog c;
  c.add_document(ConfigNode::parse("- {name: v, kind: fixed, params: 1000, service_time: 4ms, reference_gpu: L4, max_batch: 8,"
                                   " batch_alpha: 0.25}\n",
                                   "s.yaml"));
  EXPECT_EQ(c.find("v")->service_time, Duration::from_us(4000));
  EXPECT_EQ(c.find("v")->max_batch, 8);
  // An architecture field on a fixed model, a batch field on an LLM: refused.
  EXPECT_THROW(c.add_document(ConfigNode::parse("- {name: w, kind: fixed, params: 1, service_time: 4ms, reference_gpu: L4,"
                                                " max_batch: 8, batch_alpha: 0, layers: 2}\n",
                                                "s.yaml")),
               InputError);
  EXPECT_THROW(c.add_document(ConfigNode::parse("- {name: x, params: 1, layers: 1, hidden: 8, heads: 1, intermediate: 8,"
                                                " vocab: 8, max_model_len: 8, max_batch: 4}\n",
                                                "s.yaml")),
               InputError);
}

// ----------------------------------------------------------------------------- engine defaults

TEST(Serving, DefaultEngineLimitsFollowVllmOpenAiServer) {
  // A100 stays at 2048 / 256 whatever its memory ("a100" in the device name); an H100 showing
  // 80 GiB >= 70 GiB gets 8192 / 1024; a 1g.10gb slice of an H100 shows 9,984 MiB < 70 GiB: 2048 / 256.
  const EngineLimits a100 = default_engine_limits(gpu("A100-80GB-SXM"), 81920);
  EXPECT_EQ(a100.max_num_batched_tokens, 2048);
  EXPECT_EQ(a100.max_num_seqs, 256);
  const EngineLimits h100 = default_engine_limits(gpu("H100-80GB-SXM"), 81920);
  EXPECT_EQ(h100.max_num_batched_tokens, 8192);
  EXPECT_EQ(h100.max_num_seqs, 1024);
  const EngineLimits slice = default_engine_limits(gpu("H100-80GB-SXM"), 9984);
  EXPECT_EQ(slice.max_num_batched_tokens, 2048);
  EXPECT_EQ(slice.max_num_seqs, 256);
  // L40S (48 GiB) is below the line.
  EXPECT_EQ(default_engine_limits(gpu("L40S"), 49152).max_num_batched_tokens, 2048);
  // model.yaml's cache settings.
  const EngineLimits l = default_engine_limits(gpu("A100-80GB-SXM"), 81920, exec().serving);
  EXPECT_EQ(l.block_size, 16);
  EXPECT_DOUBLE_EQ(l.gpu_memory_utilization, 0.9);
}

// ----------------------------------------------------------------------------------- KV capacity

// S1: Llama-3-8B on a whole A100-80GB (81,920 MiB), utilization 0.9, 2048 / 256:
//   budget  = floor(0.9 x 81,920) = 73,728 MiB
//   weights = 8,030,261,248 x 2 B = 15,316.51 MiB
//   reserve = 400 MiB context + 2,048 x (2 x 14,336 + 4 x 4,096) x 2 B (176 MiB)
//             + 256 x 128,256 x 4 B (125.25 MiB) = 701.25 MiB
//   KV      = 73,728 - 15,316.51 - 701.25 = 57,710.24 MiB; a block is 16 x 131,072 B = 2 MiB
//   blocks  = floor(57,710.24 / 2) = 28,855
TEST(Serving, KvCapacityFitsOnWholeA100) {
  const KvCapacity c = kv_capacity(model("llama-3-8b"), 81920, 1, EngineLimits{}, 400);
  EXPECT_EQ(c.budget_mib, 73728);
  EXPECT_EQ(c.weights_mib, 15317);
  EXPECT_EQ(c.reserve_mib, 701);
  EXPECT_EQ(c.kv_mib, 57710);
  EXPECT_EQ(c.blocks, 28855);
}

// S2: the same model on a 1g.10gb slice (9,728 MiB): budget floor(8,755.2) = 8,755 MiB < 15,317 MiB
// of weights: no blocks.
TEST(Serving, KvCapacityRejectsModelLargerThanSlice) {
  const KvCapacity c = kv_capacity(model("llama-3-8b"), 9728, 1, EngineLimits{}, 400);
  EXPECT_EQ(c.budget_mib, 8755);
  EXPECT_EQ(c.weights_mib, 15317);
  EXPECT_LE(c.blocks, 0);
  EXPECT_LT(c.kv_mib, 0);
}

// Llama-3.2-3B on 1g.10gb: weights 3,212,749,824 x 2 B = 6,127.83 MiB; reserve 400 + 2,048 x
// (2 x 8,192 + 4 x 3,072) x 2 B (112 MiB) + 125.25 = 637.25 MiB; KV 8,755 - 6,127.83 - 637.25 =
// 1,989.92 MiB over 16 x 114,688 B = 1.75 MiB blocks = 1,137 (18,192 tokens). Llama-3.2-1B: weights
// 2,357.13 MiB, reserve 400 + 96 + 125.25 = 621.25, KV 5,776.62 MiB / 0.5 MiB = 11,553 blocks.
TEST(Serving, KvCapacityOfSmallModelsOnOneSlice) {
  EXPECT_EQ(kv_capacity(model("llama-3.2-3b"), 9728, 1, EngineLimits{}, 400).blocks, 1137);
  EXPECT_EQ(kv_capacity(model("llama-3.2-1b"), 9728, 1, EngineLimits{}, 400).blocks, 11553);
}

// Tensor parallelism splits weights and KV heads: Llama-2-70B at TP 4 on A100-80GB: weights
// 137,953,296,384 B / 4 = 32,890.63 MiB; reserve 400 + 2,048 x (2 x 28,672 / 4 + 4 x 8,192) x 2 B
// (184 MiB) + 256 x 32,000 x 4 B (31.25 MiB) = 615.25 MiB; KV = 73,728 - 32,890.63 - 615.25 =
// 40,222.12 MiB over 16 x 81,920 B = 1.25 MiB blocks = 32,177.
TEST(Serving, KvCapacityWithTensorParallelism) {
  const KvCapacity c = kv_capacity(model("llama-2-70b"), 81920, 4, EngineLimits{}, 400);
  EXPECT_EQ(c.weights_mib, 32891);
  EXPECT_EQ(c.reserve_mib, 615);
  EXPECT_EQ(c.blocks, 32177);
}

// --------------------------------------------------------------------------------- iteration time

// S3: Llama-3.2-3B, 8 decodes of context 1,000 (999 cached + 1 new each): T = 8, attention =
// 8 x (999 + 1/2) = 7,996, KV entries 8 x 1,000 = 8,000. A100-80GB: F 312e12, B 2,039e9, e 0.72 / 0.77 / 0.25.
//   t_comp = 2 x 3,212,749,824 x 8 / (312e12 x 0.72) = 0.22883 ms
//   t_mem  = (6,425,499,648 + 8,000 x 114,688) / (2,039e9 x 0.77) = 7,343,003,648 / 1.57003e12 = 4.67698 ms
//   t_attn = 4 x 28 x 24 x 128 x 7,996 / (312e12 x 0.25) = 0.035271 ms
//   t      = 0.5 + max(0.22883, 4.67698) + 0.035271 = 5.21225 ms
// On a 1g.10gb slice (F x 14/108, B x 1/8): t_comp 1.76525, t_mem 37.41586, t_attn 0.27209 ms:
//   t = 0.5 + 37.41586 + 0.27209 = 38.18795 ms.
TEST(Serving, IterationTimeOnWholeGpuAndMigSlice) {
  const GpuModel& a100 = gpu("A100-80GB-SXM");
  const BatchShape decodes{8, 8 * 999.5, 8000};
  EXPECT_NEAR(iteration_time_s(model("llama-3.2-3b"), whole(a100), decodes) * 1e3, 5.21225, 1e-5);
  ReplicaHardware slice = whole(a100);
  slice.flops_per_s *= 14.0 / 108;
  slice.bytes_per_s *= 1.0 / 8;
  EXPECT_NEAR(iteration_time_s(model("llama-3.2-3b"), slice, decodes) * 1e3, 38.18795, 1e-5);
}

// S5: Llama-2-70B, one 8,192-token prompt at TP 2 on A100-80GB (NVLink 600 GB/s -> 300 GB/s a direction):
//   t_comp = 2 x 68,976,648,192 x 8,192 / (2 x 312e12 x 0.72) = 2.515388 s (compute-bound:
//            t_mem = (68,976,648,192 + 8,192 x 163,840) / (2,039e9 x 0.77) = 0.044788 s)
//   t_attn = 4 x 80 x 64 x 128 x 8,192 x 4,096 / (2 x 312e12 x 0.25) = 0.563852 s
//   t_ar   = 2 x 80 x [2 x 1 x 10 us + 8,192 x 8,192 x 2 B / (0.25 x 300e9) x 1] = 0.289531 s
//   t      = 0.0125 + 2.515388 + 0.563852 + 0.289531 = 3.381271 s (SplitwiseSim measured 2.990 s).
TEST(Serving, PrefillIsComputeBoundWithTensorParallelAllReduce) {
  const BatchShape prompt{8192, 8192.0 * 4096, 8192};
  EXPECT_NEAR(iteration_time_s(model("llama-2-70b"), whole(gpu("A100-80GB-SXM"), 2), prompt), 3.381271, 1e-6);
}

// S11: ResNet-50 (kind fixed: 2.128 ms alone on a whole A100-80GB-SXM, batch_alpha 0.137). The
// reference's effective FLOP/s: 312e12 x 0.72 = 224.64e12.
//   whole A100, batch 1:  2.128 ms x 1 x 224.64e12 / (312e12 x 0.72) = 2.128 ms
//   whole A100, batch 32: 2.128 x (1 + 0.137 x 31) = 2.128 x 5.247 = 11.165616 ms
//   1g.10gb slice (F x 14/108), batch 1: 2.128 x 108 / 14 = 16.416 ms
//   whole H100-80GB-SXM (989e12 x 0.77 = 761.53e12), batch 1: 2.128 x 224.64 / 761.53 = 0.6277283 ms
TEST(Serving, FixedBatchTimeScalesByBatchAndEffectiveFlops) {
  const GpuModel& a100 = gpu("A100-80GB-SXM");
  const double reference = 312e12 * 0.72;
  const ServedModel& resnet = model("resnet-50");
  EXPECT_NEAR(fixed_batch_time_s(resnet, whole(a100), reference, 1) * 1e3, 2.128, 1e-9);
  EXPECT_NEAR(fixed_batch_time_s(resnet, whole(a100), reference, 32) * 1e3, 11.165616, 1e-9);
  ReplicaHardware slice = whole(a100);
  slice.flops_per_s *= 14.0 / 108;
  EXPECT_NEAR(fixed_batch_time_s(resnet, slice, reference, 1) * 1e3, 16.416, 1e-9);
  EXPECT_NEAR(fixed_batch_time_s(resnet, whole(gpu("H100-80GB-SXM")), reference, 1) * 1e3, 0.6277283, 1e-7);
  // BERT-large at its max_batch 16: 3.6 x (1 + 0.478 x 15) = 29.412 ms (measured 29.4 ms).
  EXPECT_NEAR(fixed_batch_time_s(model("bert-large"), whole(a100), reference, 16) * 1e3, 29.412, 1e-9);
}

TEST(Serving, EfficiencyEntriesByGpuAndDefaults) {
  const ExecutionModel& m = exec();
  EXPECT_DOUBLE_EQ(m.serving_efficiency(gpu("A100-80GB-SXM")).e_flops, 0.72);
  EXPECT_EQ(m.serving_efficiency(gpu("A100-80GB-SXM")).overhead_tp, Duration::from_us(12500));
  EXPECT_EQ(m.serving_efficiency(gpu("A100-80GB-SXM")).overhead_tp1, Duration::from_us(500));
  EXPECT_DOUBLE_EQ(m.serving_efficiency(gpu("H100")).e_attn, 0.10);  // by alias
  // Unlisted: pre-Hopper takes the A100's figures, Hopper and Blackwell the H100's.
  EXPECT_DOUBLE_EQ(m.serving_efficiency(gpu("L4")).e_bw, 0.77);
  EXPECT_DOUBLE_EQ(m.serving_efficiency(gpu("B200")).e_bw, 0.79);
  // The H200 has its own entry (measured, tests/serving/h200_serving_test.cpp), alpha carried from the H100.
  EXPECT_DOUBLE_EQ(m.serving_efficiency(gpu("H200-141GB")).e_bw, 0.61);
  EXPECT_DOUBLE_EQ(m.serving_efficiency(gpu("H200-141GB")).alpha_s, 6e-6);
  // A scenario's `model: serving:` overrides: its entries are searched first.
  ExecutionModel s = m;
  s.apply(ConfigNode::parse("serving:\n  gpu_memory_utilization: 0.92\n  efficiency:\n    - {gpus: [L4], e_flops: 0.5,"
                            " e_bw: 0.6, e_attn: 0.2, e_link: 0.2, overhead_tp1: 0.001, overhead_tp: 0.01, alpha: 0}\n",
                            "s.yaml"));
  EXPECT_DOUBLE_EQ(s.serving.gpu_memory_utilization, 0.92);
  EXPECT_EQ(s.serving.block_size, 16);
  EXPECT_DOUBLE_EQ(s.serving_efficiency(gpu("L4")).e_bw, 0.6);
  EXPECT_DOUBLE_EQ(s.serving_efficiency(gpu("A100-80GB-SXM")).e_bw, 0.77);
  EXPECT_THROW(s.apply(ConfigNode::parse("serving: {efficiency: [{gpus: [L4], e_flops: 1.5, e_bw: 0.6, e_attn: 0.2,"
                                         " e_link: 0.2, overhead_tp1: 0, overhead_tp: 0, alpha: 0}]}\n",
                                         "s.yaml")),
               InputError);
}

// ------------------------------------------------------------------------------------------- MPS

// S10: seven busy replicas share memory bandwidth max-min fairly: 1/7 each. With one client
// wanting only 0.1, the other six split 0.9: 0.15 each; demands summing below 1 are all met.
TEST(Serving, MpsBandwidthMaxMinShares) {
  std::array<double, 7> out{};
  max_min_shares(std::array<double, 7>{1, 1, 1, 1, 1, 1, 1}, out);
  for (double s : out) EXPECT_NEAR(s, 1.0 / 7, 1e-12);
  max_min_shares(std::array<double, 7>{0.1, 1, 1, 1, 1, 1, 1}, out);
  EXPECT_NEAR(out[0], 0.1, 1e-12);
  for (std::size_t i = 1; i < 7; ++i) EXPECT_NEAR(out[i], 0.15, 1e-12);
  std::array<double, 3> few{};
  max_min_shares(std::array<double, 3>{0.2, 0.3, 0.1}, few);
  EXPECT_NEAR(few[0], 0.2, 1e-12);
  EXPECT_NEAR(few[1], 0.3, 1e-12);
  EXPECT_NEAR(few[2], 0.1, 1e-12);
}
