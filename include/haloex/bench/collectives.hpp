#pragma once
// The collectives the CRESTA benchmarks time, as one table: each entry names
// an operation, says whether it is the non-blocking form, and knows how to
// start it. A CollectiveRun owns the buffers of one (operation, communicator,
// size) and checks every result against values computed independently from
// the ranks and element indices (OSU's -c), outside the timed region.
#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace haloex {

/// The operation behind a collective.
enum class CollKind { barrier, bcast, reduce, allreduce, alltoall };

/// One row of the table.
struct CollectiveSpec {
  std::string name;  ///< "allreduce", "iallreduce", ...
  CollKind kind;     ///< the operation
  bool nonblocking;  ///< whether it is the non-blocking form
  /// The MPI function it calls, e.g. "MPI_Iallreduce".
  std::string mpi_name() const;
  /// The blocking/non-blocking counterpart's name ("allreduce" <-> "iallreduce").
  std::string counterpart() const;
};

/// Every collective: barrier, bcast, reduce, allreduce, alltoall and their
/// non-blocking forms, in that order.
const std::vector<CollectiveSpec>& collectives();

/// Look up names ("all", "blocking" and "nonblocking" are groups). Throws
/// InputError naming the valid names.
std::vector<CollectiveSpec> find_collectives(const std::vector<std::string>& names);

/// Buffers and calls of one collective on one communicator. Message size is
/// in bytes of doubles per rank (alltoall: per destination), rounded down to
/// whole doubles, at least one; barriers move nothing. Root is rank 0.
class CollectiveRun {
 public:
  /// Buffers for `bytes` per rank on `comm`, send buffer filled, receive buffer
  /// poisoned (no communication).
  CollectiveRun(const CollectiveSpec& spec, MPI_Comm comm, size_t bytes);
  CollectiveRun(const CollectiveRun&) = delete;
  CollectiveRun& operator=(const CollectiveRun&) = delete;
  ~CollectiveRun();

  /// The collective it runs.
  const CollectiveSpec& spec() const { return spec_; }
  /// Bytes the table reports: elements * 8 (0 for barriers).
  size_t bytes() const;
  /// Poison the receive buffer so a collective that does nothing fails the check.
  void poison();
  /// Start the collective (a blocking one runs to completion here).
  void start();
  /// Complete it (a no-op for blocking ones).
  void wait();
  /// Test it once (drives progress; true when complete).
  bool test();
  /// Wrong elements of this rank's result; the first one described in `what`.
  long check(std::string* what = nullptr) const;
  /// The receive buffer (tests corrupt it to see the check fail).
  std::vector<double>& received() { return recv_; }

 private:
  double sent_value(int rank, int dest, size_t k) const;
  CollectiveSpec spec_;
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  size_t count_ = 0;  // doubles per rank (alltoall: per destination)
  std::vector<double> send_, recv_;
  MPI_Request req_ = MPI_REQUEST_NULL;
};

}  // namespace haloex
