#include "gpusim/sim/attempts.hpp"

#include <algorithm>

#include "gpusim/sim/execution.hpp"
#include "gpusim/sim/goodput.hpp"
#include "gpusim/sim/market.hpp"
#include "gpusim/sim/world.hpp"

namespace gpusim {

Attempts::Attempts(std::vector<JobRecord>& records, JobFlights& flights, const std::vector<Job>& jobs,
                   const ResolvedJobs& resolved, const ExecutionModel& model, EventQueue& events, const Time& now, Host& host)
    : records_(records),
      flights_(flights),
      jobs_(jobs),
      resolved_(resolved),
      model_(model),
      events_(events),
      now_(now),
      host_(host) {}

GpuTime Attempts::kept_gpu(const JobRecord& r) { return goodput({r.computing_gpu, r.comm_stall_gpu, r.rerun_gpu}); }

void Attempts::begin(JobId id) {
  JobRecord& r = records_[id];
  JobFlight& f = flights_[r];
  const CheckpointPolicy& policy = *resolved_[id].checkpoint;
  r.attempt_work = r.remaining;
  r.phase = JobPhase::computing;
  r.evicting = false;
  // Resuming from a checkpoint (its own, or the state a preemption saved) costs a restore first; every
  // start, the first too, costs its restart overhead (issue 23).
  const Duration restore = policy.enabled ? policy.restore : r.preemptions > 0 ? model_.preemption.resume : Duration();
  const bool resuming = f.saved_remaining < Work::of(jobs_[id].work, 1.0);
  const Duration pause = (resuming ? restore : Duration()) + policy.restart_overhead;
  if (pause > Duration()) {
    r.phase = JobPhase::restoring;
    f.phase_start = now_;
    f.phase_end = now_ + pause;
    events_.push(f.phase_end, EventKind::phase_end, id, ++r.phase_generation);
    return;
  }
  schedule_checkpoint(id);
}

void Attempts::schedule_checkpoint(JobId id) {
  JobRecord& r = records_[id];
  const CheckpointPolicy& policy = *resolved_[id].checkpoint;
  if (!policy.enabled || !host_.keeps_progress(id)) return;
  const std::optional<Duration> interval = policy.auto_interval ? young_daly_interval(policy.cost, host_.mtbf_hours(id))
                                                                : policy.interval;
  if (interval) events_.push(now_ + *interval, EventKind::checkpoint, id, ++r.phase_generation);
}

void Attempts::change_phase(JobId id, JobPhase phase) {
  JobRecord& r = records_[id];
  host_.settle(id);  // up to now at the old phase's rate and busy share
  const JobPhase from = r.phase;
  r.phase = phase;
  host_.phase_changed(id, from);
}

void Attempts::checkpoint_due(JobId id) { start_checkpoint(id, resolved_[id].checkpoint->cost); }

void Attempts::start_checkpoint(JobId id, Duration cost) {
  JobRecord& r = records_[id];
  JobFlight& f = flights_[r];
  change_phase(id, JobPhase::checkpointing);
  f.writing_remaining = r.remaining;  // the state it writes: its progress now
  f.writing_kept_gpu = kept_gpu(r);
  f.phase_start = now_;
  f.phase_end = now_ + cost;
  events_.push(f.phase_end, EventKind::phase_end, id, ++r.phase_generation);
}

void Attempts::end_phase(JobId id) {
  JobRecord& r = records_[id];
  JobFlight& f = flights_[r];
  const GpuTime held = GpuTime::of(f.phase_end - f.phase_start, static_cast<double>(f.placement.gpus.size()));
  if (r.phase == JobPhase::checkpointing) {
    f.saved_remaining = f.writing_remaining;
    f.saved_kept_gpu = f.writing_kept_gpu;
    ++r.checkpoints;
    r.checkpoint_gpu += held;
    if (r.suspending) {
      host_.suspended(id);  // preempted: it leaves with everything saved
      return;
    }
    if (r.evicting) {
      host_.leave(id);  // its node is going, or its grace period: it leaves with everything saved
      return;
    }
  } else {
    r.restore_gpu += held;
  }
  change_phase(id, JobPhase::computing);
  schedule_checkpoint(id);
}

void Attempts::preempt(JobId id) {
  JobRecord& r = records_[id];
  r.suspending = r.evicting = true;
  const CheckpointPolicy& policy = *resolved_[id].checkpoint;
  switch (r.phase) {
    case JobPhase::restoring:  // nothing new to save: it leaves now
      host_.suspended(id);
      break;
    case JobPhase::checkpointing:  // it leaves once the checkpoint under way is written
      break;
    case JobPhase::computing: {
      const Duration cost = policy.enabled ? policy.cost : model_.preemption.suspend;
      if (cost > Duration()) {
        start_checkpoint(id, cost);
      } else {
        host_.settle(id);
        flights_[r].saved_remaining = r.remaining;
        flights_[r].saved_kept_gpu = kept_gpu(r);
        host_.suspended(id);
      }
      break;
    }
  }
}

void Attempts::terminate(JobId id) { records_[id].terminating = true; }

void Attempts::notice(JobId id, Time gone) {
  JobRecord& r = records_[id];
  const CheckpointPolicy& policy = *resolved_[id].checkpoint;
  switch (r.phase) {
    case JobPhase::restoring:
      host_.leave(id);  // nothing new to save; it leaves now
      break;
    case JobPhase::checkpointing:
      if (flights_[r].phase_end <= gone) r.evicting = true;  // the checkpoint under way finishes in time
      break;
    case JobPhase::computing:
      if (policy.enabled && now_ + policy.cost <= gone) {
        start_checkpoint(id, policy.cost);
        r.evicting = true;
      }
      break;  // otherwise it runs on until the node goes, and loses what it did since its checkpoint
  }
}

void Attempts::stopped(JobId id) {
  JobRecord& r = records_[id];
  ++r.phase_generation;  // drops its checkpoint or phase event
  r.phase = JobPhase::computing;
  r.evicting = false;
  r.suspending = false;
  r.terminating = false;
}

void Attempts::rollback(JobId id) {
  // A module's job has no progress to lose: its module retries its work (Serving::stopped).
  if (!host_.keeps_progress(id)) return;
  JobRecord& r = records_[id];
  JobFlight& f = flights_[r];
  const Work lost = std::max(Work(), f.saved_remaining - r.remaining);
  r.lost_work += lost;
  r.lost_gpu += GpuTime::from_us(lost.us() * std::max<double>(1.0, jobs_[id].request.gpus));
  r.remaining = f.saved_remaining;
  // Goodput: the computing since that checkpoint was for nothing (stop() settled it up to now).
  r.rerun_gpu += std::max(GpuTime(), kept_gpu(r) - f.saved_kept_gpu);
}

}  // namespace gpusim
