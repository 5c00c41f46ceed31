// The report's plots as inline SVG (svg_charts.hpp).
#include "svg_charts.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "text.hpp"

namespace gpusim::cli::svg {

namespace {

using namespace report_detail;

// Colours that stay apart for the common kinds of colour blindness (Okabe and Ito's palette).
constexpr std::array<const char*, 8> kPalette{"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                              "#CC79A7", "#56B4E9", "#F0E442", "#000000"};
const char* colour(std::size_t i) { return kPalette[i % kPalette.size()]; }

// A number as a tick label: no trailing zeros, thousands separated.
std::string tick_label(double v, double step) {
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  return with_commas(std::abs(v) < step * 1e-6 ? 0.0 : v, decimals);
}

// Seconds shown in a unit that suits the span.
struct TimeUnit {
  double seconds;
  const char* name;
};
TimeUnit time_unit(double span_s) {
  if (span_s <= 2.0) return {0.001, "ms"};  // request latencies
  if (span_s <= 120.0) return {1.0, "s"};
  if (span_s <= 2 * 3600.0) return {60.0, "min"};
  if (span_s <= 3 * 86400.0) return {3600.0, "h"};
  return {86400.0, "days"};
}

constexpr double kWidth = 720, kHeight = 260, kLeft = 64, kRight = 150, kTop = 30, kBottom = 42;

// A chart frame: title, axes with ticks and grid, legend. `x_time`: x values are seconds.
class Frame {
 public:
  Frame(const std::string& title, const std::string& x_label, const std::string& y_label, double x_lo, double x_hi, double y_lo,
        double y_hi, bool x_time, bool y_percent = false) {
    if (x_time) {
      unit_ = time_unit(x_hi - x_lo);
      x_label_ = fmt::format("{} ({})", x_label, unit_.name);
    } else x_label_ = x_label;
    xt_ = nice_ticks(x_lo / unit_.seconds, x_hi / unit_.seconds, 8);
    yt_ = nice_ticks(y_lo, y_hi, 6);
    svg_ = fmt::format(R"(<title>{}</title><text x="{}" y="18" class="t">{}</text>)", xml_escape(title), kLeft,
                       xml_escape(title));
    for (double v : yt_.values) {
      const double y = py(v);
      svg_ += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" class="g"/>)", kLeft, y, kWidth - kRight, y);
      svg_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="yl">{}</text>)", kLeft - 6, y + 4,
                          y_percent ? fmt::format("{:g} %", v * 100) : tick_label(v, yt_.step));
    }
    for (double v : xt_.values) {
      const double x = px(v * unit_.seconds);
      svg_ += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" class="g"/>)", x, kTop, x, kHeight - kBottom);
      svg_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="xl">{}</text>)", x, kHeight - kBottom + 16,
                          tick_label(v, xt_.step));
    }
    svg_ += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" class="ax"/>)", kLeft, kTop, kWidth - kLeft - kRight,
                        kHeight - kTop - kBottom);
    svg_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="xl">{}</text>)", kLeft + (kWidth - kLeft - kRight) / 2, kHeight - 6,
                        xml_escape(x_label_));
    svg_ += fmt::format(R"svg(<text transform="translate(14,{:.1f}) rotate(-90)" class="xl">{}</text>)svg",
                        kTop + (kHeight - kTop - kBottom) / 2, xml_escape(y_label));
  }
  double px(double x_s) const { return kLeft + (x_s / unit_.seconds - xt_.lo) / (xt_.hi - xt_.lo) * (kWidth - kLeft - kRight); }
  double py(double y) const { return kHeight - kBottom - (y - yt_.lo) / (yt_.hi - yt_.lo) * (kHeight - kTop - kBottom); }
  void legend(const std::string& name, const char* c, bool box = false) {
    const double y = kTop + 8 + 16 * static_cast<double>(legends_++);
    const double x = kWidth - kRight + 10;
    svg_ += box ? fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="14" height="10" fill="{}"/>)", x, y - 8, c)
                : fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="2"/>)", x, y - 3,
                              x + 14, y - 3, c);
    svg_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="lg">{}</text>)", x + 18, y + 1, xml_escape(name));
    legend_chars_ = std::max(legend_chars_, name.size());
  }
  // A series as a polyline; `steps`: held until the next point (samples of a state).
  void line(const Series& s, const char* c, bool steps) {
    std::string pts;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const auto [x, y] = s.points[i];
      if (steps && i > 0) pts += fmt::format("{:.1f},{:.1f} ", px(x), py(s.points[i - 1].second));
      pts += fmt::format("{:.1f},{:.1f} ", px(x), py(y));
    }
    svg_ += fmt::format(R"(<polyline class="mark" fill="none" stroke="{}" stroke-width="1.6" points="{}"/>)", c, pts);
    legend(s.name, c);
  }
  // The chart widens to fit its longest legend entry (about 6.5 px a character at 11 px).
  std::string done() {
    const double width = std::max(kWidth, kWidth - kRight + 28 + 6.5 * static_cast<double>(legend_chars_) + 6);
    return fmt::format(
               R"(<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{}" viewBox="0 0 {:.0f} {}" )"
               R"(role="img">)",
               width, kHeight, width, kHeight) +
           svg_ + "</svg>\n";
  }
  std::string svg_;

 private:
  TimeUnit unit_{1.0, "s"};
  std::string x_label_;
  Ticks xt_, yt_;
  int legends_ = 0;
  std::size_t legend_chars_ = 0;
};

// A colour from white through blue for a share in [0, 1], in 10 steps (equal neighbours merge).
std::string heat_colour(double share) {
  const int level = std::clamp(static_cast<int>(std::lround(share * 10)), 0, 10);
  const auto mix = [&](int from, int to) { return from + (to - from) * level / 10; };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(0xf7, 0x08), mix(0xfb, 0x30), mix(0xff, 0x6b));
}

}  // namespace

std::string note(const std::string& text) { return fmt::format("<p class=\"note\">{}</p>\n", xml_escape(text)); }

// Line series over time on one chart (a note instead when there is nothing to draw).
std::string time_chart(const std::string& title, const std::string& y_label, const std::vector<Series>& series, bool steps,
                       std::size_t max_points) {
  double x_lo = std::numeric_limits<double>::max(), x_hi = std::numeric_limits<double>::lowest(), y_hi = 0;
  for (const Series& s : series)
    for (const auto& [x, y] : s.points) {
      x_lo = std::min(x_lo, x);
      x_hi = std::max(x_hi, x);
      y_hi = std::max(y_hi, y);
    }
  if (x_lo > x_hi) return note(title + ": no samples.");
  if (x_lo == x_hi) {  // one instant (a packing experiment): its values, not a plot
    std::string values;
    for (const Series& s : series)
      if (!s.points.empty())
        values += fmt::format("{}{} {}", values.empty() ? "" : ", ", s.name, with_commas(s.points.back().second, 1));
    return note(fmt::format("{}: one sample, at {}: {}.", title, human_seconds(x_lo), values));
  }
  Frame f(title, "time", y_label, x_lo, x_hi, 0, y_hi, true);
  for (std::size_t i = 0; i < series.size(); ++i)
    f.line({series[i].name, downsample(series[i].points, max_points)}, colour(i), steps);
  return f.done();
}

// CDFs of durations (seconds) on one chart; `what`: what the values are of ("jobs", "requests").
std::string cdf_chart(const std::string& title, const std::vector<std::pair<std::string, std::vector<double>>>& samples,
                      const std::string& what) {
  std::vector<Series> series;
  double hi = 0;
  std::string same;  // runs whose every value is one number: a vertical line is no plot, a sentence says it
  std::string none;  // runs with no value, among runs with some: named, not left out of the legend unsaid
  for (const auto& [name, values] : samples) {
    if (values.empty()) {
      none += (none.empty() ? "" : ", ") + name;
      continue;
    }
    if (*std::min_element(values.begin(), values.end()) == *std::max_element(values.begin(), values.end())) {
      same += note(fmt::format("{}: all {} {} took {}.", title,
                               with_commas(static_cast<double>(values.size()), 0) + (samples.size() > 1 ? " of " + name : ""),
                               what, human_seconds(values.front())));
      continue;
    }
    series.push_back({fmt::format("{} ({})", name, with_commas(static_cast<double>(values.size()), 0)), cdf_points(values, 200)});
    hi = std::max(hi, series.back().points.back().first);
  }
  if (!none.empty() && (!series.empty() || !same.empty())) same += note(fmt::format("{}: none in {}.", title, none));
  if (series.empty()) return same.empty() ? note(fmt::format("{}: no {} to show.", title, what)) : same;
  Frame f(title, "duration", "share of " + what, 0, what == "jobs" ? std::max(hi, 1.0) : hi, 0, 1, true, true);
  for (std::size_t i = 0; i < series.size(); ++i) {
    Series s = series[i];
    s.points.insert(s.points.begin(), {s.points.front().first, 0.0});  // from 0 up at the smallest value
    f.line(s, colour(i), true);
  }
  return f.done() + same;
}

// Horizontal stacked bars: each row's parts (busy, held unused, idle) in USD.
std::string cost_bars(const std::string& title, const std::vector<CostRow>& rows) {
  double hi = 0;
  for (const CostRow& r : rows) hi = std::max(hi, r.busy + r.unused + r.idle);
  if (rows.empty() || hi <= 0) return note(title + ": no cost (no priced pool).");
  const double bar = 18, gap = 8, top = 48, left = 150, right = 150, width = kWidth;
  const double height = top + static_cast<double>(rows.size()) * (bar + gap) + 34;
  const Ticks t = nice_ticks(0, hi, 6);
  const auto px = [&](double v) { return left + v / t.hi * (width - left - right); };
  std::string s = fmt::format(
      R"(<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{}" height="{:.0f}" viewBox="0 0 {} {:.0f}" role="img">)",
      width, height, width, height);
  s += fmt::format(R"(<title>{}</title><text x="{}" y="18" class="t">{}</text>)", xml_escape(title), left, xml_escape(title));
  const double axis_y = height - 34;
  for (double v : t.values) {
    s += fmt::format(R"(<line x1="{:.1f}" y1="{}" x2="{:.1f}" y2="{:.1f}" class="g"/>)", px(v), top - 4, px(v), axis_y);
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="xl">{}</text>)", px(v), axis_y + 14, tick_label(v, t.step));
  }
  s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="xl">USD</text>)", left + (width - left - right) / 2, height - 4);
  static constexpr std::array<const char*, 3> kParts{"#009E73", "#E69F00", "#BBBBBB"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CostRow& r = rows[i];
    const double y = top + static_cast<double>(i) * (bar + gap);
    s += fmt::format(R"(<text x="{}" y="{:.1f}" class="yl">{}</text>)", left - 6, y + 13, xml_escape(r.name));
    double x = 0;
    const std::array<double, 3> parts{r.busy, r.unused, r.idle};
    for (std::size_t k = 0; k < parts.size(); ++k) {
      if (parts[k] <= 0) continue;
      s += fmt::format(R"(<rect class="mark" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{}" fill="{}"/>)", px(x), y,
                       std::max(px(x + parts[k]) - px(x), 0.5), bar, kParts[k]);
      x += parts[k];
    }
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="lg">{} (waste {})</text>)", px(x) + 4, y + 13, with_commas(x, 0),
                     with_commas(r.unused + r.idle, 0));
  }
  const std::array<const char*, 3> names{"busy (SMs used)", "held, SMs unused", "idle (nobody held)"};
  for (std::size_t k = 0; k < names.size(); ++k) {
    const double x = left + 150 * static_cast<double>(k);
    s += fmt::format(R"(<rect x="{:.1f}" y="26" width="14" height="10" fill="{}"/>)", x, kParts[k]);
    s += fmt::format(R"(<text x="{:.1f}" y="35" class="lg">{}</text>)", x + 18, names[k]);
  }
  return s + "</svg>\n";
}

// occupancy.json as a heat map: a row per node group, a column per time bucket; a cell's colour is
// the share of its up GPUs allocated, hatched grey where none of its nodes was up.
std::string heat_map(const Json& occ) {
  const Json& rows = occ["rows"];
  const auto columns = occ["columns"].get<std::size_t>();
  if (rows.empty() || columns == 0) return note("No nodes to draw.");
  const double left = 170, top = 30, right = 110, cell_h = std::clamp(320.0 / static_cast<double>(rows.size()), 3.0, 40.0);
  const double width = kWidth + 60, plot_w = width - left - right, cell_w = plot_w / static_cast<double>(columns);
  const double height = top + cell_h * static_cast<double>(rows.size()) + 44;
  std::string s = fmt::format(
      R"(<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" viewBox="0 0 {:.0f} {:.0f}" role="img">)",
      width, height, width, height);
  s += R"(<title>GPU occupancy</title><text x="170" y="18" class="t">Allocated share of up GPUs, per node group and time</text>)";
  s +=
      R"(<defs><pattern id="off" width="4" height="4" patternUnits="userSpaceOnUse"><rect width="4" height="4" fill="#eeeeee"/><path d="M0,4 L4,0" stroke="#bbbbbb" stroke-width="0.8"/></pattern></defs>)";
  std::string last_pool;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const Json& row = rows[r];
    const double y = top + cell_h * static_cast<double>(r);
    const auto& up = row["up"];
    const auto& alloc = row["allocated"];
    // Runs of equal colour as one rectangle: a steady node group is one element, not 200.
    std::size_t c = 0;
    while (c < columns) {
      const auto fill_of = [&](std::size_t k) {
        const double u = up[k].get<double>();
        return u <= 0 ? std::string("url(#off)") : heat_colour(alloc[k].get<double>() / u);
      };
      const std::string fill = fill_of(c);
      std::size_t e = c + 1;
      while (e < columns && fill_of(e) == fill) ++e;
      s += fmt::format(R"(<rect class="mark" x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="{}"/>)",
                       left + cell_w * static_cast<double>(c), y, cell_w * static_cast<double>(e - c), cell_h, fill);
      c = e;
    }
    const std::string pool = row["pool"].get<std::string>();
    if (pool != last_pool || cell_h >= 10) {
      const std::string first = row["first_node"].get<std::string>(), last = row["last_node"].get<std::string>();
      s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="yl">{}</text>)", left - 6, y + std::min(cell_h, 10.0),
                       xml_escape(first == last ? first : fmt::format("{} .. {}", first, last)));
      if (pool != last_pool && r > 0)
        s += fmt::format(R"(<line x1="{:.1f}" y1="{:.2f}" x2="{:.1f}" y2="{:.2f}" stroke="#333" stroke-width="1"/>)", left, y,
                         left + plot_w, y);
      last_pool = pool;
    }
  }
  const double end_s = occ["end_s"].get<double>(), column_s = occ["column_s"].get<double>();
  const TimeUnit unit = time_unit(end_s);
  const Ticks t = nice_ticks(0, static_cast<double>(columns) * column_s / unit.seconds, 8);
  const double axis_y = top + cell_h * static_cast<double>(rows.size());
  for (double v : t.values) {
    const double x = left + v * unit.seconds / column_s * cell_w;
    if (x > left + plot_w + 0.5) break;
    s += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#333"/>)", x, axis_y, x, axis_y + 4);
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="xl">{}</text>)", x, axis_y + 16, tick_label(v, t.step));
  }
  s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="xl">time ({}); a column is {}</text>)", left + plot_w / 2, height - 6,
                   unit.name, human_seconds(column_s));
  for (int k = 0; k <= 10; k += 2) {
    const double y = top + 7.0 * k;  // k = 0, 2, ..., 10: a row every 14 px
    s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="14" height="10" fill="{}" stroke="#999" stroke-width="0.5"/>)",
                     width - right + 10, y, heat_colour(k / 10.0));
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="lg">{} %</text>)", width - right + 28, y + 9, k * 10);
  }
  s += fmt::format(
      R"svg(<rect x="{:.1f}" y="{:.1f}" width="14" height="10" fill="url(#off)"/><text x="{:.1f}" y="{:.1f}" class="lg">no node up</text>)svg",
      width - right + 10, top + 14.0 * 6, width - right + 28, top + 14.0 * 6 + 9);
  return s + "</svg>\n";
}

// One MIG layout on its GPU: memory slices above, compute slices (GPCs) below, an instance's two
// boxes in one colour.
std::string mig_drawing(const std::string& model, const std::string& layout, std::size_t gpus) {
  const MigGeometry g = mig_geometry(model, layout);
  if (g.memory_slices == 0 || g.boxes.empty()) return note(fmt::format("{}: {} ({} GPUs)", model, layout, gpus));
  // The title counts the instances by profile ("7 x 1g.10gb"): the boxes show where each is, and a list of
  // placements would not fit.
  std::vector<std::pair<std::string, int>> counts;
  for (const MigBox& b : g.boxes) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == b.profile; });
    if (it == counts.end()) counts.emplace_back(b.profile, 1);
    else ++it->second;
  }
  std::vector<std::string> parts;
  for (const auto& [profile, n] : counts) parts.push_back(fmt::format("{} x {}", n, profile));
  const std::string title = fmt::format("{} GPU{} {}: {}", gpus, gpus == 1 ? "" : "s", model, fmt::join(parts, " + "));
  // Wide enough for its title (at most about 8 px a character at 13 px bold).
  const double left = 110, slot = 56, band = 34, top = 26,
               width = std::max(left + slot * g.memory_slices + 20, 8.0 * static_cast<double>(title.size()) + 10);
  const double height = top + 2 * band + 26;
  std::string s = fmt::format(
      R"(<svg class="plot mig" xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" viewBox="0 0 {:.0f} {:.0f}" role="img">)",
      width, height, width, height);
  s += fmt::format(R"(<title>{}</title><text x="4" y="16" class="t">{}</text>)", xml_escape(layout), xml_escape(title));
  s += fmt::format(
      R"(<text x="{}" y="{:.1f}" class="yl">memory slices</text><text x="{}" y="{:.1f}" class="yl">compute slices</text>)",
      left - 6, top + band / 2 + 4, left - 6, top + band + 8 + band / 2 + 4);
  const double compute_slot = slot * g.memory_slices / g.compute_slices;
  for (int i = 0; i < g.memory_slices; ++i)
    s += fmt::format(R"(<rect x="{:.1f}" y="{}" width="{}" height="{}" fill="none" stroke="#999" stroke-dasharray="3,2"/>)",
                     left + slot * i, top, slot, band);
  for (int i = 0; i < g.compute_slices; ++i)
    s += fmt::format(
        R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{}" fill="none" stroke="#999" stroke-dasharray="3,2"/>)",
        left + compute_slot * i, top + band + 8, compute_slot, band);
  for (std::size_t i = 0; i < g.boxes.size(); ++i) {
    const MigBox& b = g.boxes[i];
    const char* c = colour(i);
    s += fmt::format(
        R"(<rect class="mark" x="{:.1f}" y="{}" width="{:.1f}" height="{}" fill="{}" fill-opacity="0.75" stroke="#222"/>)",
        left + slot * b.memory_start + 2, top + 2, slot * b.memory_slices - 4, band - 4, c);
    s += fmt::format(
        R"(<rect class="mark" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{}" fill="{}" fill-opacity="0.75" stroke="#222"/>)",
        left + compute_slot * b.compute_start + 2, top + band + 10, compute_slot * b.compute_slices - 4, band - 4, c);
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="in">{}</text>)",
                     left + slot * (b.memory_start + b.memory_slices / 2.0), top + band / 2 + 4, xml_escape(b.profile));
  }
  s += fmt::format(R"(<text x="{}" y="{:.1f}" class="yl">memory slice</text>)", left - 6, height - 6);
  for (int i = 0; i < g.memory_slices; ++i)
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="xl">{}</text>)", left + slot * (i + 0.5), height - 6, i);
  return s + "</svg>\n";
}

}  // namespace gpusim::cli::svg
