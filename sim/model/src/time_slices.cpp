#include "gpusim/sim/time_slices.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gpusim/core/random.hpp"

namespace gpusim {

SliceRoundRobin::SliceRoundRobin(const TimeSlicingModel& m) : m_(&m) {
  if (m.timeslice <= Duration() || m.preempt_switch < Duration() || m.yield_switch < Duration())
    throw std::invalid_argument("SliceRoundRobin: the timeslice must be positive and the switches not negative");
}

std::size_t SliceRoundRobin::State::find(uint32_t key) const {
  const auto it = std::lower_bound(ctx.begin(), ctx.end(), key, [](const Context& c, uint32_t k) { return c.key < k; });
  return it != ctx.end() && it->key == key ? static_cast<std::size_t>(it - ctx.begin()) : npos;
}

std::size_t SliceRoundRobin::State::insert(uint32_t key) {
  const auto it = std::lower_bound(ctx.begin(), ctx.end(), key, [](const Context& c, uint32_t k) { return c.key < k; });
  const auto at = static_cast<std::size_t>(it - ctx.begin());
  ctx.insert(it, Context{key, false, false, Duration()});
  if (holder != npos && at <= holder) ++holder;
  return at;
}

void SliceRoundRobin::State::erase(std::size_t i) {
  if (ctx[i].always || ctx[i].has_work) --working;
  if (ctx[i].has_work) --stepping;
  ctx.erase(ctx.begin() + static_cast<std::ptrdiff_t>(i));
  // A holder that leaves frees the GPU now; the next to take it pays a yield switch (last is not it).
  if (holder == i) holder = npos;
  else if (holder != npos && holder > i) --holder;
}

std::size_t SliceRoundRobin::State::next_with_work(std::optional<uint32_t> after, bool self) const {
  const std::size_t n = ctx.size();
  std::size_t start = 0;
  if (after) {
    const auto it = std::upper_bound(ctx.begin(), ctx.end(), *after, [](uint32_t k, const Context& c) { return k < c.key; });
    start = static_cast<std::size_t>(it - ctx.begin()) % std::max<std::size_t>(n, 1);
  }
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (start + k) % n;
    if (!self && after && ctx[i].key == *after) continue;
    if (ctx[i].always || ctx[i].has_work) return i;
  }
  return npos;
}

SliceRoundRobin::Event SliceRoundRobin::State::next_event(const TimeSlicingModel& m) const {
  if (holder == npos) return working > 0 ? Event{Kind::pick, t} : Event{};
  const Context& h = ctx[holder];
  std::optional<Time> done;
  if (!h.always) done = busy_from + h.left;
  if (working < 2) return done ? Event{Kind::done, *done} : Event{};  // nobody waits for the holder
  // Another context waits: the slice under way ends on the holder's grid, a whole timeslice in at least
  // (a grid point before t with a context waiting was applied already).
  const int64_t ts = m.timeslice.us();
  const int64_t k = std::max<int64_t>(1, ((t - busy_from).us() + ts - 1) / ts);
  const Time end = busy_from + Duration::from_us(k * ts);
  if (done && *done <= end) return {Kind::done, *done};
  return {Kind::slice_end, end};
}

void SliceRoundRobin::State::apply(const Event& e, const TimeSlicingModel& m) {
  t = e.at;
  switch (e.kind) {
    case Kind::none: break;
    case Kind::pick: {
      const std::size_t i = next_with_work(last, true);
      const bool other = last && *last != ctx[i].key;
      holder = i;
      busy_from = e.at + (other ? m.yield_switch : Duration());
      last = ctx[i].key;
      break;
    }
    case Kind::done:
      ctx[holder].has_work = false;
      --working;
      --stepping;
      holder = npos;
      break;
    case Kind::slice_end: {
      Context& h = ctx[holder];
      if (!h.always) h.left = h.left - (e.at - busy_from);
      holder = next_with_work(h.key, false);
      busy_from = e.at + m.preempt_switch;
      last = ctx[holder].key;
      break;
    }
  }
}

void SliceRoundRobin::run_until(Time now) {
  if (now < s_.t) throw std::logic_error(fmt::format("SliceRoundRobin: back to {} us from {} us", now.us(), s_.t.us()));
  for (;;) {
    const Event e = s_.next_event(*m_);
    if (e.kind == Kind::none || e.at >= now) break;
    if (e.kind == Kind::done)
      throw std::logic_error(
          fmt::format("SliceRoundRobin: a step done at {} us was not taken before {} us", e.at.us(), now.us()));
    if (e.kind == Kind::slice_end && s_.stepping == 0) {
      // Only fluid contexts take turns: whole rounds of a slice and a preemption each are skipped.
      const Duration round = (m_->timeslice + m_->preempt_switch) * s_.working;
      if (const int64_t q = (now - e.at).us() / round.us(); q > 0) {
        s_.busy_from = e.at - m_->timeslice + round * q;  // the holder's slice that ends q rounds on
        continue;
      }
    }
    s_.apply(e, *m_);
  }
  s_.t = now;
}

void SliceRoundRobin::submit(uint32_t key, Time now, Duration work) {
  if (work <= Duration()) throw std::invalid_argument("SliceRoundRobin: a step needs positive GPU time");
  change(now);
  std::size_t i = s_.find(key);
  if (i == npos) i = s_.insert(key);
  Context& c = s_.ctx[i];
  if (c.always || c.has_work) throw std::logic_error(fmt::format("SliceRoundRobin: context {} has work under way", key));
  c.has_work = true;
  c.left = work;
  ++s_.working;
  ++s_.stepping;
}

void SliceRoundRobin::set_always(std::span<const uint32_t> keys, Time now) {
  change(now);
  for (std::size_t i = s_.ctx.size(); i-- > 0;)
    if (s_.ctx[i].always && !std::binary_search(keys.begin(), keys.end(), s_.ctx[i].key)) s_.erase(i);
  for (uint32_t key : keys) {
    std::size_t i = s_.find(key);
    if (i == npos) i = s_.insert(key);
    Context& c = s_.ctx[i];
    if (c.has_work) throw std::logic_error(fmt::format("SliceRoundRobin: context {} has a step under way", key));
    if (!c.always) ++s_.working;
    c.always = true;
  }
}

void SliceRoundRobin::remove(uint32_t key, Time now) {
  change(now);
  if (const std::size_t i = s_.find(key); i != npos) s_.erase(i);
}

std::optional<SliceRoundRobin::Done> SliceRoundRobin::next_done() const {
  if (s_.stepping == 0) return std::nullopt;  // fluid contexts alone never finish a step
  ahead_ = s_;
  for (;;) {
    const Event e = ahead_.next_event(*m_);
    if (e.kind == Kind::done) {
      ahead_valid_ = true;
      return Done{ahead_.ctx[ahead_.holder].key, e.at};
    }
    ahead_.apply(e, *m_);
  }
}

void SliceRoundRobin::take_done(uint32_t key, Time at) {
  if (ahead_valid_) std::swap(s_, ahead_);  // the same events, played already
  ahead_valid_ = false;
  run_until(at);
  const Event e = s_.next_event(*m_);
  if (e.kind != Kind::done || e.at != at || s_.ctx[s_.holder].key != key)
    throw std::logic_error(fmt::format("SliceRoundRobin: context {} is not the one done at {} us", key, at.us()));
  s_.apply(e, *m_);
}

std::vector<SlicedOutcome> round_robin(std::span<const SlicedContext> contexts, const TimeSlicingModel& m, Duration horizon) {
  const std::size_t n = contexts.size();
  for (const SlicedContext& c : contexts)
    if (c.work <= Duration() || c.duty <= 0 || c.duty > 1)
      throw std::invalid_argument("round_robin: each context needs positive work and a duty in (0, 1]");
  std::vector<SlicedOutcome> out(n);
  std::vector<Time> ready(n), since(n);  // when its next step is submitted (Time::max(): one is under way); when it was
  const Time end = Time() + horizon;
  Rng rng = make_stream(0, "round_robin");
  SliceRoundRobin gpu(m);
  for (;;) {
    const std::optional<SliceRoundRobin::Done> done = gpu.next_done();
    const auto first = std::min_element(ready.begin(), ready.end());
    // A step submitted at the instant another is done is seen by the choice made then, either order.
    if (first != ready.end() && *first < end && (!done || *first <= done->at)) {
      const auto i = static_cast<std::size_t>(first - ready.begin());
      gpu.submit(static_cast<uint32_t>(i), *first, contexts[i].work);
      since[i] = *first;
      *first = Time::max();
      continue;
    }
    if (!done || done->at > end) break;
    gpu.take_done(done->key, done->at);
    const std::size_t i = done->key;
    const Duration latency = done->at - since[i];
    ++out[i].steps;
    out[i].busy += latency;
    const double duty = contexts[i].duty;
    double pause_us = static_cast<double>(contexts[i].pause.us()) + static_cast<double>(latency.us()) * (1 - duty) / duty;
    if (contexts[i].jitter > Duration()) pause_us += static_cast<double>(contexts[i].jitter.us()) * (2 * uniform01(rng) - 1);
    ready[i] = done->at + Duration::from_us(std::max<int64_t>(0, std::llround(pause_us)));
  }
  return out;
}

}  // namespace gpusim
