#pragma once
// The LB solver's files: field output (density, velocity, solid mask) in any
// format, and checkpoints that a run on any number of ranks continues from
// bit for bit.
#include <memory>
#include <string>
#include <vector>

#include "haloex/io/field_io.hpp"
#include "haloex/lb/solver.hpp"

namespace haloex {

/// One output event as reported: which quantity, at which step, its cost.
struct IoRecord {
  std::string name;  ///< the quantity, e.g. "density" or "checkpoint"
  long step = 0;     ///< the time step written
  IoEvent event;     ///< its files, bytes and times
};

/// Field output of a running solver: every `output.every` steps the chosen
/// fields are computed, copied to their aggregators and written; with
/// `output.async` the write completes only before the next output (or at
/// finish), so the steps in between run while it goes on.
class LbOutput {
 public:
  /// Collective. Throws InputError for a bad format or I/O grid.
  LbOutput(lb::Solver& solver, const lb::LbConfig& cfg);
  ~LbOutput();
  /// Write the fields at the solver's current step. Collective.
  void write();
  /// Complete a pending write (and its XDMF file). Collective.
  void finish();
  /// The events completed since the last call.
  std::vector<IoRecord> take_events();

 private:
  struct Quantity;
  void complete();
  lb::Solver& solver_;
  const lb::LbConfig& cfg_;
  std::vector<std::unique_ptr<Quantity>> q_;
  long pending_step_ = -1;
  std::vector<IoRecord> events_;
};

/// Remove the temporary files (`*.part`) a killed run of this case left in
/// its output and checkpoint folders and of its summary; returns their paths.
/// Called once, on one rank, before the run writes anything.
std::vector<std::string> remove_stale_parts(const lb::LbConfig& cfg);

/// The stem of the checkpoint of a step in a directory ("dir/checkpoint-000010").
std::string checkpoint_stem(const std::string& dir, long step);

/// Write a checkpoint of the solver's current state: the pre-collision
/// populations, the step, the model, the physics settings and the whole
/// input, then delete all but the newest `keep` complete checkpoints in the
/// directory. Collective. A crash at any moment leaves the previous
/// checkpoint complete and this one either complete or absent.
IoRecord write_checkpoint(lb::Solver& solver, const std::string& dir, std::array<int, 3> io_grid, int keep);

/// The metadata file of the newest complete checkpoint in `path` (a
/// directory), or `path` itself when it is a file. Throws InputError when
/// there is none.
std::string find_checkpoint(const std::string& path);

/// Continue the solver from a checkpoint written on any number of ranks:
/// checks the model, lattice, physics and geometry against the solver's and
/// the files' sizes and checksums, then loads the populations and the step.
/// Returns the step. Collective; throws InputError naming any mismatch.
long restart_from(lb::Solver& solver, const std::string& metadata_path);

}  // namespace haloex
