#pragma once
// The aggregator: a rank's interior values of one quantity copied into the
// order they take on file (x fastest, components together; x slowest for a
// C-order array such as .npy), independent of
// the field's layout and halo. It is what a file format writes from and
// reads into, and the copy is what lets an asynchronous write go on while
// the field changes.
#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "haloex/field/field.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/io/metadata.hpp"

namespace haloex {

/// One rank's interior values of one quantity in file order (x fastest,
/// then y, then z, unless told otherwise; the components of a site
/// together): what a file format writes from and reads into.
class Aggregator {
 public:
  /// Storage for this rank's interior sites of `element`, in `order`.
  Aggregator(const Decomposition& dec, IoElement element, SiteOrder order = SiteOrder::x_fastest);

  /// What one site holds.
  const IoElement& element() const { return element_; }
  /// Interior extents of this rank (1 along unused dimensions).
  const std::array<long, 3>& extent() const { return extent_; }
  /// Interior sites of this rank.
  long sites() const { return extent_[0] * extent_[1] * extent_[2]; }
  /// The values, bytes() of them.
  /// @{
  std::byte* data() { return data_.data(); }
  const std::byte* data() const { return data_.data(); }
  /// @}
  /// Size of the values in bytes.
  size_t bytes() const { return data_.size(); }
  /// The values as T (T must match the element type: double, float or uint8_t).
  template <class T>
  T* values() {
    check_type(sizeof(T));
    return reinterpret_cast<T*>(data_.data());
  }

  /// Position of local interior site (i, j, k) in the values (times ncomp
  /// for its first element).
  size_t site(long i, long j, long k) const {
    return static_cast<size_t>(i) * stride_[0] + static_cast<size_t>(j) * stride_[1] +
           static_cast<size_t>(k) * stride_[2];
  }

  /// Copy the interior of a field in (element type and ncomp must match).
  /// OpenMP threads over z-tiles and y.
  void pack(const FieldView& field);
  /// Copy back into a field's interior (its halo is left alone).
  void unpack(const FieldView& field) const;

  /// Fill from values in x-slowest local order (site (i, j, k) at
  /// (i * ny + j) * nz + k, the order of the LB solver's site arrays).
  template <class T>
  void assign_x_slowest(std::span<const T> v) {
    check_type(sizeof(T));
    from_x_slowest(reinterpret_cast<const std::byte*>(v.data()), v.size() * sizeof(T));
  }
  /// The values in x-slowest local order.
  template <class T>
  std::vector<T> x_slowest() const {
    check_type(sizeof(T));
    std::vector<T> out(bytes() / sizeof(T));
    to_x_slowest(reinterpret_cast<std::byte*>(out.data()), bytes());
    return out;
  }

 private:
  void from_x_slowest(const std::byte* v, size_t n);
  void to_x_slowest(std::byte* v, size_t n) const;
  void check_type(size_t size) const;
  void check_field(const FieldShape& s) const;
  void copy(const FieldView& field, bool into_field) const;
  IoElement element_;
  std::array<long, 3> extent_;
  std::array<size_t, 3> stride_;  // sites between neighbours along x, y, z (the order)
  std::vector<std::byte> data_;
};

}  // namespace haloex
