// The probes' host-side figures (probe_stats.hpp), checked on hand-made clock stamps.
#include "probe_stats.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

constexpr std::uint64_t kUs = 1000;  // ns

TEST(ProbeStats, PercentileInterpolatesBetweenRanks) {
  // numpy.percentile([1, 2, 3, 4], 50) = 2.5; p99 = 3 + 0.97 = 3.97.
  EXPECT_DOUBLE_EQ(probe::percentile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(probe::percentile({4, 1, 3, 2}, 0.99), 3.97);
  EXPECT_DOUBLE_EQ(probe::percentile({}, 0.5), 0.0);
}

TEST(ProbeStats, LongStartGapsAreThoseAboveThreeMedians) {
  // Starts every 250 us but one wait of 1 ms (4 medians: long, 0.75 ms lost) and one of 700 us
  // (2.8 medians: a duty cycle's jitter, not long), as in the reference's long-gap rule.
  std::vector<std::uint64_t> starts{0};
  for (std::uint64_t gap_us : {250, 250, 1000, 250, 700, 250, 250}) starts.push_back(starts.back() + gap_us * kUs);
  const probe::StartGaps g = probe::start_gaps(starts);
  EXPECT_DOUBLE_EQ(g.p50_ms, 0.25);
  EXPECT_DOUBLE_EQ(g.max_ms, 1.0);
  EXPECT_EQ(g.long_gaps, 1);
  EXPECT_DOUBLE_EQ(g.long_gap_mean_ms, 0.75);
  EXPECT_EQ(probe::start_gaps({0}).long_gaps, 0);  // one launch: no gap
}

TEST(ProbeStats, SlicesAreWholeRunsBetweenPauses) {
  // 5 us steps; the context runs 1 ms, pauses 2.5 ms, runs 2 ms, pauses 2.5 ms, runs 0.5 ms: two
  // pauses, one whole run of 2 ms (the first and last runs are cut by the kernel's start and end).
  std::vector<std::uint64_t> stamps{0};
  auto run = [&](std::uint64_t us) {
    for (std::uint64_t t = 0; t < us; t += 5) stamps.push_back(stamps.back() + 5 * kUs);
  };
  auto pause = [&](std::uint64_t us) { stamps.push_back(stamps.back() + us * kUs); };
  run(1000);
  pause(2500);
  run(2000);
  pause(2500);
  run(500);
  probe::Slices s;
  probe::add_slices(stamps, 10, s);
  EXPECT_EQ(s.gaps_ms, (std::vector<double>{2.5, 2.5}));
  ASSERT_EQ(s.runs_ms.size(), 1u);
  EXPECT_NEAR(s.runs_ms[0], 2.0, 1e-9);
  EXPECT_DOUBLE_EQ(probe::percentile(s.steps_ms, 0.5), 0.005);
}

TEST(ProbeStats, AKernelAloneHasNoSlices) {
  std::vector<std::uint64_t> stamps;
  for (std::uint64_t i = 0; i < 100; ++i) stamps.push_back(i * 5 * kUs);
  probe::Slices s;
  probe::add_slices(stamps, 10, s);
  EXPECT_TRUE(s.gaps_ms.empty());
  EXPECT_TRUE(s.runs_ms.empty());
  EXPECT_EQ(s.steps_ms.size(), 99u);
}

}  // namespace
