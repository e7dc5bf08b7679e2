#include "haloex/field/field.hpp"

#include <sys/mman.h>

#include <iomanip>
#include <limits>
#include <sstream>

namespace haloex {

size_t page_size() {
  static const size_t page = [] {
    const long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<size_t>(p) : size_t(4096);
  }();
  return page;
}

size_t whole_pages(size_t bytes) {
  const size_t page = page_size();
  return std::max(page, (bytes + page - 1) / page * page);
}

void advise_huge_pages(void* p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  (void)madvise(p, bytes, MADV_HUGEPAGE);  // a hint: failure only costs speed
#else
  (void)p, (void)bytes;
#endif
}

std::string to_string(Layout l) { return l == Layout::aos ? "aos" : "soa"; }
std::string to_string(ElementType t) {
  switch (t) {
    case ElementType::f64: return "double";
    case ElementType::f32: return "float";
    case ElementType::u8: return "byte";
    case ElementType::i32: return "int32";
    case ElementType::i64: return "int64";
    case ElementType::c64: return "complex64";
    case ElementType::c128: return "complex128";
  }
  return "?";
}

size_t element_size(ElementType t) {
  switch (t) {
    case ElementType::u8: return 1;
    case ElementType::f32:
    case ElementType::i32: return 4;
    case ElementType::f64:
    case ElementType::i64:
    case ElementType::c64: return 8;
    case ElementType::c128: return 16;
  }
  return 8;
}

MPI_Datatype mpi_type(ElementType t) {
  switch (t) {
    case ElementType::f64: return MPI_DOUBLE;
    case ElementType::f32: return MPI_FLOAT;
    case ElementType::u8: return MPI_UINT8_T;
    case ElementType::i32: return MPI_INT32_T;
    case ElementType::i64: return MPI_INT64_T;
    case ElementType::c64: return MPI_C_FLOAT_COMPLEX;
    case ElementType::c128: return MPI_C_DOUBLE_COMPLEX;
  }
  return MPI_BYTE;
}

HaloWidths HaloWidths::uniform(int ndim, long halo) {
  HaloWidths h;
  for (int d = 0; d < max_dims; ++d) h.alloc[d] = h.exchanged[d] = d < ndim ? halo : 0;
  return h;
}

Layout parse_layout(const std::string& s) {
  if (s == "aos" || s == "AoS") return Layout::aos;
  if (s == "soa" || s == "SoA") return Layout::soa;
  throw InputError("layout '" + s + "' is not one of: aos, soa");
}

ElementType parse_element_type(const std::string& s) {
  if (s == "double" || s == "f64") return ElementType::f64;
  if (s == "float" || s == "f32") return ElementType::f32;
  throw InputError("element type '" + s + "' is not one of: double, float");
}

FieldShape FieldShape::make(const Decomposition& dec, ElementType type, int ncomp, int halo, Layout layout) {
  if (halo < 1) throw InputError("the halo width must be at least 1, not " + std::to_string(halo));
  dec.require_thickness(halo, "the halo");
  FieldShape s = make(dec, type, ncomp, HaloWidths::uniform(dec.ndim(), halo), layout);
  s.halo = halo;
  return s;
}

FieldShape FieldShape::make(const Decomposition& dec, ElementType type, int ncomp, const HaloWidths& h,
                            Layout layout) {
  if (ncomp < 1)
    throw InputError("a field needs at least 1 component per site, not " + std::to_string(ncomp));
  FieldShape s;
  s.type = type;
  s.ncomp = ncomp;
  s.halo = 0;
  s.layout = layout;
  std::array<long, max_dims> local{};
  for (int d = 0; d < max_dims; ++d) {
    const std::string axis = std::string(" along ") + axis_name(d);
    if (h.alloc[d] < 0 || h.exchanged[d] < 0 || h.exchanged[d] > h.alloc[d])
      throw InputError("the halo exchanged" + axis + " (" + std::to_string(h.exchanged[d]) +
                       " sites) must lie between 0 and the halo allocated there (" +
                       std::to_string(h.alloc[d]) + ")");
    if (d >= dec.ndim() && h.exchanged[d] != 0)
      throw InputError("a " + std::to_string(dec.ndim()) + "-D lattice exchanges no halo" + axis);
    if (d >= dec.ndim() && h.alloc[d] != 0 && (dec.ndim() != 2 || d != 2))
      throw InputError("halo planes" + axis + " need a 2-D lattice (its third dimension)");
    if (d < dec.ndim()) {
      if (!dec.self_periodic(d)) dec.require_thickness(h.exchanged[d], "the halo exchanged" + axis, d);
      s.halo = std::max(s.halo, static_cast<int>(h.alloc[d]));
    }
    local[d] = dec.local_size(d);
    s.width[d] = h.alloc[d];
    s.exchanged[d] = h.exchanged[d];
  }
  return s.with_local(local, 0);
}

FieldShape FieldShape::with_local(const std::array<long, max_dims>& extents, long extra) const {
  FieldShape s = *this;
  s.local = extents;
  if (extra < 0) throw InputError("a field's sites past its box must be >= 0, not " + std::to_string(extra));
  s.extra_sites = extra;
  for (int d = 0; d < max_dims; ++d) s.alloc[d] = s.local[d] + 2 * s.width[d];
  // In floating point first: the element count of an absurd request must not
  // wrap around into a small, plausible one. (16: the widest element type.)
  const long double sites = static_cast<long double>(s.alloc[0]) * s.alloc[1] * s.alloc[2] + extra;
  if (sites * ncomp * 16 > static_cast<long double>(std::numeric_limits<long>::max())) {
    std::ostringstream os;
    os << "a field of " << s.alloc[0] << "x" << s.alloc[1] << "x" << s.alloc[2] << " sites (halo included)";
    if (extra > 0) os << " and " << extra << " more";
    os << " x " << ncomp << " components has " << std::setprecision(3) << static_cast<double>(sites * ncomp)
       << " elements, more than this machine can address";
    throw InputError(os.str());
  }
  s.stride = {s.alloc[1] * s.alloc[2], s.alloc[2], 1};
  s.nsites = s.alloc[0] * s.alloc[1] * s.alloc[2];
  s.site_stride = layout == Layout::aos ? ncomp : 1;
  s.comp_stride = layout == Layout::aos ? 1 : s.nsites + extra;
  return s;
}

}  // namespace haloex
