#include "haloex/core/large_count.hpp"

#include <string>

namespace haloex {

namespace {

// n elements of elem, uncommitted and owned by the caller (see
// large_contiguous_type).
MPI_Datatype contiguous_piece(size_t n, MPI_Datatype elem, size_t limit) {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  if (n <= limit) {
    mpi_check(MPI_Type_contiguous(static_cast<int>(n), elem, &t), "MPI_Type_contiguous");
    return t;
  }
  const size_t chunks = n / limit, rest = n % limit;
  mpi_check(MPI_Type_contiguous(static_cast<int>(limit), elem, &t), "MPI_Type_contiguous");
  const Datatype chunk(t);
  // More chunks than the limit: a count of chunks is itself a large count.
  if (rest == 0) return contiguous_piece(chunks, chunk.get(), limit);
  const Datatype body(contiguous_piece(chunks, chunk.get(), limit));
  const Datatype tail(contiguous_piece(rest, elem, limit));
  MPI_Aint lb = 0, extent = 0;
  mpi_check(MPI_Type_get_extent(elem, &lb, &extent), "MPI_Type_get_extent");
  int lens[2] = {1, 1};
  MPI_Aint disp[2] = {0, static_cast<MPI_Aint>(chunks * limit) * extent};
  MPI_Datatype types[2] = {body.get(), tail.get()};
  mpi_check(MPI_Type_create_struct(2, lens, disp, types, &t), "MPI_Type_create_struct");
  return t;
}

}  // namespace

void check_count_limit(size_t limit) {
  if (limit < 2 || limit > mpi_int_count_max)
    throw Error("an MPI count limit of " + std::to_string(limit) + " is outside 2.." +
                std::to_string(mpi_int_count_max));
}

Datatype large_contiguous_type(size_t n, MPI_Datatype elem, size_t limit) {
  check_count_limit(limit);
  if (n == 0) throw Error("large_contiguous_type: a type of 0 elements was asked for");
  MPI_Datatype t = contiguous_piece(n, elem, limit);
  const int rc = MPI_Type_commit(&t);
  Datatype owned(t);
  mpi_check(rc, "MPI_Type_commit");
  return owned;
}

LargeCount::LargeCount(size_t n, MPI_Datatype elem, size_t limit) : n_(n), elem_(elem), type_(elem) {
  check_count_limit(limit);
  if (n <= limit) {
    count_ = static_cast<int>(n);
    return;
  }
  // Built with an MPI-4 library too: count() and type() then still serve
  // int-count calls that have no _c variant in use (alltoallw).
  owned_ = large_contiguous_type(n, elem, limit);
  large_ = true;
  count_ = 1;
  type_ = owned_.get();
}

#if MPI_VERSION >= 4
#define HALOEX_BIG(n) static_cast<MPI_Count>((n).elements()), (n).element()
#endif

int large_isend(const void* buf, const LargeCount& n, int dest, int tag, MPI_Comm comm, MPI_Request* req,
                bool synchronous) {
#if MPI_VERSION >= 4
  if (n.large())
    return synchronous ? MPI_Issend_c(buf, HALOEX_BIG(n), dest, tag, comm, req)
                       : MPI_Isend_c(buf, HALOEX_BIG(n), dest, tag, comm, req);
#endif
  return synchronous ? MPI_Issend(buf, n.count(), n.type(), dest, tag, comm, req)
                     : MPI_Isend(buf, n.count(), n.type(), dest, tag, comm, req);
}

int large_irecv(void* buf, const LargeCount& n, int source, int tag, MPI_Comm comm, MPI_Request* req) {
#if MPI_VERSION >= 4
  if (n.large()) return MPI_Irecv_c(buf, HALOEX_BIG(n), source, tag, comm, req);
#endif
  return MPI_Irecv(buf, n.count(), n.type(), source, tag, comm, req);
}

int large_send(const void* buf, const LargeCount& n, int dest, int tag, MPI_Comm comm) {
#if MPI_VERSION >= 4
  if (n.large()) return MPI_Send_c(buf, HALOEX_BIG(n), dest, tag, comm);
#endif
  return MPI_Send(buf, n.count(), n.type(), dest, tag, comm);
}

int large_recv(void* buf, const LargeCount& n, int source, int tag, MPI_Comm comm, MPI_Status* status) {
#if MPI_VERSION >= 4
  if (n.large()) return MPI_Recv_c(buf, HALOEX_BIG(n), source, tag, comm, status);
#endif
  return MPI_Recv(buf, n.count(), n.type(), source, tag, comm, status);
}

int large_sendrecv(const void* sbuf, const LargeCount& sn, int dest, int stag, void* rbuf,
                   const LargeCount& rn, int source, int rtag, MPI_Comm comm, MPI_Status* status) {
#if MPI_VERSION >= 4
  if (sn.large() || rn.large())
    return MPI_Sendrecv_c(sbuf, HALOEX_BIG(sn), dest, stag, rbuf, HALOEX_BIG(rn), source, rtag, comm, status);
#endif
  return MPI_Sendrecv(sbuf, sn.count(), sn.type(), dest, stag, rbuf, rn.count(), rn.type(), source, rtag,
                      comm, status);
}

int large_send_init(const void* buf, const LargeCount& n, int dest, int tag, MPI_Comm comm,
                    MPI_Request* req) {
#if MPI_VERSION >= 4
  if (n.large()) return MPI_Send_init_c(buf, HALOEX_BIG(n), dest, tag, comm, req);
#endif
  return MPI_Send_init(buf, n.count(), n.type(), dest, tag, comm, req);
}

int large_recv_init(void* buf, const LargeCount& n, int source, int tag, MPI_Comm comm, MPI_Request* req) {
#if MPI_VERSION >= 4
  if (n.large()) return MPI_Recv_init_c(buf, HALOEX_BIG(n), source, tag, comm, req);
#endif
  return MPI_Recv_init(buf, n.count(), n.type(), source, tag, comm, req);
}

int large_file_iwrite(MPI_File fh, const void* buf, const LargeCount& n, MPI_Request* req) {
#if MPI_VERSION >= 4
  if (n.large()) return MPI_File_iwrite_c(fh, buf, HALOEX_BIG(n), req);
#endif
  return MPI_File_iwrite(fh, buf, n.count(), n.type(), req);
}

int large_file_write(MPI_File fh, const void* buf, const LargeCount& n, MPI_Status* status) {
#if MPI_VERSION >= 4
  if (n.large()) return MPI_File_write_c(fh, buf, HALOEX_BIG(n), status);
#endif
  return MPI_File_write(fh, buf, n.count(), n.type(), status);
}

int large_file_read(MPI_File fh, void* buf, const LargeCount& n, MPI_Status* status) {
#if MPI_VERSION >= 4
  if (n.large()) return MPI_File_read_c(fh, buf, HALOEX_BIG(n), status);
#endif
  return MPI_File_read(fh, buf, n.count(), n.type(), status);
}

}  // namespace haloex
