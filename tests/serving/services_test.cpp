// Inference services (sim/serving.hpp): vLLM V1's batching rules worked by hand on a toy GPU and model
// whose iteration times are round, recompute preemption against a brute-force reference's iteration
// counts, and what each sharing mode does to a replica's latency when its neighbour gets busy.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpusim/sim/latency_histogram.hpp"
#include "gpusim/sim/scenario.hpp"
#include "gpusim/sim/serving.hpp"
#include "run_util.hpp"

using namespace gpusim;
using test::write_file;

namespace {

// A GPU of 100 TFLOP/s and 1,000 GB/s with efficiencies 1 and no overheads, and a model of 1e9
// parameters (2e9 bytes of weights), one layer, one KV head of 64: 256 bytes of KV cache a token.
// An iteration computing T tokens with `kv` KV entries and `att` = sum q (o + q/2) takes
//   max(2e9 T / 1e14, (2e9 + 256 kv) / 1e12) + 4 x 64 x att / 1e14  seconds.
std::string toy(const std::string& model_fields, const std::string& pod, const std::string& requests,
                const std::string& engine = "{max_num_batched_tokens: 2048}") {
  return "name: toy\n" + test::toy_serving_hardware(1000) +
         "models:\n"
         "  - {name: toy, layers: 1, heads: " +
         model_fields + ", intermediate: 64, vocab: 64, max_model_len: 100000, source: test}\n" +
         "cluster: {pools: [{name: p, node: toy-1x, count: 1}]}\n"
         "workload:\n"
         "  services:\n"
         "    - {name: s, model: toy, cold_start: none, pod: " +
         pod + ", engine: " + engine + ",\n       requests: " + requests + "}\n";
}

std::string azure_trace(const std::string& name, const std::string& rows) {
  return write_file(name, "TIMESTAMP,ContextTokens,GeneratedTokens\n" + rows);
}

// docs/serving.md#vllm-v1-scheduling, two requests: A (16 prompt tokens, 3 out) at 0, B (4,000, 2) at 1 ms.
//   it 1  [0, 2000]       A's prompt (T 16, kv 16, att 128): max(3.2e-4, 2.000004e-3) + 3e-10 -> 2,000 us; A's 1st token
//   it 2  [2000, 42965]   A decodes first (o 16), B takes the rest of the budget, 2,047 tokens:
//                         T 2048, kv 17 + 2047, att 16.5 + 2047 x 1023.5: 0.04096 + 5.36e-6 -> 40,965 us; A's 2nd token
//   it 3  [42965, 82060]  A (o 17) and B's last 1,953 tokens (o 2047): T 1954, kv 18 + 4000,
//                         att 17.5 + 1953 x 3023.5: 0.03908 + 1.512e-5 -> 39,095 us; A's 3rd token (done), B's 1st
//   it 4  [82060, 84061]  B decodes (o 4000): 2.001024e-3 + 1e-8 -> 2,001 us; B's 2nd token (done)
// A: TTFT 2,000, E2E 82,060 (gaps 40,965 and 39,095: the prefill chunks stall its decodes);
// B: TTFT 82,060 - 1,000 = 81,060 (two chunks), E2E 83,061, TPOT 2,001.
TEST(Services, ChunkedPrefillRunsBehindDecodesAsVllmV1Does) {
  const std::string trace = azure_trace("s6.csv", "2023-11-16 18:00:00.0000000,16,3\n"
                                                  "2023-11-16 18:00:00.0010000,4000,2\n");
  const Scenario s = test::load(write_file("s6.yaml", toy("1, kv_heads: 1, head_dim: 64, hidden: 64, params: 1000000000", "{}",
                                                          "{trace: {format: azure-llm-2023, file: " + trace + "}}")));
  const RunResult r = test::simulate_keeping_requests(s);
  ASSERT_EQ(r.requests.size(), 2u);
  const RequestRow& a = test::request_row(r, 0);
  const RequestRow& b = test::request_row(r, 1);
  EXPECT_EQ(a.ttft_us, 2000);
  EXPECT_EQ(a.e2e_us, 82060);
  EXPECT_EQ(b.queue_us, 1000);  // it waits for A's first iteration to end
  EXPECT_EQ(b.ttft_us, 81060);
  EXPECT_EQ(b.e2e_us, 83061);
  ASSERT_EQ(r.services.size(), 1u);
  const ServiceFigures& f = r.services[0];
  EXPECT_EQ(f.iterations, 4u);
  EXPECT_EQ(f.itl.count(), 3u);  // A's two gaps and B's one
  // Above 2,048 us the histogram keeps a value within 1/1,024 (its bucket's lowest).
  EXPECT_EQ(f.itl.percentile_us(100), LatencyHistogram::lowest(LatencyHistogram::bucket(40965)));
  EXPECT_DOUBLE_EQ(f.itl.mean_us(), (40965 + 39095 + 2001) / 3.0);
  EXPECT_EQ(f.tpot.percentile_us(0), 2001);                  // B: (83,061 - 81,060) / 1
  EXPECT_DOUBLE_EQ(f.tpot.mean_us(), (2001 + 40030) / 2.0);  // A: (82,060 - 2,000) / 2
  EXPECT_EQ(r.end, Time::from_us(84061));                    // no horizon: the run ends with the last request
}

// Serving::run_ahead on the same two requests: it applies the instants the engine would pass through
// unchanged and stops after the first that changes what the engine sees, which next_time names until the
// engine has served it. B's arrival at 1 ms finds the replica busy (unseen); the end of A's prompt at 2,000 us
// starts a batch of two, another power level (seen). The end of iteration 2 keeps two (unseen); the end of
// iteration 3 completes A and leaves B alone (seen); B's end at 84,061 us empties the replica (seen), and the
// service is done only once the engine has served that instant.
TEST(Services, RunAheadStopsAfterTheFirstInstantTheEngineSees) {
  const std::string trace = azure_trace("ra.csv", "2023-11-16 18:00:00.0000000,16,3\n"
                                                  "2023-11-16 18:00:00.0010000,4000,2\n");
  const Scenario s = test::load(write_file("ra.yaml", toy("1, kv_heads: 1, head_dim: 64, hidden: 64, params: 1000000000", "{}",
                                                          "{trace: {format: azure-llm-2023, file: " + trace + "}}")));
  Serving serving(s, ServingRecords{});
  const GpuModel& gpu = *s.catalog->find_gpu("TOY");
  ReplicaShare share;
  share.hw = {gpu.bf16_tflops * 1e12, gpu.memory_bandwidth_gb_per_s * 1e9, 1, 0, &s.model.serving_efficiency(gpu)};
  serving.placed(JobId{0}, Time(), ReplicaDevice{&gpu, gpu.memory_mib, NodeId{0}}, share);
  std::vector<JobId> levels;
  const auto serve = [&](int64_t us) {  // the engine's instant: serving, then the busy changes handed over
    serving.advance(Time::from_us(us));
    serving.take_busy_changes(
        Time::from_us(us), [](JobId) {}, [](JobId) {}, levels);
  };
  // (instants applied, the last of them)
  const auto ahead = [&](Time until) { return serving.run_ahead(until); };
  const auto applied = [](uint64_t n, int64_t last_us) { return Module::Ahead{n, Time::from_us(last_us)}; };
  serve(0);                                                 // A arrives and starts: the replica is busy
  EXPECT_EQ(ahead(Time::from_us(1000)), Module::Ahead{});   // nothing before `until`
  EXPECT_EQ(ahead(Time::from_us(2000)), applied(1, 1000));  // B's arrival, unseen
  EXPECT_EQ(ahead(Time::max()), applied(1, 2000));          // the batch of two, seen
  EXPECT_EQ(serving.next_time(), Time::from_us(2000));
  EXPECT_EQ(ahead(Time::max()), Module::Ahead{});  // not before the engine has served 2,000 us
  serve(2000);
  EXPECT_EQ(serving.power_level(JobId{0}), 2);
  EXPECT_EQ(ahead(Time::max()), applied(2, 82060));  // 42,965 us unseen, then 82,060 us
  serve(82060);
  EXPECT_EQ(serving.power_level(JobId{0}), 1);
  EXPECT_EQ(ahead(Time::max()), applied(1, 84061));
  EXPECT_TRUE(serving.busy(JobId{0}));
  EXPECT_FALSE(serving.done());
  serve(84061);
  EXPECT_FALSE(serving.busy(JobId{0}));
  EXPECT_TRUE(serving.done());
  const std::vector<ServiceFigures> f = serving.finish(Time::from_us(84061));
  EXPECT_EQ(f[0].completed, 2u);
  EXPECT_EQ(f[0].iterations, 4u);
}

// Serving::run_ahead plans a replica's decode steps ahead while its batch only decodes (docs/design/performance.md):
// they must come out as the steps taken one instant at a time. Twelve requests (prompts of two 512-token hash ids,
// some shared; outputs of 100 to 400 tokens) on caches of 150 and 700 blocks, with and without prefix caching,
// so that arrivals cut steps short, requests end, caching evicts and (on the smaller) the cache runs short; at
// 150 ms an engine event gives the replica a slower share. Driven as the engine drives a module: its event at
// 150 ms first, then advance; run_ahead never (nothing planned: every step an instant), after every instant, or
// after every second or third (the engine's own instants in between, each step's end among them). Every
// figure and request row agrees, and run_ahead leaves the engine fewer instants than there are steps.
TEST(Services, DecodeStepsPlannedAheadComeOutAsStepsTakenOneByOne) {
  std::string rows = "arrival_s,prompt_tokens,output_tokens,hash_ids\n";
  for (int i = 0, ms = 0; i < 12; ms += 20 * (i % 3 + 1), ++i)
    rows += fmt::format("{},{},{},{} {}\n", ms / 1000.0, 1024, 100 + (i * 71) % 301, i % 4, 10 + i % 5);
  const std::string trace = write_file("chains.csv", rows);
  for (const auto& config : {std::pair(true, 2660), {true, 2800}, {false, 2660}, {false, 2800}}) {
    const bool caching = config.first;
    const int memory_mib = config.second;  // (not a structured binding: clang 14's lambdas cannot capture one)
    const Scenario s = test::load(write_file(
        "chains.yaml",
        toy("64, kv_heads: 64, head_dim: 64, hidden: 4096, params: 1066565632",
            fmt::format("{{gpu_memory_limit_mib: {}}}", memory_mib), "{trace: {format: csv, file: " + trace + "}}",
            fmt::format("{{max_num_batched_tokens: 2048, gpu_memory_utilization: 1, enable_prefix_caching: {}}}", caching))));
    struct Served {
      std::vector<ServiceFigures> figures;
      std::vector<RequestRow> rows;
      std::vector<std::pair<Time, bool>> instants;  // the engine's, and whether run_ahead came after
    };
    const auto serve = [&](int ahead_every) {  // 0: never
      Serving serving(s, ServingRecords{.requests = true});
      const GpuModel& gpu = *s.catalog->find_gpu("TOY");
      ReplicaShare share;
      share.hw = {gpu.bf16_tflops * 1e12, gpu.memory_bandwidth_gb_per_s * 1e9, 1, 0, &s.model.serving_efficiency(gpu)};
      serving.placed(JobId{0}, Time(), ReplicaDevice{&gpu, memory_mib, NodeId{0}}, share);
      ReplicaShare slower = share;
      slower.hw.bytes_per_s *= 0.8;
      const Time event = Time::from_us(150'000);
      bool evented = false;
      Served out;
      std::vector<JobId> levels;
      Time last;
      for (std::optional<Time> t = Time(); t;) {
        if (!evented && *t >= event) {  // the engine's event comes first at its instant
          t = event;
          serving.share_changed(JobId{0}, event, slower);
          evented = true;
        }
        serving.advance(*t);
        serving.take_busy_changes(
            *t, [](JobId) {}, [](JobId) {}, levels);
        const bool ahead = ahead_every > 0 && out.instants.size() % ahead_every == 0;
        out.instants.emplace_back(*t, ahead);
        last = *t;
        if (ahead) serving.run_ahead(evented ? Time::max() : event);
        t = serving.next_time();
        if (!t && !evented) t = event;
      }
      out.figures = serving.finish(last);
      out.rows = serving.take_requests();
      return out;
    };
    const Served one = serve(0);
    for (const int every : {1, 2, 3}) {
      const Served ahead = serve(every);
      SCOPED_TRACE(fmt::format("prefix caching {}, {} MiB, run_ahead every {} instants", caching, memory_mib, every));
      const ServiceFigures &a = one.figures.at(0), &b = ahead.figures.at(0);
      EXPECT_EQ(a.completed, 12u);
      if (memory_mib == 2660) {
        EXPECT_GT(a.preemptions, 0u);  // requests wait: most steps are not planned ahead
      } else if (every == 1) {
        EXPECT_LT(ahead.instants.size(), a.iterations / 4);
      }
      // Where run_ahead did not come after an instant, the engine's next is the next step's, as without it.
      for (std::size_t i = 0; i + 1 < ahead.instants.size(); ++i)
        if (!ahead.instants[i].second) {
          const auto after = std::upper_bound(one.instants.begin(), one.instants.end(), std::pair(ahead.instants[i].first, true));
          ASSERT_NE(after, one.instants.end());
          EXPECT_EQ(ahead.instants[i + 1].first, after->first) << "after instant " << i;
        }
      EXPECT_EQ(b.completed, a.completed);
      EXPECT_EQ(b.iterations, a.iterations);
      EXPECT_EQ(b.preemptions, a.preemptions);
      EXPECT_EQ(b.prefix_hit_tokens, a.prefix_hit_tokens);
      EXPECT_EQ(b.last_completion, a.last_completion);
      for (double p : {0.0, 50.0, 90.0, 100.0}) {
        EXPECT_EQ(b.itl.percentile_us(p), a.itl.percentile_us(p));
        EXPECT_EQ(b.ttft.percentile_us(p), a.ttft.percentile_us(p));
      }
      EXPECT_EQ(b.itl.count(), a.itl.count());
      EXPECT_EQ(b.itl.mean_us(), a.itl.mean_us());
      ASSERT_EQ(ahead.rows.size(), one.rows.size());
      for (std::size_t i = 0; i < one.rows.size(); ++i) {
        const RequestRow &x = one.rows[i], &y = ahead.rows[i];
        EXPECT_EQ(std::tie(y.ttft_us, y.e2e_us, y.queue_us, y.preemptions, y.cached_tokens),
                  std::tie(x.ttft_us, x.e2e_us, x.queue_us, x.preemptions, x.cached_tokens))
            << "request " << i;
      }
    }
  }
}

// Prefix caching (docs/serving.md#prefix-caching) on the toy, blocks of 16 tokens, hash ids of 512:
//   A at 0      prompt 1024 "7 8": nothing cached; T 1024, att 1024 x 512: 0.02048 + 1.342e-6 -> TTFT 20,481 us;
//               one decode (T 1, kv 1025): 2,000 us; done at 22,481, its 64 prompt blocks cached and freed.
//   B at 100 ms prompt 1024 "7 9": its first 512 tokens are A's (32 blocks); it computes 512: T 512, kv 1024,
//               att 512 x (512 + 256): 0.01024 + 1.007e-6 -> TTFT 10,241 us.
//   C at 200 ms prompt 1024 "7 8", A's again: all cached, but vLLM computes the last token, so 63 blocks
//               (1,008 tokens) are reused and 16 computed: memory-bound, 2,000 us.
// Hit rate (0 + 512 + 1008) / 3072. Without caching every TTFT is A's.
TEST(Services, PrefixCachingSkipsTheCachedPrefixsPrefill) {
  const std::string trace = write_file("prefix.csv", "arrival_s,prompt_tokens,output_tokens,hash_ids\n"
                                                     "0,1024,2,7 8\n0.1,1024,2,7 9\n0.2,1024,2,7 8\n");
  for (const bool on : {true, false}) {
    const Scenario s = test::load(write_file(
        "prefix.yaml",
        toy("1, kv_heads: 1, head_dim: 64, hidden: 64, params: 1000000000", "{}", "{trace: {format: csv, file: " + trace + "}}",
            fmt::format("{{max_num_batched_tokens: 2048, enable_prefix_caching: {}}}", on))));
    const RunResult r = test::simulate_keeping_requests(s);
    ASSERT_EQ(r.requests.size(), 3u);
    EXPECT_EQ(test::request_row(r, 0).ttft_us, 20481);
    EXPECT_EQ(test::request_row(r, 1).ttft_us, on ? 10241 : 20481);
    EXPECT_EQ(test::request_row(r, 2).ttft_us, on ? 2000 : 20481);
    const ServiceFigures& f = r.services[0];
    EXPECT_EQ(f.prefix_caching, on);
    EXPECT_EQ(f.prefix_hit_tokens, on ? 1520u : 0u);
    EXPECT_EQ(f.prefix_queried_tokens, on ? 3072u : 0u);
    EXPECT_EQ(test::request_row(r, 2).cached_tokens, on ? 1008 : -1);
  }
}

// A closed loop on the toy (16-token prompts, 2 output tokens: a 2,000 us prefill and a 2,000 us decode).
// One client thinking 1 s: sends at 0, done at 4,000 us; sends at 1,004,000, done at 1,008,000; sends at
// 2,008,000. Two clients not thinking: both at 0, batched (32 tokens, still 2,000 us), both done at
// 4,000 us and sending again then.
TEST(Services, AClosedLoopSendsEachClientsNextRequestWhenItsLastEnds) {
  const auto arrivals = [](const std::string& clients, int limit) {
    const Scenario s = test::load(write_file(
        "loop.yaml",
        toy("1, kv_heads: 1, head_dim: 64, hidden: 64, params: 1000000000", "{}",
            fmt::format("{{generator: {{clients: {}, prompt_tokens: 16, output_tokens: 2}}, limit: {}}}", clients, limit))));
    const RunResult r = test::simulate_keeping_requests(s);
    std::vector<int64_t> out;
    for (const RequestRow& q : r.requests) {
      EXPECT_EQ(q.e2e_us, 4000);
      out.push_back(q.arrival.us());
    }
    return out;
  };
  EXPECT_EQ(arrivals("{users: 1, think_time: 1s}", 3), (std::vector<int64_t>{0, 1'004'000, 2'008'000}));
  EXPECT_EQ(arrivals("{users: 2}", 4), (std::vector<int64_t>{0, 0, 4000, 4000}));
}

// The same two requests under vLLM V0's scheduler (enable_chunked_prefill: false; 4,096 tokens a batch):
// whole prompts first, in steps of their own.
//   it 1  [0, 2000]       A's prompt: 2,000 us; A's 1st token
//   it 2  [2000, 82020]   B's prompt alone (T 4000, kv 4000, att 4000 x 2000): 0.08 + 2.048e-5 -> 80,020 us;
//                         B's 1st token. A's decode waits the whole step.
//   it 3  [82020, 84021]  both decode (T 2, kv 17 + 4001, att 16.5 + 4000.5): 2.001029e-3 + 1e-8 -> 2,001 us;
//                         A's 2nd token, B's 2nd (done)
//   it 4  [84021, 86021]  A decodes (kv 18): 2,000 us; A's 3rd (done)
// A: TTFT 2,000, E2E 86,021 (one gap of 82,021); B: TTFT 81,020, E2E 83,021.
TEST(Services, WithoutChunkedPrefillPromptsGoFirstAndWholeAsVllmV0Does) {
  const std::string trace = azure_trace("v0.csv", "2023-11-16 18:00:00.0000000,16,3\n"
                                                  "2023-11-16 18:00:00.0010000,4000,2\n");
  const Scenario s = test::load(write_file("v0.yaml", toy("1, kv_heads: 1, head_dim: 64, hidden: 64, params: 1000000000", "{}",
                                                          "{trace: {format: azure-llm-2023, file: " + trace + "}}",
                                                          "{max_num_batched_tokens: 4096, enable_chunked_prefill: false}")));
  const RunResult r = test::simulate_keeping_requests(s);
  ASSERT_EQ(r.requests.size(), 2u);
  EXPECT_EQ(test::request_row(r, 0).ttft_us, 2000);
  EXPECT_EQ(test::request_row(r, 0).e2e_us, 86021);
  EXPECT_EQ(test::request_row(r, 1).ttft_us, 81020);
  EXPECT_EQ(test::request_row(r, 1).e2e_us, 83021);
  EXPECT_EQ(r.services[0].iterations, 4u);
  EXPECT_EQ(r.services[0].itl.percentile_us(100), LatencyHistogram::lowest(LatencyHistogram::bucket(82021)));
}

// Disaggregated (docs/serving.md#disaggregated-serving): one prefill and one decode replica, a GPU each on a
// node of two TOY GPUs behind one PCIe Gen4 host bridge (31.5 GB/s); 256 bytes of KV cache a token.
// A (4,000 prompt tokens, 3 out) at 0, B (16, 3) at 1 ms.
//   prefill  [0, 80020]       A's prompt: 80,020 us; its KV cache (1,024,000 B) goes in 32.5 -> 33 us
//   decode   80,053           A's cache lands: its first token (TTFT 80,053)
//   decode   [80053, 82054]   A (kv 4001): 2,001 us; 2nd token
//   prefill  [80020, 82020]   B's prompt: 2,000 us; B waits for the decode replica's next step to take it in
//   decode   82,054           the step takes A on (kv 4002: 2,001 us) and B's blocks: its 4,096 B land at 82,055
//   decode   [82054, 84055]   A's 3rd token (done: E2E 84,055); B joined at 82,055 (TTFT 81,055)
//   decode   [84055, 86055], [86055, 88055]  B alone (kv 17, 18): 2,000 us each; done (E2E 87,055)
// B's decodes never wait behind A's prefill, nor A's behind B's.
std::string disaggregated_toy(const std::string& trace_rows) {
  std::string hardware = test::toy_serving_hardware(1000);
  const std::string nodes = "  nodes:\n";
  hardware.replace(hardware.find(nodes), nodes.size(),
                   nodes + "    - {name: toy-2x, gpu: TOY, gpus: 2, cpu_milli: 2000, memory_mib: 2048, "
                           "price_per_node_hour_usd: 2, source: test}\n");
  const std::string trace = write_file("disagg.csv", "arrival_s,prompt_tokens,output_tokens\n" + trace_rows);
  return write_file("disagg.yaml",
                    "name: disagg\n" + hardware +
                        "models:\n"
                        "  - {name: toy, layers: 1, heads: 1, kv_heads: 1, head_dim: 64, hidden: 64, params: 1000000000,\n"
                        "     intermediate: 64, vocab: 64, max_model_len: 100000, source: test}\n"
                        "cluster: {pools: [{name: p, node: toy-2x, count: 1}]}\n"
                        "workload:\n"
                        "  services:\n"
                        "    - {name: s, model: toy, cold_start: none, engine: {max_num_batched_tokens: 4096},\n"
                        "       requests: {trace: {format: csv, file: " +
                        trace + "}}, decode: {replicas: 1}}\n");
}

TEST(Services, DisaggregatedPrefillHandsEachKvCacheToTheDecodePool) {
  const Scenario s = test::load(disaggregated_toy("0,4000,3\n0.001,16,3\n"));
  ASSERT_EQ(s.services.size(), 2u);
  EXPECT_EQ(s.services[0].role, PoolRole::prefill);
  EXPECT_EQ(s.services[1].role, PoolRole::decode);
  EXPECT_EQ(s.jobs.jobs[0].name, "s-prefill-0");
  EXPECT_EQ(s.jobs.jobs[1].name, "s-decode-0");
  EXPECT_EQ(s.services[1].engine.max_num_batched_tokens, 4096);  // the service's, as the decode pool gives none
  const RunResult r = test::simulate_keeping_requests(s);
  ASSERT_EQ(r.requests.size(), 2u);
  const RequestRow& a = test::request_row(r, 0);
  const RequestRow& b = test::request_row(r, 1);
  EXPECT_EQ(a.ttft_us, 80053);
  EXPECT_EQ(a.e2e_us, 84055);
  EXPECT_EQ(b.queue_us, 79020);
  EXPECT_EQ(b.ttft_us, 81055);
  EXPECT_EQ(b.e2e_us, 87055);
  EXPECT_EQ(a.replica, 1);  // the decode replica serves it to the end
  EXPECT_EQ(a.prefill_replica, 0);
  EXPECT_EQ(a.kv_transfer_us, 33);
  EXPECT_EQ(b.kv_transfer_us, 1);
  const ServiceFigures& f = r.services[0];
  EXPECT_EQ(f.completed, 2u);
  EXPECT_EQ(f.iterations, 2u);              // the prefill pool's
  EXPECT_EQ(r.services[1].iterations, 4u);  // the decode pool's
  EXPECT_EQ(r.services[1].completed, 0u);   // the requests are the service's
  EXPECT_EQ(f.kv_transfer.count(), 2u);
  EXPECT_DOUBLE_EQ(f.kv_transfer.mean_us(), (33 + 1) / 2.0);
  EXPECT_DOUBLE_EQ(f.kv_transfer_bytes, 1'024'000 + 4'096);
}

// The serving component driven as the engine drives it: A (4,000 prompt tokens, 3 out) is prefilled at
// 80,020 us and its cache is on its way (33 us) when the prefill replica stops at 80,030. The decode replica
// lets the blocks it took go; A waits at the prefill pool, with nothing due, until a new prefill pod is
// placed at 100,000 (ready at once), and starts over: prefilled at 180,020, landed at 180,053 (its TTFT),
// decoded in two steps of 2,001 us (E2E 184,055), counted retried once.
TEST(Services, AStoppedPrefillReplicaSendsTheRequestItWasSendingBackToPrefill) {
  const Scenario s = test::load(disaggregated_toy("0,4000,3\n"));
  Serving serving(s, ServingRecords{.requests = true});
  serving.kv_links([](JobId, JobId) { return 31.5e9; });
  const GpuModel& gpu = *s.catalog->find_gpu("TOY");
  ReplicaShare share;
  share.hw = {gpu.bf16_tflops * 1e12, gpu.memory_bandwidth_gb_per_s * 1e9, 1, 0, &s.model.serving_efficiency(gpu)};
  const ReplicaDevice device{&gpu, gpu.memory_mib, NodeId{0}};
  const auto run_until = [&](Time end) {
    for (std::optional<Time> t = serving.next_time(); t && *t <= end; t = serving.next_time()) serving.advance(*t);
  };
  serving.placed(JobId{0}, Time(), device, share);  // the prefill replica
  serving.placed(JobId{1}, Time(), device, share);  // the decode replica
  run_until(Time::from_us(80030));
  serving.stopped(JobId{0}, Time::from_us(80030));
  EXPECT_FALSE(serving.next_time().has_value());  // the transfer's landing is gone with it
  EXPECT_EQ(serving.queue_length(0), 1);
  serving.placed(JobId{0}, Time::from_us(100000), device, share);
  serving.advance(Time::from_us(100000));  // as the engine serves after each decision
  run_until(Time::max());
  EXPECT_TRUE(serving.done());
  const std::vector<ServiceFigures> f = serving.finish(Time::from_us(184055));
  EXPECT_EQ(f[0].completed, 1u);
  EXPECT_EQ(f[0].retried, 1u);
  EXPECT_EQ(f[0].kv_transfer.count(), 2u);  // the one cut short, and the one that landed
  const std::vector<RequestRow> rows = serving.take_requests();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].ttft_us, 180053);
  EXPECT_EQ(rows[0].e2e_us, 184055);
  EXPECT_EQ(rows[0].retries, 1);
  EXPECT_EQ(rows[0].replica, 1);
  EXPECT_EQ(rows[0].prefill_replica, 0);
  EXPECT_EQ(rows[0].kv_transfer_us, 33);
}

// The same two requests with a client timeout of 50 ms: at the end of iteration 3 (82,060 us) A has its
// third token and completes (82 ms, though past the timeout: it finished in that iteration); B, arrived
// at 1 ms, has waited 81 ms for its second token: it is aborted and counted timed out; no iteration 4.
TEST(Services, ATimedOutRequestIsAbortedAtItsIterationsEnd) {
  const std::string trace = azure_trace("timeout.csv", "2023-11-16 18:00:00.0000000,16,3\n"
                                                       "2023-11-16 18:00:00.0010000,4000,2\n");
  const Scenario s = test::load(write_file("timeout.yaml", toy("1, kv_heads: 1, head_dim: 64, hidden: 64, params: 1000000000",
                                                               "{}", "{trace: {format: azure-llm-2023, file: " + trace + "}}",
                                                               "{max_num_batched_tokens: 2048}, timeout: 50ms")));
  const RunResult r = test::simulate_keeping_requests(s);
  const ServiceFigures& f = r.services[0];
  EXPECT_EQ(f.completed, 1u);
  EXPECT_EQ(f.timed_out, 1u);
  EXPECT_EQ(f.unfinished, 0u);
  EXPECT_EQ(f.iterations, 3u);
  EXPECT_EQ(test::request_row(r, 0).status, 0);
  EXPECT_EQ(test::request_row(r, 0).e2e_us, 82060);
  EXPECT_EQ(test::request_row(r, 1).status, 3);
  EXPECT_EQ(test::request_row(r, 1).generated, 1);
  EXPECT_EQ(r.end, Time::from_us(82060));
}

// Every request accounted for, with its reason: a model of max_model_len 100 rejects B (4,000 + 2
// tokens: longer than its context); with the timeout B times out. requests.csv says why, the summary's
// requests_not_completed too. Without an SLO there is no attainment and no goodput (not 100%); a
// per-request target gives them, and a duration takes its unit (100ms).
TEST(Services, EveryRequestHasAnOutcomeAndNoSloNoAttainment) {
  const std::string trace = azure_trace("outcomes.csv", "2023-11-16 18:00:00.0000000,16,3\n"
                                                        "2023-11-16 18:00:00.0010000,4000,2\n");
  std::string text = toy("1, kv_heads: 1, head_dim: 64, hidden: 64, params: 1000000000", "{}",
                         "{trace: {format: azure-llm-2023, file: " + trace + "}}");
  const std::string short_context = text.replace(text.find("max_model_len: 100000"), 21, "max_model_len: 100");
  const Scenario s = test::load(write_file("outcomes.yaml", short_context));
  const RunResult r = test::simulate_keeping_requests(s);
  EXPECT_EQ(test::request_row(r, 1).status, 1);
  std::ostringstream csv;
  write_requests_csv(csv, s, r);
  EXPECT_NE(csv.str().find(",reason\n"), std::string::npos);
  EXPECT_NE(csv.str().find("s,1,0.001,rejected,s-0,4000,2,0,,,,,0,0,longer than the model's context (prompt + output tokens over "
                           "max_model_len)\n"),
            std::string::npos)
      << csv.str();
  const Json summary = summarize(s, r);
  const Json& serving = summary["serving"];
  ASSERT_EQ(serving["requests_not_completed"].size(), 1u);
  EXPECT_EQ(serving["requests_not_completed"][0]["status"], "rejected");
  EXPECT_EQ(serving["requests_not_completed"][0]["requests"], 1);
  EXPECT_EQ(serving["requests_not_completed"][0]["reason"],
            "longer than the model's context (prompt + output tokens over max_model_len)");
  EXPECT_TRUE(serving["slo_attainment"].is_null());
  EXPECT_TRUE(serving["goodput_rps"].is_null());
  EXPECT_TRUE(summary["services"][0]["slo_attainment"].is_null());
  // A's TTFT is 2 ms: a 100ms target holds it; B, rejected, does not count as within it.
  std::string with_slo = short_context;
  with_slo.replace(with_slo.find("cold_start: none"), 16, "cold_start: none, slo: {ttft: 100ms}");
  const Scenario slo = test::load(write_file("slo.yaml", with_slo));
  const Json withs = summarize(slo, test::simulate_keeping_requests(slo));
  EXPECT_DOUBLE_EQ(withs["serving"]["slo_attainment"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(withs["services"][0]["slo_attainment"].get<double>(), 0.5);
}

// Time-slicing isolates no memory: three Llama-2-7B replicas on one A100-80GB, each vLLM taking its
// default gpu_memory_utilization 0.9 of the 81,920 MiB it sees (73,728 MiB), ask 221,184 MiB: every one
// is killed at every start (the OOM blast radius jobs have), and validate says so beforehand with the
// arithmetic. Each told to take 0.3 (what operators do: --gpu-memory-utilization 0.3), they all serve.
TEST(Services, TimeSlicedReplicasTakeTheMemoryTheirEngineTakes) {
  const auto text = [](const std::string& engine) {
    return "name: ts\nhorizon: 1h\n"
           "catalog: {nodes: [{name: one, gpu: A100-80GB-SXM, gpus: 1, cpu_milli: 12000, memory_mib: 147456, source: test}]}\n"
           "cluster: {pools: [{name: a100, node: one, count: 1, price_per_node_hour_usd: 1,\n"
           "  sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 4}]}}}]}\n"
           "workload:\n  services:\n"
           "    - {name: chat, count: 3, model: llama-2-7b, cold_start: none" +
           engine +
           ",\n"
           "       requests: {generator: {rate: 1, duration: 10m, prompt_tokens: 200, output_tokens: 50}}}\n";
  };
  const Scenario naive = test::load(write_file("naive.yaml", text("")));
  const World world = build_world(naive);
  const std::vector<std::string> warnings = scenario_warnings(world);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("3 replicas of chat-0, chat-1, chat-2 may share one GPU and take 73728 + 73728 + 73728 = 221184 "
                             "MiB of its 81920 MiB"),
            std::string::npos)
      << warnings[0];
  const Json bad = test::run(naive);
  EXPECT_GE(bad["oom_events"].get<int>(), 1);
  EXPECT_GE(bad["job_kills"].get<int>(), 3);
  EXPECT_EQ(bad["serving"]["requests_completed"], 0);
  const Scenario told = test::load(write_file("told.yaml", text(", engine: {gpu_memory_utilization: 0.3}")));
  EXPECT_TRUE(scenario_warnings(build_world(told)).empty());
  const Json good = test::run(told);
  EXPECT_EQ(good["oom_events"], 0);
  EXPECT_EQ(good["job_kills"], 0);
  EXPECT_EQ(good["serving"]["requests_completed"], good["serving"]["requests_arrived"]);
}

// Preemption: a cache of 4 blocks of 16 tokens, three requests of 16 prompt and 40 output
// tokens at once. The KV cache: 64 KV heads of 64 make 16,384 bytes a token, 262,144 a block. The
// pod sees 2,624 MiB (its limit) at utilization 1; the reserve is 524 MiB of context and
// 2048 x (2 x 64 + 4 x 4096) x 2 + 256 x 64 x 4 = 67,698,688 bytes of activations; with 2,133,131,264
// bytes of weights that leaves 2,751,463,424 - 2,133,131,264 - 617,152,512 = 1,179,648 bytes: 4 blocks.
// The brute-force reference of the rules (tests/data/v1_reference.py) gives: iteration 0 admits all three;
// iteration 1 request 0 takes the last block and request 1 finds none, so the newest, request 2, is
// preempted (not request 1); at iteration 17 request 0 needs its third block and request 1 goes; they
// finish at iterations 39, 62 and 101: 102 iterations, 2 preemptions, one each for requests 1 and 2.
TEST(Services, RecomputePreemptionTakesTheNewestRunningRequest) {
  const std::string trace = azure_trace("s7.csv", "2023-11-16 18:00:00.0000000,16,40\n"
                                                  "2023-11-16 18:00:00.0000000,16,40\n"
                                                  "2023-11-16 18:00:00.0000000,16,40\n");
  const Scenario s = test::load(
      write_file("s7.yaml", toy("64, kv_heads: 64, head_dim: 64, hidden: 4096, params: 1066565632",
                                "{gpu_memory_limit_mib: 2624}", "{trace: {format: azure-llm-2023, file: " + trace + "}}",
                                "{max_num_batched_tokens: 2048, max_num_seqs: 256, gpu_memory_utilization: 1}")));
  const RunResult r = test::simulate_keeping_requests(s);
  const ServiceFigures& f = r.services[0];
  EXPECT_EQ(f.kv_blocks_min, 4);
  EXPECT_EQ(f.completed, 3u);
  EXPECT_EQ(f.preemptions, 2u);
  EXPECT_EQ(f.iterations, 102u);
  EXPECT_EQ(test::request_row(r, 0).preemptions, 0);
  EXPECT_EQ(test::request_row(r, 1).preemptions, 1);
  EXPECT_EQ(test::request_row(r, 2).preemptions, 1);
  EXPECT_LT(test::request_row(r, 0).e2e_us, test::request_row(r, 1).e2e_us);
  EXPECT_LT(test::request_row(r, 1).e2e_us, test::request_row(r, 2).e2e_us);
}

// Two services of qwen2-0.5b on one A100-80GB: x gets 2 requests/s, y (its neighbour) 0.05 or 4.
// Under MIG each has its slice whatever the other does, so x's run is the same to the microsecond;
// time-sliced, x's iterations wait for y's turns once y is busy; under MPS y takes SMs and bandwidth.
std::string neighbours(const std::string& pool, const std::string& resource, double y_rate) {
  return "name: neighbours\nseed: 3\n"
         "cluster: {pools: [" +
         pool +
         "]}\n"
         "workload:\n  services:\n"
         "    - {name: x, model: qwen2-0.5b, cold_start: none, pod: {resource: " +
         resource +
         "},\n"
         "       requests: {generator: {rate: 2, duration: 2m, prompt_tokens: 500, output_tokens: 100}}}\n"
         "    - {name: y, model: qwen2-0.5b, cold_start: none, pod: {resource: " +
         resource + "},\n       requests: {generator: {rate: " + fmt::format("{}", y_rate) +
         ", duration: 2m, prompt_tokens: 500, output_tokens: 100}}}\n";
}

TEST(Services, MigIsolatesLatencyTimeSlicingAndMpsDoNot) {
  const std::string node = "node: dgx-a100-80gb, count: 1";
  const auto x_of = [](const std::string& text) {
    const Scenario s = test::load(write_file("neighbours.yaml", text));
    return test::run(s)["services"][0];
  };
  const std::string mig = "{name: p, " + node + ", mig: {strategy: mixed, config: all-1g.10gb}}";
  const Json mig_quiet = x_of(neighbours(mig, "nvidia.com/mig-1g.10gb", 0.05));
  const Json mig_busy = x_of(neighbours(mig, "nvidia.com/mig-1g.10gb", 4));
  EXPECT_EQ(mig_quiet["itl_s"], mig_busy["itl_s"]);
  EXPECT_EQ(mig_quiet["ttft_s"], mig_busy["ttft_s"]);
  EXPECT_EQ(mig_quiet["iterations"], mig_busy["iterations"]);

  const std::string ts = "{name: p, " + node + ", sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 2}]}}}";
  const std::string engine_share = ", engine: {gpu_memory_utilization: 0.4}";
  const auto with_share = [&](std::string text) {
    for (std::size_t at = 0; (at = text.find("cold_start: none", at)) != std::string::npos; at += 16)
      text.insert(at + 16, engine_share);
    return text;
  };
  const Json ts_quiet = x_of(with_share(neighbours(ts, "nvidia.com/gpu", 0.05)));
  const Json ts_busy = x_of(with_share(neighbours(ts, "nvidia.com/gpu", 4)));
  // y's turns: with two busy contexts x computes at most half the time, less the switches.
  EXPECT_GT(ts_busy["itl_s"]["p99"].get<double>(), 1.8 * ts_quiet["itl_s"]["p99"].get<double>());
  EXPECT_GT(ts_busy["ttft_s"]["p50"].get<double>(), ts_quiet["ttft_s"]["p50"].get<double>());

  const std::string mps = "{name: p, " + node + ", sharing: {mps: {resources: [{name: nvidia.com/gpu, replicas: 2}]}}}";
  const Json mps_quiet = x_of(neighbours(mps, "nvidia.com/gpu", 0.05));
  const Json mps_busy = x_of(neighbours(mps, "nvidia.com/gpu", 4));
  // y is busy part of the time: x's mean gap grows (its median is set while y idles).
  EXPECT_GT(mps_busy["itl_s"]["mean"].get<double>(), 1.05 * mps_quiet["itl_s"]["mean"].get<double>());
  // A whole A100 per replica under MPS when y idles, against a 1g.10gb slice: x is faster.
  EXPECT_LT(mps_quiet["itl_s"]["p50"].get<double>(), mig_quiet["itl_s"]["p50"].get<double>());
}

// Tensor parallelism goes through the ring link the topology gives the replica's GPUs: Llama-2-70B
// over 4 GPUs runs its two all-reduces a layer over NVSwitch (NV12, 300 GB/s a direction) on a DGX
// A100, over PCIe Gen4 (31.5 GB/s) on a PCIe server: each decode of the PCIe replica is slower.
TEST(Services, TensorParallelReplicasPayForTheirLink) {
  const auto tpot_p50 = [](const std::string& node) {
    const Scenario s = test::load(
        write_file("tp.yaml", "name: tp\ncluster: {pools: [{name: p, node: " + node +
                                  ", count: 1}]}\n"
                                  "workload:\n  services:\n"
                                  "    - {name: big, model: llama-2-70b, tensor_parallel: 4, cold_start: none,\n"
                                  "       requests: {generator: {rate: 0.5, duration: 2m, prompt_tokens: "
                                  "1000, output_tokens: 200}}}\n"));
    return test::run(s)["services"][0]["tpot_s"]["p50"].get<double>();
  };
  EXPECT_GT(tpot_p50("a100-80gb-pcie-8x"), 1.3 * tpot_p50("dgx-a100-80gb"));
}

// A model of kind fixed (docs/serving.md#non-llm-models): 10 ms alone on a reference GPU of 200 TFLOP/s
// at e_flops 1, batch_alpha 0.5, max_batch 2, served on the toy GPU (100 TFLOP/s, e_flops 1): twice as
// slow. Three requests at 0 (their token counts ignored):
//   batch 1  [0, 30 ms]   requests 0 and 1: 10 ms x (1 + 0.5 x 1) x 2e14 / 1e14 = 30 ms
//   batch 2  [30, 50 ms]  request 2 alone: 10 ms x 2 = 20 ms; it queued 30 ms
// With an e2e SLO of 40 ms, two of three are good.
TEST(Services, FixedModelServesDynamicBatches) {
  const std::string trace = azure_trace("fixed.csv", "2023-11-16 18:00:00.0000000,100,10\n"
                                                     "2023-11-16 18:00:00.0000000,100,10\n"
                                                     "2023-11-16 18:00:00.0000000,100,10\n");
  const std::string yaml =
      "name: fixed\n" +
      test::toy_serving_hardware(1000,
                                 "    - {name: REF, memory_mib: 10240, sms: 100, bf16_tflops: 200, fp32_tflops: 10, "
                                 "memory_bandwidth_gb_per_s: 1000,\n"
                                 "       tdp_w: 100, nvlink_gb_per_s: 0, pcie_gen: 4, compute_capability: 8.0, source: test}\n",
                                 "TOY, REF") +
      "models:\n"
      "  - {name: vision, kind: fixed, params: 1000000, service_time: 10ms, reference_gpu: REF, max_batch: 2, batch_alpha: 0.5,"
      " source: test}\n"
      "cluster: {pools: [{name: p, node: toy-1x, count: 1}]}\n"
      "workload:\n"
      "  services:\n"
      "    - {name: s, model: vision, cold_start: none, slo: {e2e: 40ms},\n"
      "       requests: {trace: {format: azure-llm-2023, file: " +
      trace + "}}}\n";
  const RunResult r = test::simulate_keeping_requests(test::load(write_file("fixed.yaml", yaml)));
  ASSERT_EQ(r.requests.size(), 3u);
  for (uint64_t id : {0u, 1u}) {
    EXPECT_EQ(test::request_row(r, id).queue_us, 0);
    EXPECT_EQ(test::request_row(r, id).e2e_us, 30000);
  }
  EXPECT_EQ(test::request_row(r, 2).queue_us, 30000);
  EXPECT_EQ(test::request_row(r, 2).e2e_us, 50000);
  EXPECT_EQ(test::request_row(r, 2).ttft_us, -1);  // no tokens: no TTFT
  EXPECT_EQ(test::request_row(r, 2).prompt, 0);
  const ServiceFigures& f = r.services[0];
  EXPECT_EQ(f.iterations, 2u);
  EXPECT_EQ(f.completed, 3u);
  EXPECT_EQ(f.good, 2u);
  EXPECT_EQ(f.ttft.count(), 0u);
  EXPECT_EQ(f.tpot.count(), 0u);
  EXPECT_EQ(f.output_tokens, 0u);
  EXPECT_EQ(f.e2e.percentile_us(100), LatencyHistogram::lowest(LatencyHistogram::bucket(50000)));
  EXPECT_EQ(r.end, Time::from_us(50000));
}

// Replicas on a time-sliced GPU take turns by the driver's rules (time_slices.hpp), worked by hand with
// slices of 2 ms, preemptions of 0.2 ms and yields of 0.1 ms: two 20 ms batches (the fixed model above)
// from 0: x runs 0-2 ms, y 2.2-4.2, x 4.4-6.4, ...: x's tenth slice, 39.6-41.6 ms, ends its batch; y,
// 2 ms short after its ninth (37.4-39.4), takes the GPU after a yield: 41.7-43.7. A training job on the
// GPU in y's place takes the same turns (a fluid job always has work): x ends at 41.6 ms again.
TEST(Services, TimeSlicedReplicasTakeTurnsSliceBySlice) {
  const std::string trace = azure_trace("one.csv", "2023-11-16 18:00:00.0000000,100,10\n");
  const auto run = [&](bool training) {
    std::string yaml =
        "name: ts\n" +
        test::toy_serving_hardware(1000,
                                   "    - {name: REF, memory_mib: 10240, sms: 100, bf16_tflops: 200, fp32_tflops: 10, "
                                   "memory_bandwidth_gb_per_s: 1000,\n"
                                   "       tdp_w: 100, nvlink_gb_per_s: 0, pcie_gen: 4, compute_capability: 8.0, source: test}\n",
                                   "TOY, REF") +
        "  time_slicing: {timeslice: 0.002, preempt_switch: 0.0002, yield_switch: 0.0001}\n"
        "models:\n"
        "  - {name: vision, kind: fixed, params: 1000000, service_time: 10ms, reference_gpu: REF, max_batch: 2, "
        "batch_alpha: 0.5, source: test}\n"
        "cluster: {pools: [{name: p, node: toy-1x, count: 1, sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, "
        "replicas: 2}]}}}]}\n"
        "workload:\n"
        "  services:\n"
        "    - {name: x, model: vision, cold_start: none, requests: {trace: {format: azure-llm-2023, file: " +
        trace + "}}}\n";
    if (training) yaml += "  jobs:\n    - {name: t, gpus: 1, kind: training, duration: 1s, u: 1}\n";
    else
      yaml += "    - {name: y, model: vision, cold_start: none, requests: {trace: {format: azure-llm-2023, file: " + trace +
              "}}}\n";
    return test::simulate_keeping_requests(test::load(write_file("ts.yaml", yaml)));
  };
  const RunResult two = run(false);
  ASSERT_EQ(two.requests.size(), 2u);
  EXPECT_EQ(two.requests[0].e2e_us, 41'600);
  EXPECT_EQ(two.requests[1].e2e_us, 43'700);
  const RunResult with_training = run(true);
  ASSERT_EQ(with_training.requests.size(), 1u);
  EXPECT_EQ(with_training.requests[0].e2e_us, 41'600);
}

// Exact below 2,048 us; above, the lowest value of a bucket 1/1,024 of a power of two wide.
TEST(Services, LatencyHistogramBuckets) {
  LatencyHistogram h;
  for (int64_t v : {5, 1, 3, 2, 4}) h.add(v);
  EXPECT_EQ(h.percentile_us(50), 3);  // nearest rank: the 3rd of 5
  EXPECT_EQ(h.percentile_us(99), 5);
  EXPECT_EQ(h.percentile_us(0), 1);
  EXPECT_DOUBLE_EQ(h.mean_us(), 3);
  EXPECT_EQ(LatencyHistogram::lowest(LatencyHistogram::bucket(2047)), 2047);
  // 2^20 + 1,000: buckets of 2^(20-10) = 1,024 us from 2^20: the value falls in the first.
  EXPECT_EQ(LatencyHistogram::lowest(LatencyHistogram::bucket((int64_t{1} << 20) + 1000)), int64_t{1} << 20);
  EXPECT_EQ(LatencyHistogram::lowest(LatencyHistogram::bucket((int64_t{1} << 20) + 1024)), (int64_t{1} << 20) + 1024);
  LatencyHistogram big;
  big.add(3'000'000, 2);
  big.merge(h);
  EXPECT_EQ(big.count(), 7u);
  EXPECT_LE(3'000'000 - big.percentile_us(100), 3'000'000 / 1024);
}
}  // namespace

// A serving replica draws as its batch says (model.yaml power.serving_decode; docs/guide/energy.md#serving-replicas):
// one request of 16 prompt tokens and 3 out keeps the toy replica busy at batch 1 from its arrival to its last
// token. TOY's 100 W TDP scales the H200's watts by 1/7: batch-1 decode draws 426.4 / 7 W, 305.4 / 7 above
// idle with clocks up, where the inference kind's fixed mix (serving_decode: [] falls back to it) draws
// 575.66 / 7, 454.66 / 7 above. The replica holds its GPU from time 0, so it is charged all the fleet draws.
TEST(Services, AReplicaDrawsAsItsBatchSays) {
  const std::string trace = azure_trace("e1.csv", "2023-11-16 18:00:00.0000000,16,3\n");
  const std::string text = toy("1, kv_heads: 1, head_dim: 64, hidden: 64, params: 1000000000", "{}",
                               "{trace: {format: azure-llm-2023, file: " + trace + "}}");
  const RunResult batch = test::simulate_keeping_requests(test::load(write_file("e1.yaml", text)), true);
  const RunResult kind = test::simulate_keeping_requests(
      test::load(write_file("e1k.yaml", text), {"model.power.serving_decode=[]"}), true);
  const double busy_s = static_cast<double>(test::request_row(batch, 0).e2e_us) / 1e6;
  EXPECT_EQ(test::request_row(kind, 0).e2e_us, test::request_row(batch, 0).e2e_us);  // energy only: same timing
  const double above_b1 = (426.4 - 121) / 7, above_kind = (121 + 0.6 * 254 + 0.4 * 569 / 0.753 - 121) / 7;
  EXPECT_NEAR(kind.jobs[0].energy_ws - batch.jobs[0].energy_ws, (above_kind - above_b1) * busy_s, 1e-6);
  for (const RunResult* r : {&batch, &kind}) {
    const PoolEnergy& e = r->metrics.pool_energy(PoolId{0});
    EXPECT_NEAR(r->jobs[0].energy_ws, e.gpu_ws + e.host_ws, 1e-9 * (e.gpu_ws + e.host_ws));
  }
}
