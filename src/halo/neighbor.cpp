// One MPI_Ineighbor_alltoallv on a distributed-graph communicator whose edges
// are the plan's messages.
#include <algorithm>

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
    for (const PeerBlock& b : to_.blocks) {
      dests.push_back(b.peer);
      send_counts_.push_back(mpi_count(b.bytes, "a neighbor halo block"));
      send_displs_.push_back(mpi_count(b.offset, "a neighbor halo buffer"));
    }
    for (const PeerBlock& b : from_.blocks) {
      srcs.push_back(b.peer);
      recv_counts_.push_back(mpi_count(b.bytes, "a neighbor halo block"));
      recv_displs_.push_back(mpi_count(b.offset, "a neighbor halo buffer"));
    }
    mpi_check(
        MPI_Dist_graph_create_adjacent(plan.decomposition().comm(), static_cast<int>(srcs.size()),
                                       never_null(srcs), MPI_UNWEIGHTED, static_cast<int>(dests.size()),
                                       never_null(dests), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, graph_.out()),
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
    mpi_check(MPI_Ineighbor_alltoallv(to_.buffer.data(), never_null(send_counts_), never_null(send_displs_),
                                      MPI_BYTE, from_.buffer.data(), never_null(recv_counts_),
                                      never_null(recv_displs_), MPI_BYTE, graph_.get(), &req_),
              "MPI_Ineighbor_alltoallv");
    copy_self(plan_.direct(), fields);
  }

  void do_end(std::span<const FieldView> fields) override {
    mpi_check(MPI_Wait(&req_, MPI_STATUS_IGNORE), "MPI_Wait");
    unpack(from_.jobs, fields);
  }

  PeerMessages to_, from_;
  Comm graph_;
  std::vector<int> send_counts_, send_displs_, recv_counts_, recv_displs_;
  MPI_Request req_ = MPI_REQUEST_NULL;
};

}  // namespace

std::unique_ptr<Strategy> make_neighbor(const Plan& p, std::string_view name) {
  return std::make_unique<Neighbor>(p, name);
}

}  // namespace haloex
