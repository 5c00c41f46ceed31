#pragma once
// Job lifecycle: the one place a job's status changes, and what follows from the statuses: the
// queue (pending jobs by queue key), the running set, how many distinct shapes are pending, and
// how many jobs have not finished. Each transition states where it comes from and checks it.
//
//   not_arrived --arrive--> pending --start--> running --complete--> completed
//        |                    ^  ^                |  |--fail--> failed
//        +--> unschedulable   |  +----enqueue-----+  (evicted, suspended: back in the queue)
//        +--> rejected        +--enqueue-- not_arrived <--back_off-- running (killed, restarts)
//             (admission: over a namespace ResourceQuota)
//   not_arrived --hold--> queued --arrive--> pending (an admission holds it until its cycle admits it)
//                         queued <--take_back-- pending (the admission preempted it before it ran)
//                         queued <--requeue-- running (the admission evicted it)
//   not_arrived <--withdraw-- pending (its pod was deleted before it ran: a replica scaled down)
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory_resource>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpusim/core/chunked_set.hpp"
#include "gpusim/core/time.hpp"
#include "gpusim/sim/fit.hpp"
#include "gpusim/sim/job_state.hpp"
#include "gpusim/sim/scheduler.hpp"

namespace gpusim {

class JobLifecycle {
 public:
  JobLifecycle(std::size_t jobs, const Shapes& shapes);

  const std::vector<JobRecord>& records() const { return records_; }
  std::vector<JobRecord>& records() { return records_; }

  // --- transitions ---
  void unschedulable(JobId id);                 // not_arrived: no node could ever hold it
  void reject(JobId id, std::string_view why);  // not_arrived or queued -> rejected: refused by admission
  void hold(JobId id);                          // not_arrived -> queued: it waits for an admission's cycle
  // not_arrived or queued -> pending, with its queue key; `cause`: kAdmitted when an admission let it through.
  void arrive(JobId id, QueueKey key, Time now, std::string_view cause = {});
  void enqueue(JobId id, Time now,
               std::string_view cause = {});  // not_arrived (back-off over) or running (evicted, suspended) -> pending
  void start(JobId id);                       // pending -> running; it leaves the queue at end_pass()
  void complete(JobId id);                    // running -> completed
  void fail(JobId id);                        // running -> failed
  void back_off(JobId id);                    // running -> not_arrived, until its restart is due
  void withdraw(JobId id);                    // pending -> not_arrived: its pod was deleted before it ran
  void take_back(JobId id);                   // pending -> queued: its admission took it back before it ran
  void requeue(JobId id);                     // running -> queued: its admission evicted it

  // Called at every status change (from, to, cause: Observer::job_transition's), when set.
  using Watcher = std::function<void(JobId, JobStatus, JobStatus, std::string_view)>;
  void watch(Watcher on_change) { on_change_ = std::move(on_change); }

  // The jobs started during a decision pass leave the queue after it, so iterating it stays valid.
  void end_pass();

  // --- what follows from the statuses ---
  bool any_pending() const { return !queue_.empty(); }
  uint32_t pending_count() const { return static_cast<uint32_t>(queue_.size()); }
  uint32_t queued_count() const { return queued_; }  // waiting for an admission's cycle
  uint32_t running_count() const { return static_cast<uint32_t>(running_.size()); }
  std::size_t unfinished() const { return unfinished_; }
  uint32_t pending_shapes() const { return distinct_pending_shapes_; }
  const QueueKey& key(JobId id) const;                           // of a job that has arrived and not finished
  const ChunkedSet<JobId>& running() const { return running_; }  // ascending
  // Pending jobs in queue order; `visit` returns false to stop early.
  void for_each_pending(const std::function<bool(JobId)>& visit) const {
    for (const auto& [key, id] : queue_)
      if (records_[id].status == JobStatus::pending && !visit(id)) return;
  }
  // ClusterView::for_each_pending_by_shape: a merge of the shapes' queues, a shape leaving it when dropped.
  void for_each_pending_by_shape(const std::function<PendingVisit(JobId)>& visit) const;
  // Jobs queued since the kernel last cleared them (arrivals, requeues), in the order they came.
  std::vector<JobId>& arrivals() { return arrivals_; }
  const std::vector<JobId>& arrivals() const { return arrivals_; }
  // Jobs that started or stopped running, stopped being preemptible or were settled (their rate may
  // change; note_running_change), since the kernel last cleared them; kept only once watch_running()
  // was called (a scheduler that keeps its own index of the running jobs asks for it).
  void watch_running() { watch_running_ = true; }
  void note_running_change(JobId id) {
    if (watch_running_) running_changes_.push_back(id);
  }
  std::vector<JobId>& running_changes() { return running_changes_; }
  const std::vector<JobId>& running_changes() const { return running_changes_; }

 private:
  void set(JobId id, JobStatus from, JobStatus to, std::string_view cause = {});
  void unqueue(JobId id, JobStatus to);  // pending -> `to`, out of the queue
  using Keys = std::pmr::unordered_map<JobId, QueueKey>;
  Keys::iterator leave_queue(JobId id);  // its key's entry (end when parked)

  const Shapes& shapes_;
  std::vector<JobRecord> records_;
  Watcher on_change_;
  // Only unfinished jobs keep their key (a vector of all jobs' would hold 16 bytes a job: issue 22);
  // the map's nodes come from a pool, as one is taken and given back for every job.
  std::pmr::unsynchronized_pool_resource key_nodes_;
  Keys keys_{&key_nodes_};
  // Running jobs' keys (JobRecord::key_parked), by in-flight slot: out of the map from the end of the pass
  // that started them.
  std::vector<QueueKey> parked_keys_;
  using Queue = std::set<std::pair<QueueKey, JobId>>;
  Queue queue_;
  std::vector<Queue> queue_by_shape_;                            // the same entries, by shape
  std::vector<uint32_t> queued_shapes_, queued_shape_position_;  // shapes whose queue is not empty; where each is in it
  struct Cursor {
    Queue::const_iterator at, end;
    bool operator>(const Cursor& o) const { return *at > *o.at; }
  };
  mutable std::vector<Cursor> merge_;  // the walk's heap (a member: no allocation per decision)
  std::vector<JobId> started_;         // in the current pass
  std::vector<JobId> arrivals_;
  std::vector<JobId> running_changes_;
  bool watch_running_ = false;
  std::vector<uint32_t> pending_by_shape_;
  uint32_t distinct_pending_shapes_ = 0;
  ChunkedSet<JobId> running_;
  uint32_t queued_ = 0;
  std::size_t unfinished_;
};

}  // namespace gpusim
