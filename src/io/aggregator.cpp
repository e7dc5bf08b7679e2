#include "haloex/io/aggregator.hpp"

#include <cstring>

namespace haloex {

Aggregator::Aggregator(const Decomposition& dec, IoElement element)
    : element_(std::move(element)),
      extent_{dec.local_size(0), dec.local_size(1), dec.local_size(2)},
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

// Site by site, component by component: the field may be AoS or SoA, so a
// site's components are contiguous on one side only. `into_field` picks the
// direction.
void Aggregator::copy(const FieldView& field, bool into_field) const {
  const FieldShape& s = field.shape;
  check_field(s);
  const size_t esize = element_size(s.type);
  const long n1 = extent_[1], n2 = extent_[2];
  const int nc = s.ncomp;
  std::byte* agg = const_cast<std::byte*>(data_.data());  // written only by pack, which is not const
#pragma omp parallel for schedule(static)
  for (long i = 0; i < extent_[0]; ++i) {
    std::byte* a = agg + static_cast<size_t>(i * n1 * n2 * nc) * esize;
    for (long j = 0; j < n1; ++j)
      for (long k = 0; k < n2; ++k)
        for (int c = 0; c < nc; ++c, a += esize) {
          std::byte* f = field.data + static_cast<size_t>(s.element(i, j, k, c)) * esize;
          if (into_field)
            std::memcpy(f, a, esize);
          else
            std::memcpy(a, f, esize);
        }
  }
}

void Aggregator::pack(const FieldView& field) { copy(field, false); }

void Aggregator::unpack(const FieldView& field) const { copy(field, true); }

}  // namespace haloex
