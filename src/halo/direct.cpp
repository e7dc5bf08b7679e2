// The direct pattern: every neighbour (26 in 3-D) at once, as in the 2016
// paper's non-blocking exchange, in three flavours of completion. Messages
// that go to the same rank travel as one (PeerMessages), so a 2-rank
// periodic dimension costs one message each way, not one per direction.
#include "haloex/core/large_count.hpp"
#include "haloex/halo/strategy.hpp"
#include "stage_ops.hpp"

namespace haloex {

namespace {

using detail::PeerBlock;
using detail::PeerMessages;

class Direct final : public Strategy {
 public:
  enum class Mode { waitall, waitany, persistent };

  Direct(const Plan& plan, std::string_view name, Mode mode)
      : Strategy(plan, name),
        mode_(mode),
        to_(plan.direct(), &Link::send),
        from_(plan.direct(), &Link::recv) {
    reqs_.resize(from_.blocks.size() + to_.blocks.size(), MPI_REQUEST_NULL);
    // One message per block whatever its size (a derived type above the limit).
    const size_t limit = plan.options().mpi_count_limit;
    for (const PeerBlock& b : from_.blocks) recv_counts_.emplace_back(b.bytes, MPI_BYTE, limit);
    for (const PeerBlock& b : to_.blocks) send_counts_.emplace_back(b.bytes, MPI_BYTE, limit);
    if (mode_ != Mode::persistent) return;
    // Requests are bound to fixed buffers once; begin() only starts them.
    MPI_Comm comm = plan.decomposition().comm();
    auto& reqs = persistent_.get();
    for (size_t k = 0; k < from_.blocks.size(); ++k) {
      const PeerBlock& b = from_.blocks[k];
      reqs.push_back(MPI_REQUEST_NULL);
      mpi_check(large_recv_init(from_.data(b), recv_counts_[k], b.peer, b.tag, comm, &reqs.back()),
                "MPI_Recv_init");
    }
    for (size_t k = 0; k < to_.blocks.size(); ++k) {
      const PeerBlock& b = to_.blocks[k];
      reqs.push_back(MPI_REQUEST_NULL);
      mpi_check(large_send_init(to_.data(b), send_counts_[k], b.peer, b.tag, comm, &reqs.back()),
                "MPI_Send_init");
    }
  }

 private:
  void do_begin(std::span<const FieldView> fields) override {
    MPI_Comm comm = plan_.decomposition().comm();
    const size_t nr = from_.blocks.size(), ns = to_.blocks.size();
    MPI_Request* reqs = requests();
    // Receives first, so no message waits for its buffer.
    if (mode_ == Mode::persistent) {
      if (nr) mpi_check(MPI_Startall(static_cast<int>(nr), reqs), "MPI_Startall");
    } else {
      for (size_t k = 0; k < nr; ++k) {
        const PeerBlock& b = from_.blocks[k];
        mpi_check(large_irecv(from_.data(b), recv_counts_[k], b.peer, b.tag, comm, &reqs[k]), "MPI_Irecv");
      }
    }
    pack(to_.jobs, fields);
    if (mode_ == Mode::persistent) {
      if (ns) mpi_check(MPI_Startall(static_cast<int>(ns), reqs + nr), "MPI_Startall");
    } else {
      for (size_t k = 0; k < ns; ++k) {
        const PeerBlock& b = to_.blocks[k];
        mpi_check(large_isend(to_.data(b), send_counts_[k], b.peer, b.tag, comm, &reqs[nr + k]), "MPI_Isend");
      }
    }
    // Local copies overlap with the messages in flight.
    copy_self(plan_.direct(), fields);
  }

  void do_end(std::span<const FieldView> fields) override {
    const size_t nr = from_.blocks.size(), ns = to_.blocks.size();
    MPI_Request* reqs = requests();
    if (mode_ == Mode::waitany) {
      // Unpack each peer's message as soon as it is there.
      for (size_t n = 0; n < nr; ++n) {
        int k = MPI_UNDEFINED;
        mpi_check(MPI_Waitany(static_cast<int>(nr), reqs, &k, MPI_STATUS_IGNORE), "MPI_Waitany");
        unpack(from_.blocks[static_cast<size_t>(k)].jobs, fields);
      }
    } else {
      mpi_check(MPI_Waitall(static_cast<int>(nr), reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
      unpack(from_.jobs, fields);
    }
    mpi_check(MPI_Waitall(static_cast<int>(ns), reqs + nr, MPI_STATUSES_IGNORE), "MPI_Waitall");
  }

  MPI_Request* requests() { return mode_ == Mode::persistent ? persistent_.get().data() : reqs_.data(); }

  Mode mode_;
  PeerMessages to_, from_;
  std::vector<LargeCount> send_counts_, recv_counts_;  // per block of to_ / from_
  std::vector<MPI_Request> reqs_;
  PersistentRequests persistent_;
};

}  // namespace

std::unique_ptr<Strategy> make_direct(const Plan& plan, std::string_view name) {
  return std::make_unique<Direct>(plan, name, Direct::Mode::waitall);
}
std::unique_ptr<Strategy> make_direct_waitany(const Plan& plan, std::string_view name) {
  return std::make_unique<Direct>(plan, name, Direct::Mode::waitany);
}
std::unique_ptr<Strategy> make_persistent(const Plan& plan, std::string_view name) {
  return std::make_unique<Direct>(plan, name, Direct::Mode::persistent);
}

}  // namespace haloex
