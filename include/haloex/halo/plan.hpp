#pragma once
// The halo plan: for each neighbour, which boxes of which fields travel and
// which components they carry. Built once per (decomposition, fields) and
// executed by any strategy.
#include <mpi.h>

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "haloex/core/large_count.hpp"
#include "haloex/field/field.hpp"
#include "haloex/grid/decomposition.hpp"
#include "haloex/halo/copy_kernel.hpp"

namespace haloex {

/// Says whether component `comp` must arrive in the halo region that lies in
/// direction `halo_offset` from the interior ((+1,0,0) is the x+ face
/// halo, (+1,+1,0) an edge). An empty predicate means "all components".
using ComponentPredicate = std::function<bool(const Offset& halo_offset, int comp)>;

/// The reduced set of lattice Boltzmann style exchanges for pull streaming:
/// component i is needed in halo region o when its direction vector points
/// from that region into the interior (dirs[i][d] == -o[d] wherever o[d] != 0).
/// For D3Q19 that is 5 components per face, 1 per edge, none per corner.
ComponentPredicate crossing_components(std::vector<Offset> dirs);

/// Which halo regions a plan fills: faces, edges and corners, or the faces
/// alone (a 7-point stencil, or a 5-point one in 2-D, reads no more).
enum class Regions { all, faces };

/// Whether packing and local copies use the OpenMP team: for messages of at
/// least pack_threading_threshold bytes (automatic), always, or never.
enum class PackThreads { automatic, on, off };

/// Parse "all"/"faces" and "auto"/"on"/"off" (throw InputError otherwise).
/// @{
Regions parse_regions(const std::string& s);
PackThreads parse_pack_threads(const std::string& s);
/// @}
/// The names the parsers above accept.
/// @{
std::string to_string(Regions r);
std::string to_string(PackThreads p);
/// @}

/// Choices made once for a whole plan.
struct PlanOptions {
  Regions regions = Regions::all;                     ///< the halo regions filled
  PackThreads pack_threads = PackThreads::automatic;  ///< whether packing uses the OpenMP team
  /// The largest count a strategy hands an MPI call: a message of more bytes
  /// still travels as one message, described by a derived datatype (or by an
  /// MPI-4 large-count call). INT_MAX unless a test wants that path on small
  /// messages; 2 .. INT_MAX (the plan throws InputError otherwise).
  size_t mpi_count_limit = mpi_int_count_max;
};

/// A field as the plan sees it: its shape, which components travel, and
/// where its memory is (the views handed to an exchange must agree).
struct FieldSpec {
  FieldShape shape;                        ///< the field's geometry
  ComponentPredicate travels;              ///< empty: all components everywhere
  FieldMemory memory = FieldMemory::heap;  ///< where the field's elements live

  /// The spec of `f`, with `travels` choosing its components.
  template <class T>
  static FieldSpec of(const Field<T>& f, ComponentPredicate travels = {}) {
    return FieldSpec{f.shape(), std::move(travels), f.memory()};
  }
};

/// One rectangular piece of one field inside a message, with the copy
/// kernels chosen for it when the plan was built. The kernels count from the
/// field's data and from the part's start in the buffer.
struct Part {
  int field = 0;           ///< index of the field in the plan
  Box box;                 ///< the sites, in the field's local coordinates
  std::vector<int> comps;  ///< sorted component indices
  size_t offset = 0;       ///< byte offset of this part in the packed message
  size_t bytes = 0;        ///< bytes of this part in the message
  /// Kernels from the field into the buffer and back, one per walk.
  /// @{
  std::vector<CopyKernel> pack, unpack;
  /// @}
};

/// A copy inside one field (a rank that is its own neighbour).
struct FieldCopy {
  int field = 0;      ///< index of the field in the plan
  CopyKernel kernel;  ///< from the send region to the receive region
};

/// What travels one way between this rank and one neighbour.
struct Message {
  int tag = 0;              ///< MPI tag
  std::vector<Part> parts;  ///< the pieces, in buffer order
  size_t bytes = 0;         ///< packed size
  /// True when nothing travels, so no message is sent.
  bool empty() const { return bytes == 0; }
};

/// The exchange with the neighbour at `offset`: `send` goes to it and lands
/// in its halo on the opposite side; `recv` comes from it into our halo.
struct Link {
  Offset offset{0, 0, 0};    ///< where the neighbour lies
  int peer = MPI_PROC_NULL;  ///< its rank (MPI_PROC_NULL across a non-periodic edge)
  bool self = false;         ///< the neighbour is this rank: copy, do not message
  int partner = -1;          ///< index in the stage of the link with the opposite offset
  /// What goes to the neighbour, and what comes from it.
  /// @{
  Message send, recv;
  /// @}
  /// Self links: what `send` describes copied straight into the partner's
  /// `recv` regions, with no buffer in between.
  std::vector<FieldCopy> local;
};

/// Links whose messages may all be in flight at once.
struct Stage {
  std::vector<Link> links;  ///< one per neighbour offset this stage serves
  /// Every self link's copies, with each pair of opposite links' kernels
  /// fused into one pass where their loops agree (what strategies run; a
  /// link's own `local` is the same copy for that link alone).
  std::vector<FieldCopy> local;
  size_t local_bytes = 0;  ///< bytes the local copies move
  /// Message buffers in folded memory: a field of the plan is (a timing run
  /// on a simulated machine, where every rank's buffers would not fit).
  bool folded_buffers = false;
};

/// The plan for one set of fields on one decomposition. Keeps a reference to
/// the decomposition, which must outlive it.
class Plan {
 public:
  /// Throws InputError if a field does not fit the decomposition.
  Plan(const Decomposition& dec, std::vector<FieldSpec> fields, PlanOptions options = {});

  /// The decomposition the plan was built on.
  const Decomposition& decomposition() const { return *dec_; }
  /// The fields, in the order an exchange is handed their views.
  const std::vector<FieldSpec>& fields() const { return fields_; }
  /// The choices the plan was built with.
  const PlanOptions& options() const { return options_; }

  /// All 3^d - 1 neighbours at once (the direct pattern).
  const Stage& direct() const { return direct_; }
  /// One stage per dimension; later stages forward what earlier ones brought
  /// (edges and corners).
  const std::vector<Stage>& staged() const { return staged_; }
  /// Empty when the staged pattern delivers exactly the selected components;
  /// otherwise why it cannot (a reduced set whose faces lack components their
  /// edges or corners need).
  const std::string& staged_problem() const { return staged_problem_; }

  /// The same exchange run backwards, for values a kernel wrote into the
  /// halo (the AA pattern's outgoing populations): every message goes from
  /// the region it used to fill back to the region it was taken from, stages
  /// in reverse order, and received values overwrite. Component c of a halo
  /// site h is taken to hold what the site h - writer[c] wrote; each message
  /// carries only the (site, component) pairs whose writer its route really
  /// reaches, so no location receives a value nobody wrote (next to walls, or
  /// from a less direct link) and locations written locally stay untouched.
  /// Along the dimensions in `wrapped` the writer's kernel folds h - writer[c]
  /// back into the interior periodically (it wraps there itself, with no
  /// halo), so every writer counts as reached. Throws Error unless every
  /// field has writer.size() components.
  Plan transposed(const std::vector<Offset>& writer, std::array<bool, max_dims> wrapped = {}) const;
  /// Bytes one exchange brings into this rank's halos (local copies included).
  size_t halo_bytes() const;
  /// Messages one direct exchange sends to other ranks.
  int direct_messages() const;

  /// Throws Error unless the views match the plan's fields one for one.
  void check(std::span<const FieldView> views) const;

 private:
  std::vector<int> selected(int field, const Offset& o) const;
  void finish(Stage& stage) const;
  void plan_local_copies(Stage& stage) const;

  const Decomposition* dec_;
  std::vector<FieldSpec> fields_;
  PlanOptions options_;
  Stage direct_;
  std::vector<Stage> staged_;
  std::string staged_problem_;
};

}  // namespace haloex
