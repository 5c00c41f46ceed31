#include "gpusim/workloads/request_stream.hpp"

#include <boost/math/distributions/exponential.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/lognormal.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <set>

#include "gpusim/core/error.hpp"
#include "gpusim/core/number.hpp"
#include "gpusim/core/random.hpp"
#include "gpusim/core/utf8.hpp"
#include "gpusim/workloads/csv.hpp"
#include "gpusim/workloads/traces.hpp"

namespace gpusim {

namespace {

// ---------------------------------------------------------------------------------------------------
// Sections

const Section& rate_trace_section() {
  static const Section s{
      "rate_trace",
      "A request rate read from the Alibaba GenAI 2026 (GenTD26) trace's per-container QPS samples",
      {
          {"file", Type::string(), required, "",
           "qps.csv or qps.csv.gz (timestamp_anon,value,container_ip,request_type): beside the scenario file, else in the "
           "data directory, e.g. alibaba-genai-v2026-gentd26/qps.csv.gz"},
          {"request_type", Type::string(), "Generative Requests", "",
           "The samples summed: Generative Requests (per container) or API Requests"},
      }};
  return s;
}

const Section& trace_file_section() {
  static const Section s{"request_trace",
                         "An LLM request trace",
                         {
                             {"format", Type::enumeration<RequestTraceFormat>(), required, "",
                              "azure-llm-2023 (TIMESTAMP,ContextTokens,GeneratedTokens), mooncake (JSON lines: "
                              "timestamp ms, input_length, output_length, hash_ids) or csv (arrival_s,prompt_tokens,"
                              "output_tokens[,hash_ids])"},
                             {"file", Type::string(), required, "",
                              "The file: beside the scenario file, else in the data directory (--data, GPUSIM_DATA)"},
                             {"hash_block_tokens", Type::int32().at_least(1).at_most(1 << 20), "512", "tokens",
                              "Tokens each hash id names (mooncake, csv's hash_ids): Mooncake's 512"},
                         }};
  return s;
}

const Section& window_section() {
  static const Section s{"request_window",
                         "The part of the requests' time kept, its start becoming time 0",
                         {
                             {"start", Type::duration(), "0", "", "Where it starts (a trace: in the trace's own time)"},
                             {"duration", Type::duration(), "", "", "How long it lasts; absent: to the end"},
                         }};
  return s;
}

const Section& lognormal_tokens_section() {
  static const Section s{
      "lognormal_tokens",
      "Log-normally distributed token counts, rounded to whole tokens",
      {
          {"median", Type::number().above(0), required, "tokens", "Their median"},
          {"sigma", Type::number().above(0).at_most(10), required, "", "Standard deviation of their logarithm"},
      }};
  return s;
}

const Section& token_distribution_section() {
  static const Section s{
      "token_distribution",
      "A distribution of token counts: one of lognormal and uniform",
      {
          {"lognormal", Type::section(lognormal_tokens_section()), "", "", "{median, sigma}"},
          {"uniform", Type::list(Type::int32().at_least(1)), "", "tokens", "[lo, hi]: every count from lo to hi equally likely"},
      }};
  return s;
}

Type token_distribution_type() { return Type::one_of({Type::int32().at_least(1), Type::section(token_distribution_section())}); }

const Section& token_resample_section() {
  static const Section s{"request_tokens",
                         "Token counts resampled from a trace: (prompt, output) pairs drawn jointly, uniformly over its rows",
                         {{"trace", Type::section(trace_file_section()), required, "", "The trace"}}};
  return s;
}

const Section& sessions_section() {
  static const Section s{
      "request_sessions",
      "Multi-turn conversations (open loop): a turn's prompt is the previous turn's prompt, its output and a new "
      "message of prompt_tokens; the next turn arrives think_time after the previous one arrived",
      {
          {"turns", token_distribution_type(), required, "", "Turns per session: a count, {lognormal} or {uniform: [lo, hi]}"},
          {"think_time", Type::duration(), required, "", "From a turn's arrival to the next turn's"},
      }};
  return s;
}

const Section& clients_section() {
  static const Section s{
      "request_clients",
      "A closed loop of clients: each sends a request at 0, waits for it to end (completed, rejected or given up), "
      "waits think_time, and sends the next; none sends at or after duration",
      {
          {"users", Type::int32().at_least(1).at_most(1'000'000), required, "", "Clients, each with one request at a time"},
          {"think_time", Type::duration(), "0s", "", "From the end of a client's request to its next"},
      }};
  return s;
}

enum class ArrivalProcess : uint8_t { poisson, gamma };
constexpr auto enum_table(ArrivalProcess) {
  return std::to_array<EnumName<ArrivalProcess>>({{ArrivalProcess::poisson, "poisson"}, {ArrivalProcess::gamma, "gamma"}});
}

const Section& request_generator_section() {
  static const Section s{
      "request_generator",
      "Synthetic requests drawn from seeded streams",
      {
          {"arrival", Type::enumeration<ArrivalProcess>(), "poisson", "",
           "poisson (exponential gaps) or gamma (Gamma gaps with coefficient of variation cv)"},
          {"rate", Type::number().above(0), "", "requests per second", "A constant arrival rate (or rate_curve)"},
          {"cv", Type::number().at_least(0.01).at_most(100), "", "",
           "gamma: the gaps' coefficient of variation (1 is Poisson; the Azure code trace is about 13; near 0, "
           "nearly regular gaps)"},
          {"rate_trace", Type::section(rate_trace_section()), "", "",
           "Instead of rate or rate_curve: the piecewise-constant rate of a QPS trace (GenTD26), from its first sample; "
           "its scale is anonymised: set rate_multiplier"},
          {"rate_curve", Type::list(Type::list(Type::number().at_least(0))), "", "[seconds, requests per second]",
           "A piecewise-linear rate through [time, rate] points, the first at 0 (or rate); after the last point the rate "
           "stays, unless period is given"},
          {"period", Type::duration(), "", "",
           "rate_curve repeats with this period, closing linearly from its last point back to its first rate"},
          {"duration", Type::duration(), "", "", "Requests arrive during this time from 0; absent: window or limit ends them"},
          {"prompt_tokens", token_distribution_type(), "", "tokens",
           "Prompt length: a count, {lognormal: {median, sigma}} or {uniform: [lo, hi]}; draws below 1 become 1"},
          {"output_tokens", token_distribution_type(), "", "tokens", "Output length, as prompt_tokens"},
          {"tokens", Type::section(token_resample_section()), "", "",
           "Instead of prompt_tokens and output_tokens: pairs resampled from a trace"},
          {"shared_prefix_tokens", Type::int32().at_least(1).at_most(1 << 20), "", "tokens",
           "Every prompt starts with the same system prompt of this many tokens (added to prompt_tokens): a cacheable "
           "prefix"},
          {"sessions", Type::section(sessions_section()), "", "",
           "Multi-turn conversations: each arrival starts a session whose later turns repeat the conversation so far"},
          {"clients", Type::section(clients_section()), "", "",
           "Instead of an arrival process: a closed loop of users, each sending its next request when its last one ends "
           "(benchmark tools' concurrency)"},
      }};
  return s;
}

// ---------------------------------------------------------------------------------------------------
// Generator pieces

// λ(t), piecewise linear through points, and the inverse of its integral Λ(t) = ∫0^t λ: unit-rate
// arrival times s map to t = Λ⁻¹(s) (time rescaling), which is exact and draws nothing more, unlike
// thinning (docs/serving.md#requests).
struct RateCurve {
  std::vector<double> t_s, rate, cum;  // the points, and cum[i] = Λ(t_s[i]); periodic: closed at the period
  double period_s = 0;                 // 0: not periodic, the last rate holds after the last point
  bool steps = false;                  // piecewise constant instead: rate[i] holds until t_s[i + 1]

  void finish() {
    cum.assign(t_s.size(), 0.0);
    for (std::size_t i = 1; i < t_s.size(); ++i)
      cum[i] = cum[i - 1] + (steps ? rate[i - 1] : (rate[i - 1] + rate[i]) / 2) * (t_s[i] - t_s[i - 1]);
  }
  // The time t with Λ(t) = s; infinity when Λ never reaches s.
  double inverse(double s) const {
    double base_t = 0;
    if (period_s > 0) {  // cum.back() = Λ(period) > 0, checked at load
      const double cycles = std::floor(s / cum.back());
      base_t = cycles * period_s;
      // Rounding may put s a hair outside [0, Λ(period)): the cycle's ends are the same instants.
      s = std::clamp(s - cycles * cum.back(), 0.0, cum.back());
    }
    const auto after = std::upper_bound(cum.begin(), cum.end(), s);
    const std::size_t i = after == cum.begin() ? 0 : static_cast<std::size_t>(after - cum.begin()) - 1;
    const double a = s - cum[i];
    if (i + 1 == t_s.size()) {
      if (period_s > 0) return base_t + period_s;
      return rate[i] > 0 ? t_s[i] + a / rate[i] : std::numeric_limits<double>::infinity();
    }
    // Λ(t_i + x) − Λ(t_i) = r0 x + k x² / 2 with k the slope; the root in the form stable for k → 0 and k < 0.
    const double r0 = rate[i], k = steps ? 0 : (rate[i + 1] - rate[i]) / (t_s[i + 1] - t_s[i]);
    const double x = 2 * a / (r0 + std::sqrt(std::max(0.0, r0 * r0 + 2 * k * a)));
    return base_t + t_s[i] + std::min(x, t_s[i + 1] - t_s[i]);
  }
};

struct TokenDistribution {
  enum class Kind : uint8_t { fixed, lognormal, uniform } kind = Kind::fixed;
  double a = 1, b = 0;  // fixed: count; lognormal: median, sigma; uniform: lo, hi
  int32_t sample(Rng& rng) const {
    const double p = uniform01(rng);
    double v = a;
    if (kind == Kind::lognormal) v = std::round(boost::math::quantile(boost::math::lognormal_distribution<>(std::log(a), b), p));
    if (kind == Kind::uniform) v = a + std::floor(p * (b - a + 1));
    return static_cast<int32_t>(std::clamp(v, 1.0, kTokenRange.maximum->value));
  }
  std::string describe() const {
    switch (kind) {
      case Kind::fixed: return fmt::format("{:g}", a);
      case Kind::lognormal: return fmt::format("lognormal(median {:g} sigma {:g})", a, b);
      case Kind::uniform: return fmt::format("uniform({:g}-{:g})", a, b);
    }
    return {};
  }
};

TokenDistribution read_token_distribution(const ConfigNode& node) {
  if (node.is_scalar()) return {TokenDistribution::Kind::fixed, static_cast<double>(node.as_int<int32_t>(kTokenRange)), 0};
  const Fields d = token_distribution_section().read(node);
  const auto lognormal = d.get("lognormal");
  const auto uniform = d.get("uniform");
  if (lognormal.has_value() == uniform.has_value())
    d.fail("expected a token count, {lognormal: {median, sigma}} or {uniform: [lo, hi]}");
  if (lognormal) {
    const Fields l = lognormal_tokens_section().read(*lognormal);
    return {TokenDistribution::Kind::lognormal, l.number("median"), l.number("sigma")};
  }
  const auto items = uniform->items();
  if (items.size() != 2) uniform->fail(fmt::format("expected [lo, hi], two token counts; got {} items", items.size()));
  const double lo = static_cast<double>(items[0].as_int<int32_t>(kTokenRange));
  const double hi = static_cast<double>(items[1].as_int<int32_t>(kTokenRange));
  if (hi < lo) uniform->fail(fmt::format("expected lo <= hi, got [{:g}, {:g}]", lo, hi));
  return {TokenDistribution::Kind::uniform, lo, hi};
}

RateCurve read_rate_curve(const Fields& g, double multiplier, const std::string& data_dir) {
  RateCurve c;
  if (auto t = g.get("rate_trace")) {
    for (std::string_view k : {"rate", "rate_curve", "period"})
      if (g.has(k)) g.at(k).fail("give one of rate, rate_curve and rate_trace");
    const Fields f = rate_trace_section().read(*t);
    const std::string path = data_path(f.at("file"), data_dir);
    for (const RateStep& s : read_qps_trace(path, f.value("request_type").as_string())) {
      if (s.requests_per_s * multiplier > kMaxRequestsPerSecond)
        g.at("rate_trace")
            .fail(fmt::format("{} at {:g} s: {:g} requests per second with rate_multiplier {:g}: expected at most {:g}", path,
                              s.start_s, s.requests_per_s * multiplier, multiplier, kMaxRequestsPerSecond));
      c.t_s.push_back(s.start_s);
      c.rate.push_back(s.requests_per_s * multiplier);
    }
    c.steps = true;
    c.finish();
    if (c.cum.back() == 0) t->fail(fmt::format("the rate of {} is 0 throughout: no request would arrive", path));
    return c;
  }
  if (auto r = g.get("rate")) {
    if (g.has("rate_curve")) r->fail("give rate or rate_curve, not both");
    if (g.has("period")) g.at("period").fail("period repeats a rate_curve: a constant rate has none");
    c.t_s = {0};
    c.rate = {g.number("rate") * multiplier};
    if (c.rate[0] > kMaxRequestsPerSecond)
      r->fail(fmt::format("expected at most {:g} requests per second (rate_multiplier {:g} applied), got {:g}",
                          kMaxRequestsPerSecond, multiplier, c.rate[0]));
    c.finish();
    return c;
  }
  const auto curve = g.get("rate_curve");
  if (!curve) g.fail("expected rate (requests per second) or rate_curve ([[seconds, requests per second], ...])");
  const auto points = curve->items();
  if (points.empty()) curve->fail("expected at least one [seconds, requests per second] point");
  for (const ConfigNode& p : points) {
    const auto xy = p.items();
    if (xy.size() != 2) p.fail(fmt::format("expected a point [seconds, requests per second], got {} numbers", xy.size()));
    const double t = xy[0].as_number(g.range("rate_curve")), rate = xy[1].as_number(g.range("rate_curve"));
    if (c.t_s.empty() && t != 0) xy[0].fail(fmt::format("the first point must be at 0 s, got {:g}", t));
    if (!c.t_s.empty() && t <= c.t_s.back())
      xy[0].fail(fmt::format("expected times in increasing order: {:g} s comes after {:g} s", t, c.t_s.back()));
    if (!kSpanSeconds.contains(t)) xy[0].fail(fmt::format("expected a time within {}", kMaxSpanText));
    if (rate * multiplier > kMaxRequestsPerSecond)
      xy[1].fail(fmt::format("expected at most {:g} requests per second (rate_multiplier {:g} applied), got {:g}",
                             kMaxRequestsPerSecond, multiplier, rate * multiplier));
    c.t_s.push_back(t);
    c.rate.push_back(rate * multiplier);
  }
  if (auto p = g.get("period")) {
    c.period_s = p->as_duration().seconds();
    if (c.period_s < c.t_s.back())
      p->fail(fmt::format("expected a period of at least the curve's last time, {:g} s", c.t_s.back()));
    if (c.period_s > c.t_s.back()) {  // closes the cycle back to the first rate
      c.t_s.push_back(c.period_s);
      c.rate.push_back(c.rate.front());
    }
  }
  c.finish();
  if (c.cum.back() == 0 && (c.period_s > 0 || c.rate.back() == 0))
    curve->fail("the rate is 0 throughout: no request would arrive");
  return c;
}

// ---------------------------------------------------------------------------------------------------
// Sources and streams

struct Common {
  double rate_multiplier = 1;
  Time window_start;
  std::optional<Time> window_end;  // absent: no end
  std::optional<int64_t> limit;

  std::string describe() const {
    std::string out;
    if (rate_multiplier != 1) out += fmt::format(" x{:g}", rate_multiplier);
    if (window_end) out += fmt::format("; {:g}-{:g}s", window_start.seconds(), window_end->seconds());
    else if (window_start > Time()) out += fmt::format("; from {:g}s", window_start.seconds());
    if (limit) out += fmt::format("; first {}", *limit);
    return out;
  }
};

using Rows = std::shared_ptr<const std::vector<InferenceRequest>>;

class TraceStream final : public RequestStream {
 public:
  TraceStream(Rows rows, const Common& c) : rows_(std::move(rows)), c_(c) {
    i_ = static_cast<std::size_t>(std::lower_bound(rows_->begin(), rows_->end(), c.window_start,
                                                   [](const InferenceRequest& q, Time t) { return q.arrival < t; }) -
                                  rows_->begin());
  }
  std::optional<InferenceRequest> next() override {
    if (i_ == rows_->size() || (c_.limit && emitted_ == *c_.limit)) return std::nullopt;
    InferenceRequest q = (*rows_)[i_++];
    if (c_.window_end && q.arrival >= *c_.window_end) return std::nullopt;
    // Gaps scaled by 1/m: the times from the window's start are.
    q.arrival = Time::from_us(std::llround(static_cast<double>((q.arrival - c_.window_start).us()) / c_.rate_multiplier));
    ++emitted_;
    return q;
  }

 private:
  Rows rows_;
  Common c_;
  std::size_t i_ = 0;
  int64_t emitted_ = 0;
};

class TraceSource final : public RequestSource {
 public:
  TraceSource(Rows rows, Common c, std::string label) : rows_(std::move(rows)), c_(c), label_(std::move(label)) {}
  std::unique_ptr<RequestStream> open() const override { return std::make_unique<TraceStream>(rows_, c_); }
  std::string describe() const override { return label_ + c_.describe(); }
  bool has_content() const override { return !rows_->front().content.empty(); }

 private:
  Rows rows_;
  Common c_;
  std::string label_;
};

struct Generator {
  ArrivalProcess arrival = ArrivalProcess::poisson;
  double cv = 1;
  RateCurve curve;   // the rate_multiplier applied
  double end_s = 0;  // no arrival at or after this time (before the window)
  TokenDistribution prompt, output;
  Rows pairs;  // tokens resampled from a trace instead, when not null
  int32_t shared_prefix_tokens = 0;
  std::optional<ClientLoop> clients;       // a closed loop sends the requests instead of an arrival process
  std::optional<TokenDistribution> turns;  // sessions: turns per session
  Duration think;                          // sessions: from a turn's arrival to the next's
  uint64_t arrivals_seed = 0, tokens_seed = 0, sessions_seed = 0, content_seed = 0;
  std::string label, tokens_label;  // "gamma cv 2 10 req/s for 3600s", "tokens 1000/200"
  bool has_content() const { return shared_prefix_tokens > 0 || turns.has_value(); }
};

class GeneratorStream final : public RequestStream {
 public:
  GeneratorStream(std::shared_ptr<const Generator> g, const Common& c)
      : g_(std::move(g)),
        c_(c),
        arrivals_(g_->arrivals_seed),
        tokens_(g_->tokens_seed),
        turns_rng_(g_->sessions_seed),
        gamma_(1 / (g_->cv * g_->cv), g_->cv * g_->cv) {}

  std::optional<InferenceRequest> next() override {
    if (g_->clients) {  // the loop decides when: tokens only
      if (c_.limit && emitted_ == *c_.limit) return std::nullopt;
      InferenceRequest q;
      draw(q, std::nullopt, Time());
      ++emitted_;
      return q;
    }
    while (!(c_.limit && emitted_ == *c_.limit)) {
      std::optional<Time> at = next_start();
      // A session's next turn goes first when it is due no later than the next session starts.
      const bool turn = !pending_.empty() && (!at || pending_.top().at <= *at);
      if (turn) at = pending_.top().at;
      if (!at) break;
      if (turn && at->seconds() >= g_->end_s) {  // nothing arrives at or after the end: the sessions under way stop
        pending_ = {};
        continue;
      }
      InferenceRequest q;
      if (turn) {
        const uint32_t session = pending_.top().session;
        pending_.pop();
        draw(q, session, *at);
      } else {
        start_ = std::nullopt;
        draw(q, std::nullopt, *at);
      }
      if (*at < c_.window_start) continue;
      q.arrival = std::max(last_, Time() + (*at - c_.window_start));  // rounding never reorders
      last_ = q.arrival;
      ++emitted_;
      return q;
    }
    return std::nullopt;
  }

 private:
  struct Session {
    int64_t turns_left = 0;
    std::vector<PromptSegment> history;  // the conversation so far: messages and outputs
  };
  struct Pending {  // a session's next turn
    Time at;
    uint64_t seq = 0;
    uint32_t session = 0;
    bool operator>(const Pending& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };

  // When the next session (or request, without sessions) starts; nullopt once no more will.
  std::optional<Time> next_start() {
    if (start_ || done_) return start_;
    // A unit-rate renewal process: mean gap 1 (Gamma: shape 1/cv², scale cv²).
    const double u = uniform01(arrivals_);
    s_ += g_->arrival == ArrivalProcess::poisson ? boost::math::quantile(exp1_, u) : boost::math::quantile(gamma_, u);
    const double t_s = g_->curve.inverse(s_);
    if (!(t_s < g_->end_s)) {
      done_ = true;  // past the end: the unit-rate clock only grows
      return std::nullopt;
    }
    start_ = Time() + Duration::from_seconds(t_s, Round::nearest);
    return start_;
  }

  // The request's tokens, and its content when the generator gives it: `session` is a session's next
  // turn, nullopt a new session's first (or a lone request); `at` is when it arrives. Tokens are drawn
  // for requests before the window too, so that a window cuts the same stream.
  void draw(InferenceRequest& q, std::optional<uint32_t> session, Time at) {
    if (g_->pairs) {
      const auto& pairs = *g_->pairs;
      const auto k = std::min(pairs.size() - 1, static_cast<std::size_t>(uniform01(tokens_) * static_cast<double>(pairs.size())));
      q.prompt_tokens = pairs[k].prompt_tokens;
      q.output_tokens = pairs[k].output_tokens;
    } else {
      q.prompt_tokens = g_->prompt.sample(tokens_);
      q.output_tokens = g_->output.sample(tokens_);
    }
    if (!g_->has_content()) return;
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    const int64_t system = g_->shared_prefix_tokens;
    // The new message and the output: labels no other request has.
    const uint64_t n = requests_++;
    const PromptSegment message{mix64(g_->content_seed, 2 * n),
                                static_cast<int32_t>(std::min<int64_t>(q.prompt_tokens, kMax - system))};
    q.output_id = mix64(g_->content_seed, 2 * n + 1);
    int64_t prompt = system + message.tokens;
    if (system > 0) q.content.push_back({mix64(g_->content_seed, kSystemPrompt), g_->shared_prefix_tokens});
    if (g_->turns) {
      if (!session) {  // a new session, its number of turns drawn from its own stream
        if (free_.empty()) {
          session = static_cast<uint32_t>(sessions_.size());
          sessions_.emplace_back();
        } else {
          session = free_.back();
          free_.pop_back();
        }
        Session& s = sessions_[*session];
        s.turns_left = g_->turns->sample(turns_rng_);
        s.history.clear();
      }
      Session& s = sessions_[*session];
      for (const PromptSegment& seg : s.history) {
        if (prompt + seg.tokens > kMax) break;  // a conversation past 2^31 tokens stops growing
        q.content.push_back(seg);
        prompt += seg.tokens;
      }
      s.history.push_back(message);
      s.history.push_back({q.output_id, q.output_tokens});
      if (--s.turns_left > 0) pending_.push({at + g_->think, seq_++, *session});
      else free_.push_back(*session);
    }
    q.content.push_back(message);
    q.prompt_tokens = static_cast<int32_t>(prompt);
  }

  static constexpr uint64_t kSystemPrompt = ~uint64_t{0};
  std::shared_ptr<const Generator> g_;
  Common c_;
  Rng arrivals_, tokens_, turns_rng_;
  boost::math::exponential_distribution<> exp1_{1.0};
  boost::math::gamma_distribution<> gamma_;
  double s_ = 0;               // Λ of the last start: unit-rate time
  std::optional<Time> start_;  // the next start, drawn
  std::vector<Session> sessions_;
  std::vector<uint32_t> free_;  // sessions over, their slots to reuse
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_;
  uint64_t seq_ = 0, requests_ = 0;
  Time last_;
  int64_t emitted_ = 0;
  bool done_ = false;
};

class GeneratorSource final : public RequestSource {
 public:
  GeneratorSource(std::shared_ptr<const Generator> g, Common c) : g_(std::move(g)), c_(c) {}
  std::unique_ptr<RequestStream> open() const override { return std::make_unique<GeneratorStream>(g_, c_); }
  std::string describe() const override { return fmt::format("{}{}; {}", g_->label, c_.describe(), g_->tokens_label); }
  bool has_content() const override { return g_->has_content(); }
  std::optional<ClientLoop> clients() const override { return g_->clients; }

 private:
  std::shared_ptr<const Generator> g_;
  Common c_;
};

struct TraceRef {
  Rows rows;
  std::string label;  // "azure-llm-2023 AzureLLMInferenceTrace_conv.csv"
};

TraceRef read_trace_ref(const ConfigNode& node, const std::string& data_dir) {
  const Fields t = trace_file_section().read(node);
  const auto format = t.at("format").as_enum<RequestTraceFormat>(" or ");
  if (t.has("hash_block_tokens") && format == RequestTraceFormat::azure_llm_2023)
    t.at("hash_block_tokens").fail("the azure-llm-2023 traces have no hash ids");
  const std::string path = data_path(t.at("file"), data_dir);
  return {std::make_shared<const std::vector<InferenceRequest>>(
              read_request_trace(format, path, t.integer<int32_t>("hash_block_tokens"))),
          fmt::format("{} {}", to_string(format), std::filesystem::path(path).filename().string())};
}

}  // namespace

const Section& request_source_section() {
  static const Section s{
      "requests",
      "The requests a service receives: a trace replayed, or a generator",
      {
          {"trace", Type::section(trace_file_section()), "", "", "Replay this trace (arrivals from its first request)"},
          {"generator", Type::section(request_generator_section()), "", "", "Draw requests instead"},
          {"rate_multiplier", Type::number().above(0).at_most(1e6), "1", "",
           "Load factor: a trace's gaps are divided by it, a generator's rate multiplied"},
          {"window", Type::section(window_section()), "", "", "Keep only this part of the time, its start becoming 0"},
          {"limit", Type::integer().at_least(1), "", "", "Keep the first N requests"},
      }};
  return s;
}

std::shared_ptr<const RequestSource> read_request_source(const ConfigNode& spec, const std::string& data_dir, uint64_t seed,
                                                         std::string_view name) {
  const Fields f = request_source_section().read(spec);
  Common c;
  c.rate_multiplier = f.number("rate_multiplier");
  if (auto w = f.get("window")) {
    const Fields wf = window_section().read(*w);
    c.window_start = Time() + wf.value("start").as_duration();
    if (auto d = wf.get("duration")) {
      if (d->as_duration() <= Duration()) d->fail("expected a positive duration");
      c.window_end = c.window_start + d->as_duration();
    }
  }
  if (auto l = f.get("limit")) c.limit = l->as_int(f.range("limit"));
  const auto trace = f.get("trace");
  const auto generator = f.get("generator");
  if (trace.has_value() == generator.has_value())
    f.fail("expected either trace: {format, file} (a replay) or generator: {arrival, rate, ...}, and not both");

  if (trace) {
    TraceRef t = read_trace_ref(*trace, data_dir);
    const auto& rows = *t.rows;
    const bool kept = rows.back().arrival >= c.window_start && (!c.window_end || rows.front().arrival < *c.window_end);
    if (!kept)
      f.at("window").fail(fmt::format("no request of the trace falls in the window; its requests arrive from 0 to {:g} s",
                                      rows.back().arrival.seconds()));
    return std::make_shared<TraceSource>(std::move(t.rows), c, t.label);
  }

  const Fields g = request_generator_section().read(*generator);
  auto gen = std::make_shared<Generator>();
  if (auto loop = g.get("clients")) {
    for (std::string_view k : {"arrival", "rate", "cv", "rate_curve", "rate_trace", "period", "sessions"})
      if (g.has(k))
        g.at(k).fail("a closed loop of clients sends each request when the last one ends: give clients or an "
                     "arrival process, not both");
    for (std::string_view k : {"window", "rate_multiplier"})
      if (f.has(k)) f.at(k).fail("applies to an arrival process; a closed loop of clients has none");
    const Fields l = clients_section().read(*loop);
    ClientLoop cl{l.integer<int32_t>("users"), l.value("think_time").as_duration(), Time::max()};
    if (cl.think < Duration()) l.at("think_time").fail("expected a duration of 0 or more");
    if (auto d = g.get("duration")) {
      if (d->as_duration() <= Duration()) d->fail("expected a positive duration");
      cl.end = Time() + d->as_duration();
    }
    if (!g.has("duration") && !c.limit) g.fail("expected duration or limit: a closed loop's requests must end");
    gen->clients = cl;
    gen->label = fmt::format("closed loop of {} users, think {:g}s{}", cl.users, cl.think.seconds(),
                             g.has("duration") ? fmt::format(" for {:g}s", (cl.end - Time()).seconds()) : "");
  }
  gen->arrival = g.value("arrival").as_enum<ArrivalProcess>(" or ");
  if (auto cv = g.get("cv")) {
    if (gen->arrival != ArrivalProcess::gamma) cv->fail("cv applies to arrival: gamma (Poisson gaps have cv 1)");
    gen->cv = g.number("cv");
  } else if (gen->arrival == ArrivalProcess::gamma) {
    g.fail("arrival: gamma needs cv, the gaps' coefficient of variation");
  }
  if (!gen->clients) {
    gen->curve = read_rate_curve(g, c.rate_multiplier, data_dir);
    gen->end_s = kSpanSeconds.maximum->value;
    if (auto d = g.get("duration")) {
      if (d->as_duration() <= Duration()) d->fail("expected a positive duration");
      gen->end_s = d->as_duration().seconds();
    }
    if (c.window_end) gen->end_s = std::min(gen->end_s, c.window_end->seconds());
    if (!g.has("duration") && !c.window_end && !c.limit && !g.has("rate_trace"))
      g.fail("expected duration (or window.duration, or limit): a generator's requests must end");
  }
  if (auto tokens = g.get("tokens")) {
    for (std::string_view k : {"prompt_tokens", "output_tokens"})
      if (g.has(k)) g.at(k).fail("give tokens (resampled from a trace) or prompt_tokens and output_tokens, not both");
    TraceRef t = read_trace_ref(token_resample_section().read(*tokens).at("trace"), data_dir);
    gen->pairs = std::move(t.rows);
  } else {
    if (!g.has("prompt_tokens") || !g.has("output_tokens"))
      g.fail(fmt::format("expected prompt_tokens and output_tokens (a count, {{lognormal: {{median, sigma}}}} or {{uniform: "
                         "[lo, hi]}}), or tokens: {{trace: {{format, file}}}}; {} is missing",
                         g.has("prompt_tokens") ? "output_tokens" : "prompt_tokens"));
    gen->prompt = read_token_distribution(g.at("prompt_tokens"));
    gen->output = read_token_distribution(g.at("output_tokens"));
  }
  if (g.has("shared_prefix_tokens")) gen->shared_prefix_tokens = g.integer<int32_t>("shared_prefix_tokens");
  if (auto sessions = g.get("sessions")) {
    const Fields ss = sessions_section().read(*sessions);
    gen->turns = read_token_distribution(ss.at("turns"));
    gen->think = ss.at("think_time").as_duration();
    if (gen->think <= Duration()) ss.at("think_time").fail("expected a positive duration");
  }
  const std::string stream = fmt::format("requests/{}/", name);
  gen->arrivals_seed = stream_seed(seed, stream + "arrivals");
  gen->tokens_seed = stream_seed(seed, stream + "tokens");
  gen->sessions_seed = stream_seed(seed, stream + "sessions");
  gen->content_seed = stream_seed(seed, stream + "content");
  if (!gen->clients) {
    const RateCurve& rc = gen->curve;
    std::string rate = rc.t_s.size() == 1 ? fmt::format("{:g} req/s", rc.rate[0] / c.rate_multiplier) : "rate curve";
    if (auto t = g.get("rate_trace")) {
      const Fields r = rate_trace_section().read(*t);
      rate = fmt::format("rate of {} {}", std::filesystem::path(r.at("file").as_string()).filename().string(),
                         r.value("request_type").as_string());
    }
    gen->label = fmt::format("{}{} {}", to_string(gen->arrival),
                             gen->arrival == ArrivalProcess::gamma ? fmt::format(" cv {:g}", gen->cv) : "", rate);
    if (rc.period_s > 0) gen->label += fmt::format(" every {:g}s", rc.period_s);
    if (g.has("duration")) gen->label += fmt::format(" for {:g}s", g.at("duration").as_duration().seconds());
  }
  gen->tokens_label = gen->pairs ? "tokens resampled"
                                 : fmt::format("tokens {}/{}", gen->prompt.describe(), gen->output.describe());
  if (gen->shared_prefix_tokens > 0) gen->tokens_label += fmt::format("; shared prefix {}", gen->shared_prefix_tokens);
  if (gen->turns)
    gen->tokens_label += fmt::format("; sessions of {} turns {:g}s apart", gen->turns->describe(), gen->think.seconds());
  return std::make_shared<GeneratorSource>(std::move(gen), c);
}

}  // namespace gpusim
