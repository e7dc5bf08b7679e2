#include "haloex/core/mpi.hpp"

#include <limits>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <thread>

namespace haloex {

void set_mpi_environment() {
#ifdef OPEN_MPI
  // (Open MPI's alone: under another MPI the variable would only be recorded
  // as a setting of that MPI's runs.)
  setenv("OMPI_MCA_sharedfp", "^sm", /*overwrite=*/0);
#endif
}

std::string mpi_error_string(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return std::string(text, static_cast<size_t>(len));
}

void mpi_check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw Error(std::string(what) + " failed: " + mpi_error_string(rc));
}

void Comm::reset() {
  if (comm_ != MPI_COMM_NULL && comm_ != MPI_COMM_WORLD && comm_ != MPI_COMM_SELF) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
  comm_ = MPI_COMM_NULL;
}

void Datatype::reset() {
  if (type_ != MPI_DATATYPE_NULL) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Type_free(&type_);
  }
  type_ = MPI_DATATYPE_NULL;
}

PersistentRequests::~PersistentRequests() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  for (auto& r : reqs_)
    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
}

int comm_size(MPI_Comm c) {
  int n = 0;
  mpi_check(MPI_Comm_size(c, &n), "MPI_Comm_size");
  return n;
}

Comm node_comm(MPI_Comm comm) {
  Comm node;
  mpi_check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, comm_rank(comm), MPI_INFO_NULL, node.out()),
            "MPI_Comm_split_type");
  return node;
}

int comm_rank(MPI_Comm c) {
  int r = 0;
  mpi_check(MPI_Comm_rank(c, &r), "MPI_Comm_rank");
  return r;
}

Op::Op(MPI_User_function* fn, bool commutative) {
  mpi_check(MPI_Op_create(fn, commutative ? 1 : 0, &op_), "MPI_Op_create");
}

Op::~Op() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (op_ != MPI_OP_NULL && !finalized) MPI_Op_free(&op_);
}

void wait_politely(MPI_Request& req) {
  for (int done = 0;;) {
    mpi_check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

double max_over(MPI_Comm comm, double x) {
  double m = 0;
  mpi_check(MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  return m;
}

double sum_over(MPI_Comm comm, double x) {
  double s = 0;
  mpi_check(MPI_Allreduce(&x, &s, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
  return s;
}

double mean_over(MPI_Comm comm, double x) { return sum_over(comm, x) / comm_size(comm); }

void throw_if_any(MPI_Comm comm, const std::string& error) {
  int me = error.empty() ? INT_MAX : comm_rank(comm), first = INT_MAX;
  mpi_check(MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == INT_MAX) return;
  int len = static_cast<int>(error.size());
  mpi_check(MPI_Bcast(&len, 1, MPI_INT, first, comm), "MPI_Bcast");
  std::string text = error;
  text.resize(static_cast<size_t>(len));
  mpi_check(MPI_Bcast(text.data(), len, MPI_CHAR, first, comm), "MPI_Bcast");
  throw InputError(text);
}

}  // namespace haloex
