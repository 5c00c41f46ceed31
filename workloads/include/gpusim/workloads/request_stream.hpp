#pragma once
// The requests a service receives (issue 18; docs/serving.md#requests): replayed from an LLM inference trace (Azure LLM
// inference 2023, Mooncake FAST'25) or drawn by a generator (Poisson or Gamma arrivals at a rate,
// along a piecewise-linear rate curve or along the per-service QPS of the Alibaba GenAI 2026 trace; token lengths fixed,
// log-normal, uniform or resampled jointly from a trace). A source is read and checked once; every run opens its own stream,
// which yields the requests in arrival order without holding them all (a 24 h generator at 100 req/s is 8.6 M).
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/core/config.hpp"
#include "gpusim/core/fields.hpp"
#include "gpusim/core/number.hpp"
#include "gpusim/core/time.hpp"

namespace gpusim {

// The highest arrival rate, rate_multiplier applied: 10,000 replicas (service.replicas' bound) at 100
// requests per second each. Every request is simulated one by one, and an overloaded service holds its
// queue: an unbounded rate (1e300) would never end, and past 1e308 it is no number at all.
inline constexpr double kMaxRequestsPerSecond = 1e6;

// Token counts of a request: at least one token (vLLM refuses an empty prompt; every request yields
// its first token), and what an int32 holds. The trace readers and the generators both hold to it.
inline constexpr Range kTokenRange = Range::between(1, std::numeric_limits<int32_t>::max());

// A stretch of a request's tokens named by an id: two requests whose prompts begin with the same
// segments, in the same order, begin with the same tokens (Mooncake's hash_ids: one id per 512-token
// block; a generator's shared system prompt and the turns of a conversation). Ids are 64-bit labels,
// not token content: equal ids mean equal tokens.
struct PromptSegment {
  uint64_t id = 0;
  int32_t tokens = 0;
  bool operator==(const PromptSegment&) const = default;
};

struct InferenceRequest {  // one request to a service
  Time arrival;            // from the start of the run
  int32_t prompt_tokens = 0;
  int32_t output_tokens = 0;  // >= 1
  // What the prompt is made of, when the source knows it (the segments' tokens sum to prompt_tokens);
  // empty: unknown, and the request shares no prefix with any other (no prefix caching).
  std::vector<PromptSegment> content;
  // The id of the output it will generate (0: its own, shared with no later prompt): a conversation's
  // next turn repeats it.
  uint64_t output_id = 0;
};

class RequestStream {  // pull-based: 8.6 M requests never sit in memory at once
 public:
  virtual ~RequestStream() = default;
  virtual std::optional<InferenceRequest> next() = 0;  // in arrival order; nullopt when over
};

// A closed loop of clients, as benchmark tools run them at a fixed concurrency: `users` clients each
// send a request at 0, wait for its end (completed, rejected or given up), think, and send the next;
// none sends at or after `end`. Its stream's requests are the loop's, in sending order, their arrival
// fields unused: the serving component sets them.
struct ClientLoop {
  int32_t users = 0;
  Duration think;
  Time end = Time::max();
};

class RequestSource {  // parsed and checked once at load; opened afresh for every run (same seed -> same stream)
 public:
  virtual ~RequestSource() = default;
  virtual std::unique_ptr<RequestStream> open() const = 0;
  virtual std::string describe() const = 0;  // one line for tables, no commas (CSV cells): "azure-llm-2023 conv.csv x2; 0-3600s"
  // Do its requests carry their content (InferenceRequest::content), so that a replica can cache their prefixes?
  virtual bool has_content() const = 0;
  // A closed loop of clients sends its requests (generator.clients); nullopt: arrivals are the stream's.
  virtual std::optional<ClientLoop> clients() const { return std::nullopt; }
};

// The `requests:` map of a service: `trace: {format, file}` or `generator: {...}`, and the common
// rate_multiplier, window and limit.
const Section& request_source_section();

// Reads and checks `spec` (a `requests:` map), and every file it names, in full. `name` names the
// random streams ("requests/<name>/arrivals", "requests/<name>/tokens") so that one service's draws
// never move another's. Bad input: InputError naming the file and line (a trace row) or the field.
std::shared_ptr<const RequestSource> read_request_source(const ConfigNode& spec, const std::string& data_dir, uint64_t seed,
                                                         std::string_view name);

enum class RequestTraceFormat : uint8_t { azure_llm_2023, mooncake, csv };
constexpr auto enum_table(RequestTraceFormat) {
  return std::to_array<EnumName<RequestTraceFormat>>({{RequestTraceFormat::azure_llm_2023, "azure-llm-2023"},
                                                      {RequestTraceFormat::mooncake, "mooncake"},
                                                      {RequestTraceFormat::csv, "csv"}});
}

// Mooncake's hash_ids name 512-token blocks (its trace README and FAST'25 paper).
inline constexpr int32_t kMooncakeBlockTokens = 512;

// Every row of an LLM request trace, arrivals from its first row (µs; the Azure timestamps' 100 ns
// rounded to the nearest µs), checked: sorted times, whole token counts, prompt and output >= 1.
//   azure-llm-2023: CSV TIMESTAMP ("YYYY-MM-DD HH:MM:SS.fffffff"), ContextTokens, GeneratedTokens
//   mooncake:       JSON lines {"timestamp": ms, "input_length": n, "output_length": n, "hash_ids": [...]}
//   csv:            gpusim's request CSV: arrival_s, prompt_tokens, output_tokens and, optionally,
//                   hash_ids (ids separated by spaces, each naming `hash_block_tokens` tokens of the prompt)
// With hash ids (mooncake; csv with the column), each request's content is one segment per id, of
// `hash_block_tokens` tokens, the last one holding the rest of the prompt: ceil(prompt / block) ids are
// expected.
std::vector<InferenceRequest> read_request_trace(RequestTraceFormat format, const std::string& path,
                                                 int32_t hash_block_tokens = kMooncakeBlockTokens);

// One step of a piecewise-constant request rate: `requests_per_s` from `start_s` to the next step.
struct RateStep {
  double start_s = 0;
  double requests_per_s = 0;
};

// The Alibaba GenAI 2026 (GenTD26) QPS samples (qps.csv, or qps.csv.gz: columns timestamp_anon in s,
// value in QPS, container_ip, request_type, found by name) of one request_type, summed over containers
// per timestamp: a piecewise-constant rate from the first sample's time. Each sum holds for one step,
// the smallest gap between timestamps (the trace's 57 s); where no container reported, and after the
// last step, the rate is 0. Values None, NULL or empty are missing (the trace's README).
std::vector<RateStep> read_qps_trace(const std::string& path, std::string_view request_type);

}  // namespace gpusim
