#pragma once
// Run-time monitoring of an LB run: min/max density and max |u| reduced over
// ranks with a user-defined MPI_Op, either blocking or by an MPI_Iallreduce
// that completes one step later (so the reduction hides behind a step of
// work), on a communicator of its own.
#include <mpi.h>

#include <string>

#include "haloex/core/error.hpp"
#include "haloex/core/mpi.hpp"

namespace haloex::lb {

/// An unstable run (NaN or Mach above the limit), found identically by every
/// rank from the same reduced values, so the program can stop cleanly.
class UnstableRun : public Error {
 public:
  using Error::Error;
};

/// The monitored quantities of one step.
struct MonitorStats {
  /// Least and greatest density.
  /// @{
  double rho_min = 0, rho_max = 0;
  /// @}
  double u2_max = 0;     ///< max |u|^2
  double nan_sites = 0;  ///< sites whose density or velocity is NaN
  long long step = -1;   ///< the step they belong to
};

/// Reduces MonitorStats over ranks and stops the run when it goes wrong.
class Monitor {
 public:
  /// How the reduction runs: MPI_Iallreduce completed one step later,
  /// MPI_Allreduce, or not at all.
  enum class Mode { nonblocking, blocking, off };
  /// Duplicates comm so its reductions never match another layer's.
  Monitor(MPI_Comm comm, Mode mode, double mach_limit);
  /// How this monitor reduces.
  Mode mode() const { return mode_; }
  /// Hand over this rank's statistics of `step` after the local update;
  /// completes the previous reduction first. Throws UnstableRun.
  void submit(const MonitorStats& local);
  /// Complete an outstanding reduction (call once per step and at the end).
  /// Throws UnstableRun.
  void complete();
  /// The latest completed global statistics.
  const MonitorStats& last() const { return last_; }
  /// Reductions started so far.
  long reductions() const { return reductions_; }

 private:
  void check(const MonitorStats& g);
  Comm comm_;
  Datatype type_;
  Op op_;
  Mode mode_;
  double mach_limit_;
  MonitorStats send_, recv_, last_;
  MPI_Request req_ = MPI_REQUEST_NULL;
  long reductions_ = 0;
};

/// Parse "nonblocking", "blocking" or "off".
Monitor::Mode parse_monitor_mode(const std::string& s);

}  // namespace haloex::lb
