#include "gpusim/sim/footprint.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <numeric>

#include "gpusim/workloads/request_stream.hpp"

namespace gpusim {

// Measured as the growth of peak resident memory (GNU time's %M) of `gpusim run --out DIR` between
// two sizes of one small scenario, divided by the objects added, then rounded up (a Release build, GCC 12):
// - job: 579 B, inline `count: 100000` vs `1000000` on one node, every job pending at once (400 B for
//   synthetic-1m's generator classes at 100k vs 1M jobs; 608 B and 498 B before interned request strings,
//   resolved settings read from the Job and queue keys kept for unfinished jobs only (a pending job's key
//   is a hash-map entry, ~50 B); 688 B and 623 B before finished placements moved to one archive,
//   840 B and 818 B before the in-flight block, 1,230 B and 1,260 B before issue 22); what a run
//   keeps per job: the scenario's Job (sizeof 168, its name inline), its JobRecord (sizeof 208) with
//   its placement as a PlacementRef into JobFlights' archive (its node and GPU ids, 4 B each), its
//   shape (a job unfinished holds its queue key, one in flight a JobFlight too, 248 B, with its
//   placement's lists, claims and cost mark);
// - node and gpu: 605 B per a10-1x node (1 GPU) and 2,510 B per dgx-a100-80gb node (8 GPUs), `count:
//   10000` vs `100000`, one job: 333 B a node and 272 B a GPU (sizeof Gpu is 216 with its inline MIG
//   slots; the rest is per-GPU metrics and rates); an autoscaled pool's slots cost this once
//   provisioned (none before), so its maximum is counted as what the run holds if it scales that far;
// - timeseries_row: horizon 1d, `timeseries_step: 10s` vs `1s`: 126 B a row with one pool, 154 B with two;
// - request: a service of qwen2-0.5b on one DGX A100 whose generator sends 2,000 vs 20,000 requests/s
//   for 10 minutes, far more than it serves, so that every request is held to the end: 96,716 KiB vs
//   1,355,172 KiB for 10.8 M more requests, 119 B each (sizeof Req and its place in a queue; requests.csv's
//   rows, with --requests, add theirs).
const uint64_t FootprintCosts::job = 610;
const uint64_t FootprintCosts::node = 400;
const uint64_t FootprintCosts::gpu = 300;
const uint64_t FootprintCosts::timeseries_row = 128;
const uint64_t FootprintCosts::timeseries_row_per_pool = 32;
const uint64_t FootprintCosts::request = 128;

namespace {

// A field of a map, if the node is one (the readers report a node that is not).
std::optional<ConfigNode> field(const std::optional<ConfigNode>& n, std::string_view key) {
  if (!n || !n->is_map()) return std::nullopt;
  return n->get(key);
}

std::vector<ConfigNode> items(const std::optional<ConfigNode>& n) {
  if (!n || !n->is_sequence()) return {};
  return n->items();
}

// A value as the scenario gives it, read by `read`; one that is not of its kind (or is out of range)
// is left to the field's reader, which names what it expected.
template <class Read>
std::optional<double> value_of(const std::optional<ConfigNode>& n, Read read) {
  if (!n || !n->is_scalar()) return std::nullopt;
  try {
    return read(*n);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::optional<double> count_of(const std::optional<ConfigNode>& n) {
  return value_of(n, [](const ConfigNode& c) { return std::max(0.0, static_cast<double>(c.as_int())); });
}

std::optional<double> number_of(const std::optional<ConfigNode>& n) {
  return value_of(n, [](const ConfigNode& c) { return std::max(0.0, c.as_number()); });
}

std::optional<double> seconds_of(const std::optional<ConfigNode>& n) {
  return value_of(n, [](const ConfigNode& c) { return c.as_duration().seconds(); });
}

// "1 job", "1000000000 jobs", "1e+15 jobs".
std::string counted(double n, std::string_view noun) {
  return fmt::format("{} {}{}", n < 1e15 ? fmt::format("{:.0f}", n) : fmt::format("{:.3g}", n), noun, n == 1 ? "" : "s");
}

}  // namespace

double Footprint::bytes() const {
  return std::accumulate(items.begin(), items.end(), 0.0, [](double sum, const FootprintItem& i) { return sum + i.bytes; });
}

std::string format_bytes(double bytes) {
  constexpr std::array units{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::size_t u = 0;
  while (bytes >= 1024 && u + 1 < units.size()) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.1f} {}", bytes, units[u]);
}

MemoryLimit MemoryLimit::machine_default() {
  const auto pages = static_cast<uint64_t>(std::max(0L, sysconf(_SC_PHYS_PAGES)));
  const auto page = static_cast<uint64_t>(std::max(0L, sysconf(_SC_PAGESIZE)));
  const uint64_t total = pages * page;
  return {total / 2,
          fmt::format("the default, half of this machine's {} of physical memory", format_bytes(static_cast<double>(total)))};
}

MemoryLimit MemoryLimit::parse(std::string_view text, const SourceLocation& flag) {
  constexpr std::array<std::pair<std::string_view, double>, 9> units{{{"KiB", 0x1p10},
                                                                      {"MiB", 0x1p20},
                                                                      {"GiB", 0x1p30},
                                                                      {"TiB", 0x1p40},
                                                                      {"KB", 1e3},
                                                                      {"MB", 1e6},
                                                                      {"GB", 1e9},
                                                                      {"TB", 1e12},
                                                                      {"B", 1}}};
  const auto bad = [&] {
    throw InputError(flag, fmt::format("expected a memory size such as 4GiB, 512MiB or 8GB (a positive number and one of "
                                       "B, KiB, MiB, GiB, TiB, KB, MB, GB, TB), got '{}'",
                                       text));
  };
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) bad();
  std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  while (unit.starts_with(' ')) unit.remove_prefix(1);
  double scale = unit.empty() ? 1 : 0;
  for (const auto& [name, bytes] : units)
    if (unit == name) scale = bytes;
  const double bytes = value * scale;
  // Below 2^63 and at least one byte: a limit any machine can state.
  if (scale == 0 || !std::isfinite(bytes) || bytes < 1 || bytes >= 0x1p63) bad();
  return {static_cast<uint64_t>(bytes), fmt::format("{} {}", flag.field, text)};
}

Footprint estimate_footprint(const ConfigNode& scenario, const Catalog& catalog, Duration default_step) {
  Footprint f;
  const auto add = [&](const ConfigNode& n, std::string what, double bytes) {
    if (bytes > 0) f.items.push_back({n.where(), std::move(what), bytes});
  };
  const auto root = std::optional<ConfigNode>(scenario);

  for (const ConfigNode& pool : items(field(field(root, "cluster"), "pools"))) {
    // Every node slot, up to the autoscaler's maximum, with its GPUs (nodes of a pool are identical).
    const auto count = field(pool, "count");
    const auto max = field(field(pool, "autoscale"), "max");
    const double slots = std::max(count_of(count).value_or(0), count_of(max).value_or(0));
    const auto tname = field(pool, "node");
    const NodeTemplate* t = tname && tname->is_scalar() ? catalog.find_node(tname->as_string()) : nullptr;
    const int gpus = t ? t->gpus : 0;
    const ConfigNode& by = count_of(max).value_or(0) > count_of(count).value_or(0) ? *max : count ? *count : pool;
    add(by, counted(slots, "node") + fmt::format(" of {} GPUs", gpus),
        slots * (static_cast<double>(FootprintCosts::node) + gpus * static_cast<double>(FootprintCosts::gpu)));
  }

  // Inline jobs and generator classes: `count` jobs each.
  const auto workload = field(root, "workload");
  for (const auto& list : {field(workload, "jobs"), field(field(workload, "generator"), "classes")})
    for (const ConfigNode& entry : items(list))
      if (const auto count = field(entry, "count"); const auto jobs = count_of(count))
        add(*count, counted(*jobs, "job"), *jobs * static_cast<double>(FootprintCosts::job));

  // A service's generated requests at a constant rate: all held at once when its replicas fall behind
  // (a trace's are bounded by its file, a rate curve's are not counted).
  for (const ConfigNode& service : items(field(workload, "services"))) {
    const auto requests = field(service, "requests");
    const auto generator = field(requests, "generator");
    const auto rate = field(generator, "rate");
    const auto per_s = number_of(rate);
    const auto seconds = seconds_of(field(generator, "duration"));
    if (!per_s || !seconds) continue;
    const double arrivals_per_s = *per_s * number_of(field(requests, "rate_multiplier")).value_or(1);
    if (arrivals_per_s > kMaxRequestsPerSecond) continue;  // the rate's reader refuses it, saying why
    double n = arrivals_per_s * *seconds;
    if (const auto limit = count_of(field(requests, "limit"))) n = std::min(n, *limit);
    add(*rate, counted(n, "request") + " (rate x duration)", n * static_cast<double>(FootprintCosts::request));
  }
  // A sample every step up to the horizon; without a horizon the run's own length bounds it.
  const auto horizon = field(root, "horizon");
  const auto step = field(field(root, "outputs"), "timeseries_step");
  if (const auto horizon_s = seconds_of(horizon)) {
    const double step_s = step ? seconds_of(step).value_or(0) : default_step.seconds();
    if (step_s > 0) {
      const double rows = *horizon_s / step_s;
      const auto pools = static_cast<double>(items(field(field(root, "cluster"), "pools")).size());
      add(step ? *step : *horizon, counted(rows, "time-series row") + " (horizon / outputs.timeseries_step)",
          rows * (static_cast<double>(FootprintCosts::timeseries_row) +
                  pools * static_cast<double>(FootprintCosts::timeseries_row_per_pool)));
    }
  }
  return f;
}

void check_footprint(const Footprint& footprint, const MemoryLimit& limit) {
  const double total = footprint.bytes();
  if (total <= static_cast<double>(limit.bytes)) return;
  std::vector<FootprintItem> items = footprint.items;
  std::stable_sort(items.begin(), items.end(), [](const FootprintItem& a, const FootprintItem& b) { return a.bytes > b.bytes; });
  constexpr std::size_t kShown = 3;
  std::string parts;
  for (std::size_t i = 0; i < items.size() && i < kShown; ++i)
    parts += fmt::format("{}{} from {}: {}", i ? "; " : "", items[i].what, items[i].where.field, format_bytes(items[i].bytes));
  if (items.size() > kShown) parts += fmt::format("; and {} more", items.size() - kShown);
  throw InputError(items.front().where,
                   fmt::format("the run would hold about {} ({}), more than the memory limit of {} ({}); ask for less at {}, or "
                               "raise the limit with --max-memory (Python: max_memory=)",
                               format_bytes(total), parts, format_bytes(static_cast<double>(limit.bytes)), limit.source,
                               items.front().where.field));
}

}  // namespace gpusim
