#include "gpusim/policies/cant_be_late.hpp"

namespace gpusim::cbl {

namespace {

// Products of two times in microseconds pass 2^63 past some 35 days each: they are taken in 128 bits.
__extension__ typedef __int128 Wide;
Wide us(Duration d) { return d.us(); }
Duration progress(const JobClock& c) { return c.work - c.remaining; }  // cp(t)

}  // namespace

Duration slack(const JobClock& c) { return (c.deadline - c.elapsed) - c.remaining; }

bool safety_net(const JobClock& c) { return slack(c) <= c.overhead * 2; }

bool behind(const JobClock& c) { return us(c.elapsed) * us(c.work) > us(progress(c)) * us(c.deadline); }

bool hysteresis_met(const JobClock& c) { return us(progress(c)) * us(c.deadline) >= us(c.elapsed + c.overhead * 2) * us(c.work); }

std::optional<Duration> safety_net_at(const JobClock& c) {
  if (safety_net(c)) return std::nullopt;
  return c.deadline - c.remaining - c.overhead * 2;  // slack falls 1:1 while idle
}

std::optional<Duration> behind_at(const JobClock& c) {
  if (behind(c) || c.work <= Duration()) return std::nullopt;
  // The first microsecond with t C(0) > cp R(0).
  return Duration::from_us(static_cast<int64_t>(us(progress(c)) * us(c.deadline) / us(c.work)) + 1);
}

std::optional<Duration> hysteresis_at(const JobClock& c) {
  if (hysteresis_met(c) || c.deadline <= c.work) return std::nullopt;
  // cp + (t' - t) >= (t' + 2d) C(0) / R(0)  <=>  t' (R(0) - C(0)) >= 2d C(0) + (t - cp) R(0).
  const Wide num = us(c.overhead * 2) * us(c.work) + us(c.elapsed - progress(c)) * us(c.deadline);
  const Wide den = us(c.deadline - c.work);
  const Wide at = (num + den - 1) / den;
  return Duration::from_us(static_cast<int64_t>(at > us(c.elapsed) ? at : us(c.elapsed) + 1));
}

Where decide(Rule rule, Where at, bool spot_free, const JobClock& c) {
  if (rule == Rule::on_demand) return Where::on_demand;
  if (at == Where::spot || rule == Rule::spot) return at == Where::spot || spot_free ? Where::spot : Where::idle;
  if (safety_net(c)) return Where::on_demand;  // and it stays: on-demand keeps R(t) - C(t)
  switch (rule) {
    case Rule::greedy:
      if (at == Where::on_demand) return Where::on_demand;
      return spot_free ? Where::spot : Where::idle;
    case Rule::uniform_plain:
    case Rule::uniform_progress:
      if (at == Where::on_demand)
        return spot_free && (rule == Rule::uniform_plain || hysteresis_met(c)) ? Where::spot : Where::on_demand;
      if (spot_free) return Where::spot;  // Taking Risks, even when behind
      return behind(c) ? Where::on_demand : Where::idle;
    case Rule::on_demand:
    case Rule::spot: break;
  }
  return Where::idle;
}

}  // namespace gpusim::cbl
