#pragma once
// The one progress line of every command: on stderr, only when stderr is a terminal, one line redrawn
// with \r and cleared when done. Three things it can show: a phase ("loading x.yaml ... 2.1 s"), the
// fraction of one run (`run`, with a bar), or runs done out of a total (compare, sweep, packing,
// check), each with an estimate of the time left.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace gpusim::cli {

// The time left, for a progress line: "8 s", "3 min 07 s", "2 h 05 min"; "-" when it cannot be
// estimated yet (negative, NaN or infinite), "> 100 h" past that.
std::string format_eta(double seconds);

// Time left from the elapsed time and the fraction done, assuming the rate so far continues;
// nullopt before any progress.
std::optional<double> estimate_left(double elapsed_s, double fraction);

bool stderr_is_terminal();

class Progress {
 public:
  // `enabled` false: draws nothing and starts no thread.
  explicit Progress(std::string label, bool enabled = stderr_is_terminal());
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Shows `text` with the time it has lasted, e.g. "loading big.yaml".
  void phase(std::string text);
  // From now on counts runs: "3/10 runs" and the time left at the rate so far.
  void start_runs(std::size_t total);
  void run_done();  // from any thread
  // For RunOptions::progress: a bar of one run's fraction done, labelled `label` from now on (empty
  // when disabled).
  std::function<void(double)> fraction_callback(std::string label);
  // Clears the line and stops redrawing (also on destruction); call before writing to stderr.
  void finish();

 private:
  void draw_locked();
  void tick();

  std::string label_;
  bool enabled_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false, drawn_ = false;
  enum class Mode { phase, fraction, runs } mode_ = Mode::phase;
  std::string phase_;
  double fraction_ = 0;
  std::size_t done_ = 0, total_ = 0;
  std::chrono::steady_clock::time_point created_, since_;
  std::thread ticker_;
};

}  // namespace gpusim::cli
