#pragma once
// Copy kernels: how the elements of one box of one field move to or from a
// contiguous buffer, or to another box of the same field. A kernel is chosen
// once, when the plan is built, from the shape of the copy: a whole block,
// contiguous rows (those under 1 KiB two at a time), rows of a length fixed
// at compile time, a strided gather/scatter, or a per-site component table. Pack, unpack and the local
// copy of a rank that is its own neighbour are the same kernels.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "haloex/field/field.hpp"
#include "haloex/grid/box.hpp"

namespace haloex {

/// The element positions one side of a copy visits, in buffer order: nested
/// loops (outermost first) with their strides, a start, and an optional table
/// of offsets visited at every step of the innermost loop (a component subset
/// with no constant step). All in elements.
struct Walk {
  /// Trip counts of the loops, outermost first, and their strides.
  /// @{
  std::vector<long> n, stride;
  /// @}
  long base = 0;            ///< position of the first element
  std::vector<long> table;  ///< offsets visited at every innermost step; empty: none

  /// Elements visited.
  long elements() const;
};

/// The walks of `comps` of `box` of a field of shape `s`: one for AoS or for
/// components with a constant step, one per component otherwise (SoA with an
/// irregular subset). Buffer order: sites then components (AoS), components
/// then sites (SoA).
std::vector<Walk> field_walks(const FieldShape& s, const Box& box, const std::vector<int>& comps);

/// A contiguous walk with the same loops as `w`, starting at `base`.
Walk contiguous_like(const Walk& w, long base);

/// A copy from one walk to another with the same loops, and the code chosen
/// to run it.
class CopyKernel {
 public:
  /// Throws Error unless both walks have the same loops and table size.
  CopyKernel(const Walk& src, const Walk& dst, size_t element_bytes);

  /// Copy from `src` to `dst` (the origins the walks' bases count from). The
  /// outer loops are shared among the threads of an enclosing OpenMP parallel
  /// region (an orphaned `omp for nowait`); outside one, one thread does all.
  void run(const std::byte* src, std::byte* dst) const;

  /// The same copy in the other direction (unpack from pack).
  CopyKernel reversed() const;
  /// This copy and `other` in one pass over their common loops, when both
  /// visit the same loops with the same strides and differ only in where
  /// they start (a rank's copies to itself across opposite faces). For a face
  /// normal to the fastest dimension the two touch the same cache lines, so
  /// one pass moves half the lines two would. The copies must not overlap.
  std::optional<CopyKernel> paired_with(const CopyKernel& other) const;

  /// The kernel's name, e.g. "rows", "rowpairs", "fixed19", "gather", "table5".
  const std::string& name() const { return name_; }
  /// Bytes moved by one run.
  size_t bytes() const;

  /// One loop of a kernel, in elements.
  struct Loop {
    /// Trip count, and the step on the source and destination sides.
    /// @{
    long n = 1, src = 0, dst = 0;
    /// @}
  };

 private:
  CopyKernel() = default;
  void choose();

  std::array<Loop, 3> outer_{};  // padded with n = 1
  bool paired_ = false;          // also copy at src + pair_src_ to dst + pair_dst_
  long pair_src_ = 0, pair_dst_ = 0;
  Loop inner_{};
  long src_base_ = 0, dst_base_ = 0;
  std::vector<long> src_table_, dst_table_;
  size_t elem_ = 8;
  // Short rows further apart than a page in the source, where the hardware
  // prefetcher loses the stream: before each row, the first `ahead_bytes_`
  // of the row `ahead_` rows on are requested. 0: none.
  long ahead_ = 0, ahead_bytes_ = 0;
  std::string name_;
  void (*fn_)(const CopyKernel&, const std::byte*, std::byte*) = nullptr;

  template <class U>
  friend struct KernelBodies;
};

}  // namespace haloex
