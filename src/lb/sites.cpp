// See sites.hpp.
#include "sites.hpp"

#include <utility>

#include "haloex/core/mpi.hpp"

namespace haloex::lb::detail {

namespace {

// [0,1) and [n-1,n) slabs and the inner range [1,n-1) along one dimension
// split over several processes; along a dimension this rank has to itself
// the halo is complete after begin() (a Strategy guarantee), so all of it is
// inner. Splitting such a dimension anyway made interior overlap 0.60-0.67 of
// none at 64^3 on 2 ranks: the shell's row ends are single sites a row apart
// in every one of 19 arrays.
struct Split {
  std::vector<std::pair<long, long>> shell;
  std::pair<long, long> inner;
};
Split split(long n, bool remote) {
  Split s;
  if (!remote) {
    s.inner = {0, n};
  } else if (n <= 2) {
    s.inner = {0, 0};
    s.shell.push_back({0, n});
  } else {
    s.inner = {1, n - 1};
    s.shell.push_back({0, 1});
    s.shell.push_back({n - 1, n});
  }
  return s;
}

// The site kinds with the resting solids behind the table walls counted as
// fluid: a site whose only solid neighbours lie there is plain, its
// bounce-back in the tables.
std::vector<uint8_t> behind_walls_fluid(std::vector<uint8_t> k, const FieldShape& sh,
                                        const WallFaces& walls) {
  const Box b = sh.allocated();
  for (long i = b.lo[0]; i < b.hi[0]; ++i)
    for (long j = b.lo[1]; j < b.hi[1]; ++j)
      for (long l = b.lo[2]; l < b.hi[2]; ++l) {
        const long p[3] = {i, j, l};
        bool behind = false;
        for (int d = 0; d < 3; ++d)
          behind = behind || ((walls[d] & 1) && p[d] < 0) || ((walls[d] & 2) && p[d] >= sh.local[d]);
        const size_t s = static_cast<size_t>(sh.site(i, j, l));
        if (behind && k[s] == site_solid) k[s] = site_fluid;
      }
  return k;
}

}  // namespace

SweepBoxes sweep_boxes(const FieldShape& sh, int ndim, const Decomposition& dec) {
  SweepBoxes boxes;
  boxes.all = {sh.interior()};
  // Inner sites read and write no halo; the shell is the rest, as slabs.
  Box in = sh.interior();
  std::array<Split, 3> splits;
  for (int d = 0; d < ndim; ++d) {
    splits[d] = split(sh.local[d], dec.procs(d) > 1);
    in.lo[d] = splits[d].inner.first;
    in.hi[d] = splits[d].inner.second;
  }
  if (!in.empty()) boxes.inner.push_back(in);
  for (int d = 0; d < ndim; ++d) {
    const Split& s = splits[d];
    for (auto [lo, hi] : s.shell) {
      Box b = sh.interior();
      for (int e = 0; e < d; ++e) b.lo[e] = in.lo[e], b.hi[e] = in.hi[e];
      b.lo[d] = lo;
      b.hi[d] = hi;
      if (!b.empty()) boxes.shell.push_back(b);
    }
    if (s.inner.first >= s.inner.second) break;  // the slabs already cover this dimension
  }
  return boxes;
}

// SoA only: there a slot shift stands for bounce-back (see neighbours.hpp).
// A moving wall keeps the one-site path, which adds its velocity.
WallFaces table_walls(const LbConfig& c, const Decomposition& dec) {
  WallFaces w{0, 0, 0};
  if (c.layout != Layout::soa || !c.wall_tables) return w;
  Offset moving{0, 0, 0};
  if (!c.moving_wall.empty()) moving = offset_from_name(c.moving_wall);
  for (int d = 0; d < c.ndim(); ++d) {
    if (c.periodic[d]) continue;
    if (dec.offset(d) == 0 && moving[d] != -1) w[d] |= 1;
    if (dec.offset(d) + dec.local_size(d) == c.size[d] && moving[d] != 1) w[d] |= 2;
  }
  return w;
}

Sites::Sites(const LbConfig& cfg, const VelocitySet& vs, const Decomposition& dec, const FieldShape& sh,
             const NeighbourTables& nbt)
    : sh_(sh), ndim_(vs.ndim), kinds_(site_kinds(cfg, dec, sh, read_mask_file(cfg))) {
  map_kinds_ = behind_walls_fluid(kinds_, sh, nbt.walls());
  for (const Offset& v : vs.c)
    offsets_.push_back(v[0] * sh.stride[0] + v[1] * sh.stride[1] + v[2] * sh.stride[2]);
  rebuild_map();
  long fluid = map_.fluid_sites();
  mpi_check(MPI_Allreduce(&fluid, &fluid_global_, 1, MPI_LONG, MPI_SUM, dec.comm()), "MPI_Allreduce");
}

}  // namespace haloex::lb::detail
