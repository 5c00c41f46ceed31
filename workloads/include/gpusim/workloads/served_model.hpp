#pragma once
// The served-model catalog: the architecture figures of open LLMs that the serving model needs
// (weights, KV cache per token, FLOPs per token). The built-in entries are workloads/data/models.yaml,
// compiled into the binary; a scenario adds its own under `models:` with the same fields.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/fields.hpp"

namespace gpusim {

struct ServedModel {
  std::string name;                  // lower case with dashes, e.g. llama-3.2-3b
  std::vector<std::string> aliases;  // e.g. the Hugging Face repo id
  int64_t params = 0;                // parameter count
  int32_t layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0, vocab = 0;
  double dtype_bytes = 2;            // bytes per weight and per KV element
  int32_t max_model_len = 0;         // tokens
  int32_t sliding_window = 0;        // 0: none (Mistral-7B-v0.1: 4096)
  std::vector<std::string> assumed;  // fields whose values are documented assumptions
  std::string source;
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
