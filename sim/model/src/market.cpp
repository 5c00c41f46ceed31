#include "gpusim/sim/market.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/error.hpp"

namespace gpusim {

std::size_t AvailabilitySeries::tick_at(Time t) const {
  if (available.empty() || t < Time()) return 0;
  return std::min<std::size_t>(static_cast<std::size_t>(t.us() / gap.us()), available.size() - 1);
}

double AvailabilitySeries::reclaims_per_node_hour() const {
  double lost = 0, node_hours = 0;
  for (std::size_t i = 0; i < available.size(); ++i) {
    if (i > 0 && available[i] < available[i - 1]) lost += available[i - 1] - available[i];
    node_hours += available[i] * gap.hours();
  }
  return node_hours > 0 ? lost / node_hours : 0.0;
}

AvailabilitySeries read_skypilot_series(const std::string& path) {
  if (std::error_code ec; std::filesystem::is_directory(path, ec))
    throw InputError({path, std::nullopt, ""}, "is a directory: expected a SkyPilot availability trace (JSON)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({path, std::nullopt, ""}, "cannot open the availability trace");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  nlohmann::json doc;
  // nlohmann keeps the last of two equal keys: the keys of each open object, to refuse a second one.
  std::vector<std::set<std::string>> keys;
  std::optional<std::string> repeated;
  try {
    doc = nlohmann::json::parse(text, [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
      if (event == nlohmann::json::parse_event_t::object_start) keys.emplace_back();
      else if (event == nlohmann::json::parse_event_t::object_end) keys.pop_back();
      else if (event == nlohmann::json::parse_event_t::key && !keys.back().insert(parsed.get<std::string>()).second && !repeated)
        repeated = parsed.get<std::string>();
      return true;
    });
  } catch (const nlohmann::json::exception& e) {
    throw InputError({path, std::nullopt, ""}, fmt::format("not valid JSON: {}", e.what()));
  }
  if (repeated) {
    ConfigNode::parse(text, path);  // JSON is YAML: the strict reader names the key's line and field
    throw InputError({path, std::nullopt, ""}, fmt::format("the key '{}' is given twice in one object: give it once", *repeated));
  }
  const auto fail = [&](const char* field, const std::string& why) { throw InputError({path, std::nullopt, field}, why); };
  if (!doc.is_object()) fail("", "expected a JSON object with metadata.gap_seconds and data (a SkyPilot spot trace)");
  const auto meta = doc.find("metadata");
  if (meta == doc.end() || !meta->is_object() || !meta->contains("gap_seconds") || !(*meta)["gap_seconds"].is_number())
    fail("metadata.gap_seconds", "expected the number of seconds between ticks");
  const double gap = (*meta)["gap_seconds"].get<double>();
  if (!(gap > 0) || gap > 1e7) fail("metadata.gap_seconds", fmt::format("expected a positive number of seconds, got {}", gap));
  AvailabilitySeries s;
  s.file = path;
  s.gap = Duration::from_seconds(gap, Round::nearest);
  const auto data = doc.find("data");
  if (data == doc.end() || !data->is_array() || data->empty())
    fail("data", "expected a non-empty list of available instances per tick");
  for (std::size_t i = 0; i < data->size(); ++i) {
    const auto& v = (*data)[i];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 1'000'000)
      fail("data", fmt::format("tick {}: expected a count of available instances (an integer >= 0), got {}", i, v.dump()));
    s.available.push_back(static_cast<int32_t>(v.get<int64_t>()));
  }
  if (const auto prices = doc.find("prices"); prices != doc.end()) {
    if (!prices->is_array() || prices->size() != s.available.size())
      fail("prices", fmt::format("expected one price per tick ({} ticks)", s.available.size()));
    for (std::size_t i = 0; i < prices->size(); ++i) {
      const auto& v = (*prices)[i];
      if (!v.is_number() || v.get<double>() < 0)
        fail("prices", fmt::format("tick {}: expected a price >= 0, got {}", i, v.dump()));
      s.price_per_node_hour_usd.push_back(v.get<double>());
    }
  }
  return s;
}

double hazard_from_monthly_rate(double interruptions_per_node_month) { return interruptions_per_node_month / 730.0; }

double hazard_from_monthly_probability(double p) { return -std::log1p(-p) / 730.0; }

std::optional<Duration> young_daly_interval(Duration checkpoint_cost, double mtbf_hours) {
  if (!std::isfinite(mtbf_hours) || mtbf_hours <= 0) return std::nullopt;
  const double seconds = std::sqrt(2.0 * checkpoint_cost.seconds() * mtbf_hours * kSecondsPerHour);
  return std::max(Duration::from_us(1), Duration::from_seconds(seconds, Round::nearest));
}

}  // namespace gpusim
