#include "serving_profile.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <iostream>
#include <string_view>
#include <vector>

#include "gpusim/core/error.hpp"
#include "gpusim/core/json.hpp"
#include "gpusim/hardware/catalog.hpp"
#include "gpusim/sim/serving_profile.hpp"
#include "gpusim/workloads/served_model.hpp"

namespace gpusim::cli {

namespace {

[[noreturn]] void bad(const char* flag, const std::string& why) { throw InputError({"", std::nullopt, flag}, why); }

// --share mig:PROFILE | ts:N | mps:N
ReplicaSharing parse_share(const std::string& text, const GpuModel& gpu, const ExecutionModel& model) {
  using Kind = ReplicaSharing::Kind;
  const auto colon = text.find(':');
  const std::string_view kind = std::string_view(text).substr(0, colon);
  const std::string_view arg = colon == std::string::npos ? std::string_view() : std::string_view(text).substr(colon + 1);
  ReplicaSharing s;
  if (kind == "mig") {
    if (!gpu.mig) bad("--share", fmt::format("{} has no MIG; --share mig:PROFILE needs a GPU that has", gpu.name));
    s.kind = Kind::mig;
    s.profile = gpu.mig->find(arg);
    if (!s.profile) {
      std::vector<std::string> known;
      for (const MigProfile& p : gpu.mig->profiles) known.push_back(p.name);
      bad("--share", fmt::format("{} has no MIG profile '{}'; its profiles: {}", gpu.name, arg, fmt::join(known, ", ")));
    }
    return s;
  }
  if (kind != "ts" && kind != "mps") bad("--share", fmt::format("expected mig:PROFILE, ts:N or mps:N, got '{}'", text));
  s.kind = kind == "ts" ? Kind::time_slicing : Kind::mps;
  const int limit = kind == "ts" ? model.time_slicing.of(gpu).max_contexts : mps_client_limit(&gpu);
  const auto [end, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), s.replicas);
  if (ec != std::errc() || end != arg.data() + arg.size() || s.replicas < 1 || s.replicas > limit)
    bad("--share", fmt::format("expected {}:N with N replicas from 1 to {} ({}), got '{}'", kind, limit,
                               kind == "ts" ? "model.time_slicing.max_contexts" : "MPS's client limit on this GPU", text));
  return s;
}

// The ring a tp-GPU replica uses on `node` (or the first node template of that GPU with room):
// the best-connected tp GPUs, as the engine's reference ring takes them.
double ring_bytes_per_s(const Catalog& catalog, const GpuModel& gpu, int tp, const std::optional<std::string>& node) {
  const NodeTemplate* t = nullptr;
  if (node) {
    t = catalog.find_node(*node);
    if (!t) bad("--node", fmt::format("unknown node template '{}' (gpusim catalog nodes lists them)", *node));
    if (t->gpu != gpu.name) bad("--node", fmt::format("node template {} holds {}, not {}", t->name, t->gpu, gpu.name));
  } else {
    for (const NodeTemplate& n : catalog.nodes())
      if (n.gpu == gpu.name && n.gpus >= tp) {
        t = &n;
        break;
      }
    if (!t)
      bad("--tp", fmt::format("no node template holds {} GPUs of {} (gpusim catalog nodes --gpu {})", tp, gpu.name, gpu.name));
  }
  if (t->gpus < tp) bad("--tp", fmt::format("node template {} holds {} GPUs; --tp {} needs that many", t->name, t->gpus, tp));
  return t->topology.ring_bottleneck(t->topology.best_subsets(tp).front()).gb_per_s * 1e9;
}

std::string describe(const ReplicaSharing& s) {
  switch (s.kind) {
    case ReplicaSharing::Kind::mig: return fmt::format("MIG {}", s.profile->name);
    case ReplicaSharing::Kind::time_slicing: return fmt::format("time-sliced with {} replicas", s.replicas);
    case ReplicaSharing::Kind::mps: return fmt::format("MPS with {} replicas", s.replicas);
    default: return "whole GPU";
  }
}

}  // namespace

int cmd_serving_profile(const ServingProfileFlags& f) {
  const Catalog& catalog = Catalog::builtin();
  const ExecutionModel& model = ExecutionModel::builtin();
  const ServedModel* m = ModelCatalog::builtin().find(f.model);
  if (!m) {
    std::vector<std::string> known;
    for (const ServedModel& s : ModelCatalog::builtin().models()) known.push_back(s.name);
    bad("--model", fmt::format("unknown model '{}'; known: {}", f.model, fmt::join(known, ", ")));
  }
  if (m->kind != ModelKind::llm)
    bad("--model", fmt::format("{} is of kind fixed (a measured service time); serving profile covers LLMs", m->name));
  const GpuModel* gpu = catalog.find_gpu(f.gpu);
  if (!gpu) bad("--gpu", fmt::format("unknown GPU model '{}' (gpusim catalog gpus lists them)", f.gpu));
  if (f.tp < 1) bad("--tp", fmt::format("expected a tensor-parallel degree of at least 1, got {}", f.tp));
  const bool decode = f.batch || f.context;
  if (decode == f.prefill.has_value())
    bad(f.prefill ? "--prefill" : "--batch", "give either --batch B --context C (a decode step) or --prefill T (a prompt)");
  if (decode && !(f.batch && f.context)) bad(f.batch ? "--context" : "--batch", "a decode step needs both --batch and --context");
  // Bounds far past any engine's (vLLM's max_num_seqs, a model's context), so that the products stay exact.
  constexpr int64_t kMaxSequences = 1'000'000, kMaxTokens = 100'000'000;
  if (f.batch && (*f.batch < 1 || *f.batch > kMaxSequences))
    bad("--batch", fmt::format("expected 1 to {} sequences, got {}", kMaxSequences, *f.batch));
  if (f.context && (*f.context < 0 || *f.context > kMaxTokens))
    bad("--context", fmt::format("expected 0 to {} cached tokens, got {}", kMaxTokens, *f.context));
  if (f.prefill && (*f.prefill < 1 || *f.prefill > kMaxTokens))
    bad("--prefill", fmt::format("expected 1 to {} prompt tokens, got {}", kMaxTokens, *f.prefill));
  const ReplicaSharing sharing = f.share ? parse_share(*f.share, *gpu, model) : ReplicaSharing{};
  // As a scenario's services: MIG instances have no peer-to-peer, and a shared GPU is not a TP rank.
  if (f.tp > 1 && sharing.kind != ReplicaSharing::Kind::whole)
    bad("--tp", fmt::format("a tensor-parallel replica needs whole GPUs; --share {} shares them (use --tp 1)", *f.share));
  if (f.node && f.tp == 1) ring_bytes_per_s(catalog, *gpu, 1, f.node);  // still names a bad --node
  const double link = f.tp > 1 ? ring_bytes_per_s(catalog, *gpu, f.tp, f.node) : 0.0;
  const BatchShape shape = decode ? decode_shape(*f.batch, *f.context) : prefill_shape(*f.prefill);
  const StepProfile p = profile_step(*m, *gpu, f.tp, link, sharing, shape, model);

  // What the step keeps in the KV cache: every sequence's tokens and its new one, or the prompt.
  const int64_t needed = decode ? *f.batch * (*f.context + 1) : *f.prefill;
  const bool fits = p.kv.blocks > 0 && needed <= p.kv_tokens();
  if (!fits)
    std::cerr << (p.kv.blocks <= 0
                      ? fmt::format("warning: {}'s weights ({} MiB a GPU) leave no room for a KV cache in the {} MiB "
                                    "its engine sees; vLLM would not start\n",
                                    m->name, p.kv.weights_mib, p.visible_memory_mib)
                      : fmt::format("warning: the step keeps {} tokens in the KV cache, which holds {}; vLLM would "
                                    "run fewer sequences at a time (a smaller --batch or --context fits)\n",
                                    needed, p.kv_tokens()));
  const auto ms = [](double s) { return s * 1e3; };
  const IterationTerms& t = p.terms;
  if (f.json) {
    Json step = decode ? Json{{"kind", "decode"}, {"batch", *f.batch}, {"context", *f.context}}
                       : Json{{"kind", "prefill"}, {"prompt_tokens", *f.prefill}};
    std::cout << Json{{"model", m->name},
                      {"gpu", gpu->name},
                      {"tp", f.tp},
                      {"share", f.share ? *f.share : "whole"},
                      {"step", std::move(step)},
                      {"compute_share", p.share.compute},
                      {"bandwidth_share", p.share.bandwidth},
                      {"iteration_ms", ms(p.iteration_s)},
                      {"terms_ms",
                       {{"overhead", ms(t.overhead)},
                        {"compute", ms(t.compute)},
                        {"memory", ms(t.memory)},
                        {"attention", ms(t.attention)},
                        {"all_reduce", ms(t.all_reduce)},
                        {"share", ms(p.share_s())}}},
                      {"bound", t.compute >= t.memory ? "compute" : "memory"},
                      {"visible_memory_mib", p.visible_memory_mib},
                      {"kv_cache_tokens", std::max<int64_t>(0, p.kv_tokens())},
                      {"cached_tokens", needed},
                      {"fits", fits}}
                     .dump(2)
              << '\n';
    return 0;
  }
  std::cout << fmt::format("{} on {} (tp {}, {}): {}\n", m->name, gpu->name, f.tp, describe(sharing),
                           decode ? fmt::format("a decode step of {} sequences with {} cached tokens each", *f.batch, *f.context)
                                  : fmt::format("a prefill of one {}-token prompt", *f.prefill));
  if (sharing.kind == ReplicaSharing::Kind::mig || sharing.kind == ReplicaSharing::Kind::mps)
    std::cout << fmt::format("  the replica's share: {:.3f} of the compute, {:.3f} of the memory bandwidth\n", p.share.compute,
                             p.share.bandwidth);
  const char* bound = t.compute >= t.memory ? "compute" : "memory";
  std::cout
      << fmt::format("  {:<11} {:>10.3f} ms\n", "iteration", ms(p.iteration_s))
      << fmt::format("  {:<11} {:>10.3f} ms\n", "overhead", ms(t.overhead))
      << fmt::format("  {:<11} {:>10.3f} ms{}\n", "compute", ms(t.compute), bound[0] == 'c' ? "  (bound: overlaps memory)" : "")
      << fmt::format("  {:<11} {:>10.3f} ms{}\n", "memory", ms(t.memory), bound[0] == 'm' ? "  (bound: overlaps compute)" : "")
      << fmt::format("  {:<11} {:>10.3f} ms\n", "attention", ms(t.attention))
      << fmt::format("  {:<11} {:>10.3f} ms\n", "all-reduce", ms(t.all_reduce))
      << fmt::format("  {:<11} {:>10.3f} ms{}\n", "share", ms(p.share_s()),
                     sharing.kind == ReplicaSharing::Kind::time_slicing ? "  (waiting for the other replicas' slices)" : "");
  std::cout << "  iteration = overhead + max(compute, memory) + attention + all-reduce + share (docs/serving.md#profile)\n";
  std::cout << fmt::format("  KV cache: {} tokens on each GPU in the {} MiB its engine sees; the step keeps {}{}\n",
                           std::max<int64_t>(0, p.kv_tokens()), p.visible_memory_mib, needed, fits ? "" : " (does not fit)");
  if (!decode && *f.prefill > p.limits.max_num_batched_tokens)
    std::cout << fmt::format("  note: vLLM splits a prompt longer than max_num_batched_tokens ({}) over several steps; this is "
                             "one step of all of it\n",
                             p.limits.max_num_batched_tokens);
  return 0;
}

}  // namespace gpusim::cli
