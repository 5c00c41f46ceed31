// gpusim serving profile's model (sim/serving_profile.hpp): the step shapes the serving engine builds,
// the terms of an iteration adding up to iteration_time_s, and each way of sharing a GPU worked by hand
// from the functions the serving module uses.
#include <gtest/gtest.h>

#include <cmath>

#include "gpusim/sim/serving_profile.hpp"

using namespace gpusim;

namespace {

struct H200 : ::testing::Test {
  const GpuModel& gpu = *Catalog::builtin().find_gpu("H200");
  const ServedModel& llama = *ModelCatalog::builtin().find("llama-3-8b");
  const ExecutionModel& model = ExecutionModel::builtin();

  StepProfile profile(ReplicaSharing sharing, const BatchShape& shape) const {
    return profile_step(llama, gpu, 1, 0.0, sharing, shape, model);
  }
};

}  // namespace

TEST(StepShapes, DecodeAndPrefillAsTheEngineBuildsThem) {
  // Each decoding sequence computes q = 1 token with o cached: attention q (o + q/2), KV o + q.
  const BatchShape d = decode_shape(64, 2048);
  EXPECT_EQ(d.tokens, 64);
  EXPECT_DOUBLE_EQ(d.attention, 64 * 2048.5);
  EXPECT_EQ(d.kv_tokens, 64 * 2049);
  // One prompt of T tokens, nothing cached: attention T x T/2.
  const BatchShape p = prefill_shape(2048);
  EXPECT_EQ(p.tokens, 2048);
  EXPECT_DOUBLE_EQ(p.attention, 2048.0 * 1024);
  EXPECT_EQ(p.kv_tokens, 2048);
}

TEST_F(H200, TermsAddUpToTheIterationTime) {
  const ReplicaHardware hw{gpu.bf16_tflops * 1e12, gpu.memory_bandwidth_gb_per_s * 1e9, 1, 0, &model.serving_efficiency(gpu)};
  for (const BatchShape& shape : {decode_shape(1, 1024), decode_shape(256, 1024), prefill_shape(2048)}) {
    const IterationTerms t = iteration_terms(llama, hw, shape);
    EXPECT_EQ(t.total(), iteration_time_s(llama, hw, shape));
    EXPECT_EQ(t.total(), t.overhead + std::max(t.compute, t.memory) + t.attention + t.all_reduce);
    EXPECT_EQ(t.all_reduce, 0);  // tp 1
    // The whole GPU alone: the profile is that iteration, nothing added.
    const StepProfile p = profile({}, shape);
    EXPECT_EQ(p.iteration_s, t.total());
    EXPECT_EQ(p.share_s(), 0);
  }
  // Decode at batch 1 streams the weights: memory-bound; a 2,048-token prefill is compute-bound.
  const IterationTerms decode = iteration_terms(llama, hw, decode_shape(1, 1024));
  EXPECT_GT(decode.memory, 10 * decode.compute);
  const IterationTerms prefill = iteration_terms(llama, hw, prefill_shape(2048));
  EXPECT_GT(prefill.compute, 5 * prefill.memory);
}

// A replica's IterationModel works its batch-free factors out once; each term must still be the double the
// formula (serving_model.hpp) gives written out whole, at tp 1 and across an NVLink ring, on every shape.
TEST_F(H200, IterationModelRoundsEachTermAsTheFormulaWrittenOut) {
  const ServingEfficiency& e = model.serving_efficiency(gpu);
  for (int32_t tp : {1, 2, 8}) {
    const ReplicaHardware hw{gpu.bf16_tflops * 1e12 * 0.37, gpu.memory_bandwidth_gb_per_s * 1e9 * 0.61, tp, 450e9 / 3, &e};
    const IterationModel once(llama, hw);
    const double n = tp;
    for (int64_t q = 1; q < 9000; q = q * 3 + 1)
      for (int64_t o : {0, 1, 17, 4095, 123457}) {
        const BatchShape b{q, static_cast<double>(q) * (static_cast<double>(o) + static_cast<double>(q) / 3.0), q * 7 + o};
        const double tokens = static_cast<double>(b.tokens);
        const IterationTerms t = once.terms(b);
        EXPECT_EQ(t.compute, 2.0 * static_cast<double>(llama.params) * tokens / (n * hw.flops_per_s * e.e_flops));
        EXPECT_EQ(t.memory, (llama.weights_bytes() / n + llama.kv_bytes_per_token(tp) * static_cast<double>(b.kv_tokens)) /
                                (hw.bytes_per_s * e.e_bw));
        EXPECT_EQ(t.attention, 4.0 * llama.layers * llama.heads * llama.head_dim * b.attention / (n * hw.flops_per_s * e.e_attn));
        EXPECT_EQ(t.all_reduce,
                  tp == 1 ? 0.0
                          : 2.0 * llama.layers *
                                (2.0 * (n - 1) * e.alpha_s + tokens * llama.hidden * kActivationBytes /
                                                                 (e.e_link * hw.link_bytes_per_s) * (2.0 * (n - 1) / n)));
        EXPECT_EQ(t.overhead, (tp > 1 ? e.overhead_tp : e.overhead_tp1).seconds());
        EXPECT_EQ(once.time_s(b), iteration_time_s(llama, hw, b));
      }
  }
}

TEST_F(H200, MigInstanceHasItsSmsAndItsMemorySlices) {
  const MigProfile& half = *gpu.mig->find("3g.71gb");
  const StepProfile p = profile({ReplicaSharing::Kind::mig, &half, 1}, decode_shape(8, 512));
  EXPECT_DOUBLE_EQ(p.share.compute, static_cast<double>(half.sms) / gpu.sms);
  EXPECT_DOUBLE_EQ(p.share.bandwidth, 4.0 / 8);  // 4 of the H200's 8 memory slices
  EXPECT_EQ(p.visible_memory_mib, half.memory_mib);
  EXPECT_GT(p.kv.blocks, 0);
  // Memory-bound decode: the memory term is the whole GPU's over the bandwidth share.
  const StepProfile whole = profile({}, decode_shape(8, 512));
  EXPECT_NEAR(p.terms.memory, whole.terms.memory / 0.5, 1e-12);
  // 1g.18gb's 16 GiB cannot hold Llama-3-8B's 15 GiB of weights and vLLM's reserve: no KV cache.
  const StepProfile small = profile({ReplicaSharing::Kind::mig, gpu.mig->find("1g.18gb"), 1}, decode_shape(8, 512));
  EXPECT_LE(small.kv.blocks, 0);
  EXPECT_LE(small.kv_tokens(), 0);
}

TEST_F(H200, MpsClientsSplitTheSmsAtTheirThreadShareAndTheBandwidthFairly) {
  const StepProfile two = profile({ReplicaSharing::Kind::mps, nullptr, 2}, decode_shape(64, 1024));
  EXPECT_DOUBLE_EQ(two.share.compute, 0.5);
  EXPECT_DOUBLE_EQ(two.share.bandwidth, 0.5);
  EXPECT_EQ(two.visible_memory_mib, gpu.memory_mib / 2);
  // Three clients are capped at 33 % of the threads each (integer percent, as the engine caps them).
  const StepProfile three = profile({ReplicaSharing::Kind::mps, nullptr, 3}, decode_shape(64, 1024));
  EXPECT_DOUBLE_EQ(three.share.compute, 0.33);
  EXPECT_DOUBLE_EQ(three.share.bandwidth, 1.0 / 3);
  EXPECT_EQ(three.share_s(), 0);  // side by side: no waiting, only a smaller GPU
}

TEST_F(H200, TimeSlicedReplicasWaitForEachOthersTurns) {
  const TimeSlicingModel& ts = model.time_slicing.of(gpu);
  const BatchShape prefill = prefill_shape(2048);
  const StepProfile one = profile({ReplicaSharing::Kind::time_slicing, nullptr, 1}, prefill);
  EXPECT_EQ(one.iteration_s, profile({}, prefill).iteration_s);  // alone, it never switches
  // A step longer than a slice is preempted at each slice's end while the others wait: N replicas that
  // never pause compute one slice in N, each followed by a preemption, so a step of W takes about
  // N x W x (timeslice + preempt_switch) / timeslice (its last slice ends in a yield instead).
  const double slot = (ts.timeslice + ts.preempt_switch).seconds(), useful = ts.timeslice.seconds();
  for (int32_t n : {2, 3, 4}) {
    const StepProfile p = profile({ReplicaSharing::Kind::time_slicing, nullptr, n}, prefill);
    EXPECT_NEAR(p.iteration_s, n * one.iteration_s * slot / useful, 0.01 * p.iteration_s) << n;
    EXPECT_NEAR(p.share_s(), p.iteration_s - one.iteration_s, 1e-6);  // the step rounded to whole microseconds
    EXPECT_EQ(p.visible_memory_mib, gpu.memory_mib / n);
  }
  // A step shorter than a slice ends in its slice: each replica yields to the next after its step, so
  // N replicas that never pause each wait for the others' steps and N yield switches, to the microsecond.
  const ServedModel& small = *ModelCatalog::builtin().find("qwen2-0.5b");
  const BatchShape decode = decode_shape(1, 128);
  const double w_us = std::round(profile_step(small, gpu, 1, 0.0, {}, decode, model).iteration_s * 1e6);
  ASSERT_LT(w_us, static_cast<double>(ts.timeslice.us()));
  for (int32_t n : {2, 3, 7}) {
    const StepProfile p = profile_step(small, gpu, 1, 0.0, {ReplicaSharing::Kind::time_slicing, nullptr, n}, decode, model);
    EXPECT_DOUBLE_EQ(p.iteration_s, n * (w_us + static_cast<double>(ts.yield_switch.us())) / 1e6) << n;
  }
}
