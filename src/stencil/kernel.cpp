// Compiled with -ffp-contract=off (CMakeLists.txt): the vectorised body, the
// scalar remainder and every decomposition must round identically.
#include "haloex/stencil/kernel.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

namespace haloex::stencil {

Columns Columns::of(const FieldShape& s) {
  if (s.layout != Layout::aos || s.halo != halo_width || s.alloc[2] != 1)
    throw Error("stencil columns need a 2-D AoS field with a halo of 2");
  Columns c;
  c.nx = s.local[0];
  c.ny = s.local[1];
  c.nz = s.ncomp;
  c.row = s.alloc[1] * s.ncomp;
  c.origin = s.element(0, 0, 0, 0);
  return c;
}

template <class T>
Scratch<T>::Scratch(const Columns& c) {
  const size_t n = 3 * static_cast<size_t>((c.ny + 2) * c.nz);
  for (int t = 0; t < omp_get_max_threads(); ++t) bufs_.push_back(allocate_aligned<T>(n));
}

namespace {

// lap of row i on sites j = -1 .. ny: dst[0] is site (i, -1).
template <class T>
void laplacian_row(const T* in, T* dst, const Columns& c, long i) {
  const T* u = in + c.at(i, -1, 0);
  const long n = (c.ny + 2) * c.nz, row = c.row, nz = c.nz;
#pragma omp simd
  for (long m = 0; m < n; ++m) dst[m] = T(-4) * u[m] + u[m - row] + u[m + row] + u[m - nz] + u[m + nz];
}

// out of row i from the lap rows i-1 (below), i (mid), i+1 (above).
template <class T>
void update_row(const T* in, T* out, const Columns& c, long i, const T* below, const T* mid, const T* above,
                T alpha) {
  const long n = c.ny * c.nz, nz = c.nz, first = c.at(i, 0, 0);
  const T* l = mid + nz;  // site (i, 0)
  const T* lb = below + nz;
  const T* la = above + nz;
  const T* u = in + first;
  T* o = out + first;
#pragma omp simd
  for (long m = 0; m < n; ++m) {
    const T lap2 = T(-4) * l[m] + lb[m] + la[m] + l[m - nz] + l[m + nz];
    o[m] = u[m] - alpha * lap2;
  }
}

}  // namespace

template <class T>
void diffusion_step(const T* in, T* out, const Columns& c, T alpha, Scratch<T>& scratch) {
  const long rowlen = (c.ny + 2) * c.nz;
#pragma omp parallel num_threads(scratch.threads())
  {
    // Each thread takes a block of x rows and keeps its lap rows i-1, i, i+1
    // in a ring; a block boundary recomputes two rows, far less than a pass.
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const long i0 = c.nx * t / nt, i1 = c.nx * (t + 1) / nt;
    if (i0 < i1) {
      T* ring[3] = {scratch.rows(t), scratch.rows(t) + rowlen, scratch.rows(t) + 2 * rowlen};
      laplacian_row(in, ring[0], c, i0 - 1);
      laplacian_row(in, ring[1], c, i0);
      for (long i = i0; i < i1; ++i) {
        laplacian_row(in, ring[2], c, i + 1);
        update_row(in, out, c, i, ring[0], ring[1], ring[2], alpha);
        std::rotate(ring, ring + 1, ring + 3);
      }
    }
  }
}

template <class T>
void fill_periodic_halo(T* data, const Columns& c) {
  const size_t column = sizeof(T) * static_cast<size_t>(c.nz);
  for (long i = 0; i < c.nx; ++i)
    for (long h = 1; h <= halo_width; ++h) {
      std::memcpy(data + c.at(i, -h, 0), data + c.at(i, c.ny - h, 0), column);
      std::memcpy(data + c.at(i, c.ny - 1 + h, 0), data + c.at(i, h - 1, 0), column);
    }
  const size_t row = sizeof(T) * static_cast<size_t>(c.row);
  for (long h = 1; h <= halo_width; ++h) {
    std::memcpy(data + c.at(-h, -halo_width, 0), data + c.at(c.nx - h, -halo_width, 0), row);
    std::memcpy(data + c.at(c.nx - 1 + h, -halo_width, 0), data + c.at(h - 1, -halo_width, 0), row);
  }
}

template class Scratch<double>;
template class Scratch<float>;
template void diffusion_step(const double*, double*, const Columns&, double, Scratch<double>&);
template void diffusion_step(const float*, float*, const Columns&, float, Scratch<float>&);
template void fill_periodic_halo(double*, const Columns&);
template void fill_periodic_halo(float*, const Columns&);

}  // namespace haloex::stencil
