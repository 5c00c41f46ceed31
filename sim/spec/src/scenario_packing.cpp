// The FGD paper's capacity-packing experiment (`workload.packing`, PackingSpec): its settings, the
// replayed pod order and node ranks it may read from CSV files, and the arrivals it makes of the
// workload's pods.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <numeric>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "gpusim/core/random.hpp"
#include "gpusim/workloads/csv.hpp"
#include "scenario_parts.hpp"

namespace gpusim {

namespace fs = std::filesystem;

namespace {

// A packing CSV (workload.packing.order, node_ranks), its path relative to the scenario, read as
// the trace readers read theirs (workloads/csv.hpp): the rows after the header, each with its line.
struct PackingCsv {
  std::string file;
  struct Row {
    int line;
    std::vector<std::string> cells;
  };
  std::vector<Row> rows;
  [[noreturn]] void fail(int line, const std::string& what) const { throw InputError({file, line, ""}, what); }
};

PackingCsv read_packing_csv(const ConfigNode& field, const std::string& scenario_file,
                            const std::vector<std::string_view>& header) {
  fs::path p(field.as_string());
  if (p.is_relative()) p = fs::path(scenario_file).parent_path() / p;
  if (std::error_code ec; !fs::is_regular_file(p, ec)) field.fail(fmt::format("file '{}' not found", p.string()));
  csv::Reader r(p.string());
  PackingCsv out{p.string(), {}};
  std::vector<std::string_view> f;
  if (!r.next(f) || f != header) r.fail(fmt::format("expected the header '{}'", fmt::join(header, ",")));
  while (r.next(f)) {
    if (f.size() != header.size())
      r.fail(fmt::format("expected {} column{} ({}), got {}", header.size(), header.size() == 1 ? "" : "s",
                         fmt::join(header, ","), f.size()));
    out.rows.push_back({r.line(), std::vector<std::string>(f.begin(), f.end())});
  }
  return out;
}

// workload.packing.node_ranks: a rank for each of the cluster's nodes, by node id (slots never
// built rank after them).
std::vector<uint32_t> read_node_ranks(const ConfigNode& field, const Scenario& s) {
  const PackingCsv csv = read_packing_csv(field, s.file, {"node", "rank"});
  std::unordered_map<std::string, NodeId> ids;
  uint32_t slots = 0;
  for (const PoolSpec& p : s.pools) {
    for (uint32_t i = 0; i < p.initial_nodes; ++i) ids.emplace(p.node(i).name, static_cast<NodeId>(slots + i));
    slots += p.node_count;
  }
  std::vector<uint32_t> ranks(slots, std::numeric_limits<uint32_t>::max());
  std::vector<int> given_at(slots, 0);
  std::unordered_map<uint32_t, int> rank_at;
  for (const PackingCsv::Row& row : csv.rows) {
    const std::string& name = row.cells[0];
    const auto it = ids.find(name);
    if (it == ids.end()) csv.fail(row.line, fmt::format("unknown node '{}': not one of the cluster's nodes", name));
    if (given_at[it->second] != 0)
      csv.fail(row.line, fmt::format("node '{}' is ranked twice (first on line {})", name, given_at[it->second]));
    uint32_t rank = 0;
    const std::string& r = row.cells[1];
    if (const auto [end, ec] = std::from_chars(r.data(), r.data() + r.size(), rank);
        ec != std::errc() || end != r.data() + r.size() || rank == std::numeric_limits<uint32_t>::max())
      csv.fail(row.line, fmt::format("expected a rank 0-4294967294 for node '{}', got '{}'", name, r));
    if (const auto [at, fresh] = rank_at.emplace(rank, row.line); !fresh)
      csv.fail(row.line, fmt::format("rank {} is given twice (first on line {}): ties would stay ties", rank, at->second));
    ranks[it->second] = rank;
    given_at[it->second] = row.line;
  }
  slots = 0;
  for (const PoolSpec& p : s.pools) {  // in id order: the first node missing is named
    for (uint32_t i = 0; i < p.initial_nodes; ++i)
      if (given_at[slots + i] == 0)
        throw InputError({csv.file, std::nullopt, ""}, fmt::format("node '{}' has no rank", p.node(i).name));
    slots += p.node_count;
  }
  return ranks;
}

// workload.packing.order: indices into `pods` (by name; a name may repeat), in arrival order.
std::vector<std::size_t> read_pod_order(const ConfigNode& field, const std::string& scenario_file, const std::vector<Job>& pods) {
  const PackingCsv csv = read_packing_csv(field, scenario_file, {"pod"});
  std::unordered_map<std::string_view, std::size_t> index;
  for (std::size_t k = 0; k < pods.size(); ++k) index.emplace(pods[k].name, k);  // a repeated trace name: its first pod
  std::vector<std::size_t> order;
  for (const PackingCsv::Row& row : csv.rows) {
    const auto it = index.find(row.cells[0]);
    if (it == index.end()) csv.fail(row.line, fmt::format("unknown pod '{}': not one of the workload's pods", row.cells[0]));
    order.push_back(it->second);
  }
  return order;
}

}  // namespace

const Section& packing_section() {
  static const Section s{"packing",
                         "The FGD paper's capacity-packing experiment: pods drawn from the workload arrive and never leave",
                         {
                             {"until", Type::number().above(0).at_most(100), "1.3", "",
                              "Stop when the GPUs asked for reach this multiple of the cluster's GPU capacity (the paper's "
                              "workloadTuningConfig.ratio)"},
                             {"coverage", Type::number().above(0).at_most(1), "0.95", "",
                              "Share of the pods whose task types fragmentation is measured against (typical_task_types)"},
                             {"tuning", Type::choice({"artifact", "passes"}), "artifact", "",
                              "artifact: the pods shuffled, then pods drawn with replacement appended (the FGD "
                              "artifact's -tune); passes: shuffled passes over the pods"},
                             {"order", Type::string(), "", "",
                              "A CSV of pod names (header pod), one per arrival: pods arrive in exactly this order "
                              "instead of the tuning's (a replayed run); relative to the scenario"},
                             {"node_ranks", Type::string(), "", "",
                              "A CSV (header node,rank) giving every node a tie rank: ties: order goes to the tied node "
                              "of lowest rank instead of a seeded order; relative to the scenario"},
                         }};
  return s;
}

PackingSpec read_packing(const ConfigNode& node, const Scenario& s) {
  const Fields p = packing_section().read(node);
  PackingSpec spec;
  spec.until = p.number("until");
  spec.coverage = p.number("coverage");
  spec.tuning = p.value("tuning").as_string() == "passes" ? PackingSpec::Tuning::passes : PackingSpec::Tuning::artifact;
  if (auto ranks = p.get("node_ranks")) spec.node_ranks = read_node_ranks(*ranks, s);
  return spec;
}

// Replaces the jobs by the packing experiment's arrivals (see PackingSpec).
void pack_workload(Scenario& s, const Fields& workload) {
  PackingSpec& spec = *s.packing;
  for (const auto& p : s.pools)
    for (uint32_t i = 0; i < p.initial_nodes; ++i)
      spec.capacity_milli += static_cast<uint64_t>(p.shape(i).gpus) * static_cast<uint64_t>(kWholeGpu.value);
  if (spec.capacity_milli == 0) workload.at("packing").fail("the cluster has no GPUs to pack");
  if (std::none_of(s.jobs.jobs.begin(), s.jobs.jobs.end(), [](const Job& j) { return j.request.gpus > 0; }))
    workload.at("packing").fail("the workload asks for no GPU: nothing to pack");
  const auto target = static_cast<double>(spec.capacity_milli) * spec.until;
  // Work long enough never to end within the run (ten years), so pods only arrive.
  const Duration forever = Duration::from_seconds(int64_t{10} * 365 * 86400);
  Rng rng = make_stream(s.seed, "workload/packing");
  // The copies keep indexing the set's tables.
  const std::vector<Job> pods = std::exchange(s.jobs.jobs, {});
  const auto draw = [&](std::size_t n) { return static_cast<std::size_t>(uniform01(rng) * static_cast<double>(n)); };
  const auto asked = [](const Job& j) { return static_cast<double>(j.request.gpus) * j.request.milli_per_gpu.value; };
  std::vector<std::size_t> order(pods.size());
  const auto shuffle = [&] {
    std::iota(order.begin(), order.end(), 0);
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[draw(i)]);  // Fisher-Yates
  };
  std::vector<std::size_t> picked;  // indices into pods, in arrival order
  double demand = 0;
  const Fields fields = packing_section().read(workload.at("packing"));
  if (auto file = fields.get("order")) {
    picked = read_pod_order(*file, s.file, pods);
    // The original pods are those before the first repeat (a replayed artifact run lists its
    // shuffled originals once, then the pods drawn again).
    std::unordered_set<std::size_t> seen;
    while (spec.originals < picked.size() && seen.insert(picked[spec.originals]).second) ++spec.originals;
  } else if (spec.tuning == PackingSpec::Tuning::artifact) {
    shuffle();
    picked = order;
    for (std::size_t k : picked) demand += asked(pods[k]);
    while (demand > target && !picked.empty()) {  // tuneDownPods: a random pod out
      const auto it = picked.begin() + static_cast<std::ptrdiff_t>(draw(picked.size()));
      demand -= asked(pods[*it]);
      picked.erase(it);
    }
    spec.originals = picked.size();
    // tuneUpPods: the stop test compares the demand plus the drawn pod's per-GPU share (not its
    // whole request) with the target, and that pod is not added.
    for (;;) {
      const std::size_t k = draw(pods.size());
      const Request& q = pods[k].request;
      if (demand + (q.gpus == 0 ? 0 : q.milli_per_gpu.value) > target) break;
      demand += asked(pods[k]);
      picked.push_back(k);
    }
  } else {
    while (demand < target) {
      shuffle();
      for (std::size_t k = 0; k < order.size() && demand < target; ++k) {
        picked.push_back(order[k]);
        demand += asked(pods[order[k]]);
      }
    }
    spec.originals = picked.size();
  }
  for (std::size_t k : picked) {
    Job j = pods[k];
    j.arrival = Time::from_us(static_cast<int64_t>(s.jobs.jobs.size()));
    j.work = forever;
    j.strict = false;
    s.jobs.jobs.push_back(std::move(j));
  }
  s.jobs.finalize();
  s.horizon = Time::from_us(static_cast<int64_t>(s.jobs.jobs.size()));
}

}  // namespace gpusim
