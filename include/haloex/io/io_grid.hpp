#pragma once
// The I/O grid: the process grid split into equal blocks of whole
// subdomains, one file per block, each written by the ranks of its block
// through their own Cartesian sub-communicator.
#include <mpi.h>

#include <array>
#include <vector>

#include "haloex/core/mpi.hpp"
#include "haloex/grid/box.hpp"
#include "haloex/grid/decomposition.hpp"

namespace haloex {

/// The process grid split into equal blocks of whole subdomains, one file per
/// block: which file this rank writes, with which ranks.
class IoGrid {
 public:
  /// Collective over dec.comm(). Throws InputError (on every rank) unless
  /// `grid` divides the process grid dimension by dimension.
  IoGrid(const Decomposition& dec, std::array<int, 3> grid);

  /// Files per dimension.
  const std::array<int, 3>& grid() const { return grid_; }
  /// Number of files.
  int files() const { return grid_[0] * grid_[1] * grid_[2]; }
  /// The file this rank writes (C order over the I/O grid).
  int file_index() const { return file_; }
  /// The ranks that write this rank's file, as a Cartesian communicator.
  MPI_Comm comm() const { return sub_.get(); }
  /// This rank's number in comm().
  int comm_rank() const { return sub_rank_; }
  /// The block of the global lattice file f holds.
  Box file_box(int f) const;

 private:
  std::array<int, 3> grid_;
  std::array<long, 3> global_;
  std::array<int, 3> procs_;
  std::array<std::vector<long>, 3> starts_;  // range starts per dimension, as the decomposition has them
  int file_ = 0;
  int sub_rank_ = 0;
  Comm sub_;
};

/// "2x1x1" parsed into a grid ("2,1,1" and a single "2" for 2x1x1 also
/// accepted); throws InputError.
std::array<int, 3> parse_io_grid(const std::string& text);

}  // namespace haloex
