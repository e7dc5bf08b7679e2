// mpi_check's error path. MPI aborts on a failed call unless the
// communicator's error handler is MPI_ERRORS_RETURN (the haloex program sets
// it on MPI_COMM_WORLD, and communicators duplicated from it inherit it), so
// the test sets that handler and makes a call that MPI must refuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "haloex/core/mpi.hpp"

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// A communicator of this rank alone that returns errors instead of aborting.
haloex::Comm returning_self() {
  haloex::Comm c;
  MPI_Comm_dup(MPI_COMM_SELF, c.out());
  MPI_Comm_set_errhandler(c.get(), MPI_ERRORS_RETURN);
  return c;
}

}  // namespace

TEST(MpiCheck, SuccessPasses) { EXPECT_NO_THROW(haloex::mpi_check(MPI_SUCCESS, "MPI_Barrier")); }

TEST(MpiCheck, AFailedCallBecomesAnErrorNamingTheCallAndMpisReason) {
  const haloex::Comm self = returning_self();
  int value = 0;
  // Rank 1 does not exist in a communicator of one rank: MPI_ERR_RANK.
  const int rc = MPI_Send(&value, 1, MPI_INT, 1, 0, self.get());
  int error_class = MPI_SUCCESS;
  MPI_Error_class(rc, &error_class);
  ASSERT_EQ(error_class, MPI_ERR_RANK);
  try {
    haloex::mpi_check(rc, "MPI_Send");
    FAIL() << "mpi_check let a failed call through";
  } catch (const haloex::Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("MPI_Send failed: ", 0), 0u) << what;
    EXPECT_NE(lower(what).find("rank"), std::string::npos) << "MPI's reason is missing: " << what;
  }
}

TEST(MpiCheck, DuplicatesInheritTheErrorHandler) {
  // The library works on duplicates of the caller's communicator; an error
  // handler set by the caller must carry over, or mpi_check is unreachable.
  const haloex::Comm self = returning_self();
  haloex::Comm dup;
  MPI_Comm_dup(self.get(), dup.out());
  MPI_Errhandler h;
  MPI_Comm_get_errhandler(dup.get(), &h);
  EXPECT_EQ(h, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&h);
}
