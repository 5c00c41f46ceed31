#pragma once
// The served-model catalog: the architecture figures of open LLMs that the serving model needs
// (weights, KV cache per token, FLOPs per token), and non-LLM models (vision, embedding) described by
// a measured per-request service time with batching. The built-in entries are
// workloads/data/models.yaml, compiled into the binary; a scenario adds its own under `models:` with
// the same fields.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/fields.hpp"
#include "gpusim/core/time.hpp"

namespace gpusim {

// llm: served by vLLM from its architecture (docs/serving.md#iteration-time); fixed: a measured
// per-request time with dynamic batching, as Triton serves a vision or embedding model
// (docs/serving.md#non-llm-models).
enum class ModelKind : uint8_t { llm, fixed };
constexpr auto enum_table(ModelKind) {
  return std::to_array<EnumName<ModelKind>>({{ModelKind::llm, "llm"}, {ModelKind::fixed, "fixed"}});
}

struct ServedModel {
  std::string name;                  // lower case with dashes, e.g. llama-3.2-3b
  std::vector<std::string> aliases;  // e.g. the Hugging Face repo id
  ModelKind kind = ModelKind::llm;   // how it is served
  int64_t params = 0;                // parameter count
  int32_t layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0, vocab = 0;
  double dtype_bytes = 2;            // bytes per weight and per KV element
  int32_t max_model_len = 0;         // tokens
  int32_t sliding_window = 0;        // 0: none (Mistral-7B-v0.1: 4096)
  std::vector<std::string> assumed;  // fields whose values are documented assumptions
  std::string source;
  // kind fixed: one request alone on a whole `reference_gpu` takes `service_time`; a batch of b
  // takes service_time x (1 + batch_alpha x (b - 1)), of at most max_batch requests.
  Duration service_time;
  std::string reference_gpu;
  int32_t max_batch = 1;
  double batch_alpha = 0;
  // params x dtype_bytes: the whole model's weights.
  double weights_bytes() const;
  // 2 (K and V) x layers x max(1, kv_heads / tp) x head_dim x dtype_bytes: what one token's KV
  // cache takes on each GPU of a replica of tensor-parallel degree `tp` (KV heads are split across
  // the GPUs, and replicated when there are fewer heads than GPUs, as vLLM does).
  double kv_bytes_per_token(int32_t tp = 1) const;
};

// The fields of one entry (models.yaml's and a scenario's `models:` items).
const Section& served_model_section();

class ModelCatalog {
 public:
  // The compiled-in workloads/data/models.yaml, parsed once.
  static const ModelCatalog& builtin();
  // A list of entries (models.yaml's `models:`, a scenario's `models:`); a name or alias already
  // known is an InputError naming the entry.
  void add_document(const ConfigNode& list);
  // By name or alias, case-insensitive; nullptr when unknown.
  const ServedModel* find(std::string_view name_or_alias) const;
  const std::vector<ServedModel>& models() const { return models_; }

 private:
  std::vector<ServedModel> models_;
};

}  // namespace gpusim
