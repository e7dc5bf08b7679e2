// One MPI_Ineighbor_alltoallv on a distributed-graph communicator whose edges
// are the plan's messages.
//
// Blocks or buffer offsets above the plan's count limit (2 GiB by default)
// do not fit alltoallv's int counts and displacements. Then the exchange is
// still one collective: MPI_Ineighbor_alltoallv_c with an MPI-4 library, else
// MPI_Ineighbor_alltoallw, whose displacements are MPI_Aint bytes and whose
// blocks each get their own datatype (a derived one above the limit). Below
// the limit alltoallv stays, so the common case runs the call it always ran
// (and benchmarks keep measuring it); alltoallw's per-block types may cost
// the library more.
#include <algorithm>

#include "haloex/core/large_count.hpp"
#include "haloex/halo/strategy.hpp"
#include "stage_ops.hpp"

namespace haloex {

namespace {

using detail::PeerBlock;
using detail::PeerMessages;

// Some MPI libraries (MPICH) reject a null buffer even for zero counts, and
// an empty std::vector has a null data().
template <class T>
T* never_null(std::vector<T>& v) {
  static T dummy{};
  return v.empty() ? &dummy : v.data();
}

class Neighbor final : public Strategy {
 public:
  Neighbor(const Plan& plan, std::string_view name)
      : Strategy(plan, name), to_(plan.direct(), &Link::send), from_(plan.direct(), &Link::recv) {
    // A periodic dimension with 1 or 2 ranks, or a grid with one rank along
    // some dimension, joins one pair of ranks by several messages. How blocks
    // of repeated edges are matched differs between MPI libraries (Open MPI
    // and MPICH disagree), so the graph gets one edge per distinct peer, whose
    // block carries all messages to that peer (PeerMessages orders them the
    // same way on both sides).
    std::vector<int> dests, srcs;
    const size_t limit = plan.options().mpi_count_limit;
    for (const PeerBlock& b : to_.blocks) {
      dests.push_back(b.peer);
      large_ = large_ || b.bytes > limit || b.offset > limit;
    }
    for (const PeerBlock& b : from_.blocks) {
      srcs.push_back(b.peer);
      large_ = large_ || b.bytes > limit || b.offset > limit;
    }
    send_ = Blocks(to_.blocks, limit, large_);
    recv_ = Blocks(from_.blocks, limit, large_);
    // The graph is made from a copy of the communicator without its
    // Cartesian topology, in the same rank order: Open MPI 5.0.11 gives a
    // graph made from a Cartesian communicator neighbourhood collectives
    // that fail (MPI_ERR_ARG, MPI_ERR_INTERN) or crash (docs/mpi.md).
    Comm plain;
    mpi_check(MPI_Comm_split(plan.decomposition().comm(), 0, plan.decomposition().rank(), plain.out()),
              "MPI_Comm_split");
    mpi_check(
        MPI_Dist_graph_create_adjacent(plain.get(), static_cast<int>(srcs.size()), never_null(srcs),
                                       MPI_UNWEIGHTED, static_cast<int>(dests.size()), never_null(dests),
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, graph_.out()),
        "MPI_Dist_graph_create_adjacent");
    verify_slots(srcs, static_cast<int>(dests.size()));
  }

 private:
  // Every rank sends its rank number along each edge and checks that slot k
  // holds the rank of source k, so a library that misplaces blocks is
  // refused rather than allowed to return wrong halos.
  void verify_slots(std::vector<int>& srcs, int outdegree) {
    const int me = plan_.decomposition().rank();
    std::vector<int> out(static_cast<size_t>(outdegree), me), in(srcs.size(), -1);
    mpi_check(MPI_Neighbor_alltoall(never_null(out), 1, MPI_INT, never_null(in), 1, MPI_INT, graph_.get()),
              "MPI_Neighbor_alltoall");
    int wrong = 0;
    for (size_t k = 0; k < srcs.size(); ++k) wrong += in[k] != srcs[k];
    int any = 0;
    mpi_check(MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_SUM, plan_.decomposition().comm()),
              "MPI_Allreduce");
    if (any)
      throw InputError(
          "neighbor: this MPI library delivered " + std::to_string(any) +
          " neighbourhood-collective blocks to the wrong slot on this process grid; use 'direct' or "
          "'persistent'");
  }

  void do_begin(std::span<const FieldView> fields) override {
    pack(to_.jobs, fields);
    if (!large_) {
      mpi_check(MPI_Ineighbor_alltoallv(to_.buffer.data(), never_null(send_.counts), never_null(send_.displs),
                                        MPI_BYTE, from_.buffer.data(), never_null(recv_.counts),
                                        never_null(recv_.displs), MPI_BYTE, graph_.get(), &req_),
                "MPI_Ineighbor_alltoallv");
    } else {
#if MPI_VERSION >= 4
      mpi_check(MPI_Ineighbor_alltoallv_c(to_.buffer.data(), never_null(send_.big_counts),
                                          never_null(send_.byte_displs), MPI_BYTE, from_.buffer.data(),
                                          never_null(recv_.big_counts), never_null(recv_.byte_displs),
                                          MPI_BYTE, graph_.get(), &req_),
                "MPI_Ineighbor_alltoallv_c");
#else
      mpi_check(MPI_Ineighbor_alltoallw(
                    to_.buffer.data(), never_null(send_.counts), never_null(send_.byte_displs),
                    never_null(send_.types), from_.buffer.data(), never_null(recv_.counts),
                    never_null(recv_.byte_displs), never_null(recv_.types), graph_.get(), &req_),
                "MPI_Ineighbor_alltoallw");
#endif
    }
    copy_self(plan_.direct(), fields);
  }

  void do_end(std::span<const FieldView> fields) override {
    mpi_check(MPI_Wait(&req_, MPI_STATUS_IGNORE), "MPI_Wait");
    unpack(from_.jobs, fields);
  }

  // One direction's blocks as the collective is given them: int counts and
  // displacements in bytes (alltoallv); above the limit MPI_Aint byte
  // displacements with each block's count and datatype (alltoallw) or
  // MPI_Count counts (alltoallv_c).
  struct Blocks {
    std::vector<int> counts, displs;
    std::vector<MPI_Aint> byte_displs;
    std::vector<MPI_Datatype> types;
    std::vector<MPI_Count> big_counts;
    std::vector<LargeCount> owned;  // the derived types in `types`

    Blocks() = default;
    Blocks(const std::vector<PeerBlock>& blocks, size_t limit, bool large) {
      for (const PeerBlock& b : blocks) {
        if (!large) {
          counts.push_back(static_cast<int>(b.bytes));
          displs.push_back(static_cast<int>(b.offset));
          continue;
        }
        owned.emplace_back(b.bytes, MPI_BYTE, limit);
        counts.push_back(owned.back().count());
        types.push_back(owned.back().type());
        byte_displs.push_back(static_cast<MPI_Aint>(b.offset));
        big_counts.push_back(static_cast<MPI_Count>(b.bytes));
      }
    }
  };

  PeerMessages to_, from_;
  Comm graph_;
  bool large_ = false;  // some block or offset above the count limit
  Blocks send_, recv_;
  MPI_Request req_ = MPI_REQUEST_NULL;
};

}  // namespace

std::unique_ptr<Strategy> make_neighbor(const Plan& p, std::string_view name) {
  return std::make_unique<Neighbor>(p, name);
}

}  // namespace haloex
