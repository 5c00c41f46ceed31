// Preemptive queue orders (srtf, las, tiresias) on one 1-GPU node, where every decision can be
// followed by hand. Suspending writes the job's state for 30 s holding its GPU and resuming reads it
// for 30 s (model.preemption); a suspended job keeps its progress.
#include <gtest/gtest.h>

#include "test_util.hpp"

using namespace gpusim;
using test::write_file;

namespace {

RunResult run_on_one_gpu(const std::string& jobs, const std::string& policy) {
  const std::string text = "name: pre\ncluster: {pools: [{name: p, node: a10-1x, count: 1}]}\n"
                           "workload:\n  jobs:\n" + jobs + "policy: " + policy + "\n";
  const Scenario s = test::load(write_file("pre.yaml", text));
  auto sched = Registry::global().make(s.policy, policy_context(s), s.policy_where);
  return simulate(s, *sched);
}

// A 10-hour job runs from t=0; a 1-hour job arrives at t=1h.
//   fifo: the short job waits 9 h (it ends at 11 h) and nothing is preempted.
//   srtf: 1 h left beats 9 h left; las: the newcomer has attained less; tiresias: the long job has
//         attained 3,600 GPU-s, past the 1,800 and 3,600 thresholds, so it is in the third queue and
//         the newcomer in the first. The long job is suspended (30 s), the short one runs from
//         1 h 30 s to 2 h 30 s; the long one resumes (30 s) with 9 h of work left.
const std::string kLongThenShort = "    - {name: long, gpus: 1, duration: 10h}\n"
                                   "    - {name: short, gpus: 1, duration: 1h, arrival: 1h}\n";

TEST(Preemption, FifoWaitsSrtfLasAndTiresiasPreempt) {
  const RunResult fifo = run_on_one_gpu(kLongThenShort, "fifo+first-fit");
  EXPECT_EQ(fifo.jobs[1].end.seconds(), 11 * 3600.0);
  EXPECT_EQ(fifo.jobs[0].preemptions, 0u);
  for (const char* p : {"srtf+first-fit", "las+first-fit", "tiresias+first-fit"}) {
    const RunResult r = run_on_one_gpu(kLongThenShort, p);
    EXPECT_EQ(r.jobs[0].preemptions, 1u) << p;
    EXPECT_EQ(r.jobs[1].end.seconds(), 2 * 3600.0 + 30) << p;
    EXPECT_EQ(r.jobs[0].end.seconds(), 2 * 3600.0 + 30 + 30 + 9 * 3600.0) << p;
    EXPECT_EQ(r.jobs[0].status, JobStatus::completed) << p;
  }
}

// Discretized LAS differs from LAS: with one threshold at 3,600 GPU-s, a 5-hour job that has run
// 30 min when a 30-min job arrives is in the same (first) queue, where running jobs come first, so
// it keeps the GPU until its service reaches 3,600 GPU-s at t=1h; then it is demoted and the
// waiting job preempts it: the short job runs from 1 h 30 s to 1 h 30 min 30 s, and the long one
// resumes (30 s) with 4 h left, ending at 5 h 31 min. LAS preempts at once, at 30 min.
TEST(Preemption, TiresiasPreemptsOnlyAcrossQueues) {
  const std::string jobs = "    - {name: long, gpus: 1, duration: 5h}\n"
                           "    - {name: short, gpus: 1, duration: 30m, arrival: 30m}\n";
  const RunResult t = run_on_one_gpu(jobs, "{name: tiresias+first-fit, params: {tiresias_queues: [3600]}}");
  EXPECT_EQ(t.jobs[0].preemptions, 1u);
  EXPECT_EQ(t.jobs[1].start.seconds(), 3600.0 + 30);
  EXPECT_EQ(t.jobs[1].end.seconds(), 3600.0 + 30 + 1800);
  EXPECT_EQ(t.jobs[0].end.seconds(), 3600.0 + 30 + 1800 + 30 + 4 * 3600);
  const RunResult las = run_on_one_gpu(jobs, "las+first-fit");
  EXPECT_EQ(las.jobs[1].start.seconds(), 1800.0 + 30);
}

// Starvation promotion. One threshold at 1,800 GPU-s. A 10-hour job is preempted at t=1h by a
// 3-hour newcomer (first queue against second) and waits from 1 h 30 s, having held the GPU 3,630 s.
//   Promotion off: it waits for the newcomer to finish (at 1 h 30 s + 3 h) and ends 9 h + 30 s after.
//   tiresias_starvation 1: after waiting as long as it ran (3,630 s, at t=7,260 s) it goes back to
//   the first queue with its service reset and preempts the newcomer, by then in the second queue.
TEST(Preemption, TiresiasPromotesAStarvingJob) {
  const std::string jobs = "    - {name: long, gpus: 1, duration: 10h}\n"
                           "    - {name: newcomer, gpus: 1, duration: 3h, arrival: 1h}\n";
  const RunResult off = run_on_one_gpu(jobs, "{name: tiresias+first-fit, params: {tiresias_queues: [1800]}}");
  EXPECT_EQ(off.jobs[0].preemptions, 1u);
  EXPECT_EQ(off.jobs[1].preemptions, 0u);
  EXPECT_EQ(off.jobs[1].end.seconds(), 3630.0 + 3 * 3600);
  EXPECT_EQ(off.jobs[0].end.seconds(), 3630.0 + 3 * 3600 + 30 + 9 * 3600);
  const RunResult on =
      run_on_one_gpu(jobs, "{name: tiresias+first-fit, params: {tiresias_queues: [1800], tiresias_starvation: 1}}");
  EXPECT_GE(on.jobs[1].preemptions, 1u);
  EXPECT_GT(on.jobs[1].end.seconds(), off.jobs[1].end.seconds());
  EXPECT_EQ(on.jobs[0].status, JobStatus::completed);
  EXPECT_EQ(on.jobs[1].status, JobStatus::completed);
}

// A job preempted while it is still restoring leaves at once and is queued again inside the pass; the
// scheduler sees it at a second pass at the same time, so it is neither lost nor left pending.
TEST(Preemption, AJobPreemptedWhileRestoringIsQueuedAgain) {
  // long starts at 0; mid (2 h) preempts it at 1 h (srtf) and runs from 3,630 s to 10,830 s; long
  // resumes then, and while it restores (30 s) short (10 min) arrives at 10,840 s and preempts it.
  const std::string jobs = "    - {name: long, gpus: 1, duration: 10h}\n"
                           "    - {name: mid, gpus: 1, duration: 2h, arrival: 1h}\n"
                           "    - {name: short, gpus: 1, duration: 10m, arrival: 10840}\n";
  const RunResult r = run_on_one_gpu(jobs, "srtf+first-fit");
  for (const auto& j : r.jobs) EXPECT_EQ(j.status, JobStatus::completed);
  EXPECT_EQ(r.jobs[0].preemptions, 2u);
  EXPECT_EQ(r.jobs[2].start.seconds(), 10840.0);  // the GPU is free at once: long was only restoring
}

// Serves a job named "urgent" first and evicts the running job for it when it does not fit, with a
// grace period; places on GPU 0: Binder::evict alone, without a policy's other rules.
class EvictForUrgent final : public Scheduler {
 public:
  explicit EvictForUrgent(Duration grace) : grace_(grace) {}
  std::string name() const override { return "evict-for-urgent"; }
  QueueKey queue_key(const Job& j) const override { return {j.name == "urgent" ? 0 : 1, 0}; }
  void decide(const ClusterView& view, Binder& binder) override {
    std::vector<JobId> pending;
    view.for_each_pending([&](JobId id) {
      pending.push_back(id);
      return true;
    });
    for (JobId id : pending) {
      if (!view.gpu_fits(id, GpuId{0}) && view.job(id).name == "urgent") {
        std::vector<JobId> victims;  // not evicted inside the walk: an eviction may change the running list
        view.for_each_running([&](JobId victim, Time) {
          if (view.preemptible(victim)) victims.push_back(victim);
        });
        for (JobId victim : victims) binder.evict(victim, grace_, id, "test");
      }
      if (view.gpu_fits(id, GpuId{0})) binder.bind(id, Placement{{NodeId{0}}, {GpuId{0}}, {}});
    }
  }

 private:
  Duration grace_;
};

RunResult run_evicting(const std::string& checkpoint, Duration grace) {
  const std::string text = "name: evict\ncluster: {pools: [{name: p, node: a10-1x, count: 1}]}\n"
                           "workload:\n  jobs:\n"
                           "    - {name: long, gpus: 1, duration: 10h" +
                           checkpoint +
                           "}\n"
                           "    - {name: urgent, gpus: 1, duration: 1h, arrival: 1h}\n";
  const Scenario s = test::load(write_file("evict.yaml", text));
  EvictForUrgent sched(grace);
  return simulate(s, sched);
}

// A 10-hour job runs from 0; at 1 h a 1-hour job evicts it with a 30 s grace period.
//   No checkpoint: it runs on to 3,630 s and loses all it did; urgent runs 3,630-7,230 s and long
//   starts over then: it ends at 7,230 + 36,000 s.
//   Checkpoints every 2 h costing 20 s (restore 10 s): the write fits the grace period, so it
//   leaves at 3,620 s with 9 h left; urgent runs 3,620-7,220 s; long restores 10 s and computes
//   9 h, writing 4 more checkpoints (after 2, 4, 6 and 8 h): it ends at 7,230 + 32,400 + 80 s,
//   having lost nothing.
//   Grace 0: it leaves at 3,600 s, urgent starts at once, long starts over at 7,200 s.
TEST(Preemption, AnEvictedJobLeavesWithinItsGracePeriod) {
  const RunResult plain = run_evicting("", Duration::from_seconds(30));
  EXPECT_EQ(plain.jobs[1].start.seconds(), 3630.0);
  EXPECT_EQ(plain.jobs[0].end.seconds(), 7230.0 + 36000);
  EXPECT_EQ(plain.jobs[0].preemptions, 1u);
  EXPECT_EQ(plain.jobs[0].evictions, 0u);
  EXPECT_EQ(plain.jobs[0].lost_work.us(), Duration::from_seconds(3630).us());

  const RunResult saved = run_evicting(", checkpoint: {interval: 2h, cost: 20s, restore: 10s}", Duration::from_seconds(30));
  EXPECT_EQ(saved.jobs[1].start.seconds(), 3620.0);
  EXPECT_EQ(saved.jobs[0].end.seconds(), 7230.0 + 32400 + 80);
  EXPECT_EQ(saved.jobs[0].lost_work.us(), 0);

  const RunResult now = run_evicting("", Duration());
  EXPECT_EQ(now.jobs[1].start.seconds(), 3600.0);
  EXPECT_EQ(now.jobs[0].end.seconds(), 7200.0 + 36000);
  for (const RunResult* r : {&plain, &saved, &now})
    for (const auto& j : r->jobs) EXPECT_EQ(j.status, JobStatus::completed);
}

}  // namespace
