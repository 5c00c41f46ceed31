#include "progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpusim::cli {

namespace {
using Clock = std::chrono::steady_clock;
// Nothing is drawn for runs that end sooner (no flicker), then the line is redrawn at this pace.
constexpr auto kQuiet = std::chrono::milliseconds(500);
constexpr auto kRedraw = std::chrono::milliseconds(200);
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
}  // namespace

std::string format_eta(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "-";
  if (seconds > 100 * 3600) return "> 100 h";
  const auto s = static_cast<int64_t>(std::ceil(seconds));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, s % 3600 / 60);
}

std::optional<double> estimate_left(double elapsed_s, double fraction) {
  if (!(fraction > 0) || !std::isfinite(elapsed_s)) return std::nullopt;
  return elapsed_s * (1 - std::min(fraction, 1.0)) / fraction;
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::string label, bool enabled)
    : label_(std::move(label)), enabled_(enabled), created_(Clock::now()), since_(created_) {
  if (enabled_) ticker_ = std::thread([this] { tick(); });
}

Progress::~Progress() { finish(); }

void Progress::finish() {
  {
    std::lock_guard lock(mutex_);
    if (stop_) return;
    stop_ = true;
    if (drawn_) {
      std::fputs("\r\033[K", stderr);
      std::fflush(stderr);
    }
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void Progress::phase(std::string text) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  mode_ = Mode::phase;
  phase_ = std::move(text);
  since_ = Clock::now();
}

void Progress::start_runs(std::size_t total) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  mode_ = Mode::runs;
  done_ = 0;
  total_ = total;
  since_ = Clock::now();
}

void Progress::run_done() {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  ++done_;
}

std::function<void(double)> Progress::fraction_callback(std::string label) {
  if (!enabled_) return {};
  {
    std::lock_guard lock(mutex_);
    label_ = std::move(label);
    mode_ = Mode::fraction;
    fraction_ = 0;
    since_ = Clock::now();
  }
  return [this](double f) {
    std::lock_guard lock(mutex_);
    fraction_ = f;
  };
}

void Progress::tick() {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, kQuiet, [this] { return stop_; });
  while (!stop_) {
    draw_locked();
    wake_.wait_for(lock, kRedraw, [this] { return stop_; });
  }
}

void Progress::draw_locked() {
  std::string line = label_.empty() ? "" : label_ + " ";
  const double elapsed = since(since_);
  switch (mode_) {
    case Mode::phase: line += fmt::format("{} ... {:.1f} s", phase_, elapsed); break;
    case Mode::fraction: {
      const double f = std::clamp(fraction_, 0.0, 1.0);
      const auto filled = static_cast<std::size_t>(f * 30);
      line += fmt::format("[{}{}] {:3d}%  ETA {}", std::string(filled, '#'), std::string(30 - filled, ' '),
                          static_cast<int>(f * 100), format_eta(estimate_left(elapsed, f).value_or(-1)));
      break;
    }
    case Mode::runs: {
      const double f = total_ ? static_cast<double>(done_) / static_cast<double>(total_) : 0.0;
      line += fmt::format("{}/{} runs  ETA {}", done_, total_, format_eta(estimate_left(elapsed, f).value_or(-1)));
      break;
    }
  }
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace gpusim::cli
