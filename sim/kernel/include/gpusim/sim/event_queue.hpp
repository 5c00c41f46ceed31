#pragma once
// The engine's event queue: events pop in (time, sequence) order. The sequence number is the
// insertion order, so ties break the same way on every run. An event that moves (a
// completion whose job changed speed) is not removed: its owner bumps a generation stamp and stale
// events are dropped when popped.
#include <fmt/format.h>

#include <array>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

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
  terminate,     // target: job whose grace period after an eviction (Binder::evict) ran out; generation: its attempt
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
                                             {EventKind::decide, "decide"},
                                             {EventKind::terminate, "terminate"}});
}

// 24 bytes: the kind shares the sequence's word (2^56 events are more than any run pushes).
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

// A radix heap (a monotone priority queue): the engine never schedules an event before the last one
// it popped, so an event can go to the bucket of the highest digit (4 bits) in which its time differs
// from that last time, and of that digit's value. Buckets in index order hold ever later times; an
// event moves only to lower buckets, a few times over its life, by sequential copies, instead of
// sifting through a heap (bench/event_queue_benchmark.cpp compares it with the 4-ary heap it replaced).
// Pop order is exactly (time, sequence): a push appends the largest sequence yet, and a bucket is
// split only into empty lower buckets, so every bucket stays in sequence order; bucket 0 holds the
// events at the last popped time and is popped from its front.
class EventQueue {
 public:
  void push(Time time, EventKind kind, uint32_t target, uint32_t generation) {
    const uint64_t k = key(time);
    if (k < last_) [[unlikely]]
      throw std::logic_error(fmt::format("an event scheduled at {} us, before the last popped one", time.us()));
    place(Event{time, next_sequence_++ & kSequenceMask, kind, target, generation}, k);
    ++size_;
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  const Event& top() const {
    if (!buckets_[0].empty()) return buckets_[0][head_];
    const unsigned j = lowest_occupied();
    return buckets_[j][min_index_[j]];
  }
  void pop() {
    if (buckets_[0].empty()) split(lowest_occupied());
    --size_;
    if (++head_ == buckets_[0].size()) {
      buckets_[0].clear();
      occupied_[0] &= ~uint64_t{1};
      head_ = 0;
    }
  }

 private:
  // Digits of 4 bits: of 1, 2, 4 and 8 bits, 4 is the fastest at 64 to 16,384 pending (fewer moves
  // per event than 1 or 2 bits, fewer buckets to keep warm than 8).
  static constexpr unsigned kDigitBits = 4;
  static constexpr unsigned kDigitValues = 1u << kDigitBits;
  static constexpr unsigned kBuckets = 1 + 64 / kDigitBits * kDigitValues;
  static constexpr unsigned kWords = (kBuckets + 63) / 64;
  static constexpr uint64_t kSequenceMask = (uint64_t{1} << 56) - 1;
  static constexpr uint64_t kNoKey = ~uint64_t{0};
  static constexpr std::size_t kKeptEvents = 4096;

  // Times as unsigned integers in the same order (negative times below positive ones).
  static uint64_t key(Time t) { return static_cast<uint64_t>(t.us()) ^ (uint64_t{1} << 63); }
  // 0 for the last popped time; else 1 + (highest differing digit, its value in k).
  unsigned bucket(uint64_t k) const {
    const auto width = static_cast<unsigned>(std::bit_width(k ^ last_));
    if (width == 0) return 0;
    const unsigned shift = (width - 1) / kDigitBits * kDigitBits;  // the digit's lowest bit
    return 1 + shift / kDigitBits * kDigitValues + static_cast<unsigned>((k >> shift) & (kDigitValues - 1));
  }
  unsigned lowest_occupied() const {
    for (unsigned w = 0;; ++w)
      if (occupied_[w] != 0) return w * 64 + static_cast<unsigned>(std::countr_zero(occupied_[w]));
  }

  void place(const Event& e, uint64_t k) {
    const unsigned i = bucket(k);
    std::vector<Event>& b = buckets_[i];
    if (k < min_key_[i]) {
      min_key_[i] = k;
      min_index_[i] = static_cast<uint32_t>(b.size());
    }
    b.push_back(e);
    occupied_[i / 64] |= uint64_t{1} << (i % 64);
  }
  // Bucket 0 is empty and j is the lowest other one holding events: its earliest time becomes the
  // last popped one and its events go to the buckets below, in order.
  void split(unsigned j) {
    std::vector<Event>& from = buckets_[j];
    last_ = min_key_[j];
    occupied_[j / 64] &= ~(uint64_t{1} << (j % 64));
    for (const Event& e : from) place(e, key(e.time));
    // A bucket keeps its buffer for the next events at its distance, but one far larger than what
    // is pending is let go: otherwise every bucket would hold its own peak (Philly las: +40 MB).
    if (from.capacity() > kKeptEvents && from.capacity() > size_) std::vector<Event>().swap(from);
    else from.clear();
    min_key_[j] = kNoKey;
  }

  std::array<std::vector<Event>, kBuckets> buckets_;
  std::array<uint64_t, kBuckets> min_key_ = filled(kNoKey);  // the earliest time in each bucket
  std::array<uint32_t, kBuckets> min_index_{};               // and the first event at it
  std::array<uint64_t, kWords> occupied_{};                  // bit i: bucket i holds events
  std::size_t head_ = 0;                                     // bucket 0's next event
  uint64_t last_ = 0;                                        // the key of the last popped time
  std::size_t size_ = 0;
  uint64_t next_sequence_ = 0;

  static constexpr std::array<uint64_t, kBuckets> filled(uint64_t v) {
    std::array<uint64_t, kBuckets> a{};
    a.fill(v);
    return a;
  }
};

}  // namespace gpusim
