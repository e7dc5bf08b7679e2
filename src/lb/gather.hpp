#pragma once
// What the ranks' populations add up to (internal header): all of them at
// one rank in global site order, and the exact totals of mass and momentum.
#include <vector>

#include "haloex/grid/decomposition.hpp"
#include "haloex/lb/solver.hpp"
#include "haloex/lb/velocity_set.hpp"

namespace haloex::lb::detail {

/// The populations `local` (interior sites x slowest, q per site) of every
/// rank, at `root` in global order (x slowest); empty elsewhere. Collective.
std::vector<double> gather_populations(const Decomposition& dec, const std::vector<double>& local, int q,
                                       int root);

/// The checksum (core/checksum.hpp) of the populations `local` (as
/// gather_populations takes them) of every rank, at every rank. Collective.
uint64_t checksum_of(const Decomposition& dec, const std::vector<double>& local, int q);

/// Mass and momentum of the populations `f` (q per site) of every rank,
/// summed exactly (independent of the decomposition). Collective.
Totals totals_of(const std::vector<double>& f, const VelocitySet& vs, MPI_Comm comm);

}  // namespace haloex::lb::detail
