#include "haloex/io/aggregator.hpp"

#include <algorithm>
#include <cstring>

namespace haloex {

namespace {

std::array<size_t, 3> site_strides(SiteOrder o, const std::array<long, 3>& e) {
  std::array<size_t, 3> s{};
  for (int d = 0; d < 3; ++d)
    s[static_cast<size_t>(d)] = static_cast<size_t>(site_index(o, {d == 0, d == 1, d == 2}, e));
  return s;
}

}  // namespace

Aggregator::Aggregator(const Decomposition& dec, IoElement element, SiteOrder order)
    : element_(std::move(element)),
      extent_{dec.local_size(0), dec.local_size(1), dec.local_size(2)},
      stride_(site_strides(order, extent_)),
      data_(static_cast<size_t>(sites()) * static_cast<size_t>(element_.ncomp) *
            io_type_size(element_.type)) {}

void Aggregator::check_type(size_t size) const {
  if (size != io_type_size(element_.type))
    throw Error("aggregator of " + to_string(element_.type) + " accessed with a " + std::to_string(size) +
                "-byte type");
}

void Aggregator::check_field(const FieldShape& s) const {
  if (io_type_of(s.type) != element_.type || s.ncomp != element_.ncomp)
    throw Error("field of " + std::to_string(s.ncomp) + " " + to_string(io_type_of(s.type)) +
                " does not match the aggregator's " + std::to_string(element_.ncomp) + " " +
                to_string(element_.type));
  for (int d = 0; d < 3; ++d)
    if (s.local[d] != extent_[d]) throw Error("field extents do not match the aggregator's decomposition");
}

namespace {

// Sites are walked in tiles of x by z (for each y), so that both the
// x-fastest side and the x-slowest (z-fastest) side are read and written
// in runs that stay in cache.
constexpr long tile = 16;

// Calls f(i, j, k) for every site of `e`, tiled over (z, x), threaded over
// z-tiles and y.
template <class F>
void for_tiled_sites(const std::array<long, 3>& e, F&& f) {
#pragma omp parallel for collapse(2) schedule(static)
  for (long k0 = 0; k0 < e[2]; k0 += tile)
    for (long j = 0; j < e[1]; ++j)
      for (long i0 = 0; i0 < e[0]; i0 += tile)
        for (long k = k0; k < std::min(k0 + tile, e[2]); ++k)
          for (long i = i0; i < std::min(i0 + tile, e[0]); ++i) f(i, j, k);
}

}  // namespace

// Site by site, component by component: the field may be AoS or SoA, so a
// site's components are contiguous on one side only. `into_field` picks the
// direction. The element size is a constant inside the loop.
template <size_t ES>
static void copy_elements(const Aggregator& agg, std::byte* data, const FieldView& field, bool into_field) {
  const FieldShape& s = field.shape;
  const int nc = s.ncomp;
  for_tiled_sites(agg.extent(), [&](long i, long j, long k) {
    std::byte* a = data + agg.site(i, j, k) * static_cast<size_t>(nc) * ES;
    for (int c = 0; c < nc; ++c, a += ES) {
      std::byte* f = field.data + static_cast<size_t>(s.element(i, j, k, c)) * ES;
      if (into_field)
        std::memcpy(f, a, ES);
      else
        std::memcpy(a, f, ES);
    }
  });
}

void Aggregator::copy(const FieldView& field, bool into_field) const {
  check_field(field.shape);
  std::byte* agg = const_cast<std::byte*>(data_.data());  // written only by pack, which is not const
  switch (element_size(field.shape.type)) {
    case 8: return copy_elements<8>(*this, agg, field, into_field);
    case 4: return copy_elements<4>(*this, agg, field, into_field);
    default: return copy_elements<1>(*this, agg, field, into_field);
  }
}

void Aggregator::from_x_slowest(const std::byte* v, size_t n) {
  if (n != bytes())
    throw Error("aggregator filled with " + std::to_string(n) + " bytes, it holds " +
                std::to_string(bytes()));
  if (data_.empty()) return;
  const size_t rec = bytes() / static_cast<size_t>(sites());
  for_tiled_sites(extent_, [&](long i, long j, long k) {
    std::memcpy(data_.data() + site(i, j, k) * rec,
                v + static_cast<size_t>((i * extent_[1] + j) * extent_[2] + k) * rec, rec);
  });
}

void Aggregator::to_x_slowest(std::byte* v, size_t n) const {
  if (n != bytes())
    throw Error("aggregator read into " + std::to_string(n) + " bytes, it holds " + std::to_string(bytes()));
  if (data_.empty()) return;
  const size_t rec = bytes() / static_cast<size_t>(sites());
  for_tiled_sites(extent_, [&](long i, long j, long k) {
    std::memcpy(v + static_cast<size_t>((i * extent_[1] + j) * extent_[2] + k) * rec,
                data_.data() + site(i, j, k) * rec, rec);
  });
}

void Aggregator::pack(const FieldView& field) { copy(field, false); }

void Aggregator::unpack(const FieldView& field) const { copy(field, true); }

}  // namespace haloex
