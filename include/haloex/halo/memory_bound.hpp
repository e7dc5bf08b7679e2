#pragma once
// What the memory system allows: a STREAM copy measured in the same run,
// and the 64-byte lines of a field that a halo exchange really moves (a
// strided box moves a whole line for each value it reads or writes).
#include <mpi.h>

#include <cstddef>
#include <memory>

#include "haloex/field/field.hpp"
#include "haloex/halo/plan.hpp"

namespace haloex {

/// STREAM copy over arrays well beyond the caches, first touched by the
/// threads that sweep them: the bandwidth a streaming kernel can reach.
class CopySweep {
 public:
  /// `n` doubles per array on this rank.
  explicit CopySweep(size_t n);
  /// Aggregate bytes per second of all ranks of `comm`, sweeping at once
  /// (16 bytes per element: read and write, counted as STREAM does).
  double measure(MPI_Comm comm, int sweeps);

 private:
  long n_;
  std::unique_ptr<double[], AlignedFree> a_, c_;
};

/// Bytes of the 64-byte lines of a field (taken to start on a line) that
/// moving message `m` reads from or writes to it.
double touched_bytes(const Message& m, const FieldShape& s);

/// Bytes of field lines one exchange of `plan` must move on this rank: the
/// distinct lines its send boxes read plus the distinct lines its receive
/// boxes write, local copies included (what a copy of those lines would
/// count, as STREAM counts a copy). Divided by the copy bandwidth of a rank
/// it is a lower bound on the exchange time once the field is out of cache.
double exchange_line_bytes(const Plan& plan);

}  // namespace haloex
