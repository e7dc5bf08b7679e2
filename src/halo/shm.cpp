// shm: neighbours on the same node exchange through shared memory instead of
// MPI messages; neighbours on other nodes go through MPI as in `direct`.
// It runs one of two ways, the same on every rank:
// - zero copy, when every field lives in node memory (FieldMemory::node):
//   each rank copies its halos straight out of its node neighbours' fields,
//   one copy per value and nothing packed;
// - staged through the window otherwise: each rank packs what a node
//   neighbour needs into its own part of a shared window and the neighbour
//   unpacks from there, one copy each side, against MPI's pack, copy through
//   the transport (one or two copies) and unpack.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "haloex/core/large_count.hpp"
#include "haloex/halo/strategy.hpp"
#include "node_sync.hpp"
#include "stage_ops.hpp"

namespace haloex {

namespace {

using detail::Backoff;
using detail::Header;
using detail::load;
using detail::PeerBlock;
using detail::PeerMessages;
using detail::round_up;
using detail::store;
constexpr size_t line = detail::cache_line;

// The window part of a rank: one header per node neighbour it sends to (two
// counters, each on its own cache line), then one descriptor per field (where
// the field is, zero copy), then slot 0 and slot 1 (staged), each holding
// every block to node neighbours end to end (the PeerMessages layout).
//
// Synchronisation, for generation g = 1, 2, ... (one per exchange):
// - Staged: the writer packs generation g into slot g % 2, after waiting
//   until the reader's `consumed` counter reaches g - 2 (the last generation
//   that used that slot), then stores `posted` = g with release order. The
//   reader waits until `posted` >= g with acquire order, unpacks from slot
//   g % 2 and stores `consumed` = g with release order. The writer can run
//   one generation ahead because g + 1 goes to the other slot.
// - Zero copy: the writer's begin() writes its descriptors and stores
//   `posted` = g; the reader waits for it (acquire), copies from the writer's
//   field and stores `consumed` = g (release). The writer's end() waits for
//   `consumed` = g from every reader before it returns, since from then on
//   its caller may overwrite the values being read; so no reader can still
//   be reading when the next begin() rewrites the descriptors.
// Release/acquire pairs make the values written before a counter visible
// with it, and the reader's loads complete before the writer may overwrite
// them (node_sync.hpp).

// Where a writer's field is: which node window (its id), the writer's rank
// in that window's group, and the field's byte offset in the writer's part.
struct Descriptor {
  std::uint64_t id[2];
  std::uint64_t rank;
  std::uint64_t offset;
};

// Whether every field of the plan lives in node memory on every rank.
bool all_in_node_memory(const Plan& plan) {
  int here = 1;
  for (const FieldSpec& f : plan.fields()) here &= f.memory == FieldMemory::node ? 1 : 0;
  int all = 0;
  mpi_check(MPI_Allreduce(&here, &all, 1, MPI_INT, MPI_MIN, plan.decomposition().comm()), "MPI_Allreduce");
  return all == 1 && !plan.fields().empty();
}

class Shm final : public Strategy {
 public:
  Shm(const Plan& plan, std::string_view name, const ShmOptions& options) : Strategy(plan, name) {
    const Decomposition& dec = plan.decomposition();
    MPI_Comm comm = dec.comm();
    if (options.node_size < 0)
      throw InputError("shm: node_size must be 0 (the real nodes) or a positive group size, not " +
                       std::to_string(options.node_size));
    Comm node = detail::node_group(comm, options.node_size);
    zero_copy_ = all_in_node_memory(plan);
    const std::vector<int> node_rank = detail::node_ranks(comm, node.get());
    auto on_node = [&](int peer) { return node_rank[static_cast<size_t>(peer)] != MPI_UNDEFINED; };
    auto off_node = [&](int peer) { return !on_node(peer); };

    mpi_to_.emplace(plan.direct(), &Link::send, off_node);
    mpi_from_.emplace(plan.direct(), &Link::recv, off_node);
    shm_to_.emplace(plan.direct(), &Link::send, on_node, false);
    shm_from_.emplace(plan.direct(), &Link::recv, on_node, false);
    reqs_.resize(mpi_from_->blocks.size() + mpi_to_->blocks.size(), MPI_REQUEST_NULL);
    // One message per off-node block whatever its size (derived type above the limit).
    const size_t limit = plan.options().mpi_count_limit;
    for (const PeerBlock& b : mpi_from_->blocks) recv_counts_.emplace_back(b.bytes, MPI_BYTE, limit);
    for (const PeerBlock& b : mpi_to_->blocks) send_counts_.emplace_back(b.bytes, MPI_BYTE, limit);

    // The window part: headers, descriptors, then the two slots (staged only).
    layout_.slots =
        round_up(shm_to_->blocks.size() * sizeof(Header) + plan.fields().size() * sizeof(Descriptor), line);
    layout_.slot_bytes = zero_copy_ ? 0 : round_up(shm_to_->bytes, line);
    window_.emplace(std::move(node), layout_.slots + 2 * layout_.slot_bytes);
    std::byte* mine = window_->data();
    headers_ = reinterpret_cast<Header*>(mine);
    descriptors_ = reinterpret_cast<Descriptor*>(mine + shm_to_->blocks.size() * sizeof(Header));
    for (int s = 0; s < 2; ++s)
      send_jobs_[s] = shm_to_->jobs_at(mine + layout_.slots + s * layout_.slot_bytes);
    connect(comm, node_rank);
  }

 private:
  // Where things are in a writer's window part.
  struct Layout {
    size_t slots = 0;       // bytes before slot 0 (headers and descriptors)
    size_t slot_bytes = 0;  // 0 when zero copy
  };

  // A node neighbour's block: its counters, and how to read its values.
  struct Source {
    Header* header = nullptr;
    const Descriptor* descriptors = nullptr;  // the writer's, one per field
    int writer = 0;                           // rank in the plan's communicator
    std::vector<PackJob> jobs[2];             // staged: unpack jobs reading slot 0 and slot 1
    std::vector<FieldCopy> copies;            // zero copy: from the writer's fields into ours
    size_t bytes = 0;
  };

  // Each writer tells each node neighbour where its block sits in the
  // writer's part: which header, where the descriptors and slots start, the
  // slot size, the block's offset in a slot and its bytes. With zero copy a
  // second message gives the writer's extents per field and each part's box,
  // from which the reader builds copies out of the writer's field. Both go
  // along the same peer and tag as the data would travel, in order; the
  // reader checks that the sizes agree.
  void connect(MPI_Comm comm, const std::vector<int>& node_rank) {
    const size_t ns = shm_to_->blocks.size(), nr = shm_from_->blocks.size();
    std::vector<std::uint64_t> out(where_words * ns), in(where_words * nr);
    std::vector<std::vector<long>> geometry_out(ns), geometry_in(nr);
    std::vector<MPI_Request> reqs;
    receive_where(comm, in, geometry_in, reqs);
    send_where(comm, out, geometry_out, reqs);
    mpi_check(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    std::string mismatch;
    for (size_t k = 0; k < nr; ++k)
      add_source(shm_from_->blocks[k], &in[where_words * k], geometry_in[k], node_rank, mismatch);
    // Every rank agrees before any throws (a rank alone would leave the
    // others waiting in a collective).
    throw_if_any(comm, mismatch);
  }

  // Words of the message that says where a block sits (see connect).
  static constexpr size_t where_words = 6;
  // Words per field of a geometry message (see geometry_words).
  static constexpr size_t field_words = 4;

  // Posts the receives of where each node neighbour's block sits (and, with
  // zero copy, its geometry) into `in` and `geometry_in`.
  void receive_where(MPI_Comm comm, std::vector<std::uint64_t>& in,
                     std::vector<std::vector<long>>& geometry_in, std::vector<MPI_Request>& reqs) const {
    for (size_t k = 0; k < shm_from_->blocks.size(); ++k) {
      const PeerBlock& b = shm_from_->blocks[k];
      reqs.push_back(MPI_REQUEST_NULL);
      mpi_check(MPI_Irecv(&in[where_words * k], where_words, MPI_UINT64_T, b.peer, b.tag, comm, &reqs.back()),
                "MPI_Irecv");
      if (!zero_copy_) continue;
      geometry_in[k].resize(geometry_words(b));
      reqs.push_back(MPI_REQUEST_NULL);
      mpi_check(MPI_Irecv(geometry_in[k].data(), static_cast<int>(geometry_in[k].size()), MPI_LONG, b.peer,
                          b.tag, comm, &reqs.back()),
                "MPI_Irecv");
    }
  }

  // Posts the sends of where each of our blocks sits (and, with zero copy,
  // its geometry) from `out` and `geometry_out`, which must outlive them.
  void send_where(MPI_Comm comm, std::vector<std::uint64_t>& out,
                  std::vector<std::vector<long>>& geometry_out, std::vector<MPI_Request>& reqs) const {
    const std::uint64_t descriptors = shm_to_->blocks.size() * sizeof(Header);
    for (size_t k = 0; k < shm_to_->blocks.size(); ++k) {
      const PeerBlock& b = shm_to_->blocks[k];
      const std::uint64_t where[where_words] = {k,        descriptors, layout_.slots, layout_.slot_bytes,
                                                b.offset, b.bytes};
      std::copy(where, where + where_words, &out[where_words * k]);
      reqs.push_back(MPI_REQUEST_NULL);
      mpi_check(
          MPI_Isend(&out[where_words * k], where_words, MPI_UINT64_T, b.peer, b.tag, comm, &reqs.back()),
          "MPI_Isend");
      if (!zero_copy_) continue;
      geometry_out[k] = geometry_of(b);
      reqs.push_back(MPI_REQUEST_NULL);
      mpi_check(MPI_Isend(geometry_out[k].data(), static_cast<int>(geometry_out[k].size()), MPI_LONG, b.peer,
                          b.tag, comm, &reqs.back()),
                "MPI_Isend");
    }
  }

  // The source of node neighbour block b, from where its writer says it sits
  // (`w`) and, with zero copy, its geometry; a size that disagrees goes to
  // `mismatch` instead.
  void add_source(const PeerBlock& b, const std::uint64_t* w, const std::vector<long>& geometry,
                  const std::vector<int>& node_rank, std::string& mismatch) {
    if (w[5] != b.bytes) {
      mismatch = "shm: rank " + std::to_string(b.peer) + " sends " + std::to_string(w[5]) + " bytes where " +
                 std::to_string(b.bytes) + " are expected";
      return;
    }
    std::byte* part = window_->part(node_rank[static_cast<size_t>(b.peer)]);
    Source src;
    src.header = reinterpret_cast<Header*>(part) + w[0];
    src.descriptors = reinterpret_cast<const Descriptor*>(part + w[1]);
    src.writer = b.peer;
    src.bytes = b.bytes;
    // The block's jobs, placed at its offset inside each of the writer's slots.
    const PeerBlock at_start{b.peer, b.tag, 0, b.bytes, b.jobs};
    for (int s = 0; s < 2 && !zero_copy_; ++s)
      src.jobs[s] = PeerMessages::block_jobs_at(at_start, part + w[2] + s * w[3] + w[4]);
    if (zero_copy_) src.copies = copies_from(b, geometry, mismatch);
    sources_.push_back(std::move(src));
  }

  // Geometry message: the writer's interior extents and sites past its box
  // per field (4 each: a client's field may differ from rank to rank in
  // both), then field, lo, hi and component count of each part of the block
  // (8 each).
  size_t geometry_words(const PeerBlock& b) const {
    size_t parts = 0;
    for (const PackJob& j : b.jobs) parts += j.message->parts.size();
    return field_words * plan_.fields().size() + 8 * parts;
  }
  std::vector<long> geometry_of(const PeerBlock& b) const {
    std::vector<long> g;
    for (const FieldSpec& f : plan_.fields()) {
      g.insert(g.end(), f.shape.local.begin(), f.shape.local.end());
      g.push_back(f.shape.extra_sites);
    }
    for (const PackJob& j : b.jobs)
      for (const Part& p : j.message->parts) {
        g.push_back(p.field);
        g.insert(g.end(), p.box.lo.begin(), p.box.lo.end());
        g.insert(g.end(), p.box.hi.begin(), p.box.hi.end());
        g.push_back(static_cast<long>(p.comps.size()));
      }
    return g;
  }

  // Copies from the writer's send boxes (its geometry `g`) into our receive
  // boxes, part by part: both sides list the block's parts in the same order.
  std::vector<FieldCopy> copies_from(const PeerBlock& b, const std::vector<long>& g,
                                     std::string& mismatch) const {
    const std::vector<FieldSpec>& fields = plan_.fields();
    std::vector<FieldCopy> out;
    size_t at = field_words * fields.size();
    for (const PackJob& j : b.jobs)
      for (const Part& p : j.message->parts) {
        const int field = static_cast<int>(g[at]);
        Box box;
        for (int d = 0; d < max_dims; ++d) {
          box.lo[static_cast<size_t>(d)] = g[at + 1 + static_cast<size_t>(d)];
          box.hi[static_cast<size_t>(d)] = g[at + 4 + static_cast<size_t>(d)];
        }
        bool same = field == p.field && g[at + 7] == static_cast<long>(p.comps.size());
        at += 8;
        for (int d = 0; d < max_dims; ++d) same = same && box.extent(d) == p.box.extent(d);
        if (!same) {
          mismatch = "shm: rank " + std::to_string(b.peer) +
                     " describes a halo part that does not match this rank's";
          return {};
        }
        const FieldShape& mine = fields[static_cast<size_t>(field)].shape;
        std::array<long, max_dims> local{};
        const size_t theirs = field_words * static_cast<size_t>(field);
        for (size_t d = 0; d < max_dims; ++d) local[d] = g[theirs + d];
        const std::vector<Walk> from = field_walks(mine.with_local(local, g[theirs + 3]), box, p.comps);
        const std::vector<Walk> to = field_walks(mine, p.box, p.comps);
        for (size_t w = 0; w < from.size(); ++w)
          out.push_back(FieldCopy{field, CopyKernel(from[w], to[w], element_size(mine.type))});
      }
    return out;
  }

  void do_begin(std::span<const FieldView> fields) override {
    ++generation_;
    MPI_Comm comm = plan_.decomposition().comm();
    const size_t nr = mpi_from_->blocks.size(), ns = mpi_to_->blocks.size();
    for (size_t k = 0; k < nr; ++k) {
      const PeerBlock& b = mpi_from_->blocks[k];
      mpi_check(large_irecv(mpi_from_->data(b), recv_counts_[k], b.peer, b.tag, comm, &reqs_[k]),
                "MPI_Irecv");
    }
    pack(mpi_to_->jobs, fields);
    for (size_t k = 0; k < ns; ++k) {
      const PeerBlock& b = mpi_to_->blocks[k];
      mpi_check(large_isend(mpi_to_->data(b), send_counts_[k], b.peer, b.tag, comm, &reqs_[nr + k]),
                "MPI_Isend");
    }
    const size_t n_shm = shm_to_->blocks.size();
    if (zero_copy_) {
      for (size_t f = 0; f < fields.size(); ++f) {
        const NodeMemory& m = *fields[f].node;
        descriptors_[f] = Descriptor{{m.id()[0], m.id()[1]},
                                     static_cast<std::uint64_t>(m.rank()),
                                     static_cast<std::uint64_t>(fields[f].data - m.data())};
      }
    } else {
      // The slot this generation fills was last read two generations ago.
      for (size_t k = 0; k < n_shm; ++k) {
        Backoff wait;
        while (load(headers_[k].consumed) + 2 < generation_) wait.pause();
      }
      pack(send_jobs_[generation_ % 2], fields);
    }
    for (size_t k = 0; k < n_shm; ++k) store(headers_[k].posted, generation_);
    copy_self(plan_.direct(), fields);
  }

  void do_end(std::span<const FieldView> fields) override {
    // Take each node neighbour's values as soon as they are posted.
    done_.assign(sources_.size(), false);
    size_t left = sources_.size();
    Backoff wait;
    while (left > 0) {
      bool progressed = false;
      for (size_t k = 0; k < sources_.size(); ++k) {
        if (done_[k] || load(sources_[k].header->posted) < generation_) continue;
        if (zero_copy_)
          read_fields(sources_[k], fields);
        else
          unpack(sources_[k].jobs[generation_ % 2], fields);
        store(sources_[k].header->consumed, generation_);
        done_[k] = true;
        --left;
        progressed = true;
      }
      if (!progressed) wait.pause();
    }
    const size_t nr = mpi_from_->blocks.size(), ns = mpi_to_->blocks.size();
    mpi_check(MPI_Waitall(static_cast<int>(nr), reqs_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    unpack(mpi_from_->jobs, fields);
    mpi_check(MPI_Waitall(static_cast<int>(ns), reqs_.data() + nr, MPI_STATUSES_IGNORE), "MPI_Waitall");
    // Our caller may overwrite the fields as soon as we return: every node
    // neighbour must have finished reading them.
    if (!zero_copy_) return;
    for (size_t k = 0; k < shm_to_->blocks.size(); ++k) {
      Backoff slow;
      while (load(headers_[k].consumed) < generation_) slow.pause();
    }
  }

  // Copy a node neighbour's values straight out of its fields.
  void read_fields(const Source& src, std::span<const FieldView> fields) {
    from_.resize(fields.size());
    for (size_t f = 0; f < fields.size(); ++f) {
      const Descriptor& d = src.descriptors[f];
      const NodeMemory& m = *fields[f].node;
      if (d.id[0] != m.id()[0] || d.id[1] != m.id()[1]) {
        // Release the writer, which waits for this reader, before throwing.
        store(src.header->consumed, generation_);
        throw Error("shm: field " + std::to_string(f) + " of rank " + std::to_string(src.writer) +
                    " lies in another node window than this rank's; create the fields in the same order on "
                    "every rank");
      }
      from_[f] = m.part(static_cast<int>(d.rank)) + d.offset;
    }
    as_unpack([&] { copy_from(src.copies, from_, src.bytes, fields, plan_.options().pack_threads); });
  }

  bool zero_copy_ = false;
  std::optional<PeerMessages> mpi_to_, mpi_from_, shm_to_, shm_from_;
  std::vector<LargeCount> send_counts_, recv_counts_;  // per block of mpi_to_ / mpi_from_
  std::vector<MPI_Request> reqs_;
  std::optional<NodeMemory> window_;
  Layout layout_;
  Header* headers_ = nullptr;
  Descriptor* descriptors_ = nullptr;
  std::vector<PackJob> send_jobs_[2];
  std::vector<Source> sources_;
  std::vector<bool> done_;              // per source, this end(); kept to avoid an allocation per call
  std::vector<const std::byte*> from_;  // per field, the source being read; likewise
  std::uint64_t generation_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_shm(const Plan& plan, ShmOptions options) {
  return std::make_unique<Shm>(plan, "shm", options);
}
std::unique_ptr<Strategy> make_shm_default(const Plan& plan, std::string_view name) {
  return std::make_unique<Shm>(plan, name, ShmOptions{});
}

}  // namespace haloex
