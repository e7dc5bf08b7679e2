#pragma once
// A lattice Boltzmann case run from start to end, as `haloex lb` runs it:
// the header lines, the restart from a checkpoint, the time loop with its
// outputs, checkpoints and progress line, and the results (totals, state
// checksum, monitor, timers on stdout; the JSON summary when the case asks).
#include <mpi.h>

#include <string>

#include "haloex/core/threads.hpp"
#include "haloex/lb/config.hpp"

namespace haloex::lb {

/// What a run takes besides its case.
struct RunOptions {
  std::string restart;  ///< a checkpoint's .json file or a folder of them; empty: start at step 0
  bool quiet = false;   ///< no progress line and no line per output
};

/// Run the case on every rank of `comm` with the threads `threads` chose.
/// Collective; throws InputError naming a bad case or checkpoint.
void run_case(const LbConfig& cfg, const RunOptions& opt, const ThreadChoice& threads, MPI_Comm comm);

}  // namespace haloex::lb
