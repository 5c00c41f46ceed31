// Observers of one run: the Perfetto trace writer (trace.json) and the audit.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "gpusim/sim/audit.hpp"
#include "gpusim/sim/outputs.hpp"
#include "run_util.hpp"

using namespace gpusim;
using test::source_path;

namespace {

Scenario variant(const std::string& file, const std::string& name) {
  for (auto& [v, s] : load_variants(source_path(file), {{}, source_path("data"), {}, {}}))
    if (v == name) return std::move(s);
  ADD_FAILURE() << file << " has no variant " << name;
  return {};
}

struct Traced {
  RunResult result;
  nlohmann::json trace;
};

Traced run_traced(const Scenario& s) {
  auto scheduler = Registry::global().make(s.policy, policy_context(s), s.policy_where);
  const RunOutputs outputs({"trace"});
  RunResult r = simulate(s, *scheduler, {{}, outputs.observers(), true});
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::temp_directory_path() / "gpusim-tests" / info->name();
  outputs.write(dir.string(), true, s, r, summarize(s, r));
  std::ifstream in(dir / "trace.json");
  return {std::move(r), nlohmann::json::parse(in)};
}

uint64_t instants(const nlohmann::json& trace, std::string_view name) {
  uint64_t n = 0;
  for (const auto& e : trace["traceEvents"]) n += e["ph"] == "i" && e["name"] == name;
  return n;
}

// The trace's structure, and each job's slices adding up to the GPU time it held.
Traced check_trace(const Scenario& s) {
  Traced traced = run_traced(s);
  const auto& [r, trace] = traced;
  EXPECT_TRUE(trace.at("traceEvents").is_array());
  std::set<int64_t> named_processes;
  std::set<std::pair<int64_t, int64_t>> named_tracks;
  std::map<int64_t, int64_t> held_us;                                                        // per job, over its tracks
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> on_track;  // slices
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e.at("ph");
    if (ph == "M" && e["name"] == "process_name") named_processes.insert(e["pid"].get<int64_t>());
    if (ph == "M" && e["name"] == "thread_name") named_tracks.emplace(e["pid"].get<int64_t>(), e["tid"].get<int64_t>());
    if (ph != "X") continue;
    const std::pair<int64_t, int64_t> track{e.at("pid").get<int64_t>(), e.at("tid").get<int64_t>()};
    const int64_t ts = e.at("ts"), dur = e.at("dur");
    EXPECT_TRUE(e.at("name").is_string());
    EXPECT_GE(dur, 0);
    const int64_t job = e.at("args").at("job");
    EXPECT_EQ(e["name"], s.jobs.jobs[static_cast<std::size_t>(job)].name);
    EXPECT_TRUE(named_processes.count(track.first));
    EXPECT_TRUE(named_tracks.count(track));
    held_us[job] += dur;
    on_track[track].emplace_back(ts, ts + dur);
  }
  for (auto& [track, slices] : on_track) {  // one resident at a time on a track (a lane of a shared GPU)
    std::sort(slices.begin(), slices.end());
    for (std::size_t i = 1; i < slices.size(); ++i) EXPECT_LE(slices[i - 1].second, slices[i].first);
  }
  std::size_t checked = 0;
  for (const Job& j : s.jobs.jobs) {
    const JobRecord& rec = r.jobs[j.id];
    if (j.request.gpus == 0) continue;
    double want = rec.attained_gpu.us();
    if (rec.status == JobStatus::running)
      want += static_cast<double>((r.end - rec.start).us()) * static_cast<double>(r.placement(j.id).gpus.size());
    EXPECT_EQ(static_cast<double>(held_us[j.id]), want) << j.name;
    checked += want > 0;
  }
  EXPECT_GT(checked, 0u);
  return traced;
}

}  // namespace

TEST(Trace, SlicesOfSharedGpusSumToEachJobsGpuTime) { check_trace(variant("scenarios/sharing-strategies.yaml", "time-slicing")); }

TEST(Trace, MigSlicesSumToEachJobsGpuTime) { check_trace(variant("scenarios/sharing-strategies.yaml", "mig")); }

TEST(Trace, SpotEvictionsAndCheckpointsKeepTheSums) {
  const Scenario s = variant("scenarios/spot-training.yaml", "spot");
  const auto [r, trace] = check_trace(s);
  uint64_t reclaims = 0;
  for (const PoolActivity& a : r.pools) reclaims += a.reclaims;
  EXPECT_GT(reclaims, 0u);
  EXPECT_EQ(instants(trace, "spot reclaim notice"), reclaims);
}

TEST(Trace, PreemptionsAreMarked) {
  Scenario s = test::load(source_path("scenarios/philly.yaml"), {"policy=las+first-fit"});
  s.jobs.jobs.resize(3000);  // the first jobs are enough to queue and preempt
  const auto [r, trace] = check_trace(s);
  uint64_t preempted = 0;
  for (const JobRecord& rec : r.jobs) preempted += rec.preemptions;
  EXPECT_GT(preempted, 0u);
  EXPECT_EQ(instants(trace, "preempted"), preempted);
}

namespace {

// Breaks the cluster behind the engine's back (which no policy can), so the audit must notice.
class Saboteur final : public Observer {
 public:
  explicit Saboteur(int what) : what_(what) {}
  bool wants_every_event() const override { return true; }
  void event_applied(const RunState& run, std::string_view kind, uint32_t) override {
    if (done_ || kind != "decision") return;
    done_ = true;
    auto& c = const_cast<Cluster&>(run.cluster());
    const NodeId n{what_ == 0 ? 0u : 2u};
    if (what_ == 0) c.allocate(n, c.node(n).cpu_milli + 1, 0);                                // more CPU than the node has
    else c.attach(GpuId{c.node(n).first_gpu + 7}, JobId{0}, GpuClaim{Milli{100}, 0, 0, {}});  // a resident no placement lists
    c.reindex(n);
  }

 private:
  int what_;
  bool done_ = false;
};

std::string audit_error(int what) {
  const Scenario s = test::load(source_path("scenarios/quickstart.yaml"));
  auto scheduler = Registry::global().make(s.policy, policy_context(s), s.policy_where);
  Saboteur saboteur(what);
  try {
    simulate(s, *scheduler, {{}, {&saboteur}, true});
  } catch (const AuditError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Audit, EveryShippedScenarioPassesItsDefaultRun) {
  // Each variant and policy runs under --audit in golden_outputs; this is the C++ door to it.
  const Scenario s = test::load(source_path("scenarios/quickstart.yaml"));
  auto scheduler = Registry::global().make(s.policy, policy_context(s), s.policy_where);
  EXPECT_NO_THROW(simulate(s, *scheduler, {{}, {}, true}));
}

TEST(Audit, NamesTheEventTheTimeAndTheBrokenInvariant) {
  const std::string cpu = audit_error(0);
  EXPECT_EQ(cpu.substr(0, cpu.find(" milli")), "audit: after decision 0 at t=2455.494566s: node dgx-a100-0: free CPU -1");
  const std::string phantom = audit_error(1);
  EXPECT_NE(phantom.find("node t4-shared-0: GPU 7: holds job 0, whose placement does not list it"), std::string::npos) << phantom;
}
