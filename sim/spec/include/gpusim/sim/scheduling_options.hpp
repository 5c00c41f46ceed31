#pragma once
// A scenario's `scheduling:` block: how the scheduler serves its queue. Apart from the scheduler
// interface (scheduler.hpp) so that the scenario reader, a layer below it, can hold it.
#include <array>
#include <cstdint>

#include "gpusim/core/enum_table.hpp"

namespace gpusim {

// How the queue is served (a scenario's `scheduling:` block).
//   kubernetes  every pending job that fits starts, in queue order; none blocks another (default)
//   strict      in queue order; the first job that does not fit blocks the ones behind it
//   backfill    EASY backfilling: the first job that does not fit gets a reservation at the earliest
//               time enough GPUs free up (running jobs end at their current rates); a later job
//               starts now only if it fits and does not delay that reservation
enum class QueueMode : uint8_t { kubernetes, strict, backfill };
constexpr auto enum_table(QueueMode) {
  return std::to_array<EnumName<QueueMode>>(
      {{QueueMode::kubernetes, "kubernetes"}, {QueueMode::strict, "strict"}, {QueueMode::backfill, "backfill"}});
}

struct SchedulingOptions {
  // Gang scheduling: a job's workers are placed all together or not at all. Off, worker pods are
  // placed one at a time as they fit (the default Kubernetes scheduler without co-scheduling), and
  // a job runs once its last worker is placed; placed workers hold their GPUs meanwhile.
  bool gang = true;
  QueueMode queue = QueueMode::kubernetes;
};

}  // namespace gpusim
