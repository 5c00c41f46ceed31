// Preemptive queue orders (srtf, las, tiresias) on one 1-GPU node, where every decision can be
// followed by hand. Suspending writes the job's state for 30 s holding its GPU and resuming reads it
// for 30 s (model.preemption); a suspended job keeps its progress.
#include <gtest/gtest.h>

#include "run_util.hpp"

using namespace gpusim;
using test::write_file;

namespace {

RunResult run_on_one_gpu(const std::string& jobs, const std::string& policy) {
  const std::string text = "name: pre\ncluster: {pools: [{name: p, node: a10-1x, count: 1}]}\n"
                           "workload:\n  reference_gpu: any\n  jobs:\n" +
                           jobs + "policy: " + policy + "\n";
  const Scenario s = test::load(write_file("pre.yaml", text));
  auto sched = Registry::global().make(s.policy, policy_context(s), s.policy_where);
  return simulate(s, *sched);
}

// A 10-hour job runs from t=0; a 1-hour job arrives at t=1h.
//   fifo: the short job waits 9 h (it ends at 11 h) and nothing is preempted.
//   srtf: 1 h left beats 9 h left; las: the newcomer has attained less; tiresias with limits at
//         1,800, 3,600 and 7,200 GPU-s: the long job has attained 3,600 GPU-s, so it is in the third
//         queue and the newcomer in the first. The long job is suspended (30 s), the short one runs
//         from 1 h 30 s to 2 h 30 s (it reaches the second queue only, ahead of the long one); the
//         long one resumes (30 s) with 9 h of work left.
const std::string kLongThenShort = "    - {name: long, gpus: 1, duration: 10h}\n"
                                   "    - {name: short, gpus: 1, duration: 1h, arrival: 1h}\n";

TEST(Preemption, FifoWaitsSrtfLasAndTiresiasPreempt) {
  const RunResult fifo = run_on_one_gpu(kLongThenShort, "fifo+first-fit");
  EXPECT_EQ(fifo.jobs[1].end.seconds(), 11 * 3600.0);
  EXPECT_EQ(fifo.jobs[0].preemptions, 0u);
  for (const char* p :
       {"srtf+first-fit", "las+first-fit", "{name: tiresias+first-fit, params: {tiresias_queues: [1800, 3600, 7200]}}"}) {
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

// The pending jobs in queue order, taken before a test scheduler binds any (a bind changes the queue).
std::vector<JobId> pending_jobs(const ClusterView& view) {
  std::vector<JobId> pending;
  view.for_each_pending([&](JobId id) {
    pending.push_back(id);
    return true;
  });
  return pending;
}

// Binds every pending job that fits GPU 0, and preempts the first one it binds in the same pass: with
// no time to suspend, the job is back in the queue within the pass that started it.
class StartThenPreempt final : public Scheduler {
 public:
  std::string name() const override { return "start-then-preempt"; }
  QueueKey queue_key(const Job& j) const override { return {j.arrival.us(), 0}; }
  void decide(const ClusterView& view, Binder& binder) override {
    for (JobId id : pending_jobs(view)) {
      if (!view.gpu_fits(id, GpuId{0})) continue;
      binder.bind(id, Placement{{NodeId{0}}, {GpuId{0}}, {}});
      if (!preempted_) {
        preempted_ = true;
        binder.preempt(id);
      }
    }
  }

 private:
  bool preempted_ = false;
};

// The job started and put back at t = 0 keeps its place in the queue: the next pass, at the same
// time, starts it again and it ends at 1 h (it was left out of the queue, pending forever).
TEST(Preemption, AJobStartedAndQueuedAgainInOnePassStaysQueued) {
  const Scenario s = test::load(write_file("again.yaml", "name: again\n"
                                                         "cluster: {pools: [{name: p, node: a10-1x, count: 1}]}\n"
                                                         "model: {preemption: {suspend: 0, resume: 0}}\n"
                                                         "workload:\n  reference_gpu: any\n  jobs:\n"
                                                         "    - {name: a, gpus: 1, duration: 1h}\n"
                                                         "    - {name: b, gpus: 1, duration: 1h, arrival: 2h}\n"));
  StartThenPreempt sched;
  const RunResult r = simulate(s, sched);
  EXPECT_EQ(r.jobs[0].preemptions, 1u);
  EXPECT_EQ(r.jobs[0].status, JobStatus::completed);
  EXPECT_EQ(r.jobs[0].end.seconds(), 3600.0);
  EXPECT_EQ(r.jobs[1].status, JobStatus::completed);
}

// A job bound to a node (Kubernetes' spec.nodeName) bypasses the scheduler: the engine starts it when
// its node has room, and the preemptive orders neither grant it GPUs nor preempt it. A bound job that
// waits for its node does not preempt the job running there (it starts when that one ends, at 10 h), and
// a running bound job is not preempted for a newcomer (short waits until it ends, at 5 h). Before, the
// scheduler granted the waiting bound job again once the engine had started it: "invalid decision".
TEST(Preemption, BoundJobsBypassThePreemptiveOrders) {
  for (const char* p : {"srtf+first-fit", "las+first-fit", "tiresias+first-fit"}) {
    const RunResult waits = run_on_one_gpu("    - {name: long, gpus: 1, duration: 10h}\n"
                                           "    - {name: bound, gpus: 1, duration: 1h, arrival: 1h, node: p-0}\n",
                                           p);
    for (const auto& j : waits.jobs) EXPECT_EQ(j.status, JobStatus::completed) << p;
    EXPECT_EQ(waits.jobs[0].preemptions, 0u) << p;
    EXPECT_EQ(waits.jobs[1].start.seconds(), 10 * 3600.0) << p;
    const RunResult runs = run_on_one_gpu("    - {name: bound, gpus: 1, duration: 5h, node: p-0}\n"
                                          "    - {name: short, gpus: 1, duration: 1h, arrival: 1h}\n",
                                          p);
    EXPECT_EQ(runs.jobs[0].preemptions, 0u) << p;
    EXPECT_EQ(runs.jobs[1].start.seconds(), 5 * 3600.0) << p;
    EXPECT_EQ(runs.jobs[1].status, JobStatus::completed) << p;
  }
}

// Serves a job named "urgent" first and evicts the running job for it when it does not fit, with a
// grace period; places on GPU 0: Binder::evict alone, without a policy's other rules.
class EvictForUrgent final : public Scheduler {
 public:
  explicit EvictForUrgent(Duration grace) : grace_(grace) {}
  std::string name() const override { return "evict-for-urgent"; }
  QueueKey queue_key(const Job& j) const override { return {j.name == "urgent" ? 0 : 1, 0}; }
  void decide(const ClusterView& view, Binder& binder) override {
    for (JobId id : pending_jobs(view)) {
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
                           "workload:\n  reference_gpu: any\n  jobs:\n"
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

// --- Tiresias as its simulator's dlas-gpu runs it, and its sjf (SymbioticLab/Tiresias, simulator/run_sim.py).
// Free preemption (suspend and resume 0 s), as in that simulator, so every time below is worked by hand.

RunResult run_free(const std::string& pools, const std::string& jobs, const std::string& policy) {
  const std::string text = "name: sim\ncluster: {pools: [" + pools +
                           "]}\nmodel: {preemption: {suspend: 0, resume: 0}}\n"
                           "workload:\n  reference_gpu: any\n  jobs:\n" +
                           jobs + "policy: " + policy + "\n";
  const Scenario s = test::load(write_file("sim.yaml", text));
  auto sched = Registry::global().make(s.policy, policy_context(s), s.policy_where);
  return simulate(s, *sched);
}
const std::string kOneGpu = "{name: p, node: a10-1x, count: 1}";

// Queue limits: the simulator's 3,250 GPU-s (then 7,200). A 10,000 s job runs from t=0; a 1,000 s job
// arrives at t=2,000 into the first queue, where the running job (2,000 GPU-s, still in it) comes
// first. At t=3,250 the long job reaches the limit, moves down and is preempted: the short job runs
// 3,250-4,250, the long one resumes then with 6,750 s left and ends at 11,000. (With a first limit of
// 1,800 GPU-s the short job would have preempted it on arrival, ending at 3,000.)
TEST(Tiresias, FirstQueueLimitIs3250GpuSeconds) {
  const RunResult r = run_free(kOneGpu,
                               "    - {name: long, gpus: 1, duration: 10000}\n"
                               "    - {name: short, gpus: 1, duration: 1000, arrival: 2000}\n",
                               "tiresias+first-fit");
  EXPECT_EQ(r.jobs[1].start.seconds(), 3250.0);
  EXPECT_EQ(r.jobs[1].end.seconds(), 4250.0);
  EXPECT_EQ(r.jobs[0].preemptions, 1u);
  EXPECT_EQ(r.jobs[0].end.seconds(), 11000.0);
  const RunResult old = run_free(kOneGpu,
                                 "    - {name: long, gpus: 1, duration: 10000}\n"
                                 "    - {name: short, gpus: 1, duration: 1000, arrival: 2000}\n",
                                 "{name: tiresias+first-fit, params: {tiresias_queues: [1800, 3600, 7200]}}");
  EXPECT_EQ(old.jobs[1].end.seconds(), 3000.0);
}

// Demotion timing. One limit, 1,002 GPU-s; two 8-GPU servers. B (1 GPU, 5,000 s) runs from t=0; A
// (8 GPUs, 2,000 s) from t=850. A's GPU time crosses 1,002 at t=975.25, B's at t=1,002. The simulator
// looks at demotion only at events, and wakes for A at 850 + floor(1002 / 8) = 975 (A has 1,000 GPU-s:
// not yet) and then at 975 + floor((1002 - 125) / 8) = 1,084, for B at 1,002: so both move down at
// t=1,002, appended in arrival order, B before A. C (8 GPUs, 500 s) arrives at t=1,100 into the first
// queue: C takes 8 GPUs, B keeps its 1, A (8) no longer fits and is preempted. C runs 1,100-1,200; A
// resumes then with 1,750 s left and ends at 2,950; B ends at 5,000. (Demoted when its GPU time
// crossed, A would have been ahead of B, and B preempted.) The simulator, run on this trace with
// queue_limit [1002], gives the same times.
TEST(Tiresias, DemotionAtTheSimulatorsEvents) {
  const RunResult r = run_free("{name: p, node: t4-8x, count: 2}",
                               "    - {name: b, gpus: 1, duration: 5000}\n"
                               "    - {name: a, gpus: 8, duration: 2000, arrival: 850}\n"
                               "    - {name: c, gpus: 8, duration: 100, arrival: 1100}\n",
                               "{name: tiresias+first-fit, params: {tiresias_queues: [1002]}}");
  EXPECT_EQ(r.jobs[0].preemptions, 0u);
  EXPECT_EQ(r.jobs[0].end.seconds(), 5000.0);
  EXPECT_EQ(r.jobs[1].preemptions, 1u);
  EXPECT_EQ(r.jobs[1].end.seconds(), 2950.0);
  EXPECT_EQ(r.jobs[2].start.seconds(), 1100.0);
  EXPECT_EQ(r.jobs[2].end.seconds(), 1200.0);
}

// Order within a queue: a demoted job goes to the back of its new queue, behind the jobs waiting
// there. One GPU, limits 3,250 and 7,200. P (10,000 s) runs from t=0; R (5,000 s) arrives at t=3,000
// and waits behind it in the first queue. At t=3,250 P moves down and R preempts it; P waits in the
// second queue. At t=6,500 R reaches 3,250 GPU-s and is appended behind P: P resumes, R waits. At
// t=10,450 P reaches 7,200 GPU-s (3,250 + 3,950) and moves to the third queue: R, in the second,
// preempts it and runs its last 1,750 s to 12,200; P resumes then with 2,800 s left and ends at
// 15,000. (With running jobs first in their queue, R would have run on to 8,250.) The simulator's
// dlas-gpu gives the same times, as it does for the first test.
TEST(Tiresias, ADemotedJobGoesBehindTheWaitingOnes) {
  const RunResult r = run_free(kOneGpu,
                               "    - {name: p, gpus: 1, duration: 10000}\n"
                               "    - {name: r, gpus: 1, duration: 5000, arrival: 3000}\n",
                               "tiresias+first-fit");
  EXPECT_EQ(r.jobs[1].first_start.seconds(), 3250.0);
  EXPECT_EQ(r.jobs[1].preemptions, 1u);
  EXPECT_EQ(r.jobs[1].end.seconds(), 12200.0);
  EXPECT_EQ(r.jobs[0].preemptions, 2u);
  EXPECT_EQ(r.jobs[0].end.seconds(), 15000.0);
}

// The simulator's sjf: fewest GPUs first, preemptive. One 4-GPU server: A (3 GPUs, 1,000 s) runs from
// t=0; B (2 GPUs, 500 s) arrives at t=100 and ranks first, so A is preempted: B runs 100-600, A resumes
// with 900 s left and ends at 1,500. The oracle sjf does not preempt: B waits until 1,000.
TEST(Tiresias, SjfGpusPreemptsForFewerGpus) {
  const std::string jobs = "    - {name: a, gpus: 3, duration: 1000}\n"
                           "    - {name: b, gpus: 2, duration: 500, arrival: 100}\n";
  const RunResult r = run_free("{name: p, node: l4-4x, count: 1}", jobs, "sjf-gpus+first-fit");
  EXPECT_EQ(r.jobs[0].preemptions, 1u);
  EXPECT_EQ(r.jobs[1].end.seconds(), 600.0);
  EXPECT_EQ(r.jobs[0].end.seconds(), 1500.0);
  const RunResult oracle = run_free("{name: p, node: l4-4x, count: 1}", jobs, "sjf+first-fit");
  EXPECT_EQ(oracle.jobs[1].end.seconds(), 1500.0);
}

// Starvation promotion. One GPU, one limit at 1,800 GPU-s. L (36,000 s) runs from t=0 and moves down at
// 1,800; three 1,500 s jobs arrive at 2,000, 3,500 and 5,000, each in the first queue.
//   Off: they run back to back, 2,000-6,500; L resumes then with 34,000 s left and ends at 40,500.
//   tiresias_starvation 1: L, waiting since 2,000 after 2,000 s of run, goes back to the back of the
//   first queue at 4,000, behind the running second job; at 5,000 it is ahead of the third, runs,
//   moves down again at 6,800, and the third job preempts it: the third runs 6,800-8,300, L ends at
//   40,500 after a second preemption. The simulator's dlas-gpu and dlas-gpu-1 give these times.
TEST(Tiresias, PromotesAStarvingJob) {
  const std::string jobs = "    - {name: l, gpus: 1, duration: 36000}\n"
                           "    - {name: s1, gpus: 1, duration: 1500, arrival: 2000}\n"
                           "    - {name: s2, gpus: 1, duration: 1500, arrival: 3500}\n"
                           "    - {name: s3, gpus: 1, duration: 1500, arrival: 5000}\n";
  const RunResult off = run_free(kOneGpu, jobs, "{name: tiresias+first-fit, params: {tiresias_queues: [1800]}}");
  EXPECT_EQ(off.jobs[3].end.seconds(), 6500.0);
  EXPECT_EQ(off.jobs[0].preemptions, 1u);
  EXPECT_EQ(off.jobs[0].end.seconds(), 40500.0);
  const RunResult on = run_free(kOneGpu, jobs,
                                "{name: tiresias+first-fit, params: {tiresias_queues: [1800], tiresias_starvation: 1}}");
  EXPECT_EQ(on.jobs[2].end.seconds(), 5000.0);
  EXPECT_EQ(on.jobs[3].first_start.seconds(), 6800.0);
  EXPECT_EQ(on.jobs[3].end.seconds(), 8300.0);
  EXPECT_EQ(on.jobs[0].preemptions, 2u);
  EXPECT_EQ(on.jobs[0].end.seconds(), 40500.0);
}

// Starvation counts every wait since the job's first run after it last entered the first queue, as
// the simulator's last_pending_time sums them. One GPU, limits 3,250 and 7,200, tiresias_starvation 1.
// L (30,000 s) runs from 0 and moves down at 3,250; A (1,000 s, t=4,000) preempts it: L has run
// 4,000 s and waits 1,000 s until A ends. L resumes at 5,000 and B1 (3,000 s, t=6,000) preempts it
// again after 5,000 s of run; B2 (3,000 s, t=8,000) follows B1 at 9,000. L's waits reach its 5,000 s
// of run at 10,000 (1,000 + 4,000): it goes to the back of the first queue, so it is ahead of C
// (1,000 s, t=10,500). At 12,000 B2 ends and L runs, moves down again at 15,250 and C runs
// 15,250-16,250; L ends at 38,000 after three preemptions. Counting only the current wait, L would
// be promoted at 11,000, behind C, which would run 12,000-13,000. The simulator's dlas-gpu-1 gives
// these times.
TEST(Tiresias, StarvationSumsTheWaits) {
  const RunResult r = run_free(kOneGpu,
                               "    - {name: l, gpus: 1, duration: 30000}\n"
                               "    - {name: a, gpus: 1, duration: 1000, arrival: 4000}\n"
                               "    - {name: b1, gpus: 1, duration: 3000, arrival: 6000}\n"
                               "    - {name: b2, gpus: 1, duration: 3000, arrival: 8000}\n"
                               "    - {name: c, gpus: 1, duration: 1000, arrival: 10500}\n",
                               "{name: tiresias+first-fit, params: {tiresias_starvation: 1}}");
  EXPECT_EQ(r.jobs[4].first_start.seconds(), 15250.0);
  EXPECT_EQ(r.jobs[4].end.seconds(), 16250.0);
  EXPECT_EQ(r.jobs[0].preemptions, 3u);
  EXPECT_EQ(r.jobs[0].end.seconds(), 38000.0);
}

// tiresias-gittins sorts each queue by the Gittins index of a job's service over the workload's sizes
// (here 1,000 and 2,000 GPU-s; quantum 3,250). One GPU: X (2,000 s) runs from 0; Y (1,000 s) arrives at
// 1,500. X's 1,500 GPU-s index is that of the size above it, 2,000 - 1 = 1,999: no job larger than that
// ends, P = 0, index 0. Y's (service 0) is that of 999: both sizes are larger, the 1,000 ends within the
// quantum, P = 1/2, E = (1,000 + 3,250) / 2 = 2,125 (the simulator's sum of sizes), index
// 0.5 x 10^6 / 2,125 = 235.29. Y preempts X and runs 1,500-2,500; X ends at 3,000. tiresias keeps the
// running X first in the first queue: X ends at 2,000, Y at 3,000. The simulator's dlas-gpu-gittins,
// reading these two sizes as its distribution, gives the same times.
TEST(Tiresias, GittinsRanksByIndex) {
  const std::string jobs = "    - {name: x, gpus: 1, duration: 2000}\n"
                           "    - {name: y, gpus: 1, duration: 1000, arrival: 1500}\n";
  const RunResult g = run_free(kOneGpu, jobs, "tiresias-gittins+first-fit");
  EXPECT_EQ(g.jobs[1].first_start.seconds(), 1500.0);
  EXPECT_EQ(g.jobs[1].end.seconds(), 2500.0);
  EXPECT_EQ(g.jobs[0].preemptions, 1u);
  EXPECT_EQ(g.jobs[0].end.seconds(), 3000.0);
  const RunResult t = run_free(kOneGpu, jobs, "tiresias+first-fit");
  EXPECT_EQ(t.jobs[0].end.seconds(), 2000.0);
  EXPECT_EQ(t.jobs[1].end.seconds(), 3000.0);
}

}  // namespace
