#pragma once
// The discrete velocity sets: compile-time tables for the kernels and one
// run-time description for everything else. Direction 0 is the rest
// population; the rest come in pairs (i, opposite(i)).
#include <array>
#include <string>
#include <vector>

#include "haloex/core/error.hpp"
#include "haloex/grid/box.hpp"

namespace haloex::lb {

/// Lattice speed of sound squared, c_s^2 = 1/3 for every set here.
inline constexpr double cs2 = 1.0 / 3.0;

/// Q velocity vectors of three components (2-D sets leave z at 0).
template <int Q>
using Velocities = std::array<std::array<int, 3>, Q>;

/// Index of the opposite direction, found by search so the tables stay short.
template <int Q>
constexpr std::array<int, Q> opposites(const Velocities<Q>& c) {
  std::array<int, Q> o{};
  for (int i = 0; i < Q; ++i)
    for (int j = 0; j < Q; ++j)
      if (c[j][0] == -c[i][0] && c[j][1] == -c[i][1] && c[j][2] == -c[i][2]) o[i] = j;
  return o;
}

/// The 2-D set of 9 velocities: rest, 4 axes, 4 diagonals.
struct D2Q9 {
  static constexpr const char* name = "D2Q9";  ///< as case files name it
  /// Dimensions and number of velocities.
  /// @{
  static constexpr int ndim = 2, q = 9;
  /// @}
  /// The velocity vectors: rest first, then pairs (i, opposite(i)).
  static constexpr Velocities<9> c{{{0, 0, 0},
                                    {1, 0, 0},
                                    {-1, 0, 0},
                                    {0, 1, 0},
                                    {0, -1, 0},
                                    {1, 1, 0},
                                    {-1, -1, 0},
                                    {1, -1, 0},
                                    {-1, 1, 0}}};
  /// The lattice weights, in the order of c.
  static constexpr std::array<double, 9> w{4.0 / 9,  1.0 / 9,  1.0 / 9,  1.0 / 9, 1.0 / 9,
                                           1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36};
  static constexpr std::array<int, 9> opp = opposites<9>(c);  ///< index of the opposite of each velocity
};

/// The 3-D set of 15 velocities: rest, 6 faces, 8 corners.
struct D3Q15 {
  static constexpr const char* name = "D3Q15";  ///< as case files name it
  /// Dimensions and number of velocities.
  /// @{
  static constexpr int ndim = 3, q = 15;
  /// @}
  /// The velocity vectors: rest first, then pairs (i, opposite(i)).
  static constexpr Velocities<15> c{{{0, 0, 0},
                                     {1, 0, 0},
                                     {-1, 0, 0},
                                     {0, 1, 0},
                                     {0, -1, 0},
                                     {0, 0, 1},
                                     {0, 0, -1},
                                     {1, 1, 1},
                                     {-1, -1, -1},
                                     {1, 1, -1},
                                     {-1, -1, 1},
                                     {1, -1, 1},
                                     {-1, 1, -1},
                                     {-1, 1, 1},
                                     {1, -1, -1}}};
  /// The lattice weights, in the order of c.
  static constexpr std::array<double, 15> w{2.0 / 9,  1.0 / 9,  1.0 / 9,  1.0 / 9,  1.0 / 9,
                                            1.0 / 9,  1.0 / 9,  1.0 / 72, 1.0 / 72, 1.0 / 72,
                                            1.0 / 72, 1.0 / 72, 1.0 / 72, 1.0 / 72, 1.0 / 72};
  static constexpr std::array<int, 15> opp = opposites<15>(c);  ///< index of the opposite of each velocity
};

/// The 3-D set of 19 velocities: rest, 6 faces, 12 edges.
struct D3Q19 {
  static constexpr const char* name = "D3Q19";  ///< as case files name it
  /// Dimensions and number of velocities.
  /// @{
  static constexpr int ndim = 3, q = 19;
  /// @}
  /// The velocity vectors: rest first, then pairs (i, opposite(i)).
  static constexpr Velocities<19> c{{{0, 0, 0},
                                     {1, 0, 0},
                                     {-1, 0, 0},
                                     {0, 1, 0},
                                     {0, -1, 0},
                                     {0, 0, 1},
                                     {0, 0, -1},
                                     {1, 1, 0},
                                     {-1, -1, 0},
                                     {1, -1, 0},
                                     {-1, 1, 0},
                                     {1, 0, 1},
                                     {-1, 0, -1},
                                     {1, 0, -1},
                                     {-1, 0, 1},
                                     {0, 1, 1},
                                     {0, -1, -1},
                                     {0, 1, -1},
                                     {0, -1, 1}}};
  /// The lattice weights, in the order of c.
  static constexpr std::array<double, 19> w{
      1.0 / 3,  1.0 / 18, 1.0 / 18, 1.0 / 18, 1.0 / 18, 1.0 / 18, 1.0 / 18, 1.0 / 36, 1.0 / 36, 1.0 / 36,
      1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36};
  static constexpr std::array<int, 19> opp = opposites<19>(c);  ///< index of the opposite of each velocity
};

/// The 3-D set of 27 velocities: rest, 6 faces, 12 edges, 8 corners.
struct D3Q27 {
  static constexpr const char* name = "D3Q27";  ///< as case files name it
  /// Dimensions and number of velocities.
  /// @{
  static constexpr int ndim = 3, q = 27;
  /// @}
  /// The velocity vectors: rest first, then pairs (i, opposite(i)).
  static constexpr Velocities<27> c = [] {
    // Rest, then each velocity followed by its opposite, faces before edges
    // before corners.
    Velocities<27> v{};
    int n = 1;
    for (int nz = 1; nz <= 3; ++nz)
      for (int z = -1; z <= 1; ++z)
        for (int y = -1; y <= 1; ++y)
          for (int x = -1; x <= 1; ++x) {
            const int len = (x != 0) + (y != 0) + (z != 0);
            // Take the first of each pair in lexicographic order; add both.
            const bool first = x > 0 || (x == 0 && (y > 0 || (y == 0 && z > 0)));
            if (len == nz && first) {
              v[n++] = {x, y, z};
              v[n++] = {-x, -y, -z};
            }
          }
    return v;
  }();
  /// The lattice weights, in the order of c.
  static constexpr std::array<double, 27> w = [] {
    std::array<double, 27> r{};
    for (int i = 0; i < 27; ++i) {
      const int len = (c[i][0] != 0) + (c[i][1] != 0) + (c[i][2] != 0);
      r[i] = len == 0 ? 8.0 / 27 : len == 1 ? 2.0 / 27 : len == 2 ? 1.0 / 54 : 1.0 / 216;
    }
    return r;
  }();
  static constexpr std::array<int, 27> opp = opposites<27>(c);  ///< index of the opposite of each velocity
};

/// A velocity set described at run time.
struct VelocitySet {
  std::string name;       ///< as case files name it
  int ndim = 3;           ///< dimensions
  int q = 0;              ///< number of velocities
  std::vector<Offset> c;  ///< velocity vectors
  std::vector<double> w;  ///< lattice weights
  std::vector<int> opp;   ///< index of the opposite of each velocity

  /// Velocity vectors negated: what the AA pattern's halo regions hold.
  std::vector<Offset> reversed() const;
};

/// The run-time description of a compile-time set.
template <class L>
VelocitySet describe() {
  VelocitySet v;
  v.name = L::name;
  v.ndim = L::ndim;
  v.q = L::q;
  for (int i = 0; i < L::q; ++i) {
    v.c.push_back({L::c[i][0], L::c[i][1], L::c[i][2]});
    v.w.push_back(L::w[i]);
    v.opp.push_back(L::opp[i]);
  }
  return v;
}

/// Names of every velocity set.
std::vector<std::string> velocity_set_names();

/// The set with this name (D2Q9, D3Q15, D3Q19, D3Q27); throws InputError
/// listing the valid names otherwise.
VelocitySet velocity_set(const std::string& name);

/// Call f with a value of the compile-time set of this name.
template <class F>
decltype(auto) with_velocity_set(const std::string& name, F&& f) {
  if (name == "D2Q9") return f(D2Q9{});
  if (name == "D3Q15") return f(D3Q15{});
  if (name == "D3Q19") return f(D3Q19{});
  if (name == "D3Q27") return f(D3Q27{});
  velocity_set(name);  // throws the error that lists the valid names
  return f(D3Q19{});
}

}  // namespace haloex::lb
