#include "haloex/io/io_grid.hpp"

#include <sstream>
#include <string>

namespace haloex {

IoGrid::IoGrid(const Decomposition& dec, std::array<int, 3> grid) : grid_(grid) {
  for (int d = 0; d < 3; ++d) {
    global_[d] = dec.global_size(d);
    procs_[d] = dec.procs(d);
    for (int c = 0; c <= procs_[d]; ++c) starts_[d].push_back(dec.range_start(d, c));
  }
  for (int d = 0; d < 3; ++d)
    if (grid_[d] < 1 || procs_[d] % grid_[d] != 0)
      throw InputError("io_grid " + extents_text(grid_, 3) + " does not divide the process grid " +
                       extents_text(procs_, 3) + ": every file must hold whole subdomains (along " +
                       std::string(1, "xyz"[d]) + " use a divisor of " + std::to_string(procs_[d]) + ")");
  std::array<int, 3> sub_dims{}, sub_coords{};
  for (int d = 0; d < 3; ++d) {
    sub_dims[d] = procs_[d] / grid_[d];
    sub_coords[d] = dec.coord(d) % sub_dims[d];
  }
  file_ = ((dec.coord(0) / sub_dims[0]) * grid_[1] + dec.coord(1) / sub_dims[1]) * grid_[2] +
          dec.coord(2) / sub_dims[2];
  // Split by file, ordered by the coordinates inside the block, then give the
  // block its own Cartesian topology (no reordering: ranks keep their place).
  const int key = (sub_coords[0] * sub_dims[1] + sub_coords[1]) * sub_dims[2] + sub_coords[2];
  Comm split;
  mpi_check(MPI_Comm_split(dec.comm(), file_, key, split.out()), "MPI_Comm_split");
  const int periods[3] = {0, 0, 0};
  mpi_check(MPI_Cart_create(split.get(), 3, sub_dims.data(), periods, 0, sub_.out()), "MPI_Cart_create");
  mpi_check(MPI_Comm_rank(sub_.get(), &sub_rank_), "MPI_Comm_rank");
}

Box IoGrid::file_box(int f) const {
  const int fc[3] = {f / (grid_[1] * grid_[2]), (f / grid_[2]) % grid_[1], f % grid_[2]};
  Box b;
  for (int d = 0; d < 3; ++d) {
    const auto k = static_cast<size_t>(procs_[d] / grid_[d]), c = static_cast<size_t>(fc[d]);
    b.lo[d] = starts_[d][c * k];
    b.hi[d] = starts_[d][(c + 1) * k];
  }
  return b;
}

std::array<int, 3> parse_io_grid(const std::string& text) {
  std::string t = text;
  for (char& c : t)
    if (c == 'x' || c == ',') c = ' ';
  std::array<int, 3> g{1, 1, 1};
  std::istringstream in(t);
  int n = 0;
  for (long v; n < 4 && in >> v; ++n) {
    if (n == 3 || v < 1)
      throw InputError("io_grid '" + text + "': expected 1 to 3 positive integers such as 2x1x1");
    g[n] = static_cast<int>(v);
  }
  if (n == 0 || !in.eof())
    throw InputError("io_grid '" + text + "': expected 1 to 3 positive integers such as 2x1x1");
  return g;
}

}  // namespace haloex
