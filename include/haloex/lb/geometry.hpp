#pragma once
// Where the fluid is: the kind of every local site (halo included) and the
// map of runs along each row that tells the kernels which sites may take the
// fast vector path and which need bounce-back.
#include <cstdint>
#include <vector>

#include "haloex/field/field.hpp"
#include "haloex/lb/config.hpp"

namespace haloex::lb {

/// Site kinds: fluid, solid (an obstacle or a wall beyond a non-periodic
/// face) or the moving wall.
enum : uint8_t { site_fluid = 0, site_solid = 1, site_moving_wall = 2 };

/// The obstacle mask file of a case, checked for size (nx*ny*nz bytes).
/// Throws InputError when it cannot be read or has the wrong size.
std::vector<uint8_t> read_mask_file(const LbConfig& c);

/// The kind of every allocated site of `shape` (index = shape.site()), from
/// the global geometry; `mask` is the mask file's content or empty.
std::vector<uint8_t> site_kinds(const LbConfig& c, const Decomposition& dec, const FieldShape& shape,
                                const std::vector<uint8_t>& mask);

/// Runs of interior sites along the fastest-varying dimension ("rows").
class SiteMap {
 public:
  /// Run types: `plain` runs take the fast path; a `boundary` run's sites have a
  /// neighbour that is not fluid.
  enum : uint8_t { plain = 0, boundary = 1 };
  /// Sites of one type along a row.
  struct Run {
    /// Row coordinates [r0, r1).
    /// @{
    long r0, r1;
    /// @}
    uint8_t type;  ///< plain or boundary
  };
  /// Build from the site kinds and the velocity displacements (the paper's
  /// build_update_map: the overlap mode `map` rebuilds it every step).
  void build(const FieldShape& shape, int ndim, const std::vector<uint8_t>& kinds,
             const std::vector<long>& offsets);
  /// The dimension along which rows run, and the two outer dimensions.
  /// @{
  int row_dim() const { return row_dim_; }
  int outer(int k) const { return outer_[k]; }
  /// @}
  /// Runs of row (a, b), indices along the outer dimensions.
  std::pair<const Run*, const Run*> row(long a, long b) const {
    const long r = a * n_outer1_ + b;
    return {runs_.data() + start_[r], runs_.data() + start_[r + 1]};
  }
  /// Fluid sites in the interior.
  long fluid_sites() const { return fluid_; }
  /// Fluid sites on the slow (bounce-back) path.
  long boundary_sites() const { return boundary_; }

 private:
  int row_dim_ = 2, outer_[2] = {0, 1};
  long n_outer1_ = 1;
  std::vector<Run> runs_;
  std::vector<long> start_;
  long fluid_ = 0, boundary_ = 0;
};

}  // namespace haloex::lb
