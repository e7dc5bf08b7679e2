#pragma once
// The diffusion application run as `haloex stencil` runs it: a header line,
// the iterations with a progress line, the timing table, the field checksum
// and, when asked, the final field as a .npy file.
#include <mpi.h>

#include <string>

#include "haloex/core/threads.hpp"
#include "haloex/stencil/diffusion.hpp"

namespace haloex::stencil {

/// What a run takes besides its configuration.
struct RunOptions {
  long iterations = 64;              ///< stencil updates
  bool serial = false;               ///< the serial reference (cfg.strategy "serial", one rank)
  std::string precision = "double";  ///< "double" or "float"
  std::string out;                   ///< a .npy file for the final field, or empty
  bool quiet = false;                ///< no progress lines
};

/// Run on every rank of `comm` with the threads `threads` chose. Collective;
/// throws InputError naming a bad configuration.
void run_case(const DiffusionConfig& cfg, const RunOptions& opt, const ThreadChoice& threads, MPI_Comm comm);

}  // namespace haloex::stencil
