#pragma once
// The engine's event queue: one comparator on (time, sequence). The sequence
// number is the insertion order, so ties break the same way on every run. An event that moves (a
// completion whose job changed speed) is not removed: its owner bumps a generation stamp and stale
// events are dropped when popped.
#include <boost/heap/d_ary_heap.hpp>

#include <cstdint>
#include <string_view>

#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/time.hpp"

namespace gpusim {

enum class EventKind : uint8_t {
  completion,    // target: job; generation: the job's
  requeue,       // target: job killed earlier, back in the queue after its back-off
  fault,         // target: job whose MPS client faults; generation: its attempt
  layout_ready,  // target: GPU whose MIG reconfiguration finished
  checkpoint,    // target: job that starts writing a checkpoint; generation: its phase generation
  phase_end,     // target: job whose checkpoint or restore finished; generation: its phase generation
  node_ready,    // target: node that finished provisioning; generation: the node's
  reclaim,       // target: spot node that gets its reclaim notice; generation: the node's
  node_gone,     // target: node whose notice ran out; generation: the node's
  idle_check,    // target: node of an autoscaled pool that may have idled long enough; generation: its idle stamp
  market_tick,   // target: pool whose spot availability trace moves to its next value
  decide,        // no target: a decision point a policy or the autoscaler asked for
};

constexpr auto enum_table(EventKind) {
  return std::to_array<EnumName<EventKind>>({{EventKind::completion, "completion"},
                                             {EventKind::requeue, "requeue"},
                                             {EventKind::fault, "fault"},
                                             {EventKind::layout_ready, "layout_ready"},
                                             {EventKind::checkpoint, "checkpoint"},
                                             {EventKind::phase_end, "phase_end"},
                                             {EventKind::node_ready, "node_ready"},
                                             {EventKind::reclaim, "reclaim"},
                                             {EventKind::node_gone, "node_gone"},
                                             {EventKind::idle_check, "idle_check"},
                                             {EventKind::market_tick, "market_tick"},
                                             {EventKind::decide, "decide"}});
}

// 24 bytes: the kind shares the sequence's word (2^56 events are more than any run pushes), so a
// 4-ary heap node's children span 96 bytes instead of 128 (bench/event_queue_benchmark.cpp).
struct Event {
  Time time;
  uint64_t sequence : 56 = 0;
  EventKind kind : 8 = EventKind::completion;
  uint32_t target = 0;      // e.g. a JobId
  uint32_t generation = 0;  // compared with the target's current generation when popped
};
static_assert(sizeof(Event) == 24);

// True when `a` must be processed before `b`.
constexpr bool event_before(const Event& a, const Event& b) {
  return a.time != b.time ? a.time < b.time : a.sequence < b.sequence;
}

class EventQueue {
 public:
  void push(Time time, EventKind kind, uint32_t target, uint32_t generation) {
    heap_.push(Event{time, next_sequence_++ & kSequenceMask, kind, target, generation});
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.top(); }
  void pop() { heap_.pop(); }
  void reserve(std::size_t n) { heap_.reserve(n); }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return event_before(b, a); }
  };
  // A 4-ary implicit heap: shallower than a binary heap, better cache behaviour (measured in
  // bench/event_queue_benchmark.cpp).
  boost::heap::d_ary_heap<Event, boost::heap::arity<4>, boost::heap::compare<Later>> heap_;
  static constexpr uint64_t kSequenceMask = (uint64_t{1} << 56) - 1;
  uint64_t next_sequence_ = 0;
};

}  // namespace gpusim
