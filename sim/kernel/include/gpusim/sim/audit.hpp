#pragma once
// Audit mode (`--audit`, `audit=True`): after every event the run's invariants are checked, and the
// first one broken stops the run with an AuditError naming the event, the time and the invariant.
// It costs time in proportion to what each event changes, so it is for tests and for doubt.
#include <memory>
#include <stdexcept>

#include "gpusim/sim/observer.hpp"

namespace gpusim {

class AuditError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// The observer that checks (the engine attaches it when RunOptions::audit is set):
// - no GPU, replica or MIG slice over-committed: a GPU's free share and memory are what its
//   residents' claims leave, its residents fit its replicas, each MIG slice holds one of them;
// - MIG instances inside the GPU's geometry (no two overlap, each at a start its profile allows);
// - memory and CPU never negative on a node or a GPU;
// - GPU time conserved: each pool's allocated GPUs, as the metrics integrate them, equal the sum of
//   the shares its GPUs have claimed;
// - energy conserved (issue 45): at the end, each GPU's energy as the metrics integrate it equals the
//   audit's own integral of its draw (its node powered while billed, its residents' busy shares under
//   the power model), each pool's GPU energy is the sum of its GPUs', and jobs are charged no more than
//   the fleet drew;
// - every job on a GPU is running (or partly placed, gang scheduling off) on a node that is up;
// - the clock never goes back.
std::unique_ptr<Observer> make_audit();

}  // namespace gpusim
