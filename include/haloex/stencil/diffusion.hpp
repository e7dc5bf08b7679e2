#pragma once
// The 2-D fourth-order diffusion application: an nx x ny x nz field, z not
// decomposed, a halo of 2 in x and y, periodic, split over a 2-D process grid;
// every iteration exchanges the halo with a strategy chosen by name and
// applies out = in - alpha * lap(lap(in)).
#include <mpi.h>

#include <array>
#include <memory>
#include <string>

#include "haloex/field/field.hpp"
#include "haloex/halo/strategy.hpp"
#include "haloex/stencil/kernel.hpp"

/// The 2-D fourth-order diffusion application (the 2022 stencil paper's) and
/// its kernel.
namespace haloex::stencil {

/// The run's description.
struct DiffusionConfig {
  /// Global sites: nx x ny, split over the ranks, and nz values per site (z is
  /// not decomposed).
  /// @{
  long nx = 128, ny = 128, nz = 64;
  /// @}
  /// A halo strategy name, or "serial": one rank holds the whole domain and
  /// fills its periodic halo by plain copies (the reference, no halo library).
  std::string strategy = "auto";
  std::array<int, 2> procs{0, 0};  ///< process grid; 0: chosen by MPI_Dims_create
  double alpha = 1.0 / 32.0;       ///< the coefficient in out = in - alpha * lap(lap(in))
};

/// Throws InputError for sizes the application cannot run (nz < 1, "serial"
/// on more than one rank, ...); the decomposition checks the rest.
void validate(const DiffusionConfig& cfg, int ranks);

/// Where the time went, summed over iterations on this rank.
struct DiffusionTimes {
  /// Seconds in halo exchanges, in the kernel, and in all of run().
  /// @{
  double halo_s = 0, work_s = 0, total_s = 0;
  /// @}
  long iterations = 0;  ///< iterations run
};

/// The initial condition of the 2022 stencil paper's code: 1 where every
/// global index lies in [n/4, 3n/4) of its dimension (integer division, z
/// included), 0 elsewhere.
inline bool in_central_block(long i, long j, long k, long nx, long ny, long nz) {
  auto mid = [](long x, long n) { return x >= n / 4 && x < 3 * n / 4; };
  return mid(i, nx) && mid(j, ny) && mid(k, nz);
}

/// The application on one communicator (MPI_COMM_SELF for "serial").
template <class T>
class Diffusion {
 public:
  /// Collective over comm. Sets the initial condition.
  Diffusion(MPI_Comm comm, const DiffusionConfig& cfg);

  /// Run this many iterations (collective).
  void run(long iterations);
  /// Back to the initial condition, times cleared.
  void reset();

  /// The run's description.
  const DiffusionConfig& config() const { return cfg_; }
  /// How the lattice is split over the ranks.
  const Decomposition& decomposition() const { return *dec_; }
  /// The current state (the latest output), halo included.
  /// @{
  Field<T>& field() { return *in_; }
  const Field<T>& field() const { return *in_; }
  /// @}
  /// Time spent so far.
  const DiffusionTimes& times() const { return times_; }
  /// The halo strategy (null for "serial"), whose times() split the halo
  /// time into packing, MPI and unpacking.
  const Strategy* strategy() const { return strategy_.get(); }
  /// Bytes one halo exchange brings into this rank (0 for serial copies).
  double halo_bytes() const { return plan_ ? static_cast<double>(plan_->halo_bytes()) : 0.0; }

 private:
  void exchange();

  DiffusionConfig cfg_;
  std::unique_ptr<Decomposition> dec_;
  std::unique_ptr<Field<T>> in_, out_;
  std::unique_ptr<Plan> plan_;
  std::unique_ptr<Strategy> strategy_;
  std::unique_ptr<Scratch<T>> scratch_;
  Columns cols_;
  DiffusionTimes times_;
};

}  // namespace haloex::stencil
