#pragma once
// The staged pattern's pieces (internal header): one dimension after another,
// so that later dimensions forward edges and corners. What differs between
// the staged strategies is only how one dimension's messages travel, the
// protocol; each protocol is a small class in src/halo/protocols/.
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "haloex/core/large_count.hpp"
#include "haloex/halo/strategy.hpp"

namespace haloex::detail {

class StagedExchange;

/// One dimension's messages to other ranks, as a protocol drives them.
/// Links are ordered - then +; either may be missing at a wall.
class StageIo {
 public:
  /// Messages above `count_limit` bytes travel as derived datatypes (PlanOptions).
  StageIo(StagedExchange& owner, const Stage& stage, MPI_Comm comm, size_t count_limit);

  /// Pack every outgoing message of this dimension (timed as packing).
  void pack();
  /// Post every receive / send (MPI_Isend, or MPI_Issend when synchronous).
  void irecv_all();
  void isend_all(bool synchronous = false);
  /// Blocking sends and receives, all links in order.
  void send_all();
  void recv_all();
  /// Blocking send to / receive from the neighbour on one side (-1 or +1).
  void send(int side);
  void recv(int side);
  /// One MPI_Sendrecv: send to the neighbour on side `to`, receive from the
  /// one on the opposite side.
  void sendrecv(int to);
  /// Complete every request posted so far.
  void wait();

 private:
  friend class StagedExchange;
  int link(int side) const { return side < 0 ? minus_ : plus_; }
  bool sends(int i) const;
  bool receives(int i) const;

  StagedExchange& owner_;
  const Stage& stage_;
  MPI_Comm comm_;
  StageBuffers bufs_;
  std::vector<PackJob> send_jobs_, recv_jobs_;
  std::vector<LargeCount> send_counts_, recv_counts_;  // per link (0 where nothing travels)
  std::vector<MPI_Request> reqs_;
  int minus_ = -1, plus_ = -1;
};

/// How one dimension's messages travel. start() runs from packing until the
/// messages are posted (a blocking protocol finishes there); complete() ends
/// when every message has arrived and every send buffer is free again. The
/// last dimension is started in begin() and completed in end(), so that
/// overlapped work hides it.
class Protocol {
 public:
  virtual ~Protocol() = default;
  /// Called once per exchange before the first dimension starts.
  virtual void prepare(std::span<StageIo>) {}
  virtual void start(StageIo& io) = 0;
  virtual void complete(StageIo& io) { io.wait(); }
};

/// A staged strategy that moves each dimension's messages by `protocol`.
std::unique_ptr<Strategy> make_staged_with(const Plan& plan, std::string_view name,
                                           std::unique_ptr<Protocol> protocol);

}  // namespace haloex::detail
