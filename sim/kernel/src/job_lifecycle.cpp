#include "gpusim/sim/job_lifecycle.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace gpusim {

JobLifecycle::JobLifecycle(std::size_t jobs, const Shapes& shapes)
    : shapes_(shapes),
      records_(jobs),
      queue_by_shape_(shapes.count()),
      queued_shape_position_(shapes.count(), 0),
      pending_by_shape_(shapes.count(), 0),
      unfinished_(jobs) {}

void JobLifecycle::set(JobId id, JobStatus from, JobStatus to, std::string_view cause) {
  JobRecord& r = records_[id];
  // A transition from the wrong state is an engine bug, never bad input.
  if (r.status != from)
    throw std::logic_error(fmt::format("job {}: {} -> {} from {}", id, to_string(from), to_string(to), to_string(r.status)));
  r.status = to;
  queued_ += (to == JobStatus::queued) - (from == JobStatus::queued);
  if (from == JobStatus::running) running_.erase(id);
  if (to == JobStatus::running) running_.insert(id);
  if (from == JobStatus::running || to == JobStatus::running) note_running_change(id);
  if (from == JobStatus::pending || to == JobStatus::pending) {  // a job's shape is read only then: a miss saved
    const uint32_t shape = shapes_.of(id);
    if (from == JobStatus::pending && --pending_by_shape_[shape] == 0) --distinct_pending_shapes_;
    if (to == JobStatus::pending && pending_by_shape_[shape]++ == 0) ++distinct_pending_shapes_;
  }
  const bool ended = to == JobStatus::completed || to == JobStatus::failed || to == JobStatus::unschedulable ||
                     to == JobStatus::rejected;
  if (ended) --unfinished_;
  if (r.key_parked) {  // it leaves the running jobs: its key is needed again only if it does not end
    r.key_parked = false;
    if (!ended) keys_.emplace(id, parked_keys_[r.flight]);
  } else if (ended) {
    keys_.erase(id);
  }
  if (on_change_) on_change_(id, from, to, cause);
}

void JobLifecycle::unschedulable(JobId id) { set(id, JobStatus::not_arrived, JobStatus::unschedulable); }
void JobLifecycle::reject(JobId id, std::string_view why) {
  set(id, records_[id].status == JobStatus::queued ? JobStatus::queued : JobStatus::not_arrived, JobStatus::rejected, why);
}
void JobLifecycle::hold(JobId id) { set(id, JobStatus::not_arrived, JobStatus::queued); }

void JobLifecycle::arrive(JobId id, QueueKey key, Time now, std::string_view cause) {
  keys_.insert_or_assign(id, key);
  enqueue(id, now, cause);
}

void JobLifecycle::enqueue(JobId id, Time now, std::string_view cause) {
  JobRecord& r = records_[id];
  set(id, r.status == JobStatus::running || r.status == JobStatus::queued ? r.status : JobStatus::not_arrived, JobStatus::pending,
      cause);
  r.queued_at = now;
  const QueueKey& key = keys_.at(id);
  queue_.emplace(key, id);
  const uint32_t shape = shapes_.of(id);
  Queue& mine = queue_by_shape_[shape];
  if (mine.empty()) {
    queued_shape_position_[shape] = static_cast<uint32_t>(queued_shapes_.size());
    queued_shapes_.push_back(shape);
  }
  mine.emplace(key, id);
  arrivals_.push_back(id);
}

void JobLifecycle::start(JobId id) {
  set(id, JobStatus::pending, JobStatus::running);
  started_.push_back(id);
}

void JobLifecycle::complete(JobId id) { set(id, JobStatus::running, JobStatus::completed); }
void JobLifecycle::fail(JobId id) { set(id, JobStatus::running, JobStatus::failed); }
void JobLifecycle::back_off(JobId id) { set(id, JobStatus::running, JobStatus::not_arrived); }

void JobLifecycle::requeue(JobId id) { set(id, JobStatus::running, JobStatus::queued); }

void JobLifecycle::withdraw(JobId id) { unqueue(id, JobStatus::not_arrived); }
void JobLifecycle::take_back(JobId id) { unqueue(id, JobStatus::queued); }

void JobLifecycle::unqueue(JobId id, JobStatus to) {
  set(id, JobStatus::pending, to);
  leave_queue(id);
  std::erase(arrivals_, id);
}

const QueueKey& JobLifecycle::key(JobId id) const {
  const JobRecord& r = records_[id];
  return r.key_parked ? parked_keys_[r.flight] : keys_.at(id);
}

JobLifecycle::Keys::iterator JobLifecycle::leave_queue(JobId id) {
  const auto entry = keys_.find(id);
  if (entry == keys_.end()) return entry;  // parked: out already (started twice in a pass)
  const QueueKey key = entry->second;
  if (queue_.erase({key, id}) == 0) return entry;  // out already (started twice in a pass)
  const uint32_t shape = shapes_.of(id);
  Queue& mine = queue_by_shape_[shape];
  mine.erase({key, id});
  if (mine.empty()) {  // swap-remove it from the shapes with a queue
    const uint32_t at = queued_shape_position_[shape];
    queued_shapes_[at] = queued_shapes_.back();
    queued_shape_position_[queued_shapes_[at]] = at;
    queued_shapes_.pop_back();
  }
  return entry;
}

void JobLifecycle::end_pass() {
  // A job the pass started and then put back in the queue (preempted, with no time to suspend) keeps
  // its place there; one started twice leaves once.
  for (JobId id : started_) {
    JobRecord& r = records_[id];
    if (r.status == JobStatus::pending) continue;
    const auto entry = leave_queue(id);
    // A running job's key moves beside its in-flight block while its map entry is at hand, so that its
    // end does not look it up again (a cache miss per job on a long run).
    if (r.status != JobStatus::running || r.flight == kNoFlight || entry == keys_.end()) continue;
    if (parked_keys_.size() <= r.flight) parked_keys_.resize(r.flight + 1);
    parked_keys_[r.flight] = entry->second;
    keys_.erase(entry);
    r.key_parked = true;
  }
  started_.clear();
}

void JobLifecycle::for_each_pending_by_shape(const std::function<PendingVisit(JobId)>& visit) const {
  // A min-heap of one cursor per shape, by the queue entry it points at: the entries come out in
  // queue order, as for_each_pending's, and dropping a shape removes its cursor.
  merge_.clear();
  for (uint32_t shape : queued_shapes_) merge_.push_back({queue_by_shape_[shape].begin(), queue_by_shape_[shape].end()});
  const std::greater<> later;
  std::make_heap(merge_.begin(), merge_.end(), later);
  while (!merge_.empty()) {
    std::pop_heap(merge_.begin(), merge_.end(), later);
    Cursor& c = merge_.back();
    const JobId id = c.at->second;
    const PendingVisit next = records_[id].status == JobStatus::pending ? visit(id) : PendingVisit::next;
    if (next == PendingVisit::stop) return;
    if (next == PendingVisit::drop_shape || ++c.at == c.end) merge_.pop_back();
    else std::push_heap(merge_.begin(), merge_.end(), later);
  }
}

}  // namespace gpusim
