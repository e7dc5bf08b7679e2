// The direct pattern: every neighbour (26 in 3-D) at once, as in the 2016
// paper's non-blocking exchange, in three flavours of completion.
#include "factories.hpp"

#include "stage_ops.hpp"

namespace haloex {

namespace {

class Direct final : public Strategy {
 public:
  enum class Mode { waitall, waitany, persistent };

  Direct(const Plan& plan, Mode mode) : Strategy(plan), mode_(mode), bufs_(plan.direct()) {
    const Stage& st = plan.direct();
    MPI_Comm comm = plan.decomposition().comm();
    for (size_t i = 0; i < st.links.size(); ++i) {
      const Link& l = st.links[i];
      if (l.self) continue;
      if (!l.recv.empty()) recv_links_.push_back(i);
      if (!l.send.empty()) send_links_.push_back(i);
    }
    if (mode_ == Mode::persistent) {
      // Requests are bound to fixed buffers once; begin() only starts them.
      auto& reqs = persistent_.get();
      for (size_t i : recv_links_) {
        const Link& l = st.links[i];
        reqs.push_back(MPI_REQUEST_NULL);
        mpi_check(MPI_Recv_init(bufs_.recv[i].data(), static_cast<int>(l.recv.bytes), MPI_BYTE, l.peer, l.recv.tag,
                                comm, &reqs.back()),
                  "MPI_Recv_init");
      }
      for (size_t i : send_links_) {
        const Link& l = st.links[i];
        reqs.push_back(MPI_REQUEST_NULL);
        mpi_check(MPI_Ssend_init(bufs_.send[i].data(), static_cast<int>(l.send.bytes), MPI_BYTE, l.peer, l.send.tag,
                                 comm, &reqs.back()),
                  "MPI_Ssend_init");
      }
    }
    reqs_.resize(recv_links_.size() + send_links_.size(), MPI_REQUEST_NULL);
    recv_jobs_ = detail::remote_jobs(st, bufs_.recv, &Link::recv);
    send_jobs_ = detail::remote_jobs(st, bufs_.send, &Link::send);
  }

  std::string_view name() const override {
    return mode_ == Mode::waitall ? "direct" : mode_ == Mode::waitany ? "direct-waitany" : "persistent";
  }

 private:
  void do_begin(std::span<const FieldView> fields) override {
    const Stage& st = plan_.direct();
    MPI_Comm comm = plan_.decomposition().comm();
    const size_t nr = recv_links_.size();
    // Receives first, so no message waits for its buffer.
    if (mode_ == Mode::persistent) {
      if (nr) mpi_check(MPI_Startall(static_cast<int>(nr), persistent_.get().data()), "MPI_Startall");
    } else {
      for (size_t k = 0; k < nr; ++k) {
        const Link& l = st.links[recv_links_[k]];
        mpi_check(MPI_Irecv(bufs_.recv[recv_links_[k]].data(), static_cast<int>(l.recv.bytes), MPI_BYTE, l.peer,
                            l.recv.tag, comm, &reqs_[k]),
                  "MPI_Irecv");
      }
    }
    pack(send_jobs_, fields);
    if (mode_ == Mode::persistent) {
      if (!send_links_.empty())
        mpi_check(MPI_Startall(static_cast<int>(send_links_.size()), persistent_.get().data() + nr), "MPI_Startall");
    } else {
      for (size_t k = 0; k < send_links_.size(); ++k) {
        const Link& l = st.links[send_links_[k]];
        mpi_check(MPI_Issend(bufs_.send[send_links_[k]].data(), static_cast<int>(l.send.bytes), MPI_BYTE, l.peer,
                             l.send.tag, comm, &reqs_[nr + k]),
                  "MPI_Issend");
      }
    }
    // Local copies overlap with the messages in flight.
    copy_self(st, fields);
  }

  void do_end(std::span<const FieldView> fields) override {
    const size_t nr = recv_links_.size(), ns = send_links_.size();
    MPI_Request* reqs = mode_ == Mode::persistent ? persistent_.get().data() : reqs_.data();
    if (mode_ == Mode::waitany) {
      // Unpack each message as soon as it is there.
      for (size_t n = 0; n < nr; ++n) {
        int k = MPI_UNDEFINED;
        mpi_check(MPI_Waitany(static_cast<int>(nr), reqs, &k, MPI_STATUS_IGNORE), "MPI_Waitany");
        unpack({&recv_jobs_[static_cast<size_t>(k)], 1}, fields);
      }
    } else {
      mpi_check(MPI_Waitall(static_cast<int>(nr), reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
      unpack(recv_jobs_, fields);
    }
    mpi_check(MPI_Waitall(static_cast<int>(ns), reqs + nr, MPI_STATUSES_IGNORE), "MPI_Waitall");
  }

  Mode mode_;
  StageBuffers bufs_;
  std::vector<size_t> recv_links_, send_links_;
  std::vector<PackJob> recv_jobs_, send_jobs_;
  std::vector<MPI_Request> reqs_;
  PersistentRequests persistent_;
};

}  // namespace

std::unique_ptr<Strategy> make_direct(const Plan& plan) { return std::make_unique<Direct>(plan, Direct::Mode::waitall); }
std::unique_ptr<Strategy> make_direct_waitany(const Plan& plan) {
  return std::make_unique<Direct>(plan, Direct::Mode::waitany);
}
std::unique_ptr<Strategy> make_persistent(const Plan& plan) {
  return std::make_unique<Direct>(plan, Direct::Mode::persistent);
}

}  // namespace haloex
