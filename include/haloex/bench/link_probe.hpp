#pragma once
// The state of the link between two ranks, probed once per round. On a
// virtual machine the host may move two vCPUs between core complexes while
// a benchmark runs, and every exchange between them then takes another time
// (at 2 ranks, L = 32, 19 doubles: 48 against 200 us on the same guest).
// Samples of one round share that state; a probe beside them says which it
// was, so that a report can tell runs (and rounds) in different states apart.
#include <mpi.h>

#include <cstddef>
#include <vector>

namespace haloex {

/// A ping-pong between ranks 0 and 1 of a communicator (the other ranks wait
/// for rank 0's answer).
class LinkProbe {
 public:
  /// Messages of `bytes`, `trips` round trips per measure().
  explicit LinkProbe(size_t bytes = size_t{64} << 10, int trips = 9);
  /// The median round trip in seconds, on every rank; 0 with one rank.
  /// Collective over comm.
  double measure(MPI_Comm comm);

 private:
  std::vector<char> buffer_;
  int trips_;
};

}  // namespace haloex
