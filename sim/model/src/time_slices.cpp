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

std::size_t SliceRoundRobin::find(uint32_t key) const {
  const auto it = std::lower_bound(ctx_.begin(), ctx_.end(), key, [](const Context& c, uint32_t k) { return c.key < k; });
  return it != ctx_.end() && it->key == key ? static_cast<std::size_t>(it - ctx_.begin()) : npos;
}

std::size_t SliceRoundRobin::insert(uint32_t key) {
  const auto it = std::lower_bound(ctx_.begin(), ctx_.end(), key, [](const Context& c, uint32_t k) { return c.key < k; });
  const auto at = static_cast<std::size_t>(it - ctx_.begin());
  ctx_.insert(it, Context{key, false, false, Duration()});
  if (holder_ != npos && at <= holder_) ++holder_;
  return at;
}

void SliceRoundRobin::erase(std::size_t i) {
  ctx_.erase(ctx_.begin() + static_cast<std::ptrdiff_t>(i));
  // A holder that leaves frees the GPU now; the next to take it pays a yield switch (last_ is not it).
  if (holder_ == i) holder_ = npos;
  else if (holder_ != npos && holder_ > i) --holder_;
}

std::size_t SliceRoundRobin::next_with_work(std::optional<uint32_t> after, bool self) const {
  const std::size_t n = ctx_.size();
  std::size_t start = 0;
  if (after) {
    const auto it = std::upper_bound(ctx_.begin(), ctx_.end(), *after, [](uint32_t k, const Context& c) { return k < c.key; });
    start = static_cast<std::size_t>(it - ctx_.begin()) % std::max<std::size_t>(n, 1);
  }
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (start + k) % n;
    if (!self && after && ctx_[i].key == *after) continue;
    if (ctx_[i].always || ctx_[i].has_work) return i;
  }
  return npos;
}

bool SliceRoundRobin::step_under_way() const {
  return std::any_of(ctx_.begin(), ctx_.end(), [](const Context& c) { return c.has_work; });
}

SliceRoundRobin::Event SliceRoundRobin::next_event() const {
  if (holder_ == npos) return next_with_work(last_, true) != npos ? Event{Kind::pick, t_} : Event{};
  const Context& h = ctx_[holder_];
  std::optional<Time> done;
  if (!h.always) done = busy_from_ + h.left;
  if (next_with_work(h.key, false) == npos) return done ? Event{Kind::done, *done} : Event{};
  // Another context waits: the slice under way ends on the holder's grid, a whole timeslice in at least
  // (a grid point before t_ with a context waiting was applied already).
  const int64_t ts = m_->timeslice.us();
  const int64_t k = std::max<int64_t>(1, ((t_ - busy_from_).us() + ts - 1) / ts);
  const Time end = busy_from_ + Duration::from_us(k * ts);
  if (done && *done <= end) return {Kind::done, *done};
  return {Kind::slice_end, end};
}

void SliceRoundRobin::apply(const Event& e) {
  t_ = e.at;
  switch (e.kind) {
    case Kind::none: break;
    case Kind::pick: {
      const std::size_t i = next_with_work(last_, true);
      const bool other = last_ && *last_ != ctx_[i].key;
      holder_ = i;
      busy_from_ = e.at + (other ? m_->yield_switch : Duration());
      last_ = ctx_[i].key;
      break;
    }
    case Kind::done:
      ctx_[holder_].has_work = false;
      holder_ = npos;
      break;
    case Kind::slice_end: {
      Context& h = ctx_[holder_];
      if (!h.always) h.left = h.left - (e.at - busy_from_);
      holder_ = next_with_work(h.key, false);
      busy_from_ = e.at + m_->preempt_switch;
      last_ = ctx_[holder_].key;
      break;
    }
  }
}

void SliceRoundRobin::run_until(Time now) {
  if (now < t_) throw std::logic_error(fmt::format("SliceRoundRobin: back to {} us from {} us", now.us(), t_.us()));
  for (;;) {
    const Event e = next_event();
    if (e.kind == Kind::none || e.at >= now) break;
    if (e.kind == Kind::done)
      throw std::logic_error(
          fmt::format("SliceRoundRobin: a step done at {} us was not taken before {} us", e.at.us(), now.us()));
    if (e.kind == Kind::slice_end && !step_under_way()) {
      // Only fluid contexts take turns: whole rounds of a slice and a preemption each are skipped.
      const auto n = static_cast<int64_t>(std::count_if(ctx_.begin(), ctx_.end(), [](const Context& c) { return c.always; }));
      const Duration round = (m_->timeslice + m_->preempt_switch) * n;
      if (const int64_t q = (now - e.at).us() / round.us(); q > 0) {
        busy_from_ = e.at - m_->timeslice + round * q;  // the holder's slice that ends q rounds on
        continue;
      }
    }
    apply(e);
  }
  t_ = now;
}

void SliceRoundRobin::submit(uint32_t key, Time now, Duration work) {
  if (work <= Duration()) throw std::invalid_argument("SliceRoundRobin: a step needs positive GPU time");
  run_until(now);
  std::size_t i = find(key);
  if (i == npos) i = insert(key);
  Context& c = ctx_[i];
  if (c.always || c.has_work) throw std::logic_error(fmt::format("SliceRoundRobin: context {} has work under way", key));
  c.has_work = true;
  c.left = work;
}

void SliceRoundRobin::set_always(std::span<const uint32_t> keys, Time now) {
  run_until(now);
  for (std::size_t i = ctx_.size(); i-- > 0;)
    if (ctx_[i].always && !std::binary_search(keys.begin(), keys.end(), ctx_[i].key)) erase(i);
  for (uint32_t key : keys) {
    std::size_t i = find(key);
    if (i == npos) i = insert(key);
    if (ctx_[i].has_work) throw std::logic_error(fmt::format("SliceRoundRobin: context {} has a step under way", key));
    ctx_[i].always = true;
  }
}

void SliceRoundRobin::remove(uint32_t key, Time now) {
  run_until(now);
  if (const std::size_t i = find(key); i != npos) erase(i);
}

std::optional<SliceRoundRobin::Done> SliceRoundRobin::next_done() const {
  if (!step_under_way()) return std::nullopt;  // fluid contexts alone never finish a step
  SliceRoundRobin c = *this;
  for (;;) {
    const Event e = c.next_event();
    if (e.kind == Kind::done) return Done{c.ctx_[c.holder_].key, e.at};
    c.apply(e);
  }
}

void SliceRoundRobin::take_done(uint32_t key, Time at) {
  run_until(at);
  const Event e = next_event();
  if (e.kind != Kind::done || e.at != at || ctx_[holder_].key != key)
    throw std::logic_error(fmt::format("SliceRoundRobin: context {} is not the one done at {} us", key, at.us()));
  apply(e);
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
