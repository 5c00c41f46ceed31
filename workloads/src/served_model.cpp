#include "gpusim/workloads/served_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>

#include "gpusim/core/ascii.hpp"

namespace gpusim {

namespace embedded {
std::string_view models_yaml();
}  // namespace embedded

namespace {

const Section& models_document_section() {
  static const Section s{"served_models",
                         "The served-model catalog (workloads/data/models.yaml)",
                         {{"models", Type::list(Type::section(served_model_section())), required, "", "The models"}}};
  return s;
}

void read_architecture(const Fields& e, ServedModel& m) {
  m.layers = e.integer<int32_t>("layers");
  m.hidden = e.integer<int32_t>("hidden");
  m.heads = e.integer<int32_t>("heads");
  m.kv_heads = e.has("kv_heads") ? e.integer<int32_t>("kv_heads") : m.heads;
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
    e.at("kv_heads").fail(fmt::format("expected a divisor of heads ({}), got {}", m.heads, m.kv_heads));
  if (e.has("head_dim")) {
    m.head_dim = e.integer<int32_t>("head_dim");
  } else {
    if (m.hidden % m.heads != 0)
      e.at("hidden").fail(fmt::format("hidden {} is not a multiple of heads {}: state head_dim", m.hidden, m.heads));
    m.head_dim = m.hidden / m.heads;
  }
  m.intermediate = e.integer<int32_t>("intermediate");
  m.vocab = e.integer<int32_t>("vocab");
  m.max_model_len = e.integer<int32_t>("max_model_len");
  if (e.has("sliding_window")) m.sliding_window = e.integer<int32_t>("sliding_window");
}

}  // namespace

double ServedModel::weights_bytes() const { return static_cast<double>(params) * dtype_bytes; }

double ServedModel::kv_bytes_per_token(int32_t tp) const {
  const int32_t heads_per_gpu = std::max(1, kv_heads / std::max(1, tp));
  return 2.0 * layers * heads_per_gpu * head_dim * dtype_bytes;
}

// The fields only one kind has: given to the other kind, an entry is refused.
constexpr std::array kLlmFields{"layers",       "hidden", "heads",         "kv_heads",      "head_dim",
                                "intermediate", "vocab",  "max_model_len", "sliding_window"};
constexpr std::array kFixedFields{"service_time", "reference_gpu", "max_batch", "batch_alpha"};

const Section& served_model_section() {
  static const Section s{
      "served_model",
      "A model a service serves: an LLM's architecture (its Hugging Face config.json), or a non-LLM model's measured "
      "service time",
      {
          {"name", Type::string(), required, "", "The model's name, e.g. llama-3.2-3b"},
          {"aliases", Type::string_list(), "", "", "Other names for it, e.g. the Hugging Face repo id"},
          {"kind", Type::enumeration<ModelKind>(), "llm", "",
           "llm: served by vLLM from its architecture; fixed: a per-request service time with dynamic batching (vision, "
           "embedding)"},
          {"params", Type::integer().at_least(1), required, "", "Parameter count"},
          {"layers", Type::int32().at_least(1), "", "", "kind llm, required: num_hidden_layers"},
          {"hidden", Type::int32().at_least(1), "", "", "kind llm, required: hidden_size"},
          {"heads", Type::int32().at_least(1), "", "", "kind llm, required: num_attention_heads"},
          {"kv_heads", Type::int32().at_least(1), "", "", "num_key_value_heads; absent: heads (no grouped-query attention)"},
          {"head_dim", Type::int32().at_least(1), "", "", "head_dim; absent: hidden / heads"},
          {"intermediate", Type::int32().at_least(1), "", "", "kind llm, required: intermediate_size (MLP)"},
          {"vocab", Type::int32().at_least(1), "", "", "kind llm, required: vocab_size"},
          {"dtype_bytes", Type::number().at_least(0.125).at_most(8), "2", "bytes",
           "Bytes per weight and per KV element, from 0.125 (1 bit) to 8"},
          {"max_model_len", Type::int32().at_least(1), "", "tokens",
           "kind llm, required: longest prompt + output (max_position_embeddings)"},
          {"sliding_window", Type::int32().at_least(0), "", "tokens",
           "Attention window: a sequence keeps at most this many tokens of KV; absent: none"},
          {"service_time", Type::duration(), "", "",
           "kind fixed, required: one request alone on a whole reference_gpu (a batch of 1)"},
          {"reference_gpu", Type::string(), "", "", "kind fixed, required: the GPU model service_time was measured on"},
          {"max_batch", Type::int32().at_least(1).at_most(1 << 16), "", "",
           "kind fixed, required: requests one batch takes (Triton max_batch_size)"},
          {"batch_alpha", Type::number().at_least(0), "", "",
           "kind fixed, required: a batch of b takes service_time x (1 + batch_alpha x (b - 1))"},
          {"assumed", Type::string_list(), "", "", "Fields whose values are documented assumptions"},
          source_field(),
      }};
  return s;
}

const ModelCatalog& ModelCatalog::builtin() {
  static const ModelCatalog catalog = [] {
    ModelCatalog c;
    const auto doc = ConfigNode::parse(std::string(embedded::models_yaml()), "<builtin>/workloads/data/models.yaml",
                                       YamlText::builtin);
    c.add_document(models_document_section().read(doc).at("models"));
    return c;
  }();
  return catalog;
}

void ModelCatalog::add_document(const ConfigNode& list) {
  for (const auto& entry : list.items()) {
    const Fields e = served_model_section().read(entry);
    ServedModel m;
    m.name = e.at("name").as_string();
    m.aliases = e.string_list("aliases");
    for (const auto& n : [&] {
           auto all = m.aliases;
           all.push_back(m.name);
           return all;
         }())
      if (find(n)) e.at("name").fail(fmt::format("model '{}' is already defined", n));
    m.kind = e.value("kind").as_enum<ModelKind>(" or ");
    m.params = e.integer("params");
    m.dtype_bytes = e.number("dtype_bytes");
    for (const char* f :
         m.kind == ModelKind::llm ? std::span<const char* const>(kFixedFields) : std::span<const char* const>(kLlmFields))
      if (e.has(f)) e.at(f).fail(fmt::format("a model of kind {} has no {}", to_string(m.kind), f));
    if (m.kind == ModelKind::fixed) {
      m.service_time = e.value("service_time").as_duration();
      if (m.service_time <= Duration()) e.at("service_time").fail("expected a positive service time");
      m.reference_gpu = e.value("reference_gpu").as_string();
      m.max_batch = e.integer<int32_t>("max_batch");
      m.batch_alpha = e.number("batch_alpha");
    } else {
      read_architecture(e, m);
    }
    m.assumed = e.string_list("assumed");
    if (auto s = e.get("source")) m.source = s->as_string();
    models_.push_back(std::move(m));
  }
}

const ServedModel* ModelCatalog::find(std::string_view name_or_alias) const {
  for (const auto& m : models_) {
    if (ascii_iequal(m.name, name_or_alias)) return &m;
    for (const auto& a : m.aliases)
      if (ascii_iequal(a, name_or_alias)) return &m;
  }
  return nullptr;
}

}  // namespace gpusim
