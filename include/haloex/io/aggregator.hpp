#pragma once
// The aggregator: a rank's interior values of one quantity copied into the
// order they take on file (x slowest, components together), independent of
// the field's layout and halo. It is what a file format writes from and
// reads into, and the copy is what lets an asynchronous write go on while
// the field changes.
#include <array>
#include <cstddef>
#include <vector>

#include "haloex/field/field.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/io/metadata.hpp"

namespace haloex {

/// One rank's interior values of one quantity in file order (x slowest,
/// components together): what a file format writes from and reads into.
class Aggregator {
 public:
  /// Storage for this rank's interior sites of `element`.
  Aggregator(const Decomposition& dec, IoElement element);

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

  /// Copy the interior of a field in (element type and ncomp must match).
  /// OpenMP threads over the slowest dimension.
  void pack(const FieldView& field);
  /// Copy back into a field's interior (its halo is left alone).
  void unpack(const FieldView& field) const;

 private:
  void check_type(size_t size) const;
  void check_field(const FieldShape& s) const;
  void copy(const FieldView& field, bool into_field) const;
  IoElement element_;
  std::array<long, 3> extent_;
  std::vector<std::byte> data_;
};

}  // namespace haloex
