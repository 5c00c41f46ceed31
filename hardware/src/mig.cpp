#include "gpusim/hardware/mig.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace gpusim {

namespace {

bool is_class(const MigTable& t, int profile, std::string_view cls) { return t.profiles[profile].class_name == cls; }

int memory_slices(const MigTable& t, const MigCounts& counts) {
  int total = 0;
  for (std::size_t p = 0; p < counts.size(); ++p) total += counts[p] * t.profiles[p].memory_slices;
  return total;
}

int compute_slices(const MigTable& t, const MigCounts& counts) {
  int total = 0;
  for (std::size_t p = 0; p < counts.size(); ++p) total += counts[p] * t.profiles[p].compute_slices;
  return total;
}

bool place_rest(const MigTable& t, const std::vector<int>& order, std::size_t i, MigLayout& layout) {
  if (i == order.size()) return true;
  const int p = order[i];
  // Identical instances are interchangeable: place them at increasing starts only.
  const int after = i > 0 && order[i - 1] == p ? layout.back().start : -1;
  for (int start : t.profiles[p].starts) {
    if (start <= after || mig_conflict(t, layout, p, start)) continue;
    layout.push_back({p, start});
    if (place_rest(t, order, i + 1, layout)) return true;
    layout.pop_back();
  }
  return false;
}

void enumerate(const MigTable& t, const std::vector<MigInstance>& candidates, std::size_t from, MigLayout& layout,
               std::map<MigCounts, MigLayout>& seen) {
  for (std::size_t i = from; i < candidates.size(); ++i) {
    if (mig_conflict(t, layout, candidates[i].profile, candidates[i].start)) continue;
    MigLayout next = layout;
    mig_add(next, candidates[i]);
    seen.try_emplace(mig_counts(t, next), next);
    enumerate(t, candidates, i + 1, next, seen);
  }
}

}  // namespace

std::optional<std::string> mig_conflict(const MigTable& t, const MigLayout& layout, int profile, int start) {
  const MigProfile& p = t.profiles[profile];
  if (std::find(p.starts.begin(), p.starts.end(), start) == p.starts.end())
    return fmt::format("{} starts are {{{}}}, not {}", p.name, fmt::join(p.starts, ","), start);
  int count = 1, compute = p.compute_slices;
  for (const MigInstance& in : layout) {
    const MigProfile& q = t.profiles[in.profile];
    if (start < in.start + q.memory_slices && in.start < start + p.memory_slices)
      return fmt::format("{} at {} needs memory slices {}-{}, which {} at {} holds", p.name, start, start,
                         start + p.memory_slices - 1, q.name, in.start);
    if (p.media_extensions && q.media_extensions) return std::string("at most one +me instance fits on a GPU");
    if (t.one_mode && in.profile != profile)
      return fmt::format("{} cannot join {}: every partition of an AMD GPU is in one compute and memory mode", p.name, q.name);
    if (!t.allows_4g_with_3g && ((is_class(t, profile, "4g") && q.class_name == "3g") ||
                                 (is_class(t, profile, "3g") && q.class_name == "4g")))
      return std::string("4g and 3g instances cannot share a GPU before driver R510 (catalog: combine_4g_3g: false)");
    count += in.profile == profile;
    compute += q.compute_slices;
  }
  if (count > p.max_count) return fmt::format("at most {} x {} fit on a GPU", p.max_count, p.name);
  if (compute > t.compute_slices)
    return fmt::format("the instances need {} compute slices; the GPU has {}", compute, t.compute_slices);
  return std::nullopt;
}

void mig_add(MigLayout& layout, MigInstance instance) {
  layout.insert(std::upper_bound(layout.begin(), layout.end(), instance,
                                 [](const MigInstance& a, const MigInstance& b) { return a.start < b.start; }),
                instance);
}

MigLayout mig_placements(const MigTable& t) {
  MigLayout all;
  for (std::size_t p = 0; p < t.profiles.size(); ++p)
    for (int start : t.profiles[p].starts) all.push_back({static_cast<int>(p), start});
  std::stable_sort(all.begin(), all.end(), [](const MigInstance& a, const MigInstance& b) { return a.start < b.start; });
  return all;
}

MigCounts mig_counts(const MigTable& t, const MigLayout& layout) {
  MigCounts c(t.profiles.size(), 0);
  for (const MigInstance& in : layout) ++c[static_cast<std::size_t>(in.profile)];
  return c;
}

std::optional<MigLayout> mig_place(const MigTable& t, const MigCounts& counts) {
  std::vector<int> order;
  for (std::size_t p = 0; p < counts.size(); ++p) order.insert(order.end(), static_cast<std::size_t>(counts[p]), static_cast<int>(p));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const MigProfile &x = t.profiles[a], &y = t.profiles[b];
    return std::pair(x.memory_slices, x.compute_slices) > std::pair(y.memory_slices, y.compute_slices);
  });
  MigLayout layout;
  if (!place_rest(t, order, 0, layout)) return std::nullopt;
  std::sort(layout.begin(), layout.end(), [](const MigInstance& a, const MigInstance& b) { return a.start < b.start; });
  return layout;
}

std::string mig_explain(const MigTable& t, const MigCounts& counts) {
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const MigProfile& p = t.profiles[i];
    if (counts[i] <= p.max_count) continue;
    std::vector<int> wanted;
    wanted.reserve(static_cast<std::size_t>(counts[i]));
    for (int k = 0; k < counts[i]; ++k) wanted.push_back(k * p.memory_slices);
    return fmt::format("{} x {} needs {} memory slices at starts {{{}}}; {} starts are {{{}}}, so at most {} {}", counts[i],
                       p.name, counts[i] * p.memory_slices, fmt::join(wanted, ","), p.name, fmt::join(p.starts, ","),
                       p.max_count, p.max_count == 1 ? "fits" : "fit");
  }
  int media = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) media += t.profiles[i].media_extensions ? counts[i] : 0;
  if (media > 1) return fmt::format("{} +me instances asked; at most one +me instance fits on a GPU", media);
  if (const int m = memory_slices(t, counts); m > t.memory_slices)
    return fmt::format("{} needs {} memory slices; the GPU has {}", mig_describe(t, counts), m, t.memory_slices);
  if (const int c = compute_slices(t, counts); c > t.compute_slices)
    return fmt::format("{} needs {} compute slices; the GPU has {}", mig_describe(t, counts), c, t.compute_slices);
  bool has4 = false, has3 = false;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    has4 = has4 || (counts[i] > 0 && is_class(t, static_cast<int>(i), "4g"));
    has3 = has3 || (counts[i] > 0 && is_class(t, static_cast<int>(i), "3g"));
  }
  if (has4 && has3 && !t.allows_4g_with_3g)
    return "4g and 3g instances cannot share a GPU before driver R510 (catalog: combine_4g_3g: false)";
  return fmt::format("{} cannot be arranged at the profiles' allowed starts (each instance needs contiguous memory "
                     "slices starting at one of its profile's starts)",
                     mig_describe(t, counts));
}

std::string mig_describe(const MigTable& t, const MigCounts& counts) {
  std::vector<std::size_t> order(counts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(t.profiles[a].memory_slices, t.profiles[a].compute_slices) >
           std::pair(t.profiles[b].memory_slices, t.profiles[b].compute_slices);
  });
  std::vector<std::string> parts;
  for (std::size_t p : order)
    if (counts[p] > 0) parts.push_back(fmt::format("{} x {}", counts[p], t.profiles[p].name));
  return parts.empty() ? std::string("empty") : fmt::format("{}", fmt::join(parts, " + "));
}

std::vector<MigLayoutOption> mig_enumerate(const MigTable& t) {
  std::vector<MigInstance> candidates;
  for (std::size_t p = 0; p < t.profiles.size(); ++p)
    for (int s : t.profiles[p].starts) candidates.push_back({static_cast<int>(p), s});
  std::map<MigCounts, MigLayout> seen;
  MigLayout empty;
  enumerate(t, candidates, 0, empty, seen);
  std::vector<MigLayoutOption> out;
  for (const auto& [counts, layout] : seen) {
    bool maximal = true;
    for (std::size_t p = 0; p < counts.size() && maximal; ++p) {
      MigCounts more = counts;
      ++more[p];
      maximal = !seen.contains(more);
    }
    out.push_back({counts, layout, maximal});
  }
  std::stable_sort(out.begin(), out.end(), [&](const MigLayoutOption& a, const MigLayoutOption& b) {
    const auto ka = std::pair(memory_slices(t, a.counts), compute_slices(t, a.counts));
    const auto kb = std::pair(memory_slices(t, b.counts), compute_slices(t, b.counts));
    if (ka != kb) return ka > kb;
    return a.counts > b.counts;
  });
  return out;
}

namespace {

const Section& mig_device_section() {
  static const Section s{"mig_devices",
                         "How a mig-parted config sets some GPUs of a node",
                         {
                             {"devices", Type::one_of({Type::choice({"all"}), Type::list(Type::int32().at_least(0))}), required,
                              "", "The GPUs it applies to: all, or a list of GPU indices"},
                             {"mig-enabled", Type::boolean(), required, "", "MIG on or off on those GPUs"},
                             {"mig-devices", Type::map(Type::int32().at_least(0)), "", "",
                              "Instances per profile on each GPU, e.g. {1g.10gb: 7}; absent: MIG on without instances"},
                         }};
  return s;
}

}  // namespace

const Section& mig_parted_section() {
  static const Section s{"mig_parted",
                         "A mig-parted config file",
                         {
                             {"version", Type::choice({"v1"}), required, "", "mig-parted's format version"},
                             {"mig-configs", Type::map(Type::list(Type::section(mig_device_section()))), required, "",
                              "Named node configs, each a list of device entries"},
                         }};
  return s;
}

ConfigNode mig_parted_configs(const ConfigNode& node) {
  const Fields doc = mig_parted_section().read(node);
  if (doc.at("version").as_string() != "v1") doc.at("version").fail("expected version: v1");
  return doc.at("mig-configs");
}

MigNodeConfig mig_node_config(const ConfigNode& entries, const std::string& name, const GpuModel& model, int gpus) {
  MigNodeConfig out{name, std::vector<std::optional<MigLayout>>(static_cast<std::size_t>(gpus))};
  std::vector<bool> covered(static_cast<std::size_t>(gpus), false);
  for (const ConfigNode& entry : entries.items()) {
    const Fields e = mig_device_section().read(entry);
    std::vector<int> devices;
    const ConfigNode d = e.at("devices");
    if (d.is_scalar() && d.as_string() == "all") {
      devices.resize(static_cast<std::size_t>(gpus));
      std::iota(devices.begin(), devices.end(), 0);
    } else if (d.is_sequence()) {
      for (const auto& i : d.items()) {
        const int idx = i.as_int<int>(e.range("devices"));
        if (idx >= gpus) i.fail(fmt::format("GPU index {} does not exist: the node has {} GPUs (0..{})", idx, gpus, gpus - 1));
        devices.push_back(idx);
      }
    } else {
      d.fail("expected 'all' or a list of GPU indices");
    }
    const bool enabled = e.at("mig-enabled").as_bool();
    std::optional<MigLayout> layout;
    if (enabled) {
      if (!model.has_mig()) e.at("mig-enabled").fail(fmt::format("GPU model {} does not support MIG", model.name));
      const MigTable& t = *model.mig;
      MigCounts counts(t.profiles.size(), 0);
      if (auto md = e.get("mig-devices")) {
        for (const auto& [profile, count] : md->entries()) {
          const MigProfile* p = t.find(profile);
          if (!p) {
            std::vector<std::string> names;
            for (const auto& q : t.profiles) names.push_back(q.name);
            count.fail(fmt::format("{} has no MIG profile '{}' (it has {})", model.name, profile, fmt::join(names, ", ")));
          }
          counts[static_cast<std::size_t>(p - t.profiles.data())] += count.as_int<int>(e.range("mig-devices"));
        }
        layout = mig_place(t, counts);
        if (!layout) md->fail(fmt::format("does not fit a {}: {}", model.name, mig_explain(t, counts)));
      } else {
        layout = MigLayout{};
      }
    } else if (e.has("mig-devices")) {
      e.at("mig-devices").fail("mig-devices given with mig-enabled: false");
    }
    for (int g : devices) {
      if (covered[static_cast<std::size_t>(g)]) d.fail(fmt::format("GPU {} is configured by an earlier entry", g));
      covered[static_cast<std::size_t>(g)] = true;
      out.per_gpu[static_cast<std::size_t>(g)] = layout;
    }
  }
  return out;
}

MigFileReport mig_check_file(const ConfigNode& doc, const GpuModel& model, int gpus) {
  MigFileReport report;
  for (const auto& [name, entries] : mig_parted_configs(doc).entries()) {
    try {
      report.valid.push_back(mig_node_config(entries, name, model, gpus));
    } catch (const InputError& e) {
      report.problems.push_back(fmt::format("{}: {}", name, e.what()));
    }
  }
  return report;
}

const GpuModel& require_mig_model(const Catalog& catalog, std::string_view name) {
  const GpuModel* g = catalog.find_gpu(name);
  if (!g) {
    std::vector<std::string> mig;
    for (const auto& m : catalog.gpus())
      if (m.has_mig()) mig.push_back(m.name);
    throw InputError({"", std::nullopt, "GPU_MODEL"},
                     fmt::format("unknown GPU model '{}'; MIG-capable models: {}", name, fmt::join(mig, ", ")));
  }
  if (!g->has_mig()) throw InputError({"", std::nullopt, "GPU_MODEL"}, fmt::format("{} does not support MIG", g->name));
  return *g;
}

}  // namespace gpusim
