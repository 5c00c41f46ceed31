#include "gpusim/workloads/served_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace gpusim {

namespace embedded {
std::string_view models_yaml();
}  // namespace embedded

namespace {

bool same_name(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

const Section& models_document_section() {
  static const Section s{"served_models",
                         "The served-model catalog (workloads/data/models.yaml)",
                         {{"models", Type::list(Type::section(served_model_section())), required, "", "The models"}}};
  return s;
}

}  // namespace

double ServedModel::weights_bytes() const { return static_cast<double>(params) * dtype_bytes; }

double ServedModel::kv_bytes_per_token(int32_t tp) const {
  const int32_t heads_per_gpu = std::max(1, kv_heads / std::max(1, tp));
  return 2.0 * layers * heads_per_gpu * head_dim * dtype_bytes;
}

const Section& served_model_section() {
  static const Section s{
      "served_model",
      "A model a service serves: the architecture figures of its Hugging Face config.json",
      {
          {"name", Type::string(), required, "", "The model's name, e.g. llama-3.2-3b"},
          {"aliases", Type::string_list(), "", "", "Other names for it, e.g. the Hugging Face repo id"},
          {"params", Type::integer().at_least(1), required, "", "Parameter count"},
          {"layers", Type::int32().at_least(1), required, "", "num_hidden_layers"},
          {"hidden", Type::int32().at_least(1), required, "", "hidden_size"},
          {"heads", Type::int32().at_least(1), required, "", "num_attention_heads"},
          {"kv_heads", Type::int32().at_least(1), "", "", "num_key_value_heads; absent: heads (no grouped-query attention)"},
          {"head_dim", Type::int32().at_least(1), "", "", "head_dim; absent: hidden / heads"},
          {"intermediate", Type::int32().at_least(1), required, "", "intermediate_size (MLP)"},
          {"vocab", Type::int32().at_least(1), required, "", "vocab_size"},
          {"dtype_bytes", Type::number().at_least(0.125).at_most(8), "2", "bytes",
           "Bytes per weight and per KV element, from 0.125 (1 bit) to 8"},
          {"max_model_len", Type::int32().at_least(1), required, "tokens", "Longest prompt + output (max_position_embeddings)"},
          {"sliding_window", Type::int32().at_least(0), "0", "tokens",
           "Attention window: a sequence keeps at most this many tokens of KV; 0: none"},
          {"assumed", Type::string_list(), "", "", "Fields whose values are documented assumptions"},
          source_field(),
      }};
  return s;
}

const ModelCatalog& ModelCatalog::builtin() {
  static const ModelCatalog catalog = [] {
    ModelCatalog c;
    const auto doc = ConfigNode::parse(std::string(embedded::models_yaml()), "<builtin>/workloads/data/models.yaml");
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
    m.params = e.integer("params");
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
    m.dtype_bytes = e.number("dtype_bytes");
    m.max_model_len = e.integer<int32_t>("max_model_len");
    m.sliding_window = e.integer<int32_t>("sliding_window");
    m.assumed = e.string_list("assumed");
    if (auto s = e.get("source")) m.source = s->as_string();
    models_.push_back(std::move(m));
  }
}

const ServedModel* ModelCatalog::find(std::string_view name_or_alias) const {
  for (const auto& m : models_) {
    if (same_name(m.name, name_or_alias)) return &m;
    for (const auto& a : m.aliases)
      if (same_name(a, name_or_alias)) return &m;
  }
  return nullptr;
}

}  // namespace gpusim
