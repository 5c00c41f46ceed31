// The ClusterQueues' pending workloads (kueue pkg/queue) and admitted ones. Only what changed is
// looked at again: a queue is marked when a workload arrives in it or quota is released in its
// cohort tree, and its pending workloads are kept per distinct request, so that a head is found
// without walking the queue.
#include <algorithm>

#include "kueue_parts.hpp"

namespace gpusim::kueue_parts {

ClusterQueues::ClusterQueues(const QuotaTree& tree, const Workloads& workloads)
    : tree_(tree), workloads_(workloads), queues_(tree.queue_count()) {}

void ClusterQueues::push(JobId id) {
  const Workload& w = workloads_[id];
  Queue& q = queues_[w.cq];
  auto it = std::find_if(q.by_shape.begin(), q.by_shape.end(), [&](const auto& e) { return e.first == w.base_shape; });
  if (it == q.by_shape.end()) it = q.by_shape.insert(q.by_shape.end(), {w.base_shape, {}});
  it->second.insert({-w.priority, w.order, id});
  ++q.pending;
  mark(w.cq);
}

void ClusterQueues::erase(JobId id) {
  const Workload& w = workloads_[id];
  Queue& q = queues_[w.cq];
  const auto it = std::find_if(q.by_shape.begin(), q.by_shape.end(), [&](const auto& e) { return e.first == w.base_shape; });
  it->second.erase({-w.priority, w.order, id});
  if (it->second.empty()) q.by_shape.erase(it);
  --q.pending;
}

void ClusterQueues::mark(uint32_t cq) {
  if (queues_[cq].marked || queues_[cq].pending == 0) return;
  queues_[cq].marked = true;
  marked_.push_back(cq);
}

void ClusterQueues::mark_tree(uint32_t cq) {
  for (uint32_t q : tree_.tree_queues(cq)) mark(q);
}

std::vector<uint32_t> ClusterQueues::take_marked() {
  std::vector<uint32_t> out;
  out.swap(marked_);
  std::sort(out.begin(), out.end());
  for (uint32_t cq : out) queues_[cq].marked = false;
  return out;
}

std::vector<JobId> ClusterQueues::heads(uint32_t cq) const {
  std::vector<const PendingKey*> keys;
  for (const auto& [shape, set] : queues_[cq].by_shape) keys.push_back(&*set.begin());
  std::sort(keys.begin(), keys.end(), [](const PendingKey* a, const PendingKey* b) { return *a < *b; });
  std::vector<JobId> out;
  for (const PendingKey* k : keys) out.push_back(k->id);
  return out;
}

void ClusterQueues::released(JobId id) {
  auto& list = queues_[workloads_[id].cq].admitted;
  list.erase(std::find(list.begin(), list.end(), id));
}

}  // namespace gpusim::kueue_parts
