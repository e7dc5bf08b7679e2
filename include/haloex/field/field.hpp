#pragma once
// A field on the local subdomain: ncomp values of type T per site, a halo of
// `halo` sites on every side of every decomposed dimension, AoS or SoA.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "haloex/field/folded_memory.hpp"
#include "haloex/field/node_memory.hpp"
#include "haloex/grid/decomposition.hpp"

namespace haloex {

/// Storage order of the components: AoS keeps a site's components together,
/// SoA keeps each component's sites together.
enum class Layout { aos, soa };

/// Element types a field may hold. An exchange moves their bits, so any
/// type of the same size travels as one of these.
enum class ElementType { f64, f32, u8, i32, i64, c64, c128 };

/// The name of a layout ("aos", "soa") or element type ("double", "float",
/// "byte", "int32", "int64", "complex64", "complex128").
/// @{
std::string to_string(Layout l);
std::string to_string(ElementType t);
/// @}
/// Parse "aos"/"soa" (throws InputError otherwise).
Layout parse_layout(const std::string& s);
/// Parse "double"/"float", the types benchmarks and applications compute
/// in (throws InputError otherwise).
ElementType parse_element_type(const std::string& s);
/// Bytes per element.
size_t element_size(ElementType t);
/// The matching MPI datatype.
MPI_Datatype mpi_type(ElementType t);

/// The ElementType of a C++ element type T.
template <class T>
constexpr ElementType element_type_of() {
  if constexpr (std::is_same_v<T, double>)
    return ElementType::f64;
  else if constexpr (std::is_same_v<T, float>)
    return ElementType::f32;
  else if constexpr (sizeof(T) == 1 && std::is_integral_v<T>)
    return ElementType::u8;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return ElementType::i32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return ElementType::i64;
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return ElementType::c64;
  else if constexpr (std::is_same_v<T, std::complex<double>>)
    return ElementType::c128;
  else
    static_assert(sizeof(T) == 0, "no haloex element type for T");
}

/// A field's halo widths per dimension: the sites allocated on each side,
/// and the sites an exchange fills next to the interior (at most as many).
/// A code may allocate a halo for its widest stencil and exchange one plane
/// of a field that needs no more. Along the third dimension of a 2-D lattice
/// `alloc` gives planes kept above and below the lattice's one plane (a 2-D
/// lattice in the 3-D arrays of a 3-D code), which no exchange fills.
struct HaloWidths {
  std::array<long, max_dims> alloc{1, 1, 1};      ///< allocated on each side
  std::array<long, max_dims> exchanged{1, 1, 1};  ///< filled by an exchange (0 past the lattice's dimensions)

  /// `halo` allocated and exchanged along each of the decomposition's
  /// dimensions, nothing past them.
  static HaloWidths uniform(int ndim, long halo);
};

/// Geometry of a field, independent of its element type and storage: enough
/// to address any (site, component) and to describe what an exchange moves.
struct FieldShape {
  ElementType type = ElementType::f64;            ///< element type
  int ncomp = 1;                                  ///< values per site
  int halo = 1;                                   ///< widest allocated halo along the decomposed dimensions
  Layout layout = Layout::aos;                    ///< order of the components in memory
  std::array<long, max_dims> local{1, 1, 1};      ///< interior extents
  std::array<long, max_dims> width{0, 0, 0};      ///< allocated halo sites on each side, per dimension
  std::array<long, max_dims> exchanged{0, 0, 0};  ///< halo sites an exchange fills, per dimension
  std::array<long, max_dims> alloc{1, 1, 1};      ///< allocated extents: local + 2 * width
  std::array<long, max_dims> stride{0, 0, 1};     ///< site-index stride per dimension
  long nsites = 1;                                ///< allocated sites of the box, halo included
  /// Sites allocated past the box, which no exchange touches (a code's own
  /// buffers: Ludwig keeps its Lees-Edwards planes there). In SoA each
  /// component's block is nsites + extra_sites long; in AoS they follow.
  long extra_sites = 0;
  long site_stride = 1;  ///< elements between sites
  long comp_stride = 1;  ///< elements between components

  /// Shape of a field with these properties on this rank's subdomain: a halo
  /// of `halo` sites allocated and exchanged along every decomposed dimension
  /// (throws InputError when a subdomain is thinner).
  static FieldShape make(const Decomposition& dec, ElementType type, int ncomp, int halo, Layout layout);
  /// The same with halo widths per dimension (throws InputError when an
  /// exchanged width exceeds the allocated one or a subdomain's thickness;
  /// along a periodic dimension with one rank it may exceed the lattice's
  /// thickness, and its halo then repeats the lattice's periodic images).
  static FieldShape make(const Decomposition& dec, ElementType type, int ncomp, const HaloWidths& halo,
                         Layout layout);
  /// The same field on a subdomain of other interior extents (a neighbour's),
  /// with `extra` sites past its box.
  FieldShape with_local(const std::array<long, max_dims>& extents, long extra) const;
  /// The same field with `extra` sites allocated past its box (extra_sites;
  /// throws InputError when negative or too many to address).
  FieldShape with_extra_sites(long extra) const { return with_local(local, extra); }

  /// Index of a site in local coordinates (halo sites are negative or >= local).
  long site(long i, long j, long k) const {
    return (i + width[0]) * stride[0] + (j + width[1]) * stride[1] + (k + width[2]);
  }
  /// Element index of (site, component).
  long element(long i, long j, long k, int c) const { return site(i, j, k) * site_stride + c * comp_stride; }
  /// Number of elements in the allocation.
  long elements() const { return (nsites + extra_sites) * ncomp; }
  /// Box of the interior sites.
  Box interior() const { return Box{{0, 0, 0}, local}; }
  /// Box of all allocated sites, halo included.
  Box allocated() const {
    return Box{{-width[0], -width[1], -width[2]},
               {local[0] + width[0], local[1] + width[1], local[2] + width[2]}};
  }

  /// Equal when every member is.
  friend bool operator==(const FieldShape&, const FieldShape&) = default;
};

/// A field's shape and where its data is: what an exchange is handed.
struct FieldView {
  FieldShape shape;                  ///< the field's geometry
  std::byte* data = nullptr;         ///< element 0 of the allocation (the first halo site)
  const NodeMemory* node = nullptr;  ///< the shared window `data` lies in, if any
};

/// Asks the kernel to back [p, p + bytes) with huge pages (a hint; ignored
/// where unsupported).
void advise_huge_pages(void* p, size_t bytes);

/// The system's page size in bytes.
size_t page_size();
/// `bytes` rounded up to whole pages, at least one page.
size_t whole_pages(size_t bytes);

/// Frees memory from std::aligned_alloc.
struct AlignedFree {
  /// Release `p` with std::free.
  void operator()(void* p) const { std::free(p); }
};

/// Allocate n elements of T aligned to 64 bytes (a cache line), zeroed.
/// Large blocks are aligned to 2 MiB and offered to the kernel for
/// transparent huge pages: a lattice kernel walks 19-38 arrays at once, and
/// with 4 KiB pages every one of them misses the TLB every 512 sites.
template <class T>
std::unique_ptr<T[], AlignedFree> allocate_aligned(size_t n) {
  constexpr size_t huge = size_t(2) << 20;
  if (n > (std::numeric_limits<size_t>::max() - huge) / sizeof(T))
    throw Error("cannot allocate " + std::to_string(n) + " elements of " + std::to_string(sizeof(T)) +
                " bytes");
  const size_t align = n * sizeof(T) >= huge ? huge : 64;
  const size_t bytes = std::max<size_t>(align, ((n * sizeof(T) + align - 1) / align) * align);
  void* p = std::aligned_alloc(align, bytes);
  if (!p) throw Error("cannot allocate " + std::to_string(bytes) + " bytes");
  if (align == huge) advise_huge_pages(p, bytes);
  std::memset(p, 0, bytes);
  return std::unique_ptr<T[], AlignedFree>(static_cast<T*>(p));
}

/// A field of T on the local subdomain, owning its storage.
template <class T>
class Field {
 public:
  /// Throws InputError when halo < 1, ncomp < 1, or a subdomain is thinner
  /// than the halo. With FieldMemory::node the field lives in a window shared
  /// with the ranks of its node (collective over the decomposition's
  /// communicator, and so is destroying it), where `shm` reads halos straight
  /// from a neighbour.
  Field(const Decomposition& dec, int ncomp, int halo, Layout layout = Layout::aos,
        FieldMemory memory = FieldMemory::heap)
      : Field(dec, FieldShape::make(dec, element_type_of<T>(), ncomp, halo, layout), memory) {}
  /// A field with halo widths per dimension (HaloWidths).
  Field(const Decomposition& dec, int ncomp, const HaloWidths& halo, Layout layout = Layout::aos,
        FieldMemory memory = FieldMemory::heap)
      : Field(dec, FieldShape::make(dec, element_type_of<T>(), ncomp, halo, layout), memory) {}

  /// A field of the given shape (made for `dec`), in the given memory.
  Field(const Decomposition& dec, const FieldShape& shape, FieldMemory memory) : shape_(shape) {
    if (shape.type != element_type_of<T>())
      throw Error("a field of " + to_string(shape.type) + " held as another type");
    const size_t n = static_cast<size_t>(shape_.elements());
    if (memory == FieldMemory::heap) {
      heap_ = allocate_aligned<T>(n);
      data_ = heap_.get();
    } else if (memory == FieldMemory::node) {
      node_ = NodeMemory::per_node(dec.comm(), n * sizeof(T));
      data_ = reinterpret_cast<T*>(node_->data());
    } else {
      folded_ = std::make_unique<FoldedMemory>(n * sizeof(T));
      data_ = reinterpret_cast<T*>(folded_->data());
    }
  }

  /// Take over the storage of `o`, which is left empty.
  Field(Field&& o) noexcept
      : shape_(o.shape_),
        heap_(std::move(o.heap_)),
        node_(std::move(o.node_)),
        folded_(std::move(o.folded_)),
        data_(std::exchange(o.data_, nullptr)) {}
  /// Release this field's storage and take over that of `o`.
  Field& operator=(Field&& o) noexcept {
    shape_ = o.shape_;
    heap_ = std::move(o.heap_);
    node_ = std::move(o.node_);
    folded_ = std::move(o.folded_);
    data_ = std::exchange(o.data_, nullptr);
    return *this;
  }

  /// The field's geometry.
  const FieldShape& shape() const { return shape_; }
  /// Values per site.
  int ncomp() const { return shape_.ncomp; }
  /// Halo width in sites.
  int halo() const { return shape_.halo; }
  /// Order of the components in memory.
  Layout layout() const { return shape_.layout; }
  /// Interior sites along d.
  long local_size(int d) const { return shape_.local[d]; }

  /// Element 0 of the allocation (the first halo site).
  /// @{
  T* data() { return data_; }
  const T* data() const { return data_; }
  /// @}
  /// Where the elements live: this process's heap, node memory or folded memory.
  FieldMemory memory() const {
    return node_ ? FieldMemory::node : folded_ ? FieldMemory::folded : FieldMemory::heap;
  }
  /// Number of elements, halo and extra sites included.
  size_t size() const { return static_cast<size_t>(shape_.elements()); }
  /// All elements, halo included.
  std::span<T> elements() { return {data_, size()}; }

  /// Value of component c at local site (i, j, k); halo sites have negative
  /// coordinates or coordinates >= the local extent.
  /// @{
  T& operator()(long i, long j, long k, int c) { return data_[shape_.element(i, j, k, c)]; }
  const T& operator()(long i, long j, long k, int c) const { return data_[shape_.element(i, j, k, c)]; }
  /// @}

  /// Type-erased view for the exchange.
  FieldView view() { return FieldView{shape_, reinterpret_cast<std::byte*>(data_), node_.get()}; }

 private:
  FieldShape shape_;
  std::unique_ptr<T[], AlignedFree> heap_;
  std::unique_ptr<NodeMemory> node_;
  std::unique_ptr<FoldedMemory> folded_;
  T* data_ = nullptr;
};

}  // namespace haloex
