#pragma once
// Latencies of a service's requests in a log-linear histogram (HdrHistogram's layout): exact below
// 2,048 µs, and within 1/1,024 of the value above, in fixed memory however many requests a run has
// (8.6 M requests never sit in memory). Percentiles are nearest-rank, reported as the lowest value of
// their bucket, so they are reproducible to the microsecond.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

namespace gpusim {

class LatencyHistogram {
 public:
  static constexpr int kSubBits = 10;  // 1,024 buckets per power of two

  // Inlined: the serving loop adds a gap per token, and GCC stopped inlining it there once that loop grew
  // (7 % of a serving run's instructions went to the call).
  [[gnu::always_inline]] void add(int64_t us, uint64_t count = 1) {
    if (count == 0) return;
    if (us < 0) us = 0;
    const std::size_t b = bucket(us);
    if (b >= counts_.size()) counts_.resize(b + 1, 0);
    counts_[b] += count;
    total_ += count;
    sum_us_ += static_cast<double>(us) * static_cast<double>(count);
  }
  void merge(const LatencyHistogram& o) {
    if (counts_.size() < o.counts_.size()) counts_.resize(o.counts_.size(), 0);
    for (std::size_t b = 0; b < o.counts_.size(); ++b) counts_[b] += o.counts_[b];
    total_ += o.total_;
    sum_us_ += o.sum_us_;
  }
  uint64_t count() const { return total_; }
  double mean_us() const { return total_ ? sum_us_ / static_cast<double>(total_) : 0.0; }
  // The nearest-rank percentile p in [0, 100]: the smallest value with at least ceil(p/100 x count)
  // values at or below it; 0 when empty.
  int64_t percentile_us(double p) const {
    if (total_ == 0) return 0;
    const double want = std::max(1.0, std::ceil(p / 100.0 * static_cast<double>(total_)));
    uint64_t seen = 0;
    for (std::size_t b = 0; b < counts_.size(); ++b) {
      seen += counts_[b];
      if (static_cast<double>(seen) >= want) return lowest(b);
    }
    return lowest(counts_.size() - 1);
  }
  // Bucket of a value: values below 2^(kSubBits+1) map to themselves; above, each power of two 2^e
  // (e > kSubBits) is split into 2^kSubBits buckets.
  static std::size_t bucket(int64_t us) {
    const auto v = static_cast<uint64_t>(us);
    constexpr uint64_t kExact = uint64_t{1} << (kSubBits + 1);
    if (v < kExact) return static_cast<std::size_t>(v);
    const int e = static_cast<int>(std::bit_width(v)) - 1;  // 2^e <= v < 2^(e+1), e > kSubBits
    const int shift = e - kSubBits;
    const uint64_t sub = (v >> shift) - (uint64_t{1} << kSubBits);  // 0 .. 1023
    return static_cast<std::size_t>(kExact + static_cast<uint64_t>(e - kSubBits - 1) * (uint64_t{1} << kSubBits) + sub);
  }
  static int64_t lowest(std::size_t b) {
    constexpr uint64_t kExact = uint64_t{1} << (kSubBits + 1);
    if (b < kExact) return static_cast<int64_t>(b);
    const uint64_t k = b - kExact;
    const int e = static_cast<int>(k >> kSubBits) + kSubBits + 1;
    const uint64_t sub = k & ((uint64_t{1} << kSubBits) - 1);
    return static_cast<int64_t>(((uint64_t{1} << kSubBits) + sub) << (e - kSubBits));
  }

 private:
  std::vector<uint64_t> counts_;
  uint64_t total_ = 0;
  double sum_us_ = 0;
};

}  // namespace gpusim
