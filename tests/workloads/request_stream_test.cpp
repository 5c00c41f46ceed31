// Request streams of inference services (issue 18; docs/serving.md#requests): the trace readers, the
// generator's arrival processes and token draws, the common options and every bad input.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>

#include <zlib.h>

#include "gpusim/workloads/request_stream.hpp"
#include "test_util.hpp"

using namespace gpusim;
using test::source_path;
using test::write_file;

namespace {

constexpr uint64_t kSeed = 42;

std::shared_ptr<const RequestSource> source(const std::string& yaml, std::string_view name = "svc", uint64_t seed = kSeed) {
  return read_request_source(ConfigNode::parse(yaml, "scenario.yaml"), source_path("data"), seed, name);
}

std::vector<InferenceRequest> drain(const RequestSource& s) {
  std::vector<InferenceRequest> out;
  const auto stream = s.open();
  while (auto q = stream->next()) out.push_back(*q);
  return out;
}

// The message of the InputError `f` throws ("" if none).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string source_error(const std::string& yaml) {
  return error_of([&] { source(yaml); });
}

const std::string kConv = "azure-llm-inference-2023/AzureLLMInferenceTrace_conv.csv";

bool same(const InferenceRequest& a, const InferenceRequest& b) {
  return a.arrival == b.arrival && a.prompt_tokens == b.prompt_tokens && a.output_tokens == b.output_tokens;
}

struct GapStats {
  double mean_s = 0, cv = 0;
};
GapStats gap_stats(const std::vector<InferenceRequest>& rs) {
  double sum = 0, sum2 = 0;
  Time last;
  for (const auto& q : rs) {
    const double g = (q.arrival - last).seconds();
    sum += g;
    sum2 += g * g;
    last = q.arrival;
  }
  const double n = static_cast<double>(rs.size()), mean = sum / n;
  return {mean, std::sqrt(sum2 / n - mean * mean) / mean};
}

int64_t count_between(const std::vector<InferenceRequest>& rs, double from_s, double to_s) {
  return std::count_if(rs.begin(), rs.end(),
                       [&](const auto& q) { return q.arrival.seconds() >= from_s && q.arrival.seconds() < to_s; });
}

}  // namespace

// The conv file's first rows: 2023-11-16 18:15:46.6805900,374,44 and 18:15:50.9951690,396,109;
// 50.9951690 − 46.6805900 = 4.3145790 s = 4,314,579 µs.
TEST(AzureLlmTrace, FirstRowsOfTheConversationTrace) {
  const auto rows = read_request_trace(RequestTraceFormat::azure_llm_2023, source_path("data/" + kConv));
  ASSERT_EQ(rows.size(), 19366u);  // SOURCE.md
  EXPECT_EQ(rows[0].arrival, Time());
  EXPECT_EQ(rows[0].prompt_tokens, 374);
  EXPECT_EQ(rows[0].output_tokens, 44);
  EXPECT_EQ(rows[1].arrival, Time::from_us(4'314'579));
  EXPECT_EQ(rows[1].prompt_tokens, 396);
  EXPECT_EQ(rows[1].output_tokens, 109);
  // Last row 19:14:08.4025270: 58 min 21.7219370 s = 3,501,721,937 µs after the first.
  EXPECT_EQ(rows.back().arrival, Time::from_us(3'501'721'937));
  const auto code = read_request_trace(RequestTraceFormat::azure_llm_2023,
                                       source_path("data/azure-llm-inference-2023/AzureLLMInferenceTrace_code.csv"));
  EXPECT_EQ(code.size(), 8819u);
}

// Seven fractional digits are 100 ns: .0000004 rounds down to 0 µs, .0000005 up to 1 µs.
TEST(AzureLlmTrace, RoundsHundredsOfNanosecondsToTheNearestMicrosecond) {
  const auto path = write_file("t.csv",
                               "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                               "2023-11-16 23:59:59.9999996,1,1\n"
                               "2023-11-17 00:00:00.0000004,2,1\n"
                               "2023-11-17 00:00:00.0000005,3,1\n"
                               "2023-11-17 00:00:01,4,1");  // no fraction, no trailing newline
  const auto rows = read_request_trace(RequestTraceFormat::azure_llm_2023, path);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1].arrival, Time());  // both round to midnight
  EXPECT_EQ(rows[2].arrival, Time::from_us(1));
  EXPECT_EQ(rows[3].arrival, Time::from_us(1'000'000));
}

TEST(RequestSource, ReplaysATraceThroughTheRequestsMap) {
  const auto s = source("{trace: {format: azure-llm-2023, file: " + kConv + "}}");
  const auto rs = drain(*s);
  ASSERT_EQ(rs.size(), 19366u);
  EXPECT_EQ(rs[1].arrival, Time::from_us(4'314'579));
  EXPECT_TRUE(std::is_sorted(rs.begin(), rs.end(), [](auto& a, auto& b) { return a.arrival < b.arrival; }));
  EXPECT_EQ(s->describe(), "azure-llm-2023 AzureLLMInferenceTrace_conv.csv");
}

// rate_multiplier m divides the gaps: 4,314,579 / 2 = 2,157,289.5 µs, rounded to 2,157,290; the last
// 3,501,721,937 / 2 = 1,750,860,968.5 → 1,750,860,969.
TEST(RequestSource, RateMultiplierDividesATracesGaps) {
  const auto rs = drain(*source("{trace: {format: azure-llm-2023, file: " + kConv + "}, rate_multiplier: 2}"));
  ASSERT_EQ(rs.size(), 19366u);
  EXPECT_EQ(rs[1].arrival, Time::from_us(2'157'290));
  EXPECT_EQ(rs.back().arrival, Time::from_us(1'750'860'969));
  EXPECT_EQ(rs[1].prompt_tokens, 396);
}

// window {start 600 s, duration 60 s}: the rows in [600, 660) s of the trace, the first at 600 s
// becoming 0; then at most `limit` of them.
TEST(RequestSource, WindowAndLimitCutATrace) {
  const auto rows = read_request_trace(RequestTraceFormat::azure_llm_2023, source_path("data/" + kConv));
  const int64_t in_window = count_between(rows, 600, 660);
  ASSERT_GT(in_window, 100);  // ~5.5 req/s
  const auto s = source("{trace: {format: azure-llm-2023, file: " + kConv + "}, window: {start: 10m, duration: 1m}}");
  const auto rs = drain(*s);
  ASSERT_EQ(static_cast<int64_t>(rs.size()), in_window);
  const auto first = std::find_if(rows.begin(), rows.end(), [](auto& q) { return q.arrival >= Time::from_seconds(600); });
  EXPECT_EQ(rs[0].arrival, Time() + (first->arrival - Time::from_seconds(600)));
  EXPECT_EQ(rs[0].prompt_tokens, first->prompt_tokens);
  EXPECT_LT(rs.back().arrival, Time::from_seconds(60));
  EXPECT_EQ(s->describe(), "azure-llm-2023 AzureLLMInferenceTrace_conv.csv; 600-660s");
  const auto limited = drain(*source("{trace: {format: azure-llm-2023, file: " + kConv + "}, window: {start: 10m}, limit: 5}"));
  ASSERT_EQ(limited.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_TRUE(same(limited[i], rs[i]));
}

// Hash ids name 512-token blocks: 1000 tokens are [a: 512][b: 488].
TEST(MooncakeTrace, ReadsTimestampsInMillisecondsAndHashIds) {
  const auto path = write_file("m.jsonl",
                               "{\"timestamp\": 0, \"input_length\": 1000, \"output_length\": 500, \"hash_ids\": [0, 1]}\n"
                               "{\"timestamp\": 0, \"input_length\": 7322, \"output_length\": 490, \"hash_ids\": [0, 2, 3, "
                               "4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]}\n"
                               "\n"
                               "{\"output_length\": 52, \"hash_ids\": [18446744073709551615], \"timestamp\": 27482, "
                               "\"input_length\": 512}\n");
  const auto rows = read_request_trace(RequestTraceFormat::mooncake, path);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].content, (std::vector<PromptSegment>{{0, 512}, {1, 488}}));
  EXPECT_EQ(rows[1].arrival, Time());
  EXPECT_EQ(rows[1].prompt_tokens, 7322);
  EXPECT_EQ(rows[1].content.size(), 15u);
  EXPECT_EQ(rows[1].content.back(), (PromptSegment{15, 7322 - 14 * 512}));
  EXPECT_EQ(rows[2].arrival, Time::from_us(27'482'000));  // 27,482 ms
  EXPECT_EQ(rows[2].prompt_tokens, 512);
  EXPECT_EQ(rows[2].output_tokens, 52);
  EXPECT_EQ(rows[2].content, (std::vector<PromptSegment>{{18446744073709551615u, 512}}));
  // Without hash ids, no content.
  const auto plain = write_file("plain.jsonl", "{\"timestamp\": 5, \"input_length\": 10, \"output_length\": 2}\n");
  EXPECT_TRUE(read_request_trace(RequestTraceFormat::mooncake, plain).front().content.empty());
}

// gpusim's request CSV: arrivals from the first row, hash ids optional, each of hash_block_tokens.
TEST(RequestCsvTrace, ReadsArrivalsTokensAndHashIds) {
  const auto path = write_file("r.csv", "arrival_s,prompt_tokens,output_tokens,hash_ids\n"
                                        "10,40,3,5 6 7\n"
                                        "10.25,16,1,5\n");
  const auto rows = read_request_trace(RequestTraceFormat::csv, path, 16);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].arrival, Time());
  EXPECT_EQ(rows[1].arrival, Time::from_us(250'000));
  EXPECT_EQ(rows[0].content, (std::vector<PromptSegment>{{5, 16}, {6, 16}, {7, 8}}));
  EXPECT_EQ(rows[1].content, (std::vector<PromptSegment>{{5, 16}}));
  const auto plain = write_file("r2.csv", "prompt_tokens,arrival_s,output_tokens\n3,0,1\n");
  const auto p = read_request_trace(RequestTraceFormat::csv, plain);
  EXPECT_EQ(p.front().prompt_tokens, 3);
  EXPECT_TRUE(p.front().content.empty());
  const auto error = [&](const std::string& lines, int32_t block = 16) {
    const auto bad = write_file("bad.csv", "arrival_s,prompt_tokens,output_tokens,hash_ids\n" + lines);
    return error_of([&] { read_request_trace(RequestTraceFormat::csv, bad, block); });
  };
  std::string e = error("0,40,3,5 6\n");
  EXPECT_NE(e.find("bad.csv:line 2: 2 hash ids for a prompt of 40 tokens: expected ceil(40 / 16) = 3"), std::string::npos) << e;
  e = error("0,40,3,5 x 7\n");
  EXPECT_NE(e.find("line 2: column 'hash_ids': expected whole numbers from 0 to 2^64-1 separated by ' '"), std::string::npos)
      << e;
  e = error("1,4,3,5\n0,4,1,5\n");
  EXPECT_NE(e.find("line 3: column 'arrival_s': 0 is earlier than the row before it"), std::string::npos) << e;
}

// A generator's content: a shared system prompt of 100 tokens before each message; sessions of 3 turns,
// 10 s apart, each turn's prompt repeating the conversation so far.
TEST(RequestGenerator, SharedPrefixAndSessionsRepeatTheConversation) {
  const auto shared = drain(*source("{generator: {rate: 1, prompt_tokens: 30, output_tokens: 5, shared_prefix_tokens: 100}, "
                                    "limit: 3}"));
  ASSERT_EQ(shared.size(), 3u);
  for (const InferenceRequest& q : shared) {
    EXPECT_EQ(q.prompt_tokens, 130);
    ASSERT_EQ(q.content.size(), 2u);
    EXPECT_EQ(q.content[0], shared[0].content[0]);  // the system prompt
    EXPECT_EQ(q.content[0].tokens, 100);
    EXPECT_EQ(q.content[1].tokens, 30);
  }
  EXPECT_NE(shared[0].content[1].id, shared[1].content[1].id);  // each message is its own
  // Sessions arrive at 0.001 per second: the first session's three turns come before the second starts
  // (its gap is exponential with mean 1,000 s; seed 42's first two gaps are both over 20 s).
  const auto turns = drain(*source("{generator: {rate: 0.001, prompt_tokens: 30, output_tokens: 5, shared_prefix_tokens: 100, "
                                   "sessions: {turns: 3, think_time: 10s}}, limit: 3}"));
  ASSERT_EQ(turns.size(), 3u);
  EXPECT_EQ(turns[1].arrival - turns[0].arrival, Duration::from_seconds(10));
  EXPECT_EQ(turns[2].arrival - turns[1].arrival, Duration::from_seconds(10));
  // Turn 2: system, message 1, output 1, message 2; turn 3 adds output 2 and message 3.
  EXPECT_EQ(turns[1].prompt_tokens, 100 + 30 + 5 + 30);
  EXPECT_EQ(turns[2].prompt_tokens, 100 + 2 * (30 + 5) + 30);
  ASSERT_EQ(turns[2].content.size(), 6u);
  EXPECT_TRUE(std::equal(turns[0].content.begin(), turns[0].content.end(), turns[1].content.begin()));
  EXPECT_EQ(turns[1].content[2], (PromptSegment{turns[0].output_id, 5}));
  EXPECT_TRUE(std::equal(turns[1].content.begin(), turns[1].content.end(), turns[2].content.begin()));
  EXPECT_EQ(turns[2].content[4], (PromptSegment{turns[1].output_id, 5}));
  // Without them, no content, and the same draws as before these options existed.
  EXPECT_TRUE(drain(*source("{generator: {rate: 1, prompt_tokens: 30, output_tokens: 5}, limit: 1}")).front().content.empty());
}

// The public file (outside the repository: GPUSIM_DATA, as CI sets it): SOURCE.md's 12,031 requests over
// 0–3,536,999 ms.
TEST(MooncakeTrace, ReadsTheConversationTraceWhenPresent) {
  const char* dir = std::getenv("GPUSIM_DATA");
  const std::string path = fmt::format("{}/mooncake-fast25/conversation_trace.jsonl", dir ? dir : "");
  if (!dir || !std::filesystem::exists(path)) GTEST_SKIP() << "mooncake-fast25 not in GPUSIM_DATA";
  const auto rows = read_request_trace(RequestTraceFormat::mooncake, path);
  ASSERT_EQ(rows.size(), 12031u);
  EXPECT_EQ(rows.back().arrival, Time::from_us(3'536'999'000));
}

// Poisson at 10 req/s, 200,000 draws: mean gap 0.1 s; its standard error is 0.1/√200000 = 0.00022 s
// (0.22 %), so 1 % is 4.5 σ. CV 1 (exponential gaps).
TEST(RequestGenerator, PoissonMeanGap) {
  const auto rs = drain(*source("{generator: {rate: 10, prompt_tokens: 100, output_tokens: 10}, limit: 200000}"));
  ASSERT_EQ(rs.size(), 200000u);
  const GapStats g = gap_stats(rs);
  EXPECT_NEAR(g.mean_s, 0.1, 0.001);
  EXPECT_NEAR(g.cv, 1.0, 0.02);
}

// Gamma with CV 2 (shape 1/4, scale 4 in unit time) at 10 req/s: mean 0.1 s (standard error
// 0.1·2/√200000 = 0.45 %, tolerance 2 %); CV 2 (its estimate's error ≈ √((2 + 6/k)/n)/2 = 0.57 % with excess
// kurtosis 6/k = 24; tolerance 2 %).
TEST(RequestGenerator, GammaMeanAndCoefficientOfVariation) {
  const auto s = source("{generator: {arrival: gamma, cv: 2, rate: 10, prompt_tokens: 100, output_tokens: 10}, limit: 200000}");
  const auto rs = drain(*s);
  ASSERT_EQ(rs.size(), 200000u);
  const GapStats g = gap_stats(rs);
  EXPECT_NEAR(g.mean_s, 0.1, 0.002);
  EXPECT_NEAR(g.cv, 2.0, 0.04);
  EXPECT_EQ(s->describe(), "gamma cv 2 10 req/s; first 200000; tokens 100/10");
}

// A ramp λ(t) = 0.2 t over [0, 100] s: Λ(100) = 1000 requests expected, Λ(100) − Λ(50) = 0.1·(100² − 50²) = 750 in
// [50, 100) s. Counts of a Poisson process are Poisson: ±3σ = ±3√1000 = ±95 and ±3√750 = ±82.
TEST(RequestGenerator, RateCurveCountsFollowItsIntegral) {
  const auto rs = drain(
      *source("{generator: {rate_curve: [[0, 0], [100, 20]], duration: 100, prompt_tokens: 1, output_tokens: 1}}"));
  EXPECT_NEAR(static_cast<double>(rs.size()), 1000, 95);
  EXPECT_NEAR(static_cast<double>(count_between(rs, 50, 100)), 750, 82);
  EXPECT_NEAR(static_cast<double>(count_between(rs, 0, 50)), 250, 48);  // 0.1·50² = 250, 3√250 = 47.4
  EXPECT_LT(rs.back().arrival, Time::from_seconds(100));
}

// Periodic: 10 → 0 req/s over [0, 50) s, then back from 0 to 10 over [50, 100) s (the closing segment);
// each period integrates to 250 + 250 = 500. Three periods: 1500 ± 3√1500 = ±116; [150, 200) s is the
// rising half of the second repeat: 250 ± 3√250 = ±47.
TEST(RequestGenerator, PeriodicRateCurveRepeats) {
  const auto s = source(
      "{generator: {rate_curve: [[0, 10], [50, 0]], period: 100, duration: 300, prompt_tokens: 1, output_tokens: 1}}");
  const auto rs = drain(*s);
  EXPECT_NEAR(static_cast<double>(rs.size()), 1500, 116);
  EXPECT_NEAR(static_cast<double>(count_between(rs, 150, 200)), 250, 47);
  EXPECT_NEAR(static_cast<double>(count_between(rs, 200, 250)), 250, 47);
  EXPECT_EQ(s->describe(), "poisson rate curve every 100s for 300s; tokens 1/1");
  // Starting at rate 0 (0 → 10 over [0, 50), closing 10 → 0 over [50, 100)): also 500 per period, and the
  // instants where a period ends (rate 0) do not end the stream.
  const auto rising = drain(
      *source("{generator: {rate_curve: [[0, 0], [50, 10]], period: 100, duration: 300, prompt_tokens: 1, output_tokens: 1}}"));
  EXPECT_NEAR(static_cast<double>(rising.size()), 1500, 116);
  EXPECT_NEAR(static_cast<double>(count_between(rising, 250, 300)), 250, 47);
}

// A constant rate and a rate curve flat at the same rate map the same unit-rate draws to the same times.
TEST(RequestGenerator, FlatCurveEqualsConstantRate) {
  const auto a = drain(*source("{generator: {rate: 4, duration: 1000, prompt_tokens: 1, output_tokens: 1}}"));
  const auto b = drain(
      *source("{generator: {rate_curve: [[0, 4], [300, 4]], duration: 1000, prompt_tokens: 1, output_tokens: 1}}"));
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_LE(std::abs((a[i].arrival - b[i].arrival).us()), 1);
}

// rate_multiplier 2 doubles the rate: every arrival at half the time (±1 µs of rounding), the same tokens.
TEST(RequestGenerator, RateMultiplierHalvesTheGaps) {
  const std::string gen = "generator: {rate: 10, duration: 600, prompt_tokens: {uniform: [1, 1000]}, output_tokens: 5}";
  const auto once = drain(*source("{" + gen + "}"));
  const auto twice = drain(*source("{" + gen + ", rate_multiplier: 2, limit: 3000}"));
  ASSERT_EQ(twice.size(), 3000u);
  ASSERT_GE(once.size(), 3000u);
  for (std::size_t i = 0; i < twice.size(); ++i) {
    EXPECT_LE(std::abs(twice[i].arrival.us() * 2 - once[i].arrival.us()), 2);
    EXPECT_EQ(twice[i].prompt_tokens, once[i].prompt_tokens);
  }
}

// A window cuts the same stream: its requests are those of [100, 150) s of the unwindowed one, 100 s earlier.
TEST(RequestGenerator, WindowAndLimitCutTheSameStream) {
  const std::string gen = "generator: {rate: 10, duration: 1000, prompt_tokens: {lognormal: {median: 1000, sigma: 1}}, "
                          "output_tokens: {uniform: [1, 500]}}";
  const auto all = drain(*source("{" + gen + "}"));
  const auto windowed = drain(*source("{" + gen + ", window: {start: 100, duration: 50}}"));
  const auto first = std::find_if(all.begin(), all.end(), [](auto& q) { return q.arrival >= Time::from_seconds(100); });
  ASSERT_EQ(static_cast<int64_t>(windowed.size()), count_between(all, 100, 150));
  for (std::size_t i = 0; i < windowed.size(); ++i) {
    const InferenceRequest& q = first[static_cast<std::ptrdiff_t>(i)];
    EXPECT_EQ(windowed[i].arrival, Time() + (q.arrival - Time::from_seconds(100)));
    EXPECT_EQ(windowed[i].prompt_tokens, q.prompt_tokens);
    EXPECT_EQ(windowed[i].output_tokens, q.output_tokens);
  }
  const auto limited = drain(*source("{" + gen + ", limit: 7}"));
  ASSERT_EQ(limited.size(), 7u);
  for (std::size_t i = 0; i < 7; ++i) EXPECT_TRUE(same(limited[i], all[i]));
}

TEST(RequestGenerator, SameSeedSameStreamOtherNameOtherStream) {
  const std::string spec = "{generator: {arrival: gamma, cv: 3, rate: 5, duration: 100, prompt_tokens: {lognormal: {median: 500, "
                           "sigma: 0.8}}, output_tokens: {lognormal: {median: 100, sigma: 0.5}}}}";
  const auto s = source(spec);
  const auto a = drain(*s), b = drain(*s);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(same(a[i], b[i]));
  const auto other = drain(*source(spec, "other"));
  const auto reseeded = drain(*source(spec, "svc", kSeed + 1));
  EXPECT_FALSE(other.size() == a.size() && same(other[0], a[0]));
  EXPECT_FALSE(reseeded.size() == a.size() && same(reseeded[0], a[0]));
}

// Lognormal median 1000: the sample median within 2 % on 100,000 draws (the standard error of a median is
// 1.2533·σ/√n in log space = 0.2 %); uniform [5, 7]: each of 5, 6, 7 about a third; draws below 1 become 1.
TEST(RequestGenerator, TokenDistributions) {
  auto rs = drain(*source("{generator: {rate: 100, prompt_tokens: {lognormal: {median: 1000, sigma: 0.5}}, "
                          "output_tokens: {uniform: [5, 7]}}, limit: 100000}"));
  ASSERT_EQ(rs.size(), 100000u);
  for (int v = 5; v <= 7; ++v)
    EXPECT_NEAR(static_cast<double>(std::count_if(rs.begin(), rs.end(), [&](auto& q) { return q.output_tokens == v; })),
                100000 / 3.0, 1000);  // σ = √(n·p·(1−p)) = 149
  EXPECT_TRUE(std::all_of(rs.begin(), rs.end(), [](auto& q) { return q.output_tokens >= 5 && q.output_tokens <= 7; }));
  std::nth_element(rs.begin(), rs.begin() + 50000, rs.end(), [](auto& a, auto& b) { return a.prompt_tokens < b.prompt_tokens; });
  EXPECT_NEAR(rs[50000].prompt_tokens, 1000, 20);
  const auto low = drain(*source("{generator: {rate: 100, prompt_tokens: {lognormal: {median: 1, sigma: 3}}, output_tokens: 1}, "
                                 "limit: 1000}"));
  EXPECT_EQ(
      std::min_element(low.begin(), low.end(), [](auto& a, auto& b) { return a.prompt_tokens < b.prompt_tokens; })->prompt_tokens,
      1);
}

// tokens: {trace}: every (prompt, output) pair drawn is a row of the trace, drawn jointly.
TEST(RequestGenerator, ResamplesTokenPairsFromATrace) {
  const auto rows = read_request_trace(RequestTraceFormat::azure_llm_2023, source_path("data/" + kConv));
  std::set<std::pair<int32_t, int32_t>> pairs;
  for (const auto& q : rows) pairs.emplace(q.prompt_tokens, q.output_tokens);
  const auto s = source("{generator: {rate: 5, tokens: {trace: {format: azure-llm-2023, file: " + kConv + "}}}, limit: 2000}");
  const auto rs = drain(*s);
  ASSERT_EQ(rs.size(), 2000u);
  for (const auto& q : rs) EXPECT_TRUE(pairs.contains({q.prompt_tokens, q.output_tokens}));
  double mean_prompt = 0;
  for (const auto& q : rs) mean_prompt += q.prompt_tokens / 2000.0;
  EXPECT_NEAR(mean_prompt, 1155, 75);  // the trace's mean 1,155 (SOURCE.md); 3σ/√2000 ≈ 75 with σ ≈ 1,100 tokens
}

// Bad trace files: the message names the file, the line and the column or key, and what was expected.
TEST(RequestTraceErrors, AzureRows) {
  const std::string header = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
  const std::string ok = "2023-11-16 18:15:46.6805900,374,44\n";
  auto azure_error = [&](const std::string& rows) {
    const auto path = write_file("bad.csv", header + rows);
    return error_of([&] { read_request_trace(RequestTraceFormat::azure_llm_2023, path); });
  };
  std::string e = azure_error(ok + "2023-11-16 18:15:40.0000000,396,109\n");
  EXPECT_NE(e.find("bad.csv:line 3"), std::string::npos) << e;
  EXPECT_NE(e.find("TIMESTAMP"), std::string::npos) << e;
  EXPECT_NE(e.find("arrival order"), std::string::npos) << e;
  e = azure_error(ok + "2023-11-16 18:15:50.0000000,-5,109\n");
  EXPECT_NE(e.find("line 3: column 'ContextTokens': expected an integer in 1..2147483647, got -5"), std::string::npos) << e;
  e = azure_error(ok + "2023-11-16 18:15:50.0000000,5,12.5\n");
  EXPECT_NE(e.find("line 3: column 'GeneratedTokens': expected an integer, got '12.5'"), std::string::npos) << e;
  e = azure_error("2023-11-16 18:15:50.0000000,5,0\n");
  EXPECT_NE(e.find("line 2: column 'GeneratedTokens': expected an integer in 1..2147483647, got 0"), std::string::npos) << e;
  e = azure_error("2023-11-16T18:15:50,5,1\n");
  EXPECT_NE(e.find("line 2: column 'TIMESTAMP': expected YYYY-MM-DD HH:MM:SS.fffffff, got '2023-11-16T18:15:50'"),
            std::string::npos)
      << e;
  e = azure_error("2023-11-16 18:15:50.12345678,5,1\n");  // 8 fractional digits
  EXPECT_NE(e.find("line 2: column 'TIMESTAMP'"), std::string::npos) << e;
  e = azure_error(ok + "2023-11-16 18:15:50.0,5\n");
  EXPECT_NE(e.find("line 3: expected 3 columns as in the header, got 2"), std::string::npos) << e;
  const auto no_column = write_file("nocol.csv", "TIMESTAMP,Context,GeneratedTokens\n" + ok);
  e = error_of([&] { read_request_trace(RequestTraceFormat::azure_llm_2023, no_column); });
  EXPECT_NE(e.find("nocol.csv:line 1: header lacks the required column 'ContextTokens'"), std::string::npos) << e;
}

TEST(RequestTraceErrors, MooncakeLines) {
  const std::string ok = "{\"timestamp\": 1000, \"input_length\": 10, \"output_length\": 2, \"hash_ids\": [0]}\n";
  auto mooncake_error = [&](const std::string& lines) {
    const auto path = write_file("bad.jsonl", lines);
    return error_of([&] { read_request_trace(RequestTraceFormat::mooncake, path); });
  };
  std::string e = mooncake_error(ok + "{\"timestamp\": 999, \"input_length\": 10, \"output_length\": 2}\n");
  EXPECT_NE(e.find("bad.jsonl:line 2: \"timestamp\": 999 ms is earlier than the line before it (1000 ms)"), std::string::npos)
      << e;
  e = mooncake_error(ok + "{\"timestamp\": 1500.5, \"input_length\": 10, \"output_length\": 2}\n");
  EXPECT_NE(e.find("line 2: \"timestamp\": expected an integer, got '1500.5'"), std::string::npos) << e;
  e = mooncake_error(ok + "{\"timestamp\": 2000, \"input_length\": -3, \"output_length\": 2}\n");
  EXPECT_NE(e.find("line 2: \"input_length\": expected an integer in 1..2147483647, got -3"), std::string::npos) << e;
  e = mooncake_error(ok + "{\"timestamp\": 2000, \"input_length\": 3, \"output_length\": 0}\n");
  EXPECT_NE(e.find("line 2: \"output_length\": expected an integer in 1..2147483647, got 0"), std::string::npos) << e;
  e = mooncake_error(ok + "{\"timestamp\": 2000, \"input_length\": 3}\n");
  EXPECT_NE(e.find("line 2: the object has no \"output_length\""), std::string::npos) << e;
  e = mooncake_error(ok + "{\"timestamp\": 2000, \"input_length\": 3, \"output_length\": 1, \"hash_ids\": [1, 2\n");
  EXPECT_NE(e.find("line 2: unterminated list"), std::string::npos) << e;
  e = mooncake_error("timestamp,input_length\n");
  EXPECT_NE(e.find("line 1: expected '{' at column 1"), std::string::npos) << e;
  e = mooncake_error("\n");
  EXPECT_NE(e.find("bad.jsonl: the file has no requests"), std::string::npos) << e;
  e = mooncake_error(ok + "{\"timestamp\": 2000, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [1]}\n");
  EXPECT_NE(e.find("line 2: 1 hash ids for a prompt of 600 tokens: expected ceil(600 / 512) = 2"), std::string::npos) << e;
  e = mooncake_error(ok + "{\"timestamp\": 2000, \"input_length\": 6, \"output_length\": 1}\n");
  EXPECT_NE(e.find("line 2: the object has no \"hash_ids\", which the lines before it have"), std::string::npos) << e;
  e = mooncake_error(ok + "{\"timestamp\": 2000, \"input_length\": 6, \"output_length\": 1, \"hash_ids\": [-1]}\n");
  EXPECT_NE(e.find("line 2: \"hash_ids\": expected whole numbers from 0 to 2^64-1 separated by ','"), std::string::npos) << e;
}

// Bad `requests:` maps: the message names the scenario file, line and field, and what was expected.
// tests/data/gentd26_qps.csv, Generative Requests: 0.5 + 1.5 = 2 at 1662859404 s, 1 at +57 s (the
// other container's None skipped), 3 at +171 s; the step is the smallest gap, 57 s, so [114, 171) s and
// from 228 s on have no sample: rate 0. API Requests: 0.09 at 1662859176 s and 0.18 at +57 s (rows out of
// order). A gzip copy reads the same.
TEST(GenTd26Qps, SumsContainersPerStepWithZeroWhereNoSample) {
  const std::string path = source_path("tests/data/gentd26_qps.csv");
  const auto steps = read_qps_trace(path, "Generative Requests");
  const std::vector<std::pair<double, double>> want{{0, 2}, {57, 1}, {114, 0}, {171, 3}, {228, 0}};
  ASSERT_EQ(steps.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_DOUBLE_EQ(steps[i].start_s, want[i].first) << i;
    EXPECT_DOUBLE_EQ(steps[i].requests_per_s, want[i].second) << i;
  }
  const auto api = read_qps_trace(path, "API Requests");
  ASSERT_EQ(api.size(), 3u);
  EXPECT_DOUBLE_EQ(api[1].start_s, 57);
  EXPECT_DOUBLE_EQ(api[1].requests_per_s, 0.18);
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string gz = write_file("qps.csv.gz", "");
  gzFile out = gzopen(gz.c_str(), "wb");
  gzwrite(out, text.data(), static_cast<unsigned>(text.size()));
  gzclose(out);
  const auto from_gz = read_qps_trace(gz, "Generative Requests");
  ASSERT_EQ(from_gz.size(), steps.size());
  EXPECT_DOUBLE_EQ(from_gz[3].requests_per_s, 3);
  // Truncated gzip data is refused, not read short.
  const std::string cut = write_file("cut.csv.gz", "");
  std::ifstream whole(gz, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(whole)), std::istreambuf_iterator<char>());
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  EXPECT_NE(error_of([&] { read_qps_trace(cut, "Generative Requests"); }).find("not valid gzip data"), std::string::npos);
  // Two gzip streams one after the other are one file (gzip -c a b > c, as gzip reads it); other bytes
  // after the stream are refused, naming where they start (zlib's gzread would ignore them).
  const std::size_t cut_at = text.find('\n', text.size() / 2) + 1;
  const auto gzip_of = [&](const std::string& part) {
    const std::string f = write_file("part.gz", "");
    gzFile o = gzopen(f.c_str(), "wb");
    gzwrite(o, part.data(), static_cast<unsigned>(part.size()));
    gzclose(o);
    std::ifstream back(f, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(back)), std::istreambuf_iterator<char>());
  };
  const std::string first = gzip_of(text.substr(0, cut_at)), second = gzip_of(text.substr(cut_at));
  const std::string two = write_file("two.csv.gz", "");
  std::ofstream(two, std::ios::binary) << first << second;
  const auto from_two = read_qps_trace(two, "Generative Requests");
  ASSERT_EQ(from_two.size(), steps.size());
  EXPECT_DOUBLE_EQ(from_two[3].requests_per_s, 3);
  const std::string trailing = write_file("trailing.csv.gz", "");
  std::ofstream(trailing, std::ios::binary) << bytes << "PK\x03\x04";
  EXPECT_NE(error_of([&] {
              read_qps_trace(trailing, "Generative Requests");
            }).find(fmt::format("bytes after the end of the gzip data (at byte {} of the file)", bytes.size())),
            std::string::npos);
}

// Arrivals along the fixture's steps x 20 (a Poisson process on the piecewise-constant rate):
// [0, 57) s: 2 x 20 x 57 = 2,280 ± 3√2,280 = ±143; [57, 114): 1,140 ± 101; [114, 171): none;
// [171, 228): 3,420 ± 175; none after. The same seed draws the same stream.
TEST(RequestGenerator, RateTraceArrivalsFollowTheQpsSteps) {
  const std::string spec = "{rate_multiplier: 20, generator: {rate_trace: {file: " + source_path("tests/data/gentd26_qps.csv") +
                           "}, prompt_tokens: 1, output_tokens: 1}}";
  const auto s = source(spec);
  const auto rs = drain(*s);
  EXPECT_NEAR(static_cast<double>(count_between(rs, 0, 57)), 2280, 143);
  EXPECT_NEAR(static_cast<double>(count_between(rs, 57, 114)), 1140, 101);
  EXPECT_EQ(count_between(rs, 114, 171), 0);
  EXPECT_NEAR(static_cast<double>(count_between(rs, 171, 228)), 3420, 175);
  EXPECT_LT(rs.back().arrival, Time::from_seconds(228));
  const auto again = drain(*source(spec));
  ASSERT_EQ(again.size(), rs.size());
  EXPECT_TRUE(std::equal(rs.begin(), rs.end(), again.begin(), same));
  EXPECT_EQ(s->describe(), "poisson rate of gentd26_qps.csv Generative Requests x20; tokens 1/1");
  // API Requests, from 57 s for 57 s (window): only the second step, 0.18 x 20 x 57 = 205 ± 43.
  const auto api = drain(*source("{rate_multiplier: 20, window: {start: 57s, duration: 57s}, generator: {rate_trace: {file: " +
                                 source_path("tests/data/gentd26_qps.csv") +
                                 ", request_type: API Requests}, prompt_tokens: 1, output_tokens: 1}}"));
  EXPECT_NEAR(static_cast<double>(api.size()), 205, 43);
}

TEST(RequestSourceErrors, Fields) {
  const std::string conv = "trace: {format: azure-llm-2023, file: " + kConv + "}";
  const std::string tokens = "prompt_tokens: 100, output_tokens: 10";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{rate_multiplier: 2}", "expected either trace: {format, file} (a replay) or generator"},
      {"{" + conv + ", generator: {rate: 1, " + tokens + "}}", "and not both"},
      {"{trace: {format: splitwise, file: x.csv}}", "trace.format: expected azure-llm-2023, mooncake or csv, got 'splitwise'"},
      {"{trace: {format: mooncake, file: nowhere.jsonl}}", "trace.file: trace file 'nowhere.jsonl' not found"},
      {"{trace: {format: azure-llm-2023, file: " + kConv + ", hash_block_tokens: 16}}",
       "trace.hash_block_tokens: the azure-llm-2023 traces have no hash ids"},
      {"{generator: {rate: 1, duration: 10, prompt_tokens: 1, output_tokens: 1, sessions: {turns: 2}}}", "think_time"},
      {"{generator: {rate: 1, duration: 10, prompt_tokens: 1, output_tokens: 1, sessions: {turns: 2, think_time: 0s}}}",
       "generator.sessions.think_time: expected a positive duration"},
      {"{generator: {rate: 1, duration: 10, prompt_tokens: 1, output_tokens: 1, shared_prefix_tokens: 0}}",
       "generator.shared_prefix_tokens"},
      {"{generator: {clients: {users: 4}, rate: 1, duration: 10, prompt_tokens: 1, output_tokens: 1}}",
       "generator.rate: a closed loop of clients sends each request when the last one ends"},
      {"{generator: {clients: {users: 4}, prompt_tokens: 1, output_tokens: 1}, window: {start: 5}}",
       "window: applies to an arrival process; a closed loop of clients has none"},
      {"{generator: {clients: {users: 4}, prompt_tokens: 1, output_tokens: 1}}",
       "generator: expected duration or limit: a closed loop's requests must end"},
      {"{generator: {clients: {users: 0}, prompt_tokens: 1, output_tokens: 1, duration: 10}}", "generator.clients.users"},
      {"{" + conv + ", rate_multipler: 2}", "expected one of"},
      {"{" + conv + ", rate_multiplier: 0}", "rate_multiplier"},
      {"{" + conv + ", window: {start: 2h}}", "window: no request of the trace falls in the window"},
      {"{" + conv + ", window: {duration: 0}}", "window.duration: expected a positive duration"},
      {"{" + conv + ", limit: 0}", "limit"},
      {"{generator: {arrival: gamma, rate: 1, duration: 10, " + tokens + "}}", "generator: arrival: gamma needs cv"},
      {"{generator: {cv: 2, rate: 1, duration: 10, " + tokens + "}}", "generator.cv: cv applies to arrival: gamma"},
      {"{generator: {arrival: weibull, rate: 1, duration: 10, " + tokens + "}}", "generator.arrival: expected poisson or gamma"},
      {"{generator: {duration: 10, " + tokens + "}}", "generator: expected rate (requests per second) or rate_curve"},
      {"{generator: {rate: 1, rate_curve: [[0, 1]], duration: 10, " + tokens + "}}", "generator.rate: give rate or rate_curve"},
      {"{generator: {rate: 0, duration: 10, " + tokens + "}}", "generator.rate"},
      {"{generator: {rate: 1, period: 10, duration: 10, " + tokens + "}}", "generator.period: period repeats a rate_curve"},
      {"{generator: {rate_curve: [[5, 1]], duration: 10, " + tokens + "}}",
       "generator.rate_curve[0][0]: the first point must be at 0 s"},
      {"{generator: {rate_curve: [[0, 1], [20, 2], [10, 3]], duration: 10, " + tokens + "}}",
       "generator.rate_curve[2][0]: expected times in increasing order: 10 s comes after 20 s"},
      {"{generator: {rate_curve: [[0, 1, 2]], duration: 10, " + tokens + "}}",
       "generator.rate_curve[0]: expected a point [seconds, requests per second], got 3 numbers"},
      {"{generator: {rate_curve: [[0, -1]], duration: 10, " + tokens + "}}", "generator.rate_curve"},
      {"{generator: {rate_curve: [[0, 0], [10, 0]], duration: 10, " + tokens + "}}", "the rate is 0 throughout"},
      {"{generator: {rate_curve: [[0, 1], [10, 0]], period: 5, duration: 10, " + tokens + "}}",
       "generator.period: expected a period of at least the curve's last time, 10 s"},
      {"{generator: {rate: 1, " + tokens + "}}", "generator: expected duration (or window.duration, or limit)"},
      {"{generator: {rate: 1, duration: 0, " + tokens + "}}", "generator.duration: expected a positive duration"},
      {"{generator: {rate: 1, duration: 10, prompt_tokens: 100}}", "output_tokens is missing"},
      {"{generator: {rate: 1, duration: 10, prompt_tokens: 0, output_tokens: 1}}",
       "generator.prompt_tokens: expected an integer in 1..2147483647, got 0"},
      {"{generator: {rate: 1, duration: 10, prompt_tokens: 10, output_tokens: {uniform: [10, 5]}}}",
       "generator.output_tokens.uniform: expected lo <= hi, got [10, 5]"},
      {"{generator: {rate: 1, duration: 10, prompt_tokens: 10, output_tokens: {uniform: [10]}}}",
       "generator.output_tokens.uniform: expected [lo, hi], two token counts; got 1 items"},
      {"{generator: {rate: 1, duration: 10, prompt_tokens: 10, output_tokens: {normal: {mean: 3}}}}", "expected one of"},
      {"{generator: {rate: 1, duration: 10, prompt_tokens: {lognormal: {median: 100, sigma: 1}, uniform: [1, 2]}, "
       "output_tokens: 1}}",
       "generator.prompt_tokens: expected a token count, {lognormal: {median, sigma}} or {uniform: [lo, hi]}"},
      {"{generator: {rate: 1, duration: 10, prompt_tokens: {lognormal: {median: 100}}, output_tokens: 1}}", "sigma"},
      {"{generator: {rate: 1, duration: 10, prompt_tokens: 1, tokens: {" + conv + "}}}",
       "generator.prompt_tokens: give tokens (resampled from a trace) or prompt_tokens and output_tokens, not both"},
  };
  for (const auto& [yaml, expected] : cases) {
    const std::string e = source_error(yaml);
    EXPECT_NE(e.find("scenario.yaml:line 1"), std::string::npos) << yaml << " -> " << e;
    EXPECT_NE(e.find(expected), std::string::npos) << yaml << " -> " << e;
  }
}

// A request_type the QPS file lacks names the file and the types it has; a rate_trace beside a rate is refused.
TEST(RequestSourceErrors, RateTrace) {
  const std::string qps = source_path("tests/data/gentd26_qps.csv");
  const std::string e = source_error("{generator: {rate_trace: {file: " + qps +
                                     ", request_type: Batch}, prompt_tokens: 1, output_tokens: 1}}");
  EXPECT_NE(e.find("gentd26_qps.csv"), std::string::npos) << e;
  EXPECT_NE(e.find("request_type 'Batch'"), std::string::npos) << e;
  EXPECT_NE(e.find("API Requests, Generative Requests"), std::string::npos) << e;
  const std::string both = source_error("{generator: {rate: 1, rate_trace: {file: " + qps +
                                        "}, prompt_tokens: 1, output_tokens: 1}}");
  EXPECT_NE(both.find("generator.rate: give one of rate, rate_curve and rate_trace"), std::string::npos) << both;
  const std::string header = source_error("{generator: {rate_trace: {file: " + write_file("q.csv", "time,value\n1,2\n") +
                                          "}, prompt_tokens: 1, output_tokens: 1}}");
  EXPECT_NE(header.find("header lacks the required column 'timestamp_anon'"), std::string::npos) << header;
}

// An error in a trace the generator resamples names that file and line.
TEST(RequestSourceErrors, ResampledTraceRows) {
  const auto path = write_file("pairs.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,-1\n");
  const std::string e = source_error(
      "{generator: {rate: 5, duration: 10, tokens: {trace: {format: azure-llm-2023, file: " + path + "}}}}");
  EXPECT_NE(e.find("pairs.csv:line 2: column 'GeneratedTokens': expected an integer in 1..2147483647, got -1"), std::string::npos)
      << e;
}
