// The staged pattern: one dimension after another, so that edges and corners
// are forwarded by later dimensions (Ludwig's original exchange). The
// protocol that moves one dimension's messages is a separate piece.
#include "staged.hpp"

#include "stage_ops.hpp"

namespace haloex::detail {

class StagedExchange final : public Strategy {
 public:
  StagedExchange(const Plan& plan, std::string_view name, std::unique_ptr<Protocol> protocol)
      : Strategy(plan, name), protocol_(std::move(protocol)) {
    if (!plan.staged_problem().empty())
      throw InputError(std::string(name) + " cannot serve this plan: " + plan.staged_problem());
    ios_.reserve(plan.staged().size());  // StageIo is neither moved nor copied once built
    for (const Stage& st : plan.staged())
      ios_.emplace_back(*this, st, plan.decomposition().comm(), plan.options().mpi_count_limit);
  }

  void pack_stage(StageIo& io) { pack(io.send_jobs_, fields_); }

 private:
  // Each dimension completes before the next forwards it; the last one is
  // left in flight for end().
  void do_begin(std::span<const FieldView> fields) override {
    fields_ = fields;
    protocol_->prepare(ios_);
    for (size_t d = 0; d < ios_.size(); ++d) {
      copy_self(ios_[d].stage_, fields);
      protocol_->start(ios_[d]);
      if (d + 1 < ios_.size()) finish(ios_[d]);
    }
  }
  void do_end(std::span<const FieldView>) override {
    if (!ios_.empty()) finish(ios_.back());
  }
  void finish(StageIo& io) {
    protocol_->complete(io);
    unpack(io.recv_jobs_, fields_);
  }

  std::unique_ptr<Protocol> protocol_;
  std::vector<StageIo> ios_;
  std::span<const FieldView> fields_;  // the base class keeps them alive from begin() to end()
};

StageIo::StageIo(StagedExchange& owner, const Stage& stage, MPI_Comm comm, size_t count_limit)
    : owner_(owner), stage_(stage), comm_(comm), bufs_(stage) {
  send_jobs_ = remote_jobs(stage, bufs_.send, &Link::send);
  recv_jobs_ = remote_jobs(stage, bufs_.recv, &Link::recv);
  for (const Link& l : stage.links) {
    send_counts_.emplace_back(l.self ? 0 : l.send.bytes, MPI_BYTE, count_limit);
    recv_counts_.emplace_back(l.self ? 0 : l.recv.bytes, MPI_BYTE, count_limit);
  }
  reqs_.reserve(2 * stage.links.size());
  for (size_t i = 0; i < stage.links.size(); ++i) {
    const Offset& o = stage.links[i].offset;
    (o[0] + o[1] + o[2] < 0 ? minus_ : plus_) = static_cast<int>(i);
  }
}

bool StageIo::sends(int i) const { return i >= 0 && !stage_.links[i].self && !stage_.links[i].send.empty(); }
bool StageIo::receives(int i) const {
  return i >= 0 && !stage_.links[i].self && !stage_.links[i].recv.empty();
}

void StageIo::pack() { owner_.pack_stage(*this); }

void StageIo::irecv_all() {
  for (size_t i = 0; i < stage_.links.size(); ++i) {
    if (!receives(static_cast<int>(i))) continue;
    const Link& l = stage_.links[i];
    reqs_.push_back(MPI_REQUEST_NULL);
    mpi_check(large_irecv(bufs_.recv[i].data(), recv_counts_[i], l.peer, l.recv.tag, comm_, &reqs_.back()),
              "MPI_Irecv");
  }
}

void StageIo::isend_all(bool synchronous) {
  for (size_t i = 0; i < stage_.links.size(); ++i) {
    if (!sends(static_cast<int>(i))) continue;
    const Link& l = stage_.links[i];
    reqs_.push_back(MPI_REQUEST_NULL);
    mpi_check(large_isend(bufs_.send[i].data(), send_counts_[i], l.peer, l.send.tag, comm_, &reqs_.back(),
                          synchronous),
              synchronous ? "MPI_Issend" : "MPI_Isend");
  }
}

void StageIo::send(int side) {
  const int i = link(side);
  if (!sends(i)) return;
  const Link& l = stage_.links[i];
  mpi_check(large_send(bufs_.send[i].data(), send_counts_[i], l.peer, l.send.tag, comm_), "MPI_Send");
}

void StageIo::recv(int side) {
  const int i = link(side);
  if (!receives(i)) return;
  const Link& l = stage_.links[i];
  mpi_check(large_recv(bufs_.recv[i].data(), recv_counts_[i], l.peer, l.recv.tag, comm_, MPI_STATUS_IGNORE),
            "MPI_Recv");
}

void StageIo::send_all() {
  send(-1);
  send(+1);
}
void StageIo::recv_all() {
  recv(-1);
  recv(+1);
}

void StageIo::sendrecv(int to) {
  const int s = link(to), r = link(-to);
  const Link* sl = sends(s) ? &stage_.links[s] : nullptr;
  const Link* rl = receives(r) ? &stage_.links[r] : nullptr;
  if (!sl && !rl) return;
  std::byte none{};  // MPICH rejects null buffers even for zero counts
  const LargeCount nothing;
  mpi_check(large_sendrecv(sl ? bufs_.send[s].data() : &none, sl ? send_counts_[s] : nothing,
                           sl ? sl->peer : MPI_PROC_NULL, sl ? sl->send.tag : 0,
                           rl ? bufs_.recv[r].data() : &none, rl ? recv_counts_[r] : nothing,
                           rl ? rl->peer : MPI_PROC_NULL, rl ? rl->recv.tag : 0, comm_, MPI_STATUS_IGNORE),
            "MPI_Sendrecv");
}

void StageIo::wait() {
  mpi_check(MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  reqs_.clear();
}

std::unique_ptr<Strategy> make_staged_with(const Plan& plan, std::string_view name,
                                           std::unique_ptr<Protocol> protocol) {
  return std::make_unique<StagedExchange>(plan, name, std::move(protocol));
}

}  // namespace haloex::detail
