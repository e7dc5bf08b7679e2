#pragma once
// The fourth-order diffusion kernel of the 2-D stencil application: the
// Laplacian of the Laplacian (a 13-point footprint) on columns of nz values.
//
// Storage is that of a 2-D field with nz components per site in AoS order
// (Field<T> with ncomp = nz): site (i, j) holds its nz values contiguously,
// sites are ordered with j fastest, and a halo of 2 surrounds the interior.
#include <memory>
#include <vector>

#include "haloex/field/field.hpp"

namespace haloex::stencil {

/// Halo width the 13-point footprint needs.
inline constexpr int halo_width = 2;

/// Geometry of one rank's block as the kernel sees it.
struct Columns {
  /// Interior extents.
  /// @{
  long nx = 0, ny = 0, nz = 0;
  /// @}
  long row = 0;     ///< elements between (i, j) and (i + 1, j): (ny + 4) * nz
  long origin = 0;  ///< element index of (0, 0, 0)

  /// The columns of a field made with ncomp = nz, halo 2, AoS.
  static Columns of(const FieldShape& s);
  /// Element index of value k of site (i, j) (halo sites: -2 <= i < nx + 2).
  long at(long i, long j, long k) const { return origin + i * row + j * nz + k; }
};

/// Per-thread rows of the intermediate Laplacian (three rows of ny + 2 sites
/// each), allocated once and reused every iteration.
template <class T>
class Scratch {
 public:
  /// Rows for every thread of the OpenMP team (omp_get_max_threads).
  explicit Scratch(const Columns& c);
  /// The three rows of thread `thread`.
  T* rows(int thread) { return bufs_[static_cast<size_t>(thread)].get(); }
  /// Number of threads it holds rows for.
  int threads() const { return static_cast<int>(bufs_.size()); }

 private:
  std::vector<std::unique_ptr<T[], AlignedFree>> bufs_;
};

/// One diffusion step on the interior: lap = 5-point Laplacian of `in` on the
/// interior grown by one, lap2 = Laplacian of lap on the interior,
/// out = in - alpha * lap2. `in` must have a filled halo of 2 (corners
/// included). Each Laplacian is evaluated as
/// (((-4 u(i,j) + u(i-1,j)) + u(i+1,j)) + u(i,j-1)) + u(i,j+1) with no fused
/// multiply-add, so the result of a site never depends on which rank or
/// thread computes it. Rows are blocked: lap lives only in three cached rows
/// per thread, so memory sees one read of `in` and one write of `out`.
template <class T>
void diffusion_step(const T* in, T* out, const Columns& c, T alpha, Scratch<T>& scratch);

/// Fill the periodic halo of a block that holds the whole domain by plain
/// copies (the serial reference: no halo library involved). Rows are copied
/// after columns, so the corners come out right.
template <class T>
void fill_periodic_halo(T* data, const Columns& c);

}  // namespace haloex::stencil
