#include "seeds.hpp"

#include <fmt/format.h>

#include <boost/math/distributions/students_t.hpp>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "gpusim/core/error.hpp"

namespace gpusim::cli {

std::vector<uint64_t> parse_seeds(const std::string& text) {
  const SourceLocation where{"--seeds", std::nullopt, text};
  constexpr std::size_t kMaxSeeds = 10000;
  const auto number = [&](const std::string& s) {
    std::size_t used = 0;
    unsigned long long v = 0;
    try {
      // stoull accepts a sign and leading blanks; a seed is digits only.
      if (!s.empty() && std::isdigit(static_cast<unsigned char>(s.front()))) v = std::stoull(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != s.size())
      throw InputError(where, "expected seeds as FIRST-LAST, a comma-separated list, or both, e.g. 42-51 or 1-3,7");
    return static_cast<uint64_t>(v);
  };
  std::vector<uint64_t> out;
  std::set<uint64_t> seen;
  const auto add = [&](uint64_t s) {
    if (!seen.insert(s).second) throw InputError(where, fmt::format("seed {} is given twice", s));
    if (out.size() == kMaxSeeds) throw InputError(where, "at most 10,000 seeds");
    out.push_back(s);
  };
  for (std::size_t start = 0;;) {
    const auto comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (const auto dash = item.find('-'); dash != std::string::npos) {
      const uint64_t first = number(item.substr(0, dash)), last = number(item.substr(dash + 1));
      if (last < first || last - first >= kMaxSeeds) throw InputError(where, "expected FIRST <= LAST, at most 10,000 seeds");
      for (uint64_t s = first;; ++s) {  // not `s <= last`: it never fails when last is the largest seed
        add(s);
        if (s == last) break;
      }
    } else {
      add(number(item));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string seeds_text(const std::vector<uint64_t>& seeds) {
  std::string out;
  for (std::size_t i = 0; i < seeds.size();) {
    std::size_t j = i;
    while (j + 1 < seeds.size() && seeds[j + 1] == seeds[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", seeds[i]) : fmt::format("{}-{}", seeds[i], seeds[j]);
    i = j + 1;
  }
  return out;
}

std::optional<double> ci95_half_width(const std::vector<double>& values) {
  const std::size_t n = values.size();
  if (n < 2) return std::nullopt;
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(n);
  double ss = 0;
  for (double v : values) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / static_cast<double>(n - 1));
  // The two-sided 95% quantile of Student's t with n-1 degrees of freedom, from Boost.Math (not a
  // hand-copied table): 12.706 for n = 2, 2.776 for n = 5, 2.262 for n = 10, -> 1.960 as n grows.
  const boost::math::students_t_distribution<double> t(static_cast<double>(n - 1));
  const double q = boost::math::quantile(boost::math::complement(t, 0.025));
  return q * sd / std::sqrt(static_cast<double>(n));
}

Json SeedFigure::json() const {
  Json v = Json::array();
  for (const auto& x : values) v.push_back(x ? Json(*x) : Json(nullptr));
  return {{"mean", mean ? Json(*mean) : Json(nullptr)},
          {"ci95", ci95 ? Json(*ci95) : Json(nullptr)},
          {"n", n},
          {"values", std::move(v)}};
}

std::vector<std::pair<std::string, double>> keyed_figures(const Json& summary) { return flatten_summary(summary, true); }

const SeedFigure* SeedSummary::figure(const std::string& path) const {
  const auto it = figures.find(path);
  return it == figures.end() ? nullptr : &it->second;
}

Json SeedSummary::json() const {
  Json f = Json::object();
  for (const auto& p : paths) f[p] = figures.at(p).json();
  Json out;
  out["label"] = first.value("label", first.value("policy", ""));
  out["scenario"] = first.value("scenario", "");
  out["policy"] = first.value("policy", "");
  out["seeds"] = seeds;
  out["figures"] = std::move(f);
  return out;
}

SeedSummary aggregate_seeds(const std::vector<uint64_t>& seeds, const std::vector<Json>& summaries) {
  SeedSummary out;
  out.seeds = seeds;
  if (summaries.empty()) return out;
  out.first = summaries.front();
  const std::size_t k = summaries.size();
  for (std::size_t i = 0; i < k; ++i)
    for (const auto& [path, value] : keyed_figures(summaries[i])) {
      if (path == "seed") continue;
      auto [it, fresh] = out.figures.try_emplace(path);
      if (fresh) {
        out.paths.push_back(path);
        it->second.values.resize(k);
      }
      it->second.values[i] = value;
    }
  for (auto& [path, f] : out.figures) {
    std::vector<double> present;
    for (const auto& v : f.values)
      if (v) present.push_back(*v);
    f.n = present.size();
    if (present.empty()) continue;
    if (std::all_of(present.begin(), present.end(), [&](double v) { return v == present.front(); })) {
      // Exactly, not up to rounding: the table shows such a figure without an interval.
      f.mean = present.front();
      if (f.n >= 2) f.ci95 = 0.0;
      continue;
    }
    f.mean = std::accumulate(present.begin(), present.end(), 0.0) / static_cast<double>(present.size());
    f.ci95 = ci95_half_width(present);
  }
  return out;
}

}  // namespace gpusim::cli
