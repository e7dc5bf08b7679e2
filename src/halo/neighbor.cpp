// One MPI_Ineighbor_alltoallv on a distributed-graph communicator whose edges
// are the plan's messages.
#include <algorithm>

#include "factories.hpp"
#include "stage_ops.hpp"

namespace haloex {

namespace {

// Some MPI libraries (MPICH) reject a null buffer even for zero counts, and
// an empty std::vector has a null data().
template <class T>
T* never_null(std::vector<T>& v) {
  static T dummy{};
  return v.empty() ? &dummy : v.data();
}

class Neighbor final : public Strategy {
 public:
  explicit Neighbor(const Plan& plan) : Strategy(plan) {
    const Stage& st = plan.direct();
    // A periodic dimension with 1 or 2 ranks, or a grid with one rank along
    // some dimension, joins one pair of ranks by several messages. How blocks
    // of repeated edges are matched differs between MPI libraries (Open MPI
    // and MPICH disagree), so the graph gets one edge per distinct peer and
    // that edge's block carries all messages to the peer, ordered by the
    // direction the data travels; the receiver orders its messages from that
    // peer the same way.
    std::vector<int> dests, srcs;
    std::vector<std::vector<int>> to_peer, from_peer;  // link indices per edge
    auto edge_of = [](std::vector<int>& peers, std::vector<std::vector<int>>& links, int peer) -> std::vector<int>& {
      for (size_t e = 0; e < peers.size(); ++e)
        if (peers[e] == peer) return links[e];
      peers.push_back(peer);
      return links.emplace_back();
    };
    for (size_t i = 0; i < st.links.size(); ++i) {
      const Link& l = st.links[i];
      if (l.self) continue;
      if (!l.send.empty()) edge_of(dests, to_peer, l.peer).push_back(static_cast<int>(i));
      if (!l.recv.empty()) edge_of(srcs, from_peer, l.peer).push_back(static_cast<int>(i));
    }
    auto by_travel = [&](std::vector<int>& v, bool incoming) {
      std::sort(v.begin(), v.end(), [&](int a, int b) {
        const Offset& oa = st.links[a].offset;
        const Offset& ob = st.links[b].offset;
        return incoming ? offset_index(opposite(oa)) < offset_index(opposite(ob)) : offset_index(oa) < offset_index(ob);
      });
    };
    send_buf_ = layout(st, to_peer, false, by_travel, send_counts_, send_displs_, send_jobs_);
    recv_buf_ = layout(st, from_peer, true, by_travel, recv_counts_, recv_displs_, recv_jobs_);

    mpi_check(MPI_Dist_graph_create_adjacent(plan.decomposition().comm(), static_cast<int>(srcs.size()),
                                             never_null(srcs), MPI_UNWEIGHTED, static_cast<int>(dests.size()),
                                             never_null(dests), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, graph_.out()),
              "MPI_Dist_graph_create_adjacent");
    verify_slots(srcs, static_cast<int>(dests.size()));
  }

  std::string_view name() const override { return "neighbor"; }

 private:
  // Lay out one buffer: a block per edge, messages inside each block in the
  // order of the direction their data travels.
  template <class Sort>
  static Buffer layout(const Stage& st, std::vector<std::vector<int>>& edges, bool incoming, Sort&& by_travel,
                       std::vector<int>& counts, std::vector<int>& displs, std::vector<PackJob>& jobs) {
    size_t at = 0;
    std::vector<size_t> offsets;
    for (auto& links : edges) {
      by_travel(links, incoming);
      displs.push_back(static_cast<int>(at));
      for (int i : links) {
        const Message& m = incoming ? st.links[i].recv : st.links[i].send;
        jobs.push_back({&m, nullptr});
        offsets.push_back(at);
        at += m.bytes;
      }
      counts.push_back(static_cast<int>(at) - displs.back());
    }
    Buffer buf(at);
    for (size_t k = 0; k < jobs.size(); ++k) jobs[k].buffer = buf.data() + offsets[k];
    return buf;
  }

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
    mpi_check(MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_SUM, plan_.decomposition().comm()), "MPI_Allreduce");
    if (any)
      throw InputError("neighbor: this MPI library delivered " + std::to_string(any) +
                       " neighbourhood-collective blocks to the wrong slot on this process grid; use 'direct' or "
                       "'persistent'");
  }

  void do_begin(std::span<const FieldView> fields) override {
    pack(send_jobs_, fields);
    mpi_check(MPI_Ineighbor_alltoallv(send_buf_.data(), never_null(send_counts_), never_null(send_displs_), MPI_BYTE,
                                      recv_buf_.data(), never_null(recv_counts_), never_null(recv_displs_), MPI_BYTE,
                                      graph_.get(), &req_),
              "MPI_Ineighbor_alltoallv");
    copy_self(plan_.direct(), fields);
  }

  void do_end(std::span<const FieldView> fields) override {
    mpi_check(MPI_Wait(&req_, MPI_STATUS_IGNORE), "MPI_Wait");
    unpack(recv_jobs_, fields);
  }

  Comm graph_;
  Buffer send_buf_, recv_buf_;
  std::vector<int> send_counts_, send_displs_, recv_counts_, recv_displs_;
  std::vector<PackJob> send_jobs_, recv_jobs_;
  MPI_Request req_ = MPI_REQUEST_NULL;
};

}  // namespace

std::unique_ptr<Strategy> make_neighbor(const Plan& p) { return std::make_unique<Neighbor>(p); }

}  // namespace haloex
