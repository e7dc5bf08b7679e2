#pragma once
// Messages and file accesses of any size as one MPI call each. MPI-3 calls
// take an int count, so more than 2^31 - 1 elements cannot be described by
// (count, element type); they can by (1, a derived type of n elements), the
// BigMPI technique, which keeps one message one message. MPI-4 libraries
// (MPI_VERSION >= 4) have large-count variants of the calls (MPI_Isend_c,
// ...), which the call wrappers below use instead. Open MPI 4.1 is MPI-3.1,
// so there the derived types are what runs.
//
// The limit is a parameter (default: INT_MAX) so that tests can force the
// large-count path on small data; it is never global state.
#include <mpi.h>

#include <climits>
#include <cstddef>

#include "haloex/core/mpi.hpp"

namespace haloex {

/// The largest count an int-count MPI call takes: the default limit.
inline constexpr size_t mpi_int_count_max = INT_MAX;

/// Throw Error unless `limit` can serve as a count limit (2 .. INT_MAX).
void check_count_limit(size_t limit);

/// A committed datatype of exactly n consecutive `elem`s (n >= 1) in which
/// no constructor is given a count above `limit`: up to `limit` elements one
/// MPI_Type_contiguous; above, floor(n / limit) chunks of `limit` elements
/// (themselves built this way when there are more than `limit` chunks) and
/// the remainder, joined by MPI_Type_create_struct.
Datatype large_contiguous_type(size_t n, MPI_Datatype elem, size_t limit = mpi_int_count_max);

/// n elements of `elem` as one int-count MPI call takes them: (n, elem) up
/// to `limit`, (1, large_contiguous_type) above it. Build it once where the
/// same message travels again (its type then lives as long as the object).
class LargeCount {
 public:
  /// No data (count 0 of MPI_BYTE).
  LargeCount() = default;
  /// Throws Error when `limit` is outside 2 .. INT_MAX.
  LargeCount(size_t n, MPI_Datatype elem = MPI_BYTE, size_t limit = mpi_int_count_max);

  /// The count an int-count call is given.
  int count() const { return count_; }
  /// The datatype an int-count call is given (the element type, or a derived one).
  MPI_Datatype type() const { return type_; }
  /// How many elements are described.
  size_t elements() const { return n_; }
  /// The element type described.
  MPI_Datatype element() const { return elem_; }
  /// Whether n is above the limit (a derived type, or an MPI-4 _c call).
  bool large() const { return large_; }

 private:
  size_t n_ = 0;
  MPI_Datatype elem_ = MPI_BYTE;
  bool large_ = false;
  int count_ = 0;
  MPI_Datatype type_ = MPI_BYTE;
  Datatype owned_;
};

// The calls haloex makes with data of any size. Each returns the MPI return
// code (callers wrap it in mpi_check or report it). With an MPI-4 library a
// large() count goes to the call's _c variant with the element count; else
// (MPI-3, or small) the int-count call gets count() and type().

/// MPI_Isend, or MPI_Issend when `synchronous`.
int large_isend(const void* buf, const LargeCount& n, int dest, int tag, MPI_Comm comm, MPI_Request* req,
                bool synchronous = false);
/// MPI_Irecv.
int large_irecv(void* buf, const LargeCount& n, int source, int tag, MPI_Comm comm, MPI_Request* req);
/// MPI_Send.
int large_send(const void* buf, const LargeCount& n, int dest, int tag, MPI_Comm comm);
/// MPI_Recv.
int large_recv(void* buf, const LargeCount& n, int source, int tag, MPI_Comm comm, MPI_Status* status);
/// MPI_Sendrecv.
int large_sendrecv(const void* sbuf, const LargeCount& sn, int dest, int stag, void* rbuf,
                   const LargeCount& rn, int source, int rtag, MPI_Comm comm, MPI_Status* status);
/// MPI_Send_init (keep `n` alive as long as the request).
int large_send_init(const void* buf, const LargeCount& n, int dest, int tag, MPI_Comm comm, MPI_Request* req);
/// MPI_Recv_init (keep `n` alive as long as the request).
int large_recv_init(void* buf, const LargeCount& n, int source, int tag, MPI_Comm comm, MPI_Request* req);
/// MPI_File_iwrite (keep `n` alive until the request completes).
int large_file_iwrite(MPI_File fh, const void* buf, const LargeCount& n, MPI_Request* req);
/// MPI_File_write.
int large_file_write(MPI_File fh, const void* buf, const LargeCount& n, MPI_Status* status);
/// MPI_File_read.
int large_file_read(MPI_File fh, void* buf, const LargeCount& n, MPI_Status* status);

}  // namespace haloex
