// The staged pattern with MPI derived datatypes: the MPI library gathers and
// scatters the halo boxes itself (Ludwig's "via struct" exchange), no packing.
#include <map>

#include "haloex/halo/strategy.hpp"
#include "stage_ops.hpp"

namespace haloex {

namespace {

// A datatype relative to the start of a field's data for one part: a
// subarray of sites, one block per travelling component.
MPI_Datatype part_type(const FieldShape& s, const Part& p) {
  const MPI_Datatype elem = mpi_type(s.type);
  const auto esize = static_cast<MPI_Aint>(element_size(s.type));
  std::vector<MPI_Datatype> owned;
  auto keep = [&](MPI_Datatype t) {
    owned.push_back(t);
    return t;
  };
  int sizes[3], sub[3], starts[3];
  for (int d = 0; d < 3; ++d) {
    sizes[d] = static_cast<int>(s.alloc[d]);
    sub[d] = static_cast<int>(p.box.extent(d));
    starts[d] = static_cast<int>(p.box.lo[d] + s.width[d]);
  }
  MPI_Datatype out = MPI_DATATYPE_NULL;
  if (s.layout == Layout::aos) {
    // One site: the travelling components, spread over a whole site's extent.
    MPI_Datatype site = MPI_DATATYPE_NULL, sized = MPI_DATATYPE_NULL;
    if (static_cast<int>(p.comps.size()) == s.ncomp) {
      mpi_check(MPI_Type_contiguous(s.ncomp, elem, &site), "MPI_Type_contiguous");
    } else {
      mpi_check(
          MPI_Type_create_indexed_block(static_cast<int>(p.comps.size()), 1, p.comps.data(), elem, &site),
          "MPI_Type_create_indexed_block");
    }
    keep(site);
    mpi_check(MPI_Type_create_resized(site, 0, esize * s.ncomp, &sized), "MPI_Type_create_resized");
    keep(sized);
    mpi_check(MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, sized, &out),
              "MPI_Type_create_subarray");
  } else {
    // One subarray per component plane.
    MPI_Datatype plane = MPI_DATATYPE_NULL;
    mpi_check(MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, elem, &plane),
              "MPI_Type_create_subarray");
    keep(plane);
    std::vector<int> lens(p.comps.size(), 1);
    std::vector<MPI_Aint> disp;
    std::vector<MPI_Datatype> types(p.comps.size(), plane);
    for (int c : p.comps) disp.push_back(static_cast<MPI_Aint>(c) * s.comp_stride * esize);
    mpi_check(
        MPI_Type_create_struct(static_cast<int>(lens.size()), lens.data(), disp.data(), types.data(), &out),
        "MPI_Type_create_struct");
  }
  for (MPI_Datatype& t : owned) MPI_Type_free(&t);
  return out;
}

// The whole message as one absolute datatype (used with MPI_BOTTOM).
Datatype message_type(const Message& m, std::span<const FieldView> fields) {
  std::vector<int> lens;
  std::vector<MPI_Aint> disp;
  std::vector<MPI_Datatype> types;
  for (const Part& p : m.parts) {
    MPI_Aint base = 0;
    mpi_check(MPI_Get_address(fields[p.field].data, &base), "MPI_Get_address");
    lens.push_back(1);
    disp.push_back(base);
    types.push_back(part_type(fields[p.field].shape, p));
  }
  MPI_Datatype t = MPI_DATATYPE_NULL;
  mpi_check(MPI_Type_create_struct(static_cast<int>(lens.size()), lens.data(), disp.data(), types.data(), &t),
            "MPI_Type_create_struct");
  for (MPI_Datatype& pt : types) MPI_Type_free(&pt);
  mpi_check(MPI_Type_commit(&t), "MPI_Type_commit");
  return Datatype(t);
}

class StagedTypes final : public Strategy {
 public:
  StagedTypes(const Plan& plan, std::string_view name) : Strategy(plan, name) {
    if (!plan.staged_problem().empty())
      throw InputError(std::string(name) + " cannot serve this plan: " + plan.staged_problem());
  }

 private:
  // Datatypes hold absolute addresses, so they are built per set of field
  // addresses and cached: a time loop alternates between very few such sets.
  struct TypeSet {
    std::vector<std::vector<Datatype>> send, recv;  // [stage][link]
  };

  const TypeSet& types_for(std::span<const FieldView> fields) {
    std::vector<const std::byte*> key;
    for (const FieldView& f : fields) key.push_back(f.data);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    if (cache_.size() >= 4) cache_.clear();
    TypeSet ts;
    for (const Stage& st : plan_.staged()) {
      ts.send.emplace_back();
      ts.recv.emplace_back();
      for (const Link& l : st.links) {
        ts.send.back().push_back(l.self || l.send.empty() ? Datatype() : message_type(l.send, fields));
        ts.recv.back().push_back(l.self || l.recv.empty() ? Datatype() : message_type(l.recv, fields));
      }
    }
    return cache_.emplace(std::move(key), std::move(ts)).first->second;
  }

  // Each dimension completes before the next forwards it; the last one is
  // left in flight for end(), so that overlapped work hides it.
  void do_begin(std::span<const FieldView> fields) override {
    const TypeSet& ts = types_for(fields);
    const auto& stages = plan_.staged();
    for (size_t d = 0; d < stages.size(); ++d) {
      copy_self(stages[d], fields);
      post(stages[d], ts.send[d], ts.recv[d]);
      if (d + 1 < stages.size()) wait();
    }
  }
  void do_end(std::span<const FieldView>) override { wait(); }

  void post(const Stage& st, const std::vector<Datatype>& send, const std::vector<Datatype>& recv) {
    MPI_Comm comm = plan_.decomposition().comm();
    for (size_t i = 0; i < st.links.size(); ++i) {
      const Link& l = st.links[i];
      if (l.self || l.recv.empty()) continue;
      reqs_.push_back(MPI_REQUEST_NULL);
      mpi_check(MPI_Irecv(MPI_BOTTOM, 1, recv[i].get(), l.peer, l.recv.tag, comm, &reqs_.back()),
                "MPI_Irecv");
    }
    for (size_t i = 0; i < st.links.size(); ++i) {
      const Link& l = st.links[i];
      if (l.self || l.send.empty()) continue;
      reqs_.push_back(MPI_REQUEST_NULL);
      mpi_check(MPI_Isend(MPI_BOTTOM, 1, send[i].get(), l.peer, l.send.tag, comm, &reqs_.back()),
                "MPI_Isend");
    }
  }
  void wait() {
    mpi_check(MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    reqs_.clear();
  }

  std::map<std::vector<const std::byte*>, TypeSet> cache_;
  std::vector<MPI_Request> reqs_;  // of the dimension in flight; kept to avoid an allocation per exchange
};

}  // namespace

std::unique_ptr<Strategy> make_staged_types(const Plan& p, std::string_view name) {
  return std::make_unique<StagedTypes>(p, name);
}

}  // namespace haloex
