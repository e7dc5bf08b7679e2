#include "haloex/lb/geometry.hpp"

#include <cmath>
#include <fstream>

namespace haloex::lb {

std::vector<uint8_t> read_mask_file(const LbConfig& c) {
  if (c.mask_file.empty()) return {};
  std::ifstream in(c.mask_file, std::ios::binary | std::ios::ate);
  if (!in) throw InputError("cannot open obstacle mask file '" + c.mask_file + "' (geometry.mask_file)");
  const long bytes = static_cast<long>(in.tellg());
  const long expect = c.sites();
  if (bytes != expect)
    throw InputError("obstacle mask file '" + c.mask_file + "' has " + std::to_string(bytes) +
                     " bytes but the lattice " + std::to_string(c.size[0]) + "x" + std::to_string(c.size[1]) +
                     (c.ndim() == 3 ? "x" + std::to_string(c.size[2]) : std::string()) + " needs " +
                     std::to_string(expect) + " (one byte per site, x fastest)");
  std::vector<uint8_t> m(static_cast<size_t>(bytes));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(m.data()), bytes);
  if (!in) throw InputError("cannot read obstacle mask file '" + c.mask_file + "'");
  return m;
}

namespace {

bool inside(const Obstacle& o, const std::array<long, 3>& g, int ndim) {
  if (o.shape == "box") {
    for (int d = 0; d < ndim; ++d)
      if (g[d] < o.lo[d] || g[d] >= o.hi[d]) return false;
    return true;
  }
  double r2 = 0;
  for (int d = 0; d < ndim; ++d) {
    if (o.shape == "cylinder" && d == o.axis) continue;
    const double x = static_cast<double>(g[d]) - o.center[d];
    r2 += x * x;
  }
  return r2 <= o.radius * o.radius;
}

}  // namespace

std::vector<uint8_t> site_kinds(const LbConfig& c, const Decomposition& dec, const FieldShape& shape,
                                const std::vector<uint8_t>& mask) {
  const int nd = c.ndim();
  Offset moving{0, 0, 0};
  if (!c.moving_wall.empty()) moving = offset_from_name(c.moving_wall);
  std::vector<uint8_t> kinds(static_cast<size_t>(shape.nsites), site_fluid);
  const Box all = shape.allocated();
  for (long i = all.lo[0]; i < all.hi[0]; ++i)
    for (long j = all.lo[1]; j < all.hi[1]; ++j)
      for (long k = all.lo[2]; k < all.hi[2]; ++k) {
        std::array<long, 3> g{i + dec.offset(0), j + dec.offset(1), nd == 3 ? k + dec.offset(2) : 0};
        uint8_t kind = site_fluid;
        for (int d = 0; d < nd; ++d) {
          const long n = c.size[d];
          if (g[d] >= 0 && g[d] < n) continue;
          if (c.periodic[d]) {
            g[d] = ((g[d] % n) + n) % n;
          } else {
            const int side = g[d] < 0 ? -1 : 1;
            const bool is_moving = moving[d] == side;
            if (is_moving)
              kind = site_moving_wall;
            else if (kind != site_moving_wall)
              kind = site_solid;
          }
        }
        if (kind == site_fluid) {
          for (const Obstacle& o : c.obstacles)
            if (inside(o, g, nd)) kind = site_solid;
          if (!mask.empty() && mask[static_cast<size_t>(g[0] + c.size[0] * (g[1] + c.size[1] * g[2]))] != 0)
            kind = site_solid;
        }
        kinds[static_cast<size_t>(shape.site(i, j, k))] = kind;
      }
  return kinds;
}

void SiteMap::build(const FieldShape& shape, int ndim, const std::vector<uint8_t>& kinds,
                    const std::vector<long>& offsets) {
  // Rows run along the contiguous dimension: z in 3-D, y in 2-D.
  row_dim_ = ndim - 1;
  outer_[0] = 0;
  outer_[1] = ndim == 3 ? 1 : 2;
  n_outer1_ = shape.local[outer_[1]];
  runs_.clear();
  start_.assign(1, 0);
  fluid_ = boundary_ = 0;
  for (long a = 0; a < shape.local[outer_[0]]; ++a)
    for (long b = 0; b < n_outer1_; ++b) {
      long coord[3] = {0, 0, 0};
      coord[outer_[0]] = a;
      coord[outer_[1]] = b;
      Run cur{0, 0, 255};
      for (long r = 0; r < shape.local[row_dim_]; ++r) {
        coord[row_dim_] = r;
        const long s = shape.site(coord[0], coord[1], coord[2]);
        uint8_t type = 255;  // solid: no run
        if (kinds[static_cast<size_t>(s)] == site_fluid) {
          type = plain;
          for (long o : offsets)
            if (kinds[static_cast<size_t>(s + o)] != site_fluid ||
                kinds[static_cast<size_t>(s - o)] != site_fluid)
              type = boundary;
          ++fluid_;
          boundary_ += type == boundary;
        }
        if (type != cur.type) {
          if (cur.type != 255) runs_.push_back(cur);
          cur = Run{r, r, type};
        }
        cur.r1 = r + 1;
      }
      if (cur.type != 255) runs_.push_back(cur);
      start_.push_back(static_cast<long>(runs_.size()));
    }
}

}  // namespace haloex::lb
