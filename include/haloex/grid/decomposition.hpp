#pragma once
// Cartesian decomposition of a 2-D or 3-D lattice over the ranks of a
// communicator.
#include <mpi.h>

#include <array>
#include <string>
#include <vector>

#include "haloex/core/mpi.hpp"
#include "haloex/grid/box.hpp"

namespace haloex {

/// What the user asks for: the global lattice, the process grid (0 entries
/// are chosen by MPI_Dims_create) and the periodicity per dimension.
struct DecompositionSpec {
  int ndim = 3;                                ///< 2 or 3
  std::array<long, max_dims> global{1, 1, 1};  ///< lattice sites per dimension
  std::array<int, max_dims> procs{0, 0, 0};    ///< ranks per dimension; 0: chosen by MPI_Dims_create
  std::array<bool, max_dims> periodic{true, true, true};  ///< whether each dimension wraps around
  /// The client's own split (PETSc's ownership ranges): extents[d] lists the
  /// sites that coordinates 0, 1, ... own along d, one entry per rank along
  /// d, each at least 1, summing to global[d]. Empty: haloex's even split.
  /// Along a dimension given this way procs[d] must be given or 0 (then it
  /// is the number of entries).
  std::array<std::vector<long>, max_dims> extents{};
};

/// One rank's own box, for a client that decomposed the lattice itself and
/// knows only its own part (GHEX's domain descriptor): the process grid and
/// the coordinates follow from every rank's box.
struct OwnedBoxSpec {
  int ndim = 3;                                           ///< 2 or 3
  std::array<long, max_dims> global{1, 1, 1};             ///< lattice sites per dimension
  std::array<bool, max_dims> periodic{true, true, true};  ///< whether each dimension wraps around
  std::array<long, max_dims> first{0, 0, 0};              ///< global index of this rank's first site
  std::array<long, max_dims> extent{1, 1, 1};             ///< this rank's sites along each dimension
};

/// A rank's place in the decomposed lattice: process grid, coordinates,
/// local extents and offsets (the remainder of an uneven split goes to the
/// lowest coordinates, one site each), and its 3^d - 1 neighbour ranks.
class Decomposition {
 public:
  /// Collective over comm. Throws InputError when the process grid does not
  /// multiply to the number of ranks or a dimension has more ranks than sites.
  Decomposition(MPI_Comm comm, const DecompositionSpec& spec);
  /// Collective over comm: every rank gives its own box. The boxes must tile
  /// the lattice as a process grid (ranks sharing a range along d agree on
  /// it, no gap, no overlap); otherwise every rank throws the same
  /// InputError, naming ranks and sites. Ranks keep their numbers: the
  /// decomposition's communicator is a duplicate of comm, and a rank's
  /// coordinates are where its box lies, whatever its rank.
  Decomposition(MPI_Comm comm, const OwnedBoxSpec& spec);

  /// Number of dimensions, 2 or 3.
  int ndim() const { return ndim_; }
  /// The Cartesian communicator every exchange uses.
  MPI_Comm comm() const { return cart_.get(); }
  /// This rank's number in comm().
  int rank() const { return rank_; }
  /// Number of ranks in comm().
  int size() const { return size_; }

  /// Global lattice sites along d.
  long global_size(int d) const { return global_[d]; }
  /// Ranks along d in the process grid.
  int procs(int d) const { return procs_[d]; }
  /// Whether dimension d wraps around.
  bool periodic(int d) const { return periodic_[d]; }
  /// This rank's coordinate along d in the process grid.
  int coord(int d) const { return coords_[d]; }
  /// Local interior extent along d (1 for unused dimensions).
  long local_size(int d) const { return local_[d]; }
  /// Global index of local site 0 along d.
  long offset(int d) const { return offset_[d]; }
  /// Smallest local extent any rank has along d.
  long min_local_size(int d) const;
  /// Global index of the first site that coordinate c owns along d; c =
  /// procs(d) gives global_size(d).
  long range_start(int d, int c) const { return bounds_[d][static_cast<size_t>(c)]; }
  /// Local interior sites.
  long local_volume() const { return local_[0] * local_[1] * local_[2]; }

  /// Extent and offset of the block that coordinate c owns when n sites are split
  /// over p ranks (the remainder goes to the lowest coordinates, one site each).
  /// @{
  static long block_size(long n, int p, int c) { return n / p + (c < n % p ? 1 : 0); }
  static long block_offset(long n, int p, int c) { return c * (n / p) + (c < n % p ? c : n % p); }
  /// @}

  /// Rank of the neighbour at offset o, MPI_PROC_NULL across a
  /// non-periodic edge. The offset (0,0,0) is this rank.
  int neighbour(const Offset& o) const { return neighbours_[offset_index(o)]; }
  /// Rank of the neighbour with a readable name such as "x+y-".
  int neighbour(const std::string& name) const { return neighbour(offset_from_name(name)); }
  /// All 3^ndim - 1 neighbour offsets in canonical order.
  const std::vector<Offset>& offsets() const { return offsets_; }

  /// Whether dimension d is periodic with one rank along it: every rank is
  /// its own neighbour there, and a halo may be wider than the lattice
  /// (filled with its periodic images again and again).
  bool self_periodic(int d) const { return d < ndim_ && periodic_[d] && procs_[d] == 1; }

  /// Throws InputError unless every rank's subdomain is at least `width`
  /// sites thick along every decomposed dimension (along d alone, when d is
  /// given).
  void require_thickness(long width, const std::string& what, int d = -1) const;

  /// One line describing the decomposition, e.g. "64x64x64 on 2x1x1 (ppp)".
  std::string describe() const;

 private:
  void check_global(const std::array<long, max_dims>& global);
  void place(const std::array<std::vector<long>, max_dims>& bounds);

  int ndim_;
  Comm cart_;
  std::vector<int> rank_at_;  // rank at each row-major grid position (owned boxes; empty: rank order)
  std::array<std::vector<long>, max_dims> bounds_{};  // per d: procs[d] + 1 range starts
  int rank_ = 0, size_ = 1;
  std::array<long, max_dims> global_{1, 1, 1};
  std::array<int, max_dims> procs_{1, 1, 1};
  std::array<bool, max_dims> periodic_{false, false, false};
  std::array<int, max_dims> coords_{0, 0, 0};
  std::array<long, max_dims> local_{1, 1, 1};
  std::array<long, max_dims> offset_{0, 0, 0};
  std::array<int, 27> neighbours_{};
  std::vector<Offset> offsets_;
};

/// "x", "y" or "z".
inline const char* axis_name(int d) {
  static const char* names[] = {"x", "y", "z"};
  return names[d];
}

/// The process grid for nranks ranks: the given entries kept, zero entries
/// chosen by MPI_Dims_create. Throws InputError when the given entries cannot
/// multiply to nranks.
std::array<int, max_dims> resolve_process_grid(int nranks, int ndim, std::array<int, max_dims> procs);

/// "4x3x2": the first ndim entries of a grid or extent, joined by 'x'.
template <class T>
std::string extents_text(const std::array<T, max_dims>& e, int ndim) {
  std::string s;
  for (int d = 0; d < ndim; ++d) {
    if (d) s += 'x';  // (one char at a time: GCC 12 warns on "x" + std::string)
    s += std::to_string(e[d]);
  }
  return s;
}

/// Parse "2,1,1"-style lists (used by the CLI and tests); an entry may be a
/// range first:last[:step] ("16:88:8" is 16, 24, ..., 88).
std::vector<long> parse_long_list(const std::string& text, const std::string& what);

/// A 2-D process grid "X,Y" given as --procs (0 = let MPI_Dims_create
/// choose); InputError unless it has two entries.
std::array<int, 2> parse_grid_2d(const std::string& text);

}  // namespace haloex
