#include "gpusim/workloads/traces.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <unordered_map>
#include <utility>

#include "gpusim/workloads/csv.hpp"

namespace gpusim {

namespace fs = std::filesystem;

namespace {

std::map<std::string, std::size_t, std::less<>> header_index(const csv::Reader& r,
                                                            const std::vector<std::string_view>& header) {
  std::map<std::string, std::size_t, std::less<>> index;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (!index.emplace(std::string(header[i]), i).second)
      r.fail(fmt::format("column '{}' appears twice in the header", header[i]));
  }
  return index;
}

void require_columns(const csv::Reader& r, const std::map<std::string, std::size_t, std::less<>>& index,
                     std::initializer_list<std::string_view> columns) {
  for (auto c : columns)
    if (!index.contains(c)) r.fail(fmt::format("header lacks the required column '{}'", c));
}

void apply_options(JobSet& set, const TraceOptions& o) {
  set.finalize();
  if (o.limit && static_cast<int64_t>(set.jobs.size()) > *o.limit) set.jobs.resize(static_cast<std::size_t>(*o.limit));
  if (set.deadlines.size() > set.jobs.size()) set.deadlines.resize(set.jobs.size());
}

// "V100M16|V100M32|V100M32" -> {V100M16, V100M32}: an allowed-model set, so repeats and empty
// entries carry nothing.
std::vector<std::string> split_models(std::string_view field) {
  std::vector<std::string> models;
  while (!field.empty()) {
    const auto bar = field.find('|');
    const auto m = field.substr(0, bar);
    if (!m.empty() && std::find(models.begin(), models.end(), m) == models.end()) models.emplace_back(m);
    if (bar == std::string_view::npos) break;
    field.remove_prefix(bar + 1);
  }
  return models;
}

Request whole_gpus(int64_t gpus) {
  Request q;
  q.gpus = static_cast<int32_t>(gpus);  // read in kJobGpuRange
  return q;
}

// Job names of one trace: a name given twice is a row repeated or a trace mangled, refused naming both
// lines. Across sources names may repeat (jobs.csv's id tells jobs apart).
class UniqueNames {
 public:
  void add(const csv::Reader& r, const std::string& name) {
    const auto [first, fresh] = lines_.emplace(name, r.line());
    if (!fresh)
      r.fail(fmt::format("job name '{}' is given twice (first on line {}): each job of a trace needs its own name", name,
                         first->second));
  }

 private:
  std::unordered_map<std::string, int> lines_;
};

}  // namespace

std::string data_path(const ConfigNode& field, const std::string& data_dir) {
  const std::string rel = field.as_string();
  const fs::path p(rel);
  // The error_code forms: a name the system refuses (too long, not permitted) is one not found.
  std::error_code ec;
  const auto is_file = [&](const fs::path& f) { return fs::is_regular_file(f, ec); };
  const auto is_dir = [&](const fs::path& f) { return fs::is_directory(f, ec); };
  if (p.is_absolute()) {
    if (is_dir(p)) field.fail(fmt::format("'{}' is a directory: expected a trace file", rel));
    if (!is_file(p)) field.fail(fmt::format("trace file '{}' not found", rel));
    return p.string();
  }
  std::vector<fs::path> tried;
  // A scenario given as a Python dict or a string has no file: only the data directory applies.
  if (const fs::path scenario(field.file()); is_file(scenario)) tried.push_back(scenario.parent_path() / p);
  tried.push_back(fs::path(data_dir) / p);
  // Last, gpusim's own data/: the traces its shipped scenarios need stay found when GPUSIM_DATA names
  // another directory (a public traces mirror without them).
  if (!fs::equivalent(fs::path(data_dir), fs::path(GPUSIM_DEFAULT_DATA_DIR), ec))
    tried.push_back(fs::path(GPUSIM_DEFAULT_DATA_DIR) / p);
  for (const fs::path& candidate : tried) {
    if (is_file(candidate)) return candidate.string();
    if (is_dir(candidate)) field.fail(fmt::format("'{}' is a directory ({}): expected a trace file", rel, candidate.string()));
  }
  std::string where;
  for (const fs::path& candidate : tried) where += fmt::format("{}{}", where.empty() ? "" : ", ", candidate.string());
  field.fail(fmt::format("trace file '{}' not found (looked for {}: beside the scenario, then in the data directory{}; "
                         "set the data directory with --data or GPUSIM_DATA)",
                         rel, where, tried.size() > 2 ? ", then in gpusim's own" : ""));
}

std::optional<int64_t> parse_timestamp(std::string_view t) {
  // YYYY-MM-DD HH:MM:SS
  if (t.size() != 19 || t[4] != '-' || t[7] != '-' || t[10] != ' ' || t[13] != ':' || t[16] != ':')
    return std::nullopt;
  auto num = [&](std::size_t pos, std::size_t len, int& out) {
    auto [p, ec] = std::from_chars(t.data() + pos, t.data() + pos + len, out);
    return ec == std::errc() && p == t.data() + pos + len;
  };
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!num(0, 4, y) || !num(5, 2, mo) || !num(8, 2, d) || !num(11, 2, h) || !num(14, 2, mi) || !num(17, 2, s))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  // Days from civil (Howard Hinnant's algorithm).
  y -= mo <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153u * static_cast<unsigned>(mo + (mo > 2 ? -3 : 9)) + 2u) / 5u + static_cast<unsigned>(d) - 1u;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const int64_t days = static_cast<int64_t>(era) * 146097 + static_cast<int64_t>(doe) - 719468;
  return days * 86400 + int64_t{h} * 3600 + int64_t{mi} * 60 + s;
}

JobSet read_openb_pods(const std::string& path, const TraceOptions& o) {
  csv::Reader r(path);
  std::vector<std::string_view> f;
  if (!r.next(f)) r.fail("empty file: expected the openb pod-list header");
  const auto col = header_index(r, f);
  require_columns(r, col, {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"});
  const bool timed = col.contains("creation_time") && col.contains("deletion_time");
  if (!timed && !o.untimed)
    r.fail("header has no creation_time/deletion_time columns: a time-based replay needs them (a packing workload does not)");
  const std::size_t width = f.size();
  const auto c_name = col.at("name"), c_cpu = col.at("cpu_milli"), c_mem = col.at("memory_mib"),
             c_ngpu = col.at("num_gpu"), c_milli = col.at("gpu_milli");
  const std::size_t c_ct = timed ? col.at("creation_time") : 0, c_dt = timed ? col.at("deletion_time") : 0;
  const bool has_spec = col.contains("gpu_spec");
  const std::size_t c_spec = has_spec ? col.at("gpu_spec") : 0;
  const JobKind kind = o.kind.value_or(JobKind::batch);
  JobSet set;
  UniqueNames names;
  while (r.next(f)) {
    r.check_width(f, width);
    Job j;
    j.name = std::string(f[c_name]);
    names.add(r, j.name);
    j.request = whole_gpus(r.integer(f[c_ngpu], "num_gpu", kJobGpuRange));
    const auto milli = r.integer<int32_t>(f[c_milli], "gpu_milli", Range::between(0, 1000));
    if (j.request.gpus > 1 && milli != 1000)
      r.fail(fmt::format("column 'gpu_milli': a pod with {} GPUs must ask 1000 per GPU, got {}", j.request.gpus, milli));
    if (j.request.gpus == 1 && milli == 0) r.fail("column 'gpu_milli': a GPU pod asks 0 milli-GPU");
    j.request.milli_per_gpu = Milli{j.request.gpus == 0 ? 0 : milli};
    j.request.cpu_milli = r.integer(f[c_cpu], "cpu_milli", Range::at_least(0));
    j.request.memory_mib = r.integer(f[c_mem], "memory_mib", Range::at_least(0));
    if (has_spec) j.request.models = split_models(f[c_spec]);
    if (timed) {
      const auto created = r.integer(f[c_ct], "creation_time", kSpanSeconds);
      const auto deleted = r.integer(f[c_dt], "deletion_time", kSpanSeconds);
      if (deleted < created)
        r.fail(fmt::format("deletion_time {} is before creation_time {}", deleted, created));
      j.arrival = Time::from_seconds(created);
      j.work = Duration::from_seconds(deleted - created);
    }
    j.kind = kind;
    // A pod asking for a share of a GPU fills that share of its SMs while it runs, all the time.
    j.u = o.u.value_or(j.request.gpus == 0 ? 0.0 : j.request.milli_per_gpu.gpus());
    if (!o.u && j.request.gpus > 0) j.occupancy_milli = static_cast<uint16_t>(j.request.milli_per_gpu.value);
    j.multi_node = o.multi_node.value_or(false);
    j.origin = {set.source(r.origin()), r.line()};
    set.jobs.push_back(std::move(j));
  }
  apply_options(set, o);
  return set;
}

std::vector<OpenbNode> read_openb_nodes(const std::string& path) {
  csv::Reader r(path);
  std::vector<std::string_view> f;
  if (!r.next(f)) r.fail("empty file: expected the openb node-list header");
  const auto col = header_index(r, f);
  require_columns(r, col, {"sn", "cpu_milli", "memory_mib", "gpu", "model"});
  const std::size_t width = f.size();
  std::vector<OpenbNode> nodes;
  while (r.next(f)) {
    r.check_width(f, width);
    OpenbNode n;
    n.name = std::string(f[col.at("sn")]);
    n.cpu_milli = r.integer(f[col.at("cpu_milli")], "cpu_milli", Range::at_least(1));
    n.memory_mib = r.integer(f[col.at("memory_mib")], "memory_mib", Range::at_least(1));
    n.gpus = r.integer<int>(f[col.at("gpu")], "gpu", kJobGpuRange);
    n.model = std::string(f[col.at("model")]);
    if (n.gpus > 0 && n.model.empty()) r.fail("a node with GPUs must name its GPU model");
    n.line = r.line();
    nodes.push_back(std::move(n));
  }
  return nodes;
}

JobSet read_philly_jobs(const std::string& path, const TraceOptions& o) {
  csv::Reader r(path);
  std::vector<std::string_view> f;
  if (!r.next(f)) r.fail("empty file: expected the Philly header");
  const auto col = header_index(r, f);
  require_columns(r, col, {"timestamp", "duration", "num_gpus", "cluster"});
  const std::size_t width = f.size();
  const JobKind kind = o.kind.value_or(JobKind::training);
  JobSet set;
  std::vector<int64_t> stamps;
  while (r.next(f)) {
    r.check_width(f, width);
    const auto& vcs = o.virtual_clusters;
    if (!vcs.empty() && std::find(vcs.begin(), vcs.end(), f[col.at("cluster")]) == vcs.end()) continue;
    const auto ts = parse_timestamp(f[col.at("timestamp")]);
    if (!ts) r.fail(fmt::format("column 'timestamp': expected YYYY-MM-DD HH:MM:SS, got '{}'", f[col.at("timestamp")]));
    const int64_t duration = r.whole(f[col.at("duration")], "duration", kSpanSeconds);
    Job j;
    j.request = whole_gpus(r.whole(f[col.at("num_gpus")], "num_gpus", Range::between(1, kJobGpuRange.maximum->value)));
    j.work = Duration::from_seconds(duration);
    j.kind = kind;
    j.u = o.u.value_or(default_compute_demand(kind));
    j.tenant = set.tenant(f[col.at("cluster")]);
    j.multi_node = o.multi_node.value_or(true);
    j.origin = {set.source(r.origin()), r.line()};
    set.jobs.push_back(std::move(j));
    stamps.push_back(*ts);
  }
  if (!stamps.empty()) {
    const int64_t first = *std::min_element(stamps.begin(), stamps.end());
    for (std::size_t i = 0; i < stamps.size(); ++i) {
      if (!kSpanSeconds.contains(static_cast<double>(stamps[i] - first)))
        throw InputError(set.where(set.jobs[i]),
                         fmt::format("column 'timestamp': {} s after the earliest row; a trace spans at most {}",
                                     stamps[i] - first, kMaxSpanText));
      set.jobs[i].arrival = Time::from_seconds(stamps[i] - first);
      set.jobs[i].name = fmt::format("philly-{:05d}", i + 2);  // data rows start at line 2
    }
  }
  apply_options(set, o);
  return set;
}

JobSet read_generic_csv(const std::string& path, const TraceOptions& o) {
  csv::Reader r(path);
  std::vector<std::string_view> f;
  if (!r.next(f)) r.fail("empty file: expected a header naming the columns");
  const auto col = header_index(r, f);
  static constexpr std::string_view kKnown[] = {"name",      "arrival_s",  "duration_s", "gpus", "gpu_milli", "gpu_memory_mib",
                                                "cpu_milli", "memory_mib", "models",     "kind", "u",         "tenant",
                                                "priority",  "multi_node", "deadline_s"};
  for (const auto& [name, i] : col)
    if (std::find(std::begin(kKnown), std::end(kKnown), name) == std::end(kKnown))
      r.fail(fmt::format("unknown column '{}'; expected some of: {}", name, fmt::join(kKnown, ", ")));
  require_columns(r, col, {"arrival_s", "duration_s", "gpus"});
  const std::size_t width = f.size();
  auto opt = [&](std::string_view c) -> std::optional<std::size_t> {
    auto it = col.find(c);
    return it == col.end() ? std::nullopt : std::optional(it->second);
  };
  JobSet set;
  UniqueNames names;
  Time last_arrival;
  while (r.next(f)) {
    r.check_width(f, width);
    Job j;
    const double arrival = r.number(f[col.at("arrival_s")], "arrival_s", kSpanSeconds);
    const double duration = r.number(f[col.at("duration_s")], "duration_s", kSpanSeconds);
    j.arrival = Time() + Duration::from_seconds(arrival, Round::nearest);
    j.work = Duration::from_seconds(duration, Round::nearest);
    if (j.arrival < last_arrival)
      r.fail(fmt::format("arrival_s {} is earlier than the row before it: rows must be in arrival order", arrival));
    last_arrival = j.arrival;
    j.request = whole_gpus(r.integer(f[col.at("gpus")], "gpus", kJobGpuRange));
    if (auto c = opt("gpu_milli"); c && !f[*c].empty()) {
      const auto m = r.integer<int32_t>(f[*c], "gpu_milli", Range::between(1, 1000));
      if (m < 1000 && j.request.gpus != 1)
        r.fail(fmt::format("column 'gpu_milli': below 1000 only with gpus = 1; got {} with gpus = {}", m, j.request.gpus));
      j.request.milli_per_gpu = Milli{m};
    }
    for (auto [column, field] : {std::pair{"gpu_memory_mib", &Request::gpu_memory_mib},
                                 std::pair{"cpu_milli", &Request::cpu_milli}, std::pair{"memory_mib", &Request::memory_mib}})
      if (auto c = opt(column); c && !f[*c].empty()) j.request.*field = r.integer(f[*c], column, Range::at_least(0));
    if (auto c = opt("models")) j.request.models = split_models(f[*c]);
    j.kind = o.kind.value_or(JobKind::batch);
    if (auto c = opt("kind"); c && !f[*c].empty()) {
      const auto kind = parse_enum<JobKind>(f[*c]);
      if (!kind) r.fail(fmt::format("column 'kind': expected one of {}, got '{}'", enum_choices<JobKind>(), f[*c]));
      j.kind = *kind;
    }
    j.u = o.u.value_or(default_compute_demand(j.kind));
    if (auto c = opt("u"); c && !f[*c].empty()) {
      j.u = r.number(f[*c], "u", Range::between(0, 1));
    }
    if (auto c = opt("tenant"); c && !f[*c].empty()) j.tenant = set.tenant(f[*c]);
    if (auto c = opt("priority"); c && !f[*c].empty()) j.priority = r.integer<int32_t>(f[*c], "priority", kPriorityRange);
    j.multi_node = o.multi_node.value_or(false);
    if (auto c = opt("multi_node"); c && !f[*c].empty()) {
      if (f[*c] != "true" && f[*c] != "false") r.fail("column 'multi_node': expected true or false");
      j.multi_node = f[*c] == "true";
    }
    if (auto c = opt("deadline_s"); c && !f[*c].empty()) {
      const double after = r.number(f[*c], "deadline_s", kSpanSeconds);
      if (after <= 0) r.fail("column 'deadline_s': expected a positive number of seconds after the job's arrival");
      set.set_deadline(set.jobs.size(), Duration::from_seconds(after, Round::nearest));
    }
    if (auto c = opt("name"); c && !f[*c].empty()) j.name = std::string(f[*c]);
    else j.name = fmt::format("job-line-{}", r.line());
    names.add(r, j.name);
    j.origin = {set.source(r.origin()), r.line()};
    set.jobs.push_back(std::move(j));
  }
  apply_options(set, o);
  return set;
}

}  // namespace gpusim
