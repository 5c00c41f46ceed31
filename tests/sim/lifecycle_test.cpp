// The job lifecycle: the one place statuses change, and the queue, running set and counts that
// follow from them.
#include <gtest/gtest.h>

#include <stdexcept>

#include "gpusim/sim/job_lifecycle.hpp"

using namespace gpusim;

namespace {

struct Fixture {
  JobSet jobs;
  Cluster cluster;
  std::unique_ptr<Shapes> shapes;
  explicit Fixture(int n) {
    for (int i = 0; i < n; ++i) {
      Job j;
      j.id = static_cast<JobId>(i);
      j.request.gpus = i % 2 ? 2 : 1;  // two shapes
      jobs.jobs.push_back(j);
    }
    shapes = std::make_unique<Shapes>(jobs, cluster, Catalog::builtin());
  }
};

}  // namespace

TEST(JobLifecycle, TransitionsKeepTheQueueTheRunningSetAndTheCounts) {
  Fixture f(3);
  JobLifecycle life(3, *f.shapes);
  life.arrive(JobId{0}, {5, 0}, Time::from_seconds(1));
  life.arrive(JobId{1}, {1, 0}, Time::from_seconds(2));
  life.unschedulable(JobId{2});
  EXPECT_EQ(life.pending_count(), 2u);
  EXPECT_EQ(life.pending_shapes(), 2u);
  EXPECT_EQ(life.unfinished(), 2u);
  std::vector<JobId> order;
  life.for_each_pending([&](JobId id) { return order.push_back(id), true; });
  EXPECT_EQ(order, (std::vector<JobId>{JobId{1}, JobId{0}}));  // by queue key
  life.start(JobId{1});
  EXPECT_EQ(life.pending_count(), 2u);  // it leaves the queue when the pass ends
  EXPECT_EQ(life.pending_shapes(), 1u);
  life.end_pass();
  EXPECT_EQ(life.pending_count(), 1u);
  EXPECT_EQ(life.running_count(), 1u);
  life.enqueue(JobId{1}, Time::from_seconds(9));  // evicted: back in the queue
  EXPECT_EQ(life.records()[1].queued_at, Time::from_seconds(9));
  EXPECT_EQ(life.running_count(), 0u);
  life.start(JobId{1});
  life.back_off(JobId{1});  // killed: waits out its back-off
  EXPECT_EQ(life.records()[1].status, JobStatus::not_arrived);
  life.enqueue(JobId{1}, Time::from_seconds(20));
  life.start(JobId{1});
  life.complete(JobId{1});
  EXPECT_EQ(life.unfinished(), 1u);
}

// A running job's queue key leaves the map for its in-flight slot at the end of the pass that started
// it, and comes back with it when it is queued again: its place in the queue is the one it had.
TEST(JobLifecycle, ARunningJobsKeyWaitsByItsFlightAndComesBackWithIt) {
  Fixture f(2);
  JobLifecycle life(2, *f.shapes);
  life.arrive(JobId{0}, {5, 0}, Time::from_seconds(1));
  life.arrive(JobId{1}, {1, 0}, Time::from_seconds(2));
  life.records()[1].flight = 3;  // as the engine's in-flight blocks give it at its first placement
  life.start(JobId{1});
  EXPECT_FALSE(life.records()[1].key_parked);  // until the pass ends
  life.end_pass();
  EXPECT_TRUE(life.records()[1].key_parked);
  EXPECT_EQ(life.key(JobId{1}), (QueueKey{1, 0}));
  life.enqueue(JobId{1}, Time::from_seconds(9));  // preempted
  EXPECT_FALSE(life.records()[1].key_parked);
  std::vector<JobId> order;
  life.for_each_pending([&](JobId id) { return order.push_back(id), true; });
  EXPECT_EQ(order, (std::vector<JobId>{JobId{1}, JobId{0}}));
  life.start(JobId{1});
  life.end_pass();
  life.complete(JobId{1});
  EXPECT_FALSE(life.records()[1].key_parked);
  EXPECT_EQ(life.unfinished(), 1u);
  EXPECT_EQ(life.key(JobId{0}), (QueueKey{5, 0}));
}

TEST(JobLifecycle, AWrongTransitionIsAnEngineBug) {
  Fixture f(1);
  JobLifecycle life(1, *f.shapes);
  EXPECT_THROW(life.start(JobId{0}), std::logic_error);  // not pending
  life.arrive(JobId{0}, {}, Time());
  EXPECT_THROW(life.complete(JobId{0}), std::logic_error);  // not running
}

// The walk by shape gives the queue order, skips jobs started in the pass, and a dropped shape's
// later jobs are not visited while the other shape's still are.
TEST(JobLifecycle, WalkByShapeDropsAShapeAndKeepsQueueOrder) {
  Fixture f(6);  // even ids one GPU, odd ids two
  JobLifecycle life(6, *f.shapes);
  for (int i = 0; i < 6; ++i) life.arrive(JobId{static_cast<uint32_t>(i)}, {5 - i, 0}, Time());  // queue order 5, 4, ..., 0
  life.start(JobId{4});
  std::vector<JobId> seen;
  life.for_each_pending_by_shape([&](JobId id) {
    seen.push_back(id);
    return id == JobId{5} ? PendingVisit::drop_shape : PendingVisit::next;
  });
  EXPECT_EQ(seen, (std::vector<JobId>{JobId{5}, JobId{2}, JobId{0}}));
  seen.clear();
  life.for_each_pending_by_shape(
      [&](JobId id) { return seen.push_back(id), id == JobId{2} ? PendingVisit::stop : PendingVisit::next; });
  EXPECT_EQ(seen, (std::vector<JobId>{JobId{5}, JobId{3}, JobId{2}}));
  life.end_pass();
  for (uint32_t i : {5u, 3u, 1u}) life.start(JobId{i});
  life.end_pass();
  seen.clear();
  life.for_each_pending_by_shape([&](JobId id) { return seen.push_back(id), PendingVisit::next; });
  EXPECT_EQ(seen, (std::vector<JobId>{JobId{2}, JobId{0}}));
}
