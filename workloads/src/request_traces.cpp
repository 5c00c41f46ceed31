// The request trace readers (request_stream.hpp): the Azure LLM inference traces, Mooncake's JSON lines,
// gpusim's request CSV and the Alibaba GenAI per-service request rates.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gpusim/core/error.hpp"
#include "gpusim/core/number.hpp"
#include "gpusim/core/utf8.hpp"
#include "gpusim/workloads/csv.hpp"
#include "gpusim/workloads/request_stream.hpp"
#include "gpusim/workloads/traces.hpp"

namespace gpusim {

namespace {

// µs since 1970 of "YYYY-MM-DD HH:MM:SS[.f…]" with up to 7 fractional digits (the Azure traces write
// 7: 100 ns), rounded to the nearest µs; nullopt if malformed.
std::optional<int64_t> parse_azure_timestamp(std::string_view t) {
  const auto seconds = parse_timestamp(t.substr(0, 19));
  if (!seconds) return std::nullopt;
  int64_t ticks_100ns = 0;  // the fraction in 100 ns
  if (t.size() > 19) {
    const std::string_view frac = t.substr(20);
    if (t[19] != '.' || frac.empty() || frac.size() > 7) return std::nullopt;
    for (char c : frac) {
      if (c < '0' || c > '9') return std::nullopt;
      ticks_100ns = ticks_100ns * 10 + (c - '0');
    }
    for (std::size_t i = frac.size(); i < 7; ++i) ticks_100ns *= 10;
  }
  return *seconds * 1'000'000 + (ticks_100ns + 5) / 10;
}

std::vector<InferenceRequest> read_azure(const std::string& path) {
  csv::Reader r(path);
  std::vector<std::string_view> f;
  const std::string_view header = "TIMESTAMP,ContextTokens,GeneratedTokens";
  const std::size_t width = r.header(f, header);
  const std::size_t c_time = r.column(f, "TIMESTAMP", header), c_prompt = r.column(f, "ContextTokens", header),
                    c_output = r.column(f, "GeneratedTokens", header);
  std::vector<InferenceRequest> rows;
  int64_t first_us = 0, last_us = 0;
  while (r.next(f)) {
    r.check_width(f, width);
    const auto us = parse_azure_timestamp(f[c_time]);
    if (!us) r.fail(fmt::format("column 'TIMESTAMP': expected YYYY-MM-DD HH:MM:SS.fffffff, got '{}'", f[c_time]));
    if (rows.empty()) first_us = *us;
    else if (*us < last_us)
      r.fail(fmt::format("column 'TIMESTAMP': {} is earlier than the row before it: rows must be in arrival order", f[c_time]));
    last_us = *us;
    if (!kSpanSeconds.contains(static_cast<double>(*us - first_us) / 1e6))
      r.fail(fmt::format("column 'TIMESTAMP': {} is past {} after the first row", f[c_time], kMaxSpanText));
    InferenceRequest& q = rows.emplace_back();
    q.arrival = Time::from_us(*us - first_us);
    q.prompt_tokens = r.integer<int32_t>(f[c_prompt], "ContextTokens", kTokenRange);
    q.output_tokens = r.integer<int32_t>(f[c_output], "GeneratedTokens", kTokenRange);
  }
  return rows;
}

// One line of a Mooncake trace: a flat JSON object whose numbers are read by key (the text of the
// number, checked by the caller); other values (the hash_ids list, strings) are skipped.
class JsonLine {
 public:
  JsonLine(std::string_view line, const std::function<void(const std::string&)>& fail) : s_(line), fail_(fail) {
    ws();
    expect('{');
    ws();
    if (peek() == '}') return;
    while (true) {
      ws();
      const std::string_view key = string();
      ws();
      expect(':');
      ws();
      const std::size_t start = i_;
      value();
      fields_.emplace_back(key, s_.substr(start, i_ - start));
      ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect('}');
      break;
    }
    ws();
    if (i_ != s_.size()) fail_(fmt::format("unexpected text after the JSON object at column {}", i_ + 1));
  }
  std::optional<std::string_view> get(std::string_view key) const {
    for (const auto& [k, v] : fields_)
      if (k == key) return v;
    return std::nullopt;
  }

 private:
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  void expect(char c) {
    if (peek() != c)
      fail_(fmt::format("expected '{}' at column {} of a JSON object (one per line: {{\"timestamp\": ms, \"input_length\": "
                        "n, \"output_length\": n, ...}})",
                        c, i_ + 1));
    ++i_;
  }
  std::string_view string() {
    expect('"');
    const std::size_t start = i_;
    while (i_ < s_.size() && s_[i_] != '"') i_ += s_[i_] == '\\' ? 2 : 1;
    if (i_ >= s_.size()) fail_("unterminated string in the JSON object");
    return s_.substr(start, i_++ - start);
  }
  void value() {
    if (peek() == '"') {
      string();
      return;
    }
    if (peek() == '[' || peek() == '{') {  // skipped whole, strings inside included
      int depth = 0;
      do {
        if (peek() == '"') {
          string();
          continue;
        }
        if (peek() == '[' || peek() == '{') ++depth;
        if (peek() == ']' || peek() == '}') --depth;
        if (peek() == '\0') fail_("unterminated list or object in the JSON line");
        ++i_;
      } while (depth > 0);
      return;
    }
    while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ' ') ++i_;
  }
  std::string_view s_;
  std::size_t i_ = 0;
  const std::function<void(const std::string&)>& fail_;
  std::vector<std::pair<std::string_view, std::string_view>> fields_;
};

// A request's content from its hash ids: one segment of `block` tokens per id, the last one holding the
// rest of the prompt; `fail` unless there are ceil(prompt / block) ids.
void set_content(InferenceRequest& q, const std::vector<uint64_t>& ids, int32_t block,
                 const std::function<void(const std::string&)>& fail) {
  const int64_t want = (static_cast<int64_t>(q.prompt_tokens) + block - 1) / block;
  if (static_cast<int64_t>(ids.size()) != want)
    fail(fmt::format("{} hash ids for a prompt of {} tokens: expected ceil({} / {}) = {}, one per {}-token block", ids.size(),
                     q.prompt_tokens, q.prompt_tokens, block, want, block));
  q.content.reserve(ids.size());
  int32_t left = q.prompt_tokens;
  for (uint64_t id : ids) {
    q.content.push_back({id, std::min(left, block)});
    left -= q.content.back().tokens;
  }
}

// Non-negative whole numbers separated by `sep` (and spaces), between `open` and `close` when given.
std::vector<uint64_t> parse_ids(std::string_view text, char sep, const std::function<void(const std::string&)>& fail,
                                std::string_view what) {
  std::vector<uint64_t> ids;
  std::size_t i = 0;
  const auto skip = [&] {
    while (i < text.size() && text[i] == ' ') ++i;
  };
  skip();
  while (i < text.size()) {
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
    if (ec != std::errc() || end == text.data() + i)
      fail(fmt::format("{}: expected whole numbers from 0 to 2^64-1 separated by '{}', got '{}'", what, sep, text));
    ids.push_back(v);
    i = static_cast<std::size_t>(end - text.data());
    const std::size_t before = i;
    skip();
    if (i == text.size()) break;
    if (sep == ' ') {  // the spaces were the separator
      if (i == before) fail(fmt::format("{}: expected whole numbers from 0 to 2^64-1 separated by spaces, got '{}'", what, text));
      continue;
    }
    if (text[i] != sep)
      fail(fmt::format("{}: expected whole numbers from 0 to 2^64-1 separated by '{}', got '{}'", what, sep, text));
    ++i;
    skip();
    if (i == text.size()) fail(fmt::format("{}: a separator '{}' ends the list", what, sep));
  }
  return ids;
}

std::vector<InferenceRequest> read_mooncake(const std::string& path, int32_t block) {
  if (std::error_code ec; std::filesystem::is_directory(path, ec))
    throw InputError({path, std::nullopt, ""}, "is a directory: expected a trace file");
  std::ifstream in(path);
  if (!in) throw InputError({path, std::nullopt, ""}, "cannot open trace file");
  std::string line;
  int line_no = 0;
  const std::function<void(const std::string&)> fail = [&](const std::string& what) {
    throw InputError({path, line_no, ""}, what);
  };
  auto field = [&](const JsonLine& j, std::string_view key, const Range& range) -> int64_t {
    const auto text = j.get(key);
    if (!text) fail(fmt::format("the object has no \"{}\" (expected timestamp in ms, input_length, output_length)", key));
    try {
      return parse_integer(*text, range);
    } catch (const std::invalid_argument& e) {
      fail(fmt::format("\"{}\": {}", key, e.what()));
    }
    return 0;
  };
  std::vector<InferenceRequest> rows;
  int64_t last_ms = 0;
  bool hashed = false;  // every line has hash_ids, or none
  while (std::getline(in, line)) {
    ++line_no;
    if (const auto bad = first_invalid_utf8(line))
      fail(fmt::format("byte 0x{:02X} at column {} is not UTF-8 text", static_cast<unsigned char>(line[*bad]), *bad + 1));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const JsonLine j(line, fail);
    const int64_t ms = field(j, "timestamp", Range::between(0, kSpanSeconds.maximum->value * 1e3));
    if (!rows.empty() && ms < last_ms)
      fail(fmt::format("\"timestamp\": {} ms is earlier than the line before it ({} ms): lines must be in arrival order", ms,
                       last_ms));
    last_ms = ms;
    InferenceRequest& q = rows.emplace_back();
    q.arrival = Time::from_us(ms * 1000);
    q.prompt_tokens = static_cast<int32_t>(field(j, "input_length", kTokenRange));
    q.output_tokens = static_cast<int32_t>(field(j, "output_length", kTokenRange));
    const auto ids = j.get("hash_ids");
    if (rows.size() == 1) hashed = ids.has_value();
    if (ids.has_value() != hashed)
      fail(hashed ? "the object has no \"hash_ids\", which the lines before it have"
                  : "the object has \"hash_ids\", which the lines before it lack");
    if (!ids) continue;
    if (ids->size() < 2 || ids->front() != '[' || ids->back() != ']')
      fail(fmt::format("\"hash_ids\": expected a list of whole numbers [id, ...], got {}", *ids));
    set_content(q, parse_ids(ids->substr(1, ids->size() - 2), ',', fail, "\"hash_ids\""), block, fail);
  }
  if (rows.empty()) throw InputError({path, std::nullopt, ""}, "the file has no requests");
  // Arrivals from the first request, as for the Azure traces (the shipped files start at 0).
  const Time first = rows.front().arrival;
  for (auto& q : rows) q.arrival = Time::from_us(q.arrival.us() - first.us());
  return rows;
}

// gpusim's request CSV: arrival_s (from any origin; arrivals count from the first row), prompt_tokens,
// output_tokens, and optionally hash_ids.
std::vector<InferenceRequest> read_request_csv(const std::string& path, int32_t block) {
  csv::Reader r(path);
  std::vector<std::string_view> f;
  const std::string_view header = "arrival_s,prompt_tokens,output_tokens[,hash_ids]";
  const std::size_t width = r.header(f, header);
  const std::size_t c_time = r.column(f, "arrival_s", header), c_prompt = r.column(f, "prompt_tokens", header),
                    c_output = r.column(f, "output_tokens", header);
  const auto hash_col = std::find(f.begin(), f.end(), "hash_ids");
  const bool hashed = hash_col != f.end();
  const auto c_ids = static_cast<std::size_t>(hash_col - f.begin());
  const std::function<void(const std::string&)> fail = [&](const std::string& what) { r.fail(what); };
  std::vector<InferenceRequest> rows;
  double first_s = 0, last_s = 0;
  while (r.next(f)) {
    r.check_width(f, width);
    const double t = r.number(f[c_time], "arrival_s", Range::at_least(0));
    if (rows.empty()) first_s = t;
    else if (t < last_s)
      r.fail(fmt::format("column 'arrival_s': {:g} is earlier than the row before it: rows must be in arrival order", t));
    last_s = t;
    if (!kSpanSeconds.contains(t - first_s))
      r.fail(fmt::format("column 'arrival_s': {:g} is past {} after the first row", t, kMaxSpanText));
    InferenceRequest& q = rows.emplace_back();
    q.arrival = Time() + Duration::from_seconds(t - first_s, Round::nearest);
    q.prompt_tokens = r.integer<int32_t>(f[c_prompt], "prompt_tokens", kTokenRange);
    q.output_tokens = r.integer<int32_t>(f[c_output], "output_tokens", kTokenRange);
    if (hashed) set_content(q, parse_ids(f[c_ids], ' ', fail, "column 'hash_ids'"), block, fail);
  }
  return rows;
}

}  // namespace

std::vector<InferenceRequest> read_request_trace(RequestTraceFormat format, const std::string& path, int32_t hash_block_tokens) {
  switch (format) {
    case RequestTraceFormat::azure_llm_2023: return read_azure(path);
    case RequestTraceFormat::mooncake: return read_mooncake(path, hash_block_tokens);
    case RequestTraceFormat::csv: return read_request_csv(path, hash_block_tokens);
  }
  return {};
}

std::vector<RateStep> read_qps_trace(const std::string& path, std::string_view request_type) {
  csv::Reader r(path);
  std::vector<std::string_view> f;
  const std::string_view header = "timestamp_anon,value,container_ip,request_type";
  const std::size_t width = r.header(f, header);
  const std::size_t c_time = r.column(f, "timestamp_anon", header), c_value = r.column(f, "value", header),
                    c_type = r.column(f, "request_type", header);
  std::map<double, double> qps;  // by timestamp, summed over containers
  std::set<std::string> types;
  while (r.next(f)) {
    r.check_width(f, width);
    if (f[c_type] != request_type) {
      types.emplace(f[c_type]);
      continue;
    }
    const double t = r.number(f[c_time], "timestamp_anon", Range::at_least(0));
    if (f[c_value] == "None" || f[c_value] == "NULL" || f[c_value].empty()) continue;
    qps[t] += r.number(f[c_value], "value", Range::at_least(0));
  }
  if (qps.size() < 2)
    throw InputError({path, std::nullopt, "request_type"},
                     fmt::format("expected samples of request_type '{}' at two times at least (to find the step), got {}; "
                                 "the file's other types: {}",
                                 request_type, qps.size(), fmt::join(types, ", ")));
  const double first_s = qps.begin()->first;
  double step_s = std::numeric_limits<double>::infinity();
  for (auto a = qps.begin(), b = std::next(a); b != qps.end(); ++a, ++b) step_s = std::min(step_s, b->first - a->first);
  if (!kSpanSeconds.contains(qps.rbegin()->first + step_s - first_s))
    throw InputError({path, std::nullopt, "timestamp_anon"}, fmt::format("the samples span more than {}", kMaxSpanText));
  std::vector<RateStep> out;
  for (auto it = qps.begin(); it != qps.end(); ++it) {
    const double t = it->first - first_s;
    out.push_back({t, it->second});
    const auto next = std::next(it);
    if (next == qps.end() || next->first - first_s > t + step_s) out.push_back({t + step_s, 0});
  }
  return out;
}

}  // namespace gpusim
