// Blocks of the lattice shared by the file formats: where a file overlaps a
// rank, checksums of a block, and placing a block into the aggregator.
#include <cstring>

#include "io_impl.hpp"

namespace haloex {

Box subdomain_box(const Decomposition& dec) {
  Box b;
  for (int d = 0; d < 3; ++d) b.lo[d] = dec.offset(d), b.hi[d] = dec.offset(d) + dec.local_size(d);
  return b;
}

Box overlap_with(const FileEntry& f, const Decomposition& dec) {
  const Box mine = subdomain_box(dec);
  Box b;
  for (int d = 0; d < 3; ++d) {
    b.lo[d] = std::max(f.offset[d], mine.lo[d]);
    b.hi[d] = std::min(f.offset[d] + f.extent[d], mine.hi[d]);
    if (b.hi[d] <= b.lo[d]) return Box{{0, 0, 0}, {0, 0, 0}};
  }
  return b;
}

uint64_t block_checksum(const std::byte* values, const Box& box, const IoMetadata& m) {
  const size_t es = io_type_size(m.element.type);
  const auto nc = static_cast<uint64_t>(m.element.ncomp);
  const size_t plane = static_cast<size_t>(box.extent(1) * box.extent(2)) * nc * es;
  uint64_t sum = 0;
  // A sum modulo 2^64: any split over threads gives the same bits.
#pragma omp parallel for reduction(+ : sum) schedule(static)
  for (long i = box.lo[0]; i < box.hi[0]; ++i) {
    const std::byte* v = values + static_cast<size_t>(i - box.lo[0]) * plane;
    for (long j = box.lo[1]; j < box.hi[1]; ++j)
      for (long k = box.lo[2]; k < box.hi[2]; ++k) {
        const auto site = static_cast<uint64_t>((i * m.size[1] + j) * m.size[2] + k);
        for (uint64_t c = 0; c < nc; ++c, v += es) sum += element_checksum(site * nc + c, v, es);
      }
  }
  return sum;
}

void place_block(const std::byte* values, const Box& box, const Decomposition& dec, Aggregator& agg) {
  const size_t site_bytes = agg.element().record_bytes(IoFormat::binary);
  const auto& ext = agg.extent();
  const size_t row = static_cast<size_t>(box.extent(2)) * site_bytes;
  for (long i = box.lo[0]; i < box.hi[0]; ++i)
    for (long j = box.lo[1]; j < box.hi[1]; ++j, values += row) {
      const long li = i - dec.offset(0), lj = j - dec.offset(1), lk = box.lo[2] - dec.offset(2);
      std::memcpy(agg.data() + static_cast<size_t>((li * ext[1] + lj) * ext[2] + lk) * site_bytes, values,
                  row);
    }
}

}  // namespace haloex
