// The table of strategies: adding one is a new file (with its make_ function,
// listed in CMakeLists.txt), its make_ function's name in the declaration
// below and a line in the table. The names live only in this table.
#include "haloex/halo/strategy.hpp"

namespace haloex {

// The make_ functions, each defined in its strategy's file: declared here
// through one function type rather than in a header of their own.
using Make = std::unique_ptr<Strategy>(const Plan&, std::string_view name);
Make make_staged, make_staged_types, make_direct, make_direct_waitany, make_persistent, make_neighbor,
    make_shm_default, make_node_gather_default, make_sendrecv, make_irecv_send, make_isend_recv,
    make_irecv_isend, make_irecv_issend, make_red_black, make_prepost, make_auto_default;

namespace {

#ifdef HALOEX_SMPI
constexpr bool smpi_build = true;
#else
constexpr bool smpi_build = false;
#endif

// What SimGrid's SMPI (3.32) lacks, for the strategies that need it. In a
// build for SMPI they refuse with this line, as a strategy refuses a grid
// it cannot serve, so `auto` and the benchmarks skip them.
std::unique_ptr<Strategy> make_refused_by_smpi(const Plan&, std::string_view name) {
  const std::pair<std::string_view, const char*> lacks[] = {
      {"staged-types", "MPI_Type_create_subarray over an element datatype of its own (MPI_ERR_TYPE)"},
      {"neighbor", "MPI_Dist_graph_create_adjacent and MPI_Ineighbor_alltoallv (not implemented)"},
      {"shm", "shared-memory windows (MPI_Win_shared_query gives wrong addresses)"},
      {"node-gather", "shared-memory windows (MPI_Win_shared_query gives wrong addresses)"},
  };
  for (const auto& [n, what] : lacks)
    if (n == name)
      throw InputError(std::string(name) + " is not available in a build for SimGrid's SMPI: it needs " +
                       what);
  throw InputError(std::string(name) + " is not available in a build for SimGrid's SMPI");
}

// A strategy's make_ function, or the refusal in a build for SMPI.
constexpr Make* unless_smpi(Make* make) { return smpi_build ? make_refused_by_smpi : make; }

const StrategyInfo registry[] = {
    {"staged", "staged",
     "one dimension after another, 2 packed messages each (pack, Irecv, Isend, Waitall per dimension; the "
     "last "
     "dimension completes in end())",
     make_staged},
    {"staged-types", "staged-types", "as staged, with MPI subarray datatypes instead of packing",
     unless_smpi(make_staged_types)},
    {"direct", "direct",
     "all 3^d-1 neighbours at once (Irecv, pack, Isend), one message per neighbour rank; end waits, "
     "then unpacks",
     make_direct},
    {"direct-waitany", "direct", "as direct, unpacking each message as it arrives (MPI_Waitany)",
     make_direct_waitany},
    {"persistent", "direct", "as direct, with persistent requests created once", make_persistent},
    {"neighbor", "direct", "one MPI_Ineighbor_alltoallv on a distributed-graph communicator",
     unless_smpi(make_neighbor)},
    {"sendrecv", "staged", "staged, each dimension by two MPI_Sendrecv half-steps (+ then -)", make_sendrecv},
    {"irecv-send", "staged", "staged, receives pre-posted, blocking MPI_Send", make_irecv_send},
    {"isend-recv", "staged", "staged, MPI_Isend first, then blocking MPI_Recv", make_isend_recv},
    {"irecv-isend", "staged", "staged, Irecv + Isend (standard mode), Waitall per dimension",
     make_irecv_isend},
    {"irecv-issend", "staged",
     "as irecv-isend with synchronous MPI_Issend: no eager buffering in the MPI library, to see what "
     "it gains or costs",
     make_irecv_issend},
    {"red-black", "staged",
     "staged, even/odd ranks alternate blocking Send and Recv (even ranks along periodic dims)",
     make_red_black},
    {"prepost", "staged",
     "staged, the receives of every dimension pre-posted first, then Isend + Waitall per dimension",
     make_prepost},
    {"shm", "shm",
     "as direct, but node neighbours pack into a shared-memory window (MPI_Win_allocate_shared) and unpack "
     "from each other's, with no MPI call; other nodes through MPI",
     unless_smpi(make_shm_default)},
    {"node-gather", "node-gather",
     "one message per pair of nodes: the ranks of a node pack their off-node halos into one node-memory "
     "buffer, one rank per node sends and receives them; node neighbours as direct",
     unless_smpi(make_node_gather_default)},
    {"auto", "auto",
     "times every strategy above that can serve the plan (slowest rank, median) and runs the fastest",
     make_auto_default},
};

}  // namespace

std::span<const StrategyInfo> strategies() { return registry; }

}  // namespace haloex
