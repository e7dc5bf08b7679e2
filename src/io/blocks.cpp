// Blocks of the lattice shared by the file formats: where a file overlaps a
// rank, checksums of a block, and placing a block into the aggregator.
#include <cstring>

#include "haloex/io/blocks.hpp"
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
  const std::array<int, 3> axes = slowest_first(m.order);
  const int a = axes[0], b = axes[1], c = axes[2];  // (plain ints: OpenMP shares them)
  const size_t plane = static_cast<size_t>(box.extent(b) * box.extent(c)) * nc * es;
  uint64_t sum = 0;
  // A sum modulo 2^64: any split over threads gives the same bits.
#pragma omp parallel for reduction(+ : sum) schedule(static)
  for (long i = box.lo[a]; i < box.hi[a]; ++i) {
    const std::byte* v = values + static_cast<size_t>(i - box.lo[a]) * plane;
    std::array<long, 3> p{};
    p[a] = i;
    for (p[b] = box.lo[b]; p[b] < box.hi[b]; ++p[b])
      for (p[c] = box.lo[c]; p[c] < box.hi[c]; ++p[c]) {
        const auto site = static_cast<uint64_t>(site_index(m.order, p, m.size));
        for (uint64_t n = 0; n < nc; ++n, v += es) sum += element_checksum(site * nc + n, v, es);
      }
  }
  return sum;
}

void place_block(const std::byte* values, const Box& box, SiteOrder order, const Decomposition& dec,
                 Aggregator& agg) {
  const size_t site_bytes = agg.element().record_bytes(IoFormat::binary);
  const auto local = [&](const std::array<long, 3>& p) {
    return agg.site(p[0] - dec.offset(0), p[1] - dec.offset(1), p[2] - dec.offset(2));
  };
  std::array<long, 3> p{};
  if (order == SiteOrder::x_fastest) {  // rows along x on both sides (FieldIo's aggregators are x fastest)
    const size_t row = static_cast<size_t>(box.extent(0)) * site_bytes;
    p[0] = box.lo[0];
    for (p[2] = box.lo[2]; p[2] < box.hi[2]; ++p[2])
      for (p[1] = box.lo[1]; p[1] < box.hi[1]; ++p[1], values += row)
        std::memcpy(agg.data() + local(p) * site_bytes, values, row);
    return;
  }
  for (p[0] = box.lo[0]; p[0] < box.hi[0]; ++p[0])  // x slowest: site by site
    for (p[1] = box.lo[1]; p[1] < box.hi[1]; ++p[1])
      for (p[2] = box.lo[2]; p[2] < box.hi[2]; ++p[2], values += site_bytes)
        std::memcpy(agg.data() + local(p) * site_bytes, values, site_bytes);
}

}  // namespace haloex
