#pragma once
// The lattice Boltzmann solver: one case on one communicator, advanced step
// by step with the halo strategy, kernel and overlap mode the case names.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "haloex/core/timers.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/halo/strategy.hpp"
#include "haloex/lb/config.hpp"
#include "haloex/lb/monitor.hpp"
#include "haloex/lb/velocity_set.hpp"

/// The lattice Boltzmann application: case settings, velocity sets, geometry,
/// monitoring and the solver.
namespace haloex::lb {

/// Whole-lattice totals of the pre-collision populations, summed exactly.
struct Totals {
  double mass = 0;                          ///< sum of the populations
  std::array<double, 3> momentum{0, 0, 0};  ///< sum of the populations times their velocities, per dimension
};

/// Timer sections of a run, in table order.
enum TimerSection : int {
  t_update = 0,  ///< collision and streaming
  t_halo_begin,  ///< the forward exchange's begin()
  t_halo_end,    ///< the forward exchange's end()
  t_pack,        ///< inside begin/end: packing and local copies
  t_unpack,      ///< inside begin/end: unpacking
  t_halo_mpi,    ///< inside begin/end: MPI calls and waiting
  t_map,         ///< rebuilding the site map (overlap = map)
  t_monitor,     ///< the monitoring reduction
  t_kernels,  ///< inside update: the collide-stream kernel calls (with time_kernels(true); mean over threads)
  t_sections  ///< number of sections
};

/// The lattice Boltzmann solver: one case on one communicator, advanced step
/// by step with the halo strategy, kernel and overlap mode the case names.
class Solver {
 public:
  /// Collective over comm. Throws InputError for a case this many ranks
  /// cannot run (process grid, subdomain thinner than the halo, strategy).
  Solver(const LbConfig& config, MPI_Comm comm);
  ~Solver();
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  /// The case being run.
  const LbConfig& config() const;
  /// Its velocity set.
  const VelocitySet& velocities() const;
  /// How the lattice is split over the ranks.
  const Decomposition& decomposition() const;

  /// Advance n time steps; `progress(done)` is called after each step.
  /// Throws UnstableRun when the monitor sees NaN or too high a Mach number.
  void advance(long n, const std::function<void(long)>& progress = {});
  /// Time steps completed (counting from a restart's step).
  long steps_done() const;

  /// Pre-collision populations f_i(x, t) of this rank's interior sites (x
  /// slowest, then y, z; q values per site; 0 at solid sites). Collective:
  /// may need a halo exchange.
  std::vector<double> local_populations();
  /// Continue from populations f_i(x, t) laid out as local_populations()
  /// returns them (a checkpoint): the run goes on from step `step` exactly as
  /// the run that produced them would have, whatever its decomposition,
  /// kernel or strategy. Values at solid sites are ignored. Collective.
  void set_populations(std::span<const double> local, long step);
  /// 1 at this rank's solid (and moving-wall) sites, 0 at fluid sites, in
  /// the order of local_populations().
  std::vector<uint8_t> local_solid_mask() const;
  /// The whole lattice's populations on `root` (empty elsewhere), ordered as
  /// local_populations() but by global site. Collective.
  std::vector<double> global_populations(int root = 0);
  /// Mass and momentum over the lattice, the same to the last bit for any
  /// decomposition and thread count. Collective.
  Totals totals();
  /// A checksum of every population of the lattice (core/checksum.hpp), the
  /// same on every rank: two runs agree exactly when their states are
  /// bit-identical, whatever their decompositions. Collective.
  uint64_t state_checksum();

  /// Time the collide-stream kernel calls inside the update into section
  /// t_kernels (off by default: it reads the clock around every call).
  void time_kernels(bool on);
  /// Time per section on this rank (halo rows filled from the strategy).
  const Timers& timers();
  /// Forget the time spent so far (after a warm-up).
  void reset_timers();
  /// The forward (halo-filling) strategy.
  const Strategy& strategy() const;
  /// "reduced" or "full": what the forward exchange carries.
  const std::string& halo_kind() const;
  /// Bytes one step's exchanges bring into this rank's halo (both directions
  /// of the AA pattern averaged per step).
  double halo_bytes_per_step() const;
  /// Fluid sites on the whole lattice.
  long fluid_sites() const;
  /// This rank's fluid sites on the one-site bounce-back path (the rest run
  /// vectorised).
  long slow_path_sites() const;
  /// The monitoring reduction and its latest values.
  const Monitor& monitor() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace haloex::lb
