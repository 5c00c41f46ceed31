#pragma once
// A running job's attempt (issues 5 and 7): the checkpoints it writes, the restore it starts with, and
// how it leaves when told to (suspended by a preemption, evicted at a notice, terminated within a
// grace period). The one place that writes a job's phase and its leave flags (JobRecord::phase,
// evicting, suspending, terminating); the engine applies what follows (rates, stops, the queue).
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/sim/event_queue.hpp"
#include "gpusim/sim/job_state.hpp"

namespace gpusim {

struct ExecutionModel;
class ResolvedJobs;
struct Job;

class Attempts {
 public:
  // What the engine does for an attempt.
  class Host {
   public:
    virtual ~Host() = default;
    // Brings the job's remaining work and costs up to now at the rate and phase it had.
    virtual void settle(JobId id) = 0;
    // Its phase changed (its rate follows; observers are told).
    virtual void phase_changed(JobId id, JobPhase from) = 0;
    // Preempted with its state saved: it releases its GPUs and queues again.
    virtual void suspended(JobId id) = 0;
    // It leaves now, back to what it saved last.
    virtual void leave(JobId id) = 0;
    // Hours between interruptions of the nodes it runs on (infinite where nodes are never reclaimed).
    virtual double mtbf_hours(JobId id) const = 0;
    // Does it save progress (a module's job runs until stopped: nothing to save, nothing to lose)?
    virtual bool keeps_progress(JobId id) const = 0;
  };

  Attempts(std::vector<JobRecord>& records, JobFlights& flights, const std::vector<Job>& jobs, const ResolvedJobs& resolved,
           const ExecutionModel& model, EventQueue& events, const Time& now, Host& host);

  // An attempt starts: a restore first when it resumes from a checkpoint, else its checkpoint clock.
  void begin(JobId id);
  // Its checkpoint is due (EventKind::checkpoint), or its phase ends (EventKind::phase_end).
  void checkpoint_due(JobId id);
  void end_phase(JobId id);
  // The scheduler preempted it (Binder::preempt): it saves its state, then is suspended.
  void preempt(JobId id);
  // Told to leave (Binder::evict, a deleted pod): when it goes, it counts as a preemption.
  void terminate(JobId id);
  // Its node is gone at `gone`: it writes a checkpoint and leaves if there is time.
  void notice(JobId id, Time gone);
  // It released its GPUs: its phase and flags start over.
  void stopped(JobId id);
  // Throws away the progress since its last durable checkpoint.
  void rollback(JobId id);
  // The goodput it has so far: computing, less collectives and work already thrown away.
  static GpuTime kept_gpu(const JobRecord& r);

 private:
  // Arms its next checkpoint after its interval of computing (fixed, or Young/Daly's).
  void schedule_checkpoint(JobId id);
  void start_checkpoint(JobId id, Duration cost);
  void change_phase(JobId id, JobPhase phase);

  std::vector<JobRecord>& records_;
  JobFlights& flights_;
  const std::vector<Job>& jobs_;
  const ResolvedJobs& resolved_;
  const ExecutionModel& model_;
  EventQueue& events_;
  const Time& now_;
  Host& host_;
};

}  // namespace gpusim
