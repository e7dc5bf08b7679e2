#pragma once
// Index boxes and neighbour offsets: the vocabulary every layer shares.
#include <array>
#include <string>
#include <vector>

namespace haloex {

/// Most dimensions a lattice can have; 2-D lattices use the first two.
inline constexpr int max_dims = 3;

/// A neighbour offset: -1, 0 or +1 per dimension (unused dimensions are 0).
using Offset = std::array<int, max_dims>;

/// A half-open box [lo, hi) of local site coordinates. Halo sites have
/// coordinates below 0 or at/above the local extent.
struct Box {
  std::array<long, max_dims> lo{0, 0, 0};  ///< first site per dimension (included)
  std::array<long, max_dims> hi{1, 1, 1};  ///< end per dimension (excluded)

  /// Number of sites along dimension d.
  long extent(int d) const { return hi[d] > lo[d] ? hi[d] - lo[d] : 0; }
  /// Number of sites in the box.
  long volume() const { return extent(0) * extent(1) * extent(2); }
  /// True when the box holds no site.
  bool empty() const { return volume() == 0; }
  /// Whether local site (i, j, k) lies inside the box.
  bool contains(long i, long j, long k) const {
    return i >= lo[0] && i < hi[0] && j >= lo[1] && j < hi[1] && k >= lo[2] && k < hi[2];
  }
  /// Equal when the bounds are.
  friend bool operator==(const Box&, const Box&) = default;
};

/// Every non-zero offset of an ndim-dimensional lattice (3^ndim - 1 of them),
/// with the first dimension varying slowest: the order of the 2016 paper's
/// NNN, NNM, ... enumeration with (0,0,0) left out.
std::vector<Offset> neighbour_offsets(int ndim);

/// Dense index of an offset in [0, 27), also used as a message tag.
inline int offset_index(const Offset& o) { return (o[0] + 1) * 9 + (o[1] + 1) * 3 + (o[2] + 1); }

/// The opposite offset.
inline Offset opposite(const Offset& o) { return {-o[0], -o[1], -o[2]}; }

/// Readable name of an offset, e.g. "x+", "x-y+", "x+y+z-".
std::string offset_name(const Offset& o);

/// The offset with that readable name (throws InputError if malformed).
Offset offset_from_name(const std::string& name);

/// The 2016 paper's three-letter code (N = -1, M = 0, P = +1 per dimension),
/// such as "MNP" for (0,-1,+1); 2-D offsets get two letters.
std::string offset_code(const Offset& o, int ndim);

}  // namespace haloex
