// The staged pattern: one dimension after another, so that edges and corners
// are forwarded by later dimensions (Ludwig's original exchange), with the
// per-dimension point-to-point protocols of the 2-D stencil study.
#include <string>

#include "factories.hpp"
#include "stage_ops.hpp"

namespace haloex {

namespace {

enum class Protocol { staged, sendrecv, irecv_send, isend_recv, irecv_isend, red_black, prepost };

const char* protocol_name(Protocol p) {
  switch (p) {
    case Protocol::staged: return "staged";
    case Protocol::sendrecv: return "sendrecv";
    case Protocol::irecv_send: return "irecv-send";
    case Protocol::isend_recv: return "isend-recv";
    case Protocol::irecv_isend: return "irecv-isend";
    case Protocol::red_black: return "red-black";
    case Protocol::prepost: return "prepost";
  }
  return "?";
}

class Staged final : public Strategy {
 public:
  Staged(const Plan& plan, Protocol p) : Strategy(plan), protocol_(p) {
    if (!plan.staged_problem().empty())
      throw InputError(std::string(protocol_name(p)) + " cannot serve this plan: " + plan.staged_problem());
    const Decomposition& dec = plan.decomposition();
    if (p == Protocol::red_black) {
      // Neighbours along a dimension must have opposite colours, which a
      // periodic ring of odd length breaks.
      for (int d = 0; d < dec.ndim(); ++d)
        if (dec.periodic(d) && dec.procs(d) > 1 && dec.procs(d) % 2 != 0)
          throw InputError("red-black needs an even number of ranks along every periodic dimension, but the process "
                           "grid has " + std::to_string(dec.procs(d)) + " along " + std::string(1, "xyz"[d]) +
                           "; choose another grid (--procs) or another strategy");
      int sum = 0;
      for (int d = 0; d < dec.ndim(); ++d) sum += dec.coord(d);
      red_ = sum % 2 == 0;
    }
    reqs_.reserve(4);
    for (const Stage& st : plan.staged()) {
      bufs_.emplace_back(st);
      Jobs j;
      j.send = detail::remote_jobs(st, bufs_.back().send, &Link::send);
      j.recv = detail::remote_jobs(st, bufs_.back().recv, &Link::recv);
      jobs_.push_back(std::move(j));
    }
  }

  std::string_view name() const override { return protocol_name(protocol_); }

 private:
  struct Jobs {
    std::vector<PackJob> send, recv;
  };

  // Each dimension must be complete before the next forwards it, so the whole
  // exchange happens in begin(); end() has nothing left to do.
  void do_begin(std::span<const FieldView> fields) override {
    const auto& stages = plan_.staged();
    if (protocol_ == Protocol::prepost) return prepost_all(fields);
    for (size_t d = 0; d < stages.size(); ++d) {
      copy_self(stages[d], fields);
      exchange_stage(stages[d], bufs_[d], jobs_[d], fields);
    }
  }
  void do_end(std::span<const FieldView>) override {}

  void exchange_stage(const Stage& st, StageBuffers& b, const Jobs& jobs, std::span<const FieldView> fields) {
    MPI_Comm comm = plan_.decomposition().comm();
    std::vector<MPI_Request>& reqs = reqs_;
    reqs.clear();
    auto irecv = [&](size_t i) {
      const Link& l = st.links[i];
      if (l.self || l.recv.empty()) return;
      reqs.push_back(MPI_REQUEST_NULL);
      mpi_check(MPI_Irecv(b.recv[i].data(), static_cast<int>(l.recv.bytes), MPI_BYTE, l.peer, l.recv.tag, comm,
                          &reqs.back()),
                "MPI_Irecv");
    };
    auto isend = [&](size_t i, bool synchronous) {
      const Link& l = st.links[i];
      if (l.self || l.send.empty()) return;
      reqs.push_back(MPI_REQUEST_NULL);
      auto fn = synchronous ? MPI_Issend : MPI_Isend;
      mpi_check(fn(b.send[i].data(), static_cast<int>(l.send.bytes), MPI_BYTE, l.peer, l.send.tag, comm,
                   &reqs.back()),
                synchronous ? "MPI_Issend" : "MPI_Isend");
    };
    auto send = [&](size_t i) {
      const Link& l = st.links[i];
      if (l.self || l.send.empty()) return;
      mpi_check(MPI_Send(b.send[i].data(), static_cast<int>(l.send.bytes), MPI_BYTE, l.peer, l.send.tag, comm),
                "MPI_Send");
    };
    auto recv = [&](size_t i) {
      const Link& l = st.links[i];
      if (l.self || l.recv.empty()) return;
      mpi_check(MPI_Recv(b.recv[i].data(), static_cast<int>(l.recv.bytes), MPI_BYTE, l.peer, l.recv.tag, comm,
                         MPI_STATUS_IGNORE),
                "MPI_Recv");
    };
    auto waitall = [&] {
      mpi_check(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
      reqs.clear();
    };
    const size_t n = st.links.size();
    // Links are ordered - then + (either may be missing at a non-periodic edge).
    const int minus = index_of(st, -1), plus = index_of(st, +1);

    switch (protocol_) {
      case Protocol::staged:  // Ludwig: copy to buffers, post receives, post sends, block
        pack(jobs.send, fields);
        for (size_t i = 0; i < n; ++i) irecv(i);
        for (size_t i = 0; i < n; ++i) isend(i, false);
        waitall();
        break;
      case Protocol::irecv_isend:
        for (size_t i = 0; i < n; ++i) irecv(i);
        pack(jobs.send, fields);
        for (size_t i = 0; i < n; ++i) isend(i, false);
        waitall();
        break;
      case Protocol::irecv_send:
        for (size_t i = 0; i < n; ++i) irecv(i);
        pack(jobs.send, fields);
        for (size_t i = 0; i < n; ++i) send(i);
        waitall();
        break;
      case Protocol::isend_recv:
        pack(jobs.send, fields);
        for (size_t i = 0; i < n; ++i) isend(i, false);
        for (size_t i = 0; i < n; ++i) recv(i);
        waitall();
        break;
      case Protocol::sendrecv:
        pack(jobs.send, fields);
        // Half-step towards +: send to the + neighbour, receive from the -.
        sendrecv(st, b, plus, minus);
        // Half-step towards -.
        sendrecv(st, b, minus, plus);
        break;
      case Protocol::red_black: {
        pack(jobs.send, fields);
        auto sends = [&] {
          if (plus >= 0) send(static_cast<size_t>(plus));
          if (minus >= 0) send(static_cast<size_t>(minus));
        };
        auto recvs = [&] {
          if (minus >= 0) recv(static_cast<size_t>(minus));
          if (plus >= 0) recv(static_cast<size_t>(plus));
        };
        if (red_) {
          sends();
          recvs();
        } else {
          recvs();
          sends();
        }
        break;
      }
      case Protocol::prepost:  // runs through prepost_all(), never here
        throw Error("prepost: exchange_stage called");
    }
    unpack(jobs.recv, fields);
  }

  // The stencil paper's "mpi" version: the receives of every dimension are
  // posted before anything is sent (their buffers are distinct and their tags
  // name the direction, so an early message of a later dimension cannot land
  // in the wrong place); then one send phase per dimension, each completed
  // (its receives and sends) before the next packs what it forwards.
  void prepost_all(std::span<const FieldView> fields) {
    MPI_Comm comm = plan_.decomposition().comm();
    const auto& stages = plan_.staged();
    stage_reqs_.resize(stages.size());
    for (size_t d = 0; d < stages.size(); ++d) {
      std::vector<MPI_Request>& reqs = stage_reqs_[d];
      reqs.clear();
      for (size_t i = 0; i < stages[d].links.size(); ++i) {
        const Link& l = stages[d].links[i];
        if (l.self || l.recv.empty()) continue;
        reqs.push_back(MPI_REQUEST_NULL);
        mpi_check(MPI_Irecv(bufs_[d].recv[i].data(), static_cast<int>(l.recv.bytes), MPI_BYTE, l.peer, l.recv.tag,
                            comm, &reqs.back()),
                  "MPI_Irecv");
      }
    }
    for (size_t d = 0; d < stages.size(); ++d) {
      const Stage& st = stages[d];
      std::vector<MPI_Request>& reqs = stage_reqs_[d];
      copy_self(st, fields);
      pack(jobs_[d].send, fields);
      for (size_t i = 0; i < st.links.size(); ++i) {
        const Link& l = st.links[i];
        if (l.self || l.send.empty()) continue;
        reqs.push_back(MPI_REQUEST_NULL);
        mpi_check(MPI_Isend(bufs_[d].send[i].data(), static_cast<int>(l.send.bytes), MPI_BYTE, l.peer, l.send.tag,
                            comm, &reqs.back()),
                  "MPI_Isend");
      }
      mpi_check(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
      unpack(jobs_[d].recv, fields);
    }
  }

  void sendrecv(const Stage& st, StageBuffers& b, int to, int from) {
    MPI_Comm comm = plan_.decomposition().comm();
    const Link* sl = to >= 0 && !st.links[to].self && !st.links[to].send.empty() ? &st.links[to] : nullptr;
    const Link* rl = from >= 0 && !st.links[from].self && !st.links[from].recv.empty() ? &st.links[from] : nullptr;
    if (!sl && !rl) return;
    std::byte none{};  // MPICH rejects null buffers even for zero counts
    mpi_check(MPI_Sendrecv(sl ? b.send[to].data() : &none, sl ? static_cast<int>(sl->send.bytes) : 0, MPI_BYTE,
                           sl ? sl->peer : MPI_PROC_NULL, sl ? sl->send.tag : 0, rl ? b.recv[from].data() : &none,
                           rl ? static_cast<int>(rl->recv.bytes) : 0, MPI_BYTE, rl ? rl->peer : MPI_PROC_NULL,
                           rl ? rl->recv.tag : 0, comm, MPI_STATUS_IGNORE),
              "MPI_Sendrecv");
  }

  static int index_of(const Stage& st, int side) {
    for (size_t i = 0; i < st.links.size(); ++i) {
      const Offset& o = st.links[i].offset;
      if (o[0] + o[1] + o[2] == side) return static_cast<int>(i);
    }
    return -1;
  }

  Protocol protocol_;
  bool red_ = true;
  std::vector<StageBuffers> bufs_;
  std::vector<Jobs> jobs_;
  std::vector<MPI_Request> reqs_;  // kept to avoid an allocation per stage
  std::vector<std::vector<MPI_Request>> stage_reqs_;  // prepost: one list per dimension
};

}  // namespace

std::unique_ptr<Strategy> make_staged(const Plan& p) { return std::make_unique<Staged>(p, Protocol::staged); }
std::unique_ptr<Strategy> make_sendrecv(const Plan& p) { return std::make_unique<Staged>(p, Protocol::sendrecv); }
std::unique_ptr<Strategy> make_irecv_send(const Plan& p) { return std::make_unique<Staged>(p, Protocol::irecv_send); }
std::unique_ptr<Strategy> make_isend_recv(const Plan& p) { return std::make_unique<Staged>(p, Protocol::isend_recv); }
std::unique_ptr<Strategy> make_irecv_isend(const Plan& p) {
  return std::make_unique<Staged>(p, Protocol::irecv_isend);
}
std::unique_ptr<Strategy> make_red_black(const Plan& p) { return std::make_unique<Staged>(p, Protocol::red_black); }
std::unique_ptr<Strategy> make_prepost(const Plan& p) { return std::make_unique<Staged>(p, Protocol::prepost); }

}  // namespace haloex
