#include "haloex/halo/pack.hpp"

#include <cstring>

namespace haloex {

namespace {

// A box as rows of contiguous sites: site(a, b, r) = first + a*s_outer +
// b*s_mid + r. In 2-D the unused z dimension has extent 1, so y becomes the
// contiguous run and x the middle loop.
struct Rows {
  long n_outer, n_mid, n_run, s_outer, s_mid, first;
};

Rows rows_of(const FieldShape& s, const Box& b) {
  const long first = s.site(b.lo[0], b.lo[1], b.lo[2]);
  if (s.alloc[2] == 1) return {1, b.extent(0), b.extent(1), 0, s.stride[0], first};
  return {b.extent(0), b.extent(1), b.extent(2), s.stride[0], s.stride[1], first};
}

// Copies one part between a field and a buffer; ToBuffer picks the direction.
// The rows are shared among the threads of the enclosing parallel region.
template <class T, bool ToBuffer>
void move_part(const FieldShape& s, T* field, const Part& p, T* buf) {
  const Rows r = rows_of(s, p.box);
  const long nc = static_cast<long>(p.comps.size());
  const int* comps = p.comps.data();
  const bool all = nc == s.ncomp;
  const long volume = r.n_outer * r.n_mid * r.n_run;
#pragma omp for collapse(2) schedule(static) nowait
  for (long a = 0; a < r.n_outer; ++a)
    for (long b = 0; b < r.n_mid; ++b) {
      const long site0 = r.first + a * r.s_outer + b * r.s_mid;
      const long row = a * r.n_mid + b;
      if (s.layout == Layout::aos) {
        T* packed = buf + row * r.n_run * nc;
        T* sites = field + site0 * s.ncomp;
        if (all) {
          // A run of whole sites is contiguous in AoS.
          if constexpr (ToBuffer)
            std::memcpy(packed, sites, sizeof(T) * r.n_run * nc);
          else
            std::memcpy(sites, packed, sizeof(T) * r.n_run * nc);
        } else {
          for (long i = 0; i < r.n_run; ++i)
            for (long q = 0; q < nc; ++q) {
              if constexpr (ToBuffer)
                packed[i * nc + q] = sites[i * s.ncomp + comps[q]];
              else
                sites[i * s.ncomp + comps[q]] = packed[i * nc + q];
            }
        }
      } else {
        for (long q = 0; q < nc; ++q) {
          T* packed = buf + q * volume + row * r.n_run;
          T* sites = field + comps[q] * s.comp_stride + site0;
          if constexpr (ToBuffer)
            std::memcpy(packed, sites, sizeof(T) * r.n_run);
          else
            std::memcpy(sites, packed, sizeof(T) * r.n_run);
        }
      }
    }
}

// Copies the interior box `from` into the halo box `to` of the same field
// (same extents and components by construction), row by row: one copy
// instead of a pack and an unpack through a buffer.
template <class T>
void copy_part(const FieldShape& s, T* field, const Part& from, const Part& to) {
  const Rows src = rows_of(s, from.box), dst = rows_of(s, to.box);
  const long nc = static_cast<long>(from.comps.size());
  const int* comps = from.comps.data();
  const bool all = nc == s.ncomp;
#pragma omp for collapse(2) schedule(static) nowait
  for (long a = 0; a < src.n_outer; ++a)
    for (long b = 0; b < src.n_mid; ++b) {
      const long s0 = src.first + a * src.s_outer + b * src.s_mid;
      const long d0 = dst.first + a * dst.s_outer + b * dst.s_mid;
      if (s.layout == Layout::aos) {
        if (all) {
          std::memcpy(field + d0 * s.ncomp, field + s0 * s.ncomp, sizeof(T) * src.n_run * s.ncomp);
        } else {
          for (long i = 0; i < src.n_run; ++i)
            for (long q = 0; q < nc; ++q) field[(d0 + i) * s.ncomp + comps[q]] = field[(s0 + i) * s.ncomp + comps[q]];
        }
      } else {
        for (long q = 0; q < nc; ++q)
          std::memcpy(field + comps[q] * s.comp_stride + d0, field + comps[q] * s.comp_stride + s0,
                      sizeof(T) * src.n_run);
      }
    }
}

template <bool ToBuffer>
void move_message(const PackJob& job, std::span<const FieldView> fields) {
  for (const Part& p : job.message->parts) {
    const FieldView& f = fields[p.field];
    std::byte* buf = job.buffer + p.offset;
    if (f.shape.type == ElementType::f64)
      move_part<double, ToBuffer>(f.shape, reinterpret_cast<double*>(f.data), p, reinterpret_cast<double*>(buf));
    else
      move_part<float, ToBuffer>(f.shape, reinterpret_cast<float*>(f.data), p, reinterpret_cast<float*>(buf));
  }
}

template <bool ToBuffer>
void move_all(std::span<const PackJob> jobs, std::span<const FieldView> fields) {
  size_t total = 0;
  for (const PackJob& j : jobs) total += j.message->bytes;
#pragma omp parallel if (total >= pack_threading_threshold)
  for (const PackJob& j : jobs) move_message<ToBuffer>(j, fields);
}

}  // namespace

void pack(std::span<const PackJob> jobs, std::span<const FieldView> fields) { move_all<true>(jobs, fields); }

void unpack(std::span<const PackJob> jobs, std::span<const FieldView> fields) { move_all<false>(jobs, fields); }

void copy_local(const Message& send, const Message& recv, std::span<const FieldView> fields) {
  if (send.parts.size() != recv.parts.size() || send.bytes != recv.bytes)
    throw Error("copy_local: the send and receive descriptions do not match");
#pragma omp parallel if (send.bytes >= pack_threading_threshold)
  for (size_t p = 0; p < send.parts.size(); ++p) {
    const FieldView& f = fields[send.parts[p].field];
    if (f.shape.type == ElementType::f64)
      copy_part(f.shape, reinterpret_cast<double*>(f.data), send.parts[p], recv.parts[p]);
    else
      copy_part(f.shape, reinterpret_cast<float*>(f.data), send.parts[p], recv.parts[p]);
  }
}

Buffer::Buffer(size_t bytes) : data_(allocate_aligned<std::byte>(bytes)), size_(bytes) {}

StageBuffers::StageBuffers(const Stage& stage) {
  for (const Link& l : stage.links) {
    send.emplace_back(l.self ? 0 : l.send.bytes);
    recv.emplace_back(l.self ? 0 : l.recv.bytes);
  }
}

}  // namespace haloex
