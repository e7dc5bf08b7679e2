#include "haloex/halo/plan.hpp"

#include <algorithm>
#include <optional>

namespace haloex {

namespace {

// Along one dimension: region -1 is the low halo, 0 the interior, +1 the high
// halo (each `w` wide).
std::pair<long, long> halo_range(int side, long n, long w) {
  if (side < 0) return {-w, 0};
  if (side > 0) return {n, n + w};
  return {0, n};
}

// The interior slab next to side `side` that feeds the neighbour's halo.
std::pair<long, long> send_range(int side, long n, long w) {
  if (side < 0) return {0, w};
  if (side > 0) return {n - w, n};
  return {0, n};
}

Box make_box(const FieldShape& s, const Offset& region, int ndim, int upto, bool send, int dim, int side) {
  // Dimensions below `upto` use the halo regions in `region`; dimension `dim`
  // is the exchanged one; the rest span the interior.
  Box b;
  for (int e = 0; e < max_dims; ++e) {
    std::pair<long, long> r{0, s.local[e]};
    if (e < ndim) {
      if (e == dim)
        r = send ? send_range(side, s.local[e], s.exchanged[e])
                 : halo_range(side, s.local[e], s.exchanged[e]);
      else if (e < upto)
        r = halo_range(region[e], s.local[e], s.exchanged[e]);
    }
    b.lo[e] = r.first;
    b.hi[e] = r.second;
  }
  return b;
}

void add_part(Message& m, int field, const Box& box, std::vector<int> comps, const FieldShape& s) {
  if (box.empty() || comps.empty()) return;
  Part p;
  p.field = field;
  p.box = box;
  p.bytes = static_cast<size_t>(box.volume()) * comps.size() * element_size(s.type);
  p.comps = std::move(comps);
  long at = 0;
  for (const Walk& w : field_walks(s, p.box, p.comps)) {
    p.pack.emplace_back(w, contiguous_like(w, at), element_size(s.type));
    p.unpack.push_back(p.pack.back().reversed());
    at += w.elements();
  }
  m.parts.push_back(std::move(p));
}

bool is_face(const Offset& o) { return (o[0] != 0) + (o[1] != 0) + (o[2] != 0) == 1; }

std::vector<int> merge(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  return a;
}

// Every combination of -1/0/+1 over dimensions [from, to), others left as in base.
std::vector<Offset> combinations(Offset base, int from, int to) {
  std::vector<Offset> out{base};
  for (int d = from; d < to; ++d) {
    std::vector<Offset> next;
    for (const Offset& o : out)
      for (int v = -1; v <= 1; ++v) {
        Offset n = o;
        n[d] = v;
        next.push_back(n);
      }
    out = std::move(next);
  }
  return out;
}

// Each part's place in the message's buffer, one after the other, and the
// message's bytes.
void lay_out(Message& m) {
  size_t at = 0;
  for (Part& p : m.parts) {
    p.offset = at;
    at += p.bytes;
  }
  m.bytes = at;
}

// The components of field f that travel to halo region o (see Plan::selected).
std::vector<int> selected_components(const FieldSpec& f, Regions regions, const Offset& o) {
  std::vector<int> out;
  if (regions == Regions::faces && !is_face(o)) return out;
  for (int c = 0; c < f.shape.ncomp; ++c)
    if (!f.travels || f.travels(o, c)) out.push_back(c);
  return out;
}

}  // namespace

ComponentPredicate crossing_components(std::vector<Offset> dirs) {
  return [dirs = std::move(dirs)](const Offset& o, int comp) {
    if (comp < 0 || comp >= static_cast<int>(dirs.size())) return false;
    for (int d = 0; d < max_dims; ++d)
      if (o[d] != 0 && dirs[comp][d] != -o[d]) return false;
    return true;
  };
}

Regions parse_regions(const std::string& s) {
  if (s == "all" || s == "full") return Regions::all;
  if (s == "faces") return Regions::faces;
  throw InputError("unknown halo regions '" + s + "' (valid: all, faces)");
}

PackThreads parse_pack_threads(const std::string& s) {
  if (s == "auto") return PackThreads::automatic;
  if (s == "on") return PackThreads::on;
  if (s == "off") return PackThreads::off;
  throw InputError("unknown --pack-threads value '" + s + "' (valid: auto, on, off)");
}

std::string to_string(Regions r) { return r == Regions::all ? "all" : "faces"; }

std::string to_string(PackThreads p) {
  return p == PackThreads::automatic ? "auto" : p == PackThreads::on ? "on" : "off";
}

std::vector<int> Plan::selected(int field, const Offset& o) const {
  return selected_components(fields_[field], options_.regions, o);
}

void Plan::finish(Stage& stage) const {
  stage.folded_buffers = std::any_of(fields_.begin(), fields_.end(),
                                     [](const FieldSpec& f) { return f.memory == FieldMemory::folded; });
  // Lay out each message, drop links with nothing to do, pair self links.
  for (Link& l : stage.links) {
    for (Message* m : {&l.send, &l.recv}) lay_out(*m);
    l.self = l.peer == dec_->rank();
  }
  std::erase_if(stage.links,
                [](const Link& l) { return l.peer == MPI_PROC_NULL || (l.send.empty() && l.recv.empty()); });
  for (size_t i = 0; i < stage.links.size(); ++i)
    for (size_t j = 0; j < stage.links.size(); ++j)
      if (stage.links[j].offset == opposite(stage.links[i].offset))
        stage.links[i].partner = static_cast<int>(j);
  plan_local_copies(stage);
}

namespace {

// Whether two messages fill a common place of some field.
bool overlap(const Message& x, const Message& y) {
  for (const Part& a : x.parts)
    for (const Part& b : y.parts) {
      bool meet = a.field == b.field;
      for (int d = 0; d < max_dims; ++d)
        meet = meet && a.box.lo[d] < b.box.hi[d] && b.box.lo[d] < a.box.hi[d];
      if (meet) return true;
    }
  return false;
}

// The fused copies of self link `l` and its partner `o` (each writes what
// the other receives), or nothing when their kernels differ in shape or
// their destinations overlap (then the later copy must win, one pass could
// not tell which).
std::optional<std::vector<FieldCopy>> fused(const Link& l, const Link& o) {
  if (o.local.size() != l.local.size() || overlap(l.recv, o.recv)) return std::nullopt;
  std::vector<FieldCopy> pairs;
  for (size_t k = 0; k < l.local.size(); ++k) {
    std::optional<CopyKernel> both = l.local[k].kernel.paired_with(o.local[k].kernel);
    if (!both || l.local[k].field != o.local[k].field) return std::nullopt;
    pairs.push_back({l.local[k].field, *both});
  }
  return pairs;
}

// Every self link's copies as one list, opposite links fused where they can
// be: across the fastest dimension their boxes share every cache line
// (x[L-1] -> x[-1] and x[0] -> x[L] sit at both ends of the same rows), so
// one pass over both halves the traffic.
void gather_local_copies(Stage& stage) {
  stage.local.clear();
  stage.local_bytes = 0;
  for (size_t i = 0; i < stage.links.size(); ++i) {
    const Link& l = stage.links[i];
    if (l.local.empty()) continue;
    stage.local_bytes += l.send.bytes;
    const auto p = static_cast<size_t>(l.partner);
    const Link& o = stage.links[p];
    if (p < i && !o.local.empty()) continue;  // done with its partner
    std::optional<std::vector<FieldCopy>> both = p > i ? fused(l, o) : std::nullopt;
    if (both) {
      stage.local.insert(stage.local.end(), both->begin(), both->end());
    } else {
      stage.local.insert(stage.local.end(), l.local.begin(), l.local.end());
      if (p > i) stage.local.insert(stage.local.end(), o.local.begin(), o.local.end());
    }
  }
}

}  // namespace

void Plan::plan_local_copies(Stage& stage) const {
  for (Link& l : stage.links) {
    l.local.clear();
    if (!l.self || l.send.empty()) continue;
    const Message& to = stage.links[l.partner].recv;
    if (l.send.parts.size() != to.parts.size() || l.send.bytes != to.bytes)
      throw Error("halo plan: a rank's message to itself does not match what it receives");
    for (size_t p = 0; p < l.send.parts.size(); ++p) {
      const Part& a = l.send.parts[p];
      const Part& b = to.parts[p];
      const FieldShape& s = fields_[a.field].shape;
      const std::vector<Walk> from = field_walks(s, a.box, a.comps), into = field_walks(s, b.box, b.comps);
      for (size_t w = 0; w < from.size(); ++w)
        l.local.push_back({a.field, CopyKernel(from[w], into[w], element_size(s.type))});
    }
  }
  gather_local_copies(stage);
}

namespace {

// Throws unless the count limit is one MPI can take and every field was
// built on `dec`.
void check_plan_inputs(const Decomposition& dec, const std::vector<FieldSpec>& fields,
                       const PlanOptions& options) {
  if (options.mpi_count_limit < 2 || options.mpi_count_limit > mpi_int_count_max)
    throw InputError("halo plan: mpi_count_limit " + std::to_string(options.mpi_count_limit) +
                     " is outside 2.." + std::to_string(mpi_int_count_max));
  for (const FieldSpec& f : fields) {
    const FieldShape expect = FieldShape::make(dec, f.shape.type, f.shape.ncomp,
                                               HaloWidths{f.shape.width, f.shape.exchanged}, f.shape.layout)
                                  .with_extra_sites(f.shape.extra_sites);
    if (!(expect == f.shape))
      throw InputError(
          "a field given to the halo plan was not built on this decomposition (FieldShape::make, then "
          "with_extra_sites for sites past the box)");
  }
}

// One layer of a halo along one dimension: the interior sites it copies and
// the halo sites it fills.
struct Layer {
  std::pair<long, long> send, halo;
};

// The layers of the halo on side `side` of an interior n sites thick, w
// exchanged: one, unless w > n, which only a periodic dimension whose one
// rank is its own neighbour allows; then layer j fills halo sites j n + 1 ..
// (j + 1) n away with the interior's periodic images again. Side 0: the
// interior.
std::vector<Layer> layers(int side, long n, long w) {
  if (side == 0) return {Layer{{0, n}, {0, n}}};
  std::vector<Layer> out;
  for (long j = 0; j * n < w; ++j) {
    const long k = std::min((j + 1) * n, w), t = k - j * n;
    out.push_back(side < 0 ? Layer{{0, t}, {-k, -j * n}} : Layer{{n - t, n}, {n + j * n, n + k}});
  }
  return out;
}

// The (send, receive) boxes of field shape s for the link at offset o, one
// pair per combination of layers.
std::vector<std::pair<Box, Box>> link_boxes(const FieldShape& s, const Offset& o, int ndim) {
  std::vector<std::pair<Box, Box>> out(1);
  for (int e = 0; e < max_dims; ++e) {
    const std::vector<Layer> along = e < ndim ? layers(o[e], s.local[e], s.exchanged[e])
                                              : std::vector<Layer>{Layer{{0, s.local[e]}, {0, s.local[e]}}};
    std::vector<std::pair<Box, Box>> next;
    for (const auto& [sb, rb] : out)
      for (const Layer& l : along) {
        auto [a, b] = std::pair{sb, rb};
        a.lo[e] = l.send.first, a.hi[e] = l.send.second, b.lo[e] = l.halo.first, b.hi[e] = l.halo.second;
        next.emplace_back(a, b);
      }
    out = std::move(next);
  }
  return out;
}

// The direct pattern's link to the neighbour at offset o: one message each
// way, carrying exactly the components selected for the halo region it fills.
Link direct_link(const Decomposition& dec, const std::vector<FieldSpec>& fields, Regions regions,
                 const Offset& o) {
  Link l;
  l.offset = o;
  l.peer = dec.neighbour(o);
  l.send.tag = offset_index(o);
  l.recv.tag = offset_index(opposite(o));
  for (int f = 0; f < static_cast<int>(fields.size()); ++f) {
    const FieldShape& s = fields[f].shape;
    for (const auto& [sb, rb] : link_boxes(s, o, dec.ndim())) {
      add_part(l.send, f, sb, selected_components(fields[f], regions, opposite(o)), s);
      add_part(l.recv, f, rb, selected_components(fields[f], regions, o), s);
    }
  }
  return l;
}

// The staged pattern's link along dimension d towards `side`: for each halo
// region p already filled along the earlier dimensions, the union of what
// every region it will be forwarded to needs. The first region whose own
// components lack some of those sets `problem`.
Link staged_link(const Decomposition& dec, const std::vector<FieldSpec>& fields, Regions regions, int d,
                 int side, std::string& problem) {
  const int ndim = dec.ndim();
  Link l;
  l.offset = {0, 0, 0};
  l.offset[d] = side;
  l.peer = dec.neighbour(l.offset);
  l.send.tag = offset_index(l.offset);
  l.recv.tag = offset_index(opposite(l.offset));
  for (int f = 0; f < static_cast<int>(fields.size()); ++f) {
    const FieldShape& s = fields[f].shape;
    const auto selected = [&](const Offset& q) { return selected_components(fields[f], regions, q); };
    for (const Offset& p : combinations({0, 0, 0}, 0, d)) {
      if (dec.neighbour(p) == MPI_PROC_NULL) continue;  // that halo region is never filled
      std::vector<int> send_comps, recv_comps;
      Offset to = p, from = p;
      to[d] = -side;
      from[d] = side;
      for (const Offset& q : combinations(to, d + 1, ndim)) send_comps = merge(send_comps, selected(q));
      for (const Offset& q : combinations(from, d + 1, ndim)) recv_comps = merge(recv_comps, selected(q));
      if (recv_comps != selected(from) && problem.empty())
        problem = "the reduced component set of halo region " + offset_name(from) +
                  " lacks components that regions beyond it need, so a staged exchange would "
                  "forward extra components; use a direct strategy (direct, direct-waitany, "
                  "persistent, neighbor) with this plan";
      for (const Layer& layer : layers(side, s.local[d], s.exchanged[d])) {
        Box sb = make_box(s, p, ndim, d, true, d, side), rb = make_box(s, p, ndim, d, false, d, side);
        sb.lo[d] = layer.send.first, sb.hi[d] = layer.send.second;
        rb.lo[d] = layer.halo.first, rb.hi[d] = layer.halo.second;
        add_part(l.send, f, sb, send_comps, s);
        add_part(l.recv, f, rb, recv_comps, s);
      }
    }
  }
  return l;
}

// What a transposed plan trims its messages by: the fields, the lattice,
// each component's writer displacement and the dimensions whose writes wrap.
struct WriterRoutes {
  const std::vector<FieldSpec>& fields;
  const Decomposition& dec;
  const std::vector<Offset>& writer;
  std::array<bool, max_dims> wrapped;
};

// Box b of component c (of a field shaped s) cut to the sites whose writer
// this route reaches. stage_dim < 0: the direct pattern.
Box writer_box(const WriterRoutes& r, Box b, const FieldShape& s, int c, const Offset& link, int stage_dim) {
  const int ndim = r.dec.ndim();
  for (int e = 0; e < ndim; ++e) {
    const long n = s.local[e];
    const int v = r.writer[c][e];
    if (v == 0 || r.wrapped[e] || (stage_dim < 0 ? link[e] != 0 : e == stage_dim)) continue;
    if (b.lo[e] < 0 || b.hi[e] > n) continue;  // a halo range: the components already fit
    bool keep_low = false, keep_high = false;
    if (stage_dim >= 0 && e > stage_dim) {
      // An earlier reverse stage brought what neighbours along e wrote,
      // unless there is no neighbour (a wall).
      Offset lo{0, 0, 0}, hi{0, 0, 0};
      lo[e] = -1;
      hi[e] = 1;
      keep_low = r.dec.neighbour(lo) != MPI_PROC_NULL;
      keep_high = r.dec.neighbour(hi) != MPI_PROC_NULL;
    }
    // Writer h - v must lie in [0, n) along e.
    if (v > 0 && !keep_low) b.lo[e] = std::max(b.lo[e], static_cast<long>(v));
    if (v < 0 && !keep_high) b.hi[e] = std::min(b.hi[e], n + v);
  }
  return b;
}

// Message m with each part split by component into the boxes whose writers
// this route reaches (writer_box), laid out afresh. stage_dim < 0: the
// direct pattern.
Message trimmed(const WriterRoutes& r, const Message& m, const Offset& link, int stage_dim) {
  Message out;
  out.tag = m.tag;
  for (const Part& p : m.parts) {
    const FieldShape& s = r.fields[p.field].shape;
    std::vector<std::pair<Box, std::vector<int>>> groups;
    for (int c : p.comps) {
      const Box b = writer_box(r, p.box, s, c, link, stage_dim);
      if (b.empty()) continue;
      auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == b; });
      if (g == groups.end())
        groups.push_back({b, {c}});
      else
        g->second.push_back(c);
    }
    for (auto& [box, comps] : groups) add_part(out, p.field, box, std::move(comps), s);
  }
  lay_out(out);
  return out;
}

}  // namespace

Plan::Plan(const Decomposition& dec, std::vector<FieldSpec> fields, PlanOptions options)
    : dec_(&dec), fields_(std::move(fields)), options_(options) {
  check_plan_inputs(dec, fields_, options);
  for (const Offset& o : dec.offsets())
    direct_.links.push_back(direct_link(dec, fields_, options_.regions, o));
  finish(direct_);
  // Staged pattern: dimension by dimension (staged_link).
  for (int d = 0; d < dec.ndim(); ++d) {
    Stage stage;
    for (int side : {-1, +1})
      stage.links.push_back(staged_link(dec, fields_, options_.regions, d, side, staged_problem_));
    finish(stage);
    staged_.push_back(std::move(stage));
  }
}

Plan Plan::transposed(const std::vector<Offset>& writer, std::array<bool, max_dims> wrapped) const {
  for (const FieldSpec& f : fields_)
    if (f.shape.ncomp != static_cast<int>(writer.size()))
      throw Error("transposed plan: a field has " + std::to_string(f.shape.ncomp) + " components but " +
                  std::to_string(writer.size()) + " writer displacements were given");
  const WriterRoutes routes{fields_, *dec_, writer, wrapped};
  Plan t = *this;
  for (Link& l : t.direct_.links) {
    // Tags travel with their messages, so the peer's reversed receive still
    // matches our reversed send.
    Message send = trimmed(routes, l.recv, l.offset, -1), recv = trimmed(routes, l.send, l.offset, -1);
    l.send = std::move(send);
    l.recv = std::move(recv);
  }
  for (size_t d = 0; d < t.staged_.size(); ++d)
    for (Link& l : t.staged_[d].links) {
      Message send = trimmed(routes, l.recv, l.offset, static_cast<int>(d)),
              recv = trimmed(routes, l.send, l.offset, static_cast<int>(d));
      l.send = std::move(send);
      l.recv = std::move(recv);
    }
  std::reverse(t.staged_.begin(), t.staged_.end());
  t.plan_local_copies(t.direct_);
  for (Stage& st : t.staged_) t.plan_local_copies(st);
  return t;
}

size_t Plan::halo_bytes() const {
  size_t b = 0;
  for (const Link& l : direct_.links) b += l.recv.bytes;
  return b;
}

int Plan::direct_messages() const {
  int n = 0;
  for (const Link& l : direct_.links) n += (!l.self && !l.send.empty()) ? 1 : 0;
  return n;
}

void Plan::check(std::span<const FieldView> views) const {
  if (views.size() != fields_.size())
    throw Error("the exchange was given " + std::to_string(views.size()) + " fields but its plan has " +
                std::to_string(fields_.size()));
  for (size_t i = 0; i < views.size(); ++i) {
    if (!(views[i].shape == fields_[i].shape))
      throw Error("field " + std::to_string(i) + " given to the exchange does not match the plan's field " +
                  std::to_string(i) + " (type, components, halo, layout or extents differ)");
    if (!views[i].data) throw Error("field " + std::to_string(i) + " given to the exchange has no data");
    const FieldMemory memory = views[i].node ? FieldMemory::node : FieldMemory::heap;
    const FieldMemory planned =
        fields_[i].memory == FieldMemory::folded ? FieldMemory::heap : fields_[i].memory;
    if (memory != planned)
      throw Error("field " + std::to_string(i) + " given to the exchange lives in " + to_string(memory) +
                  " memory but its plan's field is in " + to_string(fields_[i].memory) + " memory");
    const size_t bytes = static_cast<size_t>(views[i].shape.elements()) * element_size(views[i].shape.type);
    if (views[i].node && (views[i].data < views[i].node->data() ||
                          views[i].data + bytes > views[i].node->data() + views[i].node->size()))
      throw Error("field " + std::to_string(i) +
                  " given to the exchange does not lie inside its node memory");
  }
}

}  // namespace haloex
