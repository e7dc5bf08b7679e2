#pragma once
// RAII owners for MPI handles and a checked-call helper.
#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

#include "haloex/core/error.hpp"

namespace haloex {

/// The MPI library's text for a return code.
std::string mpi_error_string(int rc);

/// Throw an Error naming the MPI call when it does not return MPI_SUCCESS.
void mpi_check(int rc, const char* what);

/// Owns a communicator and frees it; never owns MPI_COMM_WORLD/SELF/NULL.
class Comm {
 public:
  Comm() = default;
  /// Take ownership of `c` (it is freed unless it is a predefined communicator).
  explicit Comm(MPI_Comm c) : comm_(c) {}
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  /// Move ownership; `o` is left null.
  Comm(Comm&& o) noexcept : comm_(std::exchange(o.comm_, MPI_COMM_NULL)) {}
  /// Free the communicator held, then take `o`'s.
  Comm& operator=(Comm&& o) noexcept {
    if (this != &o) {
      reset();
      comm_ = std::exchange(o.comm_, MPI_COMM_NULL);
    }
    return *this;
  }
  ~Comm() { reset(); }
  /// The handle, still owned here.
  MPI_Comm get() const { return comm_; }
  /// Free what is held and return the slot for an MPI call that creates a
  /// communicator (MPI_Comm_split(..., c.out())), which this object then owns.
  MPI_Comm* out() {
    reset();
    return &comm_;
  }

 private:
  void reset();
  MPI_Comm comm_ = MPI_COMM_NULL;
};

/// Owns a committed datatype and frees it.
class Datatype {
 public:
  Datatype() = default;
  /// Take ownership of a committed `t`.
  explicit Datatype(MPI_Datatype t) : type_(t) {}
  Datatype(const Datatype&) = delete;
  Datatype& operator=(const Datatype&) = delete;
  /// Move ownership; `o` is left null.
  Datatype(Datatype&& o) noexcept : type_(std::exchange(o.type_, MPI_DATATYPE_NULL)) {}
  /// Free the datatype held, then take `o`'s.
  Datatype& operator=(Datatype&& o) noexcept {
    if (this != &o) {
      reset();
      type_ = std::exchange(o.type_, MPI_DATATYPE_NULL);
    }
    return *this;
  }
  ~Datatype() { reset(); }
  /// The handle, still owned here.
  MPI_Datatype get() const { return type_; }

 private:
  void reset();
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

/// Owns a user-defined reduction operation and frees it.
class Op {
 public:
  Op() = default;
  /// Create the operation (MPI_Op_create) from `fn`.
  Op(MPI_User_function* fn, bool commutative);
  Op(const Op&) = delete;
  Op& operator=(const Op&) = delete;
  ~Op();
  /// The handle, still owned here.
  MPI_Op get() const { return op_; }

 private:
  MPI_Op op_ = MPI_OP_NULL;
};

/// Persistent requests that must be freed (MPI_Request_free) when done with.
class PersistentRequests {
 public:
  PersistentRequests() = default;
  PersistentRequests(const PersistentRequests&) = delete;
  PersistentRequests& operator=(const PersistentRequests&) = delete;
  ~PersistentRequests();
  /// The requests, for the calls that create, start and wait for them.
  std::vector<MPI_Request>& get() { return reqs_; }

 private:
  std::vector<MPI_Request> reqs_;
};

/// Settings a program sets in its environment before MPI_Init (a variable
/// the user has set is left alone). Open MPI 4.1's MPI-IO opens every file
/// with a shared-file-pointer component, `sm`, that guards it with a POSIX
/// semaphore named after the file's base name in /dev/shm: a rank killed in
/// MPI_File_open or close leaves it behind taken, and the next run that opens
/// a file of that name waits on it forever (seen after a checkpointing run
/// was killed: the restart hung). haloex never uses shared file pointers, so
/// `OMPI_MCA_sharedfp=^sm` costs nothing (set where haloex is built against
/// Open MPI only). haloex's programs call this;
/// programs of their own that write haloex output should set it too.
void set_mpi_environment();

/// Size of a communicator.
int comm_size(MPI_Comm c);
/// Rank in a communicator.
int comm_rank(MPI_Comm c);
/// The ranks of comm that share this rank's node (MPI_COMM_TYPE_SHARED), in
/// comm's order. Collective.
Comm node_comm(MPI_Comm comm);

/// The largest x over the ranks of comm (collective): the slowest rank's time.
double max_over(MPI_Comm comm, double x);

/// Wait for a request by testing it with short sleeps in between, not by
/// spinning inside MPI: ranks that only wait for their turn on an
/// oversubscribed node then leave the cores to the ranks being measured.
void wait_politely(MPI_Request& req);

/// The sum of x over the ranks of comm (collective).
double sum_over(MPI_Comm comm, double x);

/// The mean of x over the ranks of comm (collective).
double mean_over(MPI_Comm comm, double x);

/// Make every rank of comm agree on a local failure (collective): when any
/// rank's `error` is not empty, every rank throws InputError with the
/// lowest such rank's message. For errors found by some ranks only (a file
/// one rank could not read), so that no rank is left waiting in a later
/// collective.
void throw_if_any(MPI_Comm comm, const std::string& error);

}  // namespace haloex
