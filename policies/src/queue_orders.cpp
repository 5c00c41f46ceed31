// Static queue orders: the key is fixed when a job arrives; ties go to the earlier arrival.
#include "builtin.hpp"

namespace gpusim::builtin {

namespace {
struct Fifo final : QueueOrder {
  QueueKey key(const Job& j) const override { return {j.arrival.us(), 0}; }
};
struct Priority final : QueueOrder {
  QueueKey key(const Job& j) const override { return {-static_cast<int64_t>(j.priority), j.arrival.us()}; }
};
// Shortest job first, using the trace's durations as an oracle (a real scheduler only estimates them).
struct Sjf final : QueueOrder {
  QueueKey key(const Job& j) const override { return {j.work.us(), j.arrival.us()}; }
};
}  // namespace

std::unique_ptr<QueueOrder> make_fifo() { return std::make_unique<Fifo>(); }
std::unique_ptr<QueueOrder> make_priority() { return std::make_unique<Priority>(); }
std::unique_ptr<QueueOrder> make_sjf() { return std::make_unique<Sjf>(); }

}  // namespace gpusim::builtin
