// The classic hold model: a queue of N pending events; each step pops the earliest and schedules a
// new one a random (exponential) interval later, never before the popped one, as the engine does.
// Events per second = steps per second. The engine's radix heap is measured against the 4-ary heap
// it replaced (Boost's d_ary_heap; a hand-written hole-sifting 4-ary heap and a branch-free 128-bit
// key were not faster than Boost's).
#include <benchmark/benchmark.h>

#include <boost/heap/d_ary_heap.hpp>
#include <boost/math/distributions/exponential.hpp>

#include "gpusim/core/random.hpp"
#include "gpusim/sim/event_queue.hpp"

namespace {

using gpusim::Duration;
using gpusim::Event;
using gpusim::EventKind;
using gpusim::Time;

std::vector<int64_t> increments() {
  gpusim::Rng rng = gpusim::make_stream(1, "bench/hold");
  const boost::math::exponential_distribution<> gap(1.0 / 1000.0);  // mean 1 s (1000 ms, x 1000 in us)
  std::vector<int64_t> out(1 << 16);
  for (auto& x : out) x = 1 + static_cast<int64_t>(boost::math::quantile(gap, gpusim::uniform01(rng)) * 1000);
  return out;
}

// The previous engine queue: a 4-ary implicit heap on (time, sequence).
class FourAryHeap {
 public:
  void push(Time time, EventKind kind, uint32_t target, uint32_t generation) {
    heap_.push(Event{time, next_sequence_++ & ((uint64_t{1} << 56) - 1), kind, target, generation});
  }
  const Event& top() const { return heap_.top(); }
  void pop() { heap_.pop(); }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return gpusim::event_before(b, a); }
  };
  boost::heap::d_ary_heap<Event, boost::heap::arity<4>, boost::heap::compare<Later>> heap_;
  uint64_t next_sequence_ = 0;
};

template <class Queue>
void BM_EventQueueHold(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto inc = increments();
  Queue q;
  for (std::size_t i = 0; i < n; ++i) q.push(Time::from_us(inc[i & 0xFFFF]), EventKind::completion, static_cast<uint32_t>(i), 0);
  std::size_t k = 0;
  for (auto _ : state) {
    const Event e = q.top();
    q.pop();
    q.push(e.time + Duration::from_us(inc[++k & 0xFFFF]), e.kind, e.target, e.generation);
  }
  benchmark::DoNotOptimize(q.top());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueHold<gpusim::EventQueue>)->Arg(64)->Arg(1024)->Arg(16384)->Arg(262144);
BENCHMARK(BM_EventQueueHold<FourAryHeap>)->Arg(64)->Arg(1024)->Arg(16384)->Arg(262144);

}  // namespace
